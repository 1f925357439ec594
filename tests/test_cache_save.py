"""Saving an index aside: a large bank's index is written by a forked child while the command answers.

Real processes and real files: the command's answer comes out before its index is in place and the command
exits only once it is; a process starting meanwhile waits for the file and reads it; a child killed
mid-save leaves no partial file and no zombie, and is told in one line by the command and by the next
start, which rebuilds; Ctrl-C while saving stops the save cleanly. ``FORK_SAVE_FROM`` is lowered in the
processes under test so that the small fixture panel is saved the way a 10,000-quote bank is."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from panelbot.retrieval import cache
from panelbot.retrieval.router import Router

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="saving aside forks (Linux only)"
)

LIBRARY = Path(__file__).resolve().parent / "fixtures" / "library"
QUESTION = "Do bees need water in a small garden?"

# ``panelbot ask`` with every save forked; TEST_GATE holds the child after its first write (a partial
# temporary file on disk) until that file exists; the child's pid goes to TEST_PID_FILE; at the very end
# (after panelbot's own exit handler) the process says whether its child is still its child (a zombie).
FORKING_ASK = textwrap.dedent("""
    import atexit, os, sys, time
    from pathlib import Path

    pid_file = Path(os.environ["TEST_PID_FILE"])

    def reaped():
        if pid_file.exists():
            try:
                status = Path(f"/proc/{pid_file.read_text()}/status").read_text()
            except FileNotFoundError:
                status = ""
            mine = f"PPid:\\t{os.getpid()}\\n" in status
            sys.stderr.write("test: child left behind\\n" if mine else "test: child reaped\\n")

    atexit.register(reaped)  # first registered, last run

    from panelbot.retrieval import cache

    cache.FORK_SAVE_FROM = 0
    gate = os.environ.get("TEST_GATE")
    if gate:
        write = cache._Payload.write

        def held(self, data):
            write(self, data)
            while not os.path.exists(gate):
                time.sleep(0.01)

        cache._Payload.write = held
    save = cache.save

    def forked_save(path, *args):
        save(path, *args)
        pid_file.write_text(str(cache._saving[path].pid))  # KeyError: it was not forked

    cache.save = forked_save
    from panelbot.cli import main

    raise SystemExit(main(sys.argv[1:]))
""")

# open the panel (as a start does) and say where it came from; "test: locking" once it waits for the lock
OPENER = textwrap.dedent("""
    import sys
    from contextlib import contextmanager
    from pathlib import Path
    from panelbot.retrieval import cache

    lock = cache._build_lock

    @contextmanager
    def announced(path):
        sys.stderr.write("test: locking\\n")
        sys.stderr.flush()
        with lock(path) as held:
            yield held

    cache._build_lock = announced
    opened = cache.open_indexed(Path(sys.argv[1]))
    print(opened.source, opened.note or "")
""")


@pytest.fixture
def cache_dir(cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The test's own cache directory (conftest), saves forked as outside the app: other tests of this process
    may have loaded Textual."""
    monkeypatch.setattr(cache, "_in_app", lambda: False)
    return cache_dir


def _files(cache_dir: Path, pattern: str = "*.pbidx") -> list[Path]:
    return sorted((cache_dir / "index").glob(pattern))


def _until(condition, what: str, timeout: float = 60.0) -> None:
    """Wait (polling) until ``condition()``; fail after ``timeout`` seconds (a hang, not a timing check)."""
    end = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > end:
            raise AssertionError(f"gave up waiting: {what}")
        time.sleep(0.01)


def _line(stream, what: str, timeout: float = 60.0) -> str:
    """The next line of a child's output; fail (not hang) when none comes within ``timeout`` seconds."""
    import select

    if not select.select([stream], [], [], timeout)[0]:
        raise AssertionError(f"gave up waiting: {what}")
    return stream.readline()


class Forking:
    """``panelbot ask`` (FORKING_ASK) in a real process, its save held at the gate if asked."""

    def __init__(
        self,
        panel_dir: Path,
        cache_dir: Path,
        env: dict[str, str],
        tmp_path: Path,
        *,
        gated: bool = False,
        session: bool = False,
    ) -> None:
        self.pid_file, self.gate = tmp_path / "child.pid", tmp_path / "gate"
        extra = {"PANELBOT_CACHE_DIR": str(cache_dir), "TEST_PID_FILE": str(self.pid_file)}
        if gated:
            extra["TEST_GATE"] = str(self.gate)
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-c",
                FORKING_ASK,
                "ask",
                "--json",
                "--no-log",
                "--panel",
                str(panel_dir),
                QUESTION,
            ],
            env={**env, **extra},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=session,
        )

    def child(self) -> int:
        _until(lambda: self.pid_file.exists() and self.pid_file.read_text(), "the save's child")
        return int(self.pid_file.read_text())

    def finish(self) -> tuple[int, str, str]:
        out, err = self.proc.communicate(timeout=120)
        return self.proc.returncode, out, err


def _sound(panel_dir: Path, cache_dir: Path) -> cache.Opened:
    (path,) = _files(cache_dir)
    assert _files(cache_dir, "*.tmp") == []
    opened = cache.read_index(path, cache.cache_key(panel_dir), panel_dir)
    assert opened is not None
    return opened


# ------------------------------------------------------------------------------------------- in process


def test_a_forked_save_writes_the_same_file_as_one_in_process(
    cache_dir: Path, panel_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The child's file is complete: its payload is byte for byte the one saved in process, and it reads
    back as the same panel and answers alike."""
    monkeypatch.setattr(cache, "FORK_SAVE_FROM", 0)
    built = cache.open_indexed(panel_dir)
    assert built.source == "built" and built.note is None
    (path,) = cache.saves_under_way()
    assert cache.finish_saves() == [] and cache.saves_under_way() == []
    forked = path.read_bytes()
    inline = path.with_name("inline.pbidx")
    cache.write_index(
        inline, cache.cache_key(panel_dir), built.panel, built.index.norm, built.index
    )

    def payload(data: bytes) -> bytes:
        header, start = cache.read_header(data)
        return data[start:]

    assert payload(forked) == payload(inline.read_bytes())
    inline.unlink()
    opened = _sound(panel_dir, cache_dir)
    assert list(opened.panel.quotes) == list(built.panel.quotes)
    a, b = Router(built.panel, index=built.index), Router(opened.panel, index=opened.index)
    for q in (QUESTION, "compost heap", "tomatoes split", "best pizza in Naples?"):
        assert a.route(q).to_dict() == b.route(q).to_dict()
    assert cache.open_indexed(panel_dir).source == "cache"


def test_several_saves_at_once(
    cache_dir: Path, panel_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two panels opened one after the other (as ``--all`` does): two children save at once, each file
    is sound; opening a panel whose save is under way waits for it and reads the file."""
    import shutil

    monkeypatch.setattr(cache, "FORK_SAVE_FROM", 0)
    other = tmp_path / "panels" / "storage"
    shutil.copytree(LIBRARY / "storage", other)
    assert cache.open_indexed(panel_dir).source == "built"
    assert cache.open_indexed(other).source == "built"
    assert sorted(cache.saves_under_way()) == sorted(
        [cache.cache_path(panel_dir), cache.cache_path(other)]
    )
    again = cache.open_indexed(panel_dir)
    assert again.source == "cache" and again.note is None
    assert cache.saves_under_way() == [cache.cache_path(other)]
    assert cache.finish_saves() == [] and len(_files(cache_dir)) == 2
    assert cache.open_indexed(other).source == "cache"


def test_small_banks_and_threads_save_in_process(
    cache_dir: Path, panel_dir: Path, shipped_panel, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No fork for a bank under FORK_SAVE_FROM (the shipped panel), nor in the app (Textual loaded), nor
    with another thread running (a fork copies one thread only): the file is in place when open_indexed
    returns."""
    assert len(shipped_panel.quotes) < cache.FORK_SAVE_FROM
    assert cache.open_indexed(shipped_panel.path).source == "built"
    assert cache.saves_under_way() == [] and len(_files(cache_dir)) == 1

    monkeypatch.undo()  # the real _in_app (the fixture replaced it), and Textual loaded: the app's case
    monkeypatch.setenv("PANELBOT_CACHE_DIR", str(cache_dir))
    monkeypatch.setattr(cache, "FORK_SAVE_FROM", 0)
    import textual  # noqa: F401

    assert cache.open_indexed(panel_dir).source == "built"
    assert cache.saves_under_way() == [] and len(_files(cache_dir)) == 2
    (path,) = [p for p in _files(cache_dir) if p.name.startswith("gardens")]
    path.unlink()

    monkeypatch.setattr(cache, "_in_app", lambda: False)
    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        assert cache.open_indexed(panel_dir).source == "built"
        assert cache.saves_under_way() == []
    finally:
        release.set()
        other.join()
    assert len(_files(cache_dir)) == 2 and cache.open_indexed(panel_dir).source == "cache"


# ------------------------------------------------------------------------------------------- real processes


def test_the_answer_comes_before_the_save_and_a_second_start_waits_for_it(
    panel_dir: Path, tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    cache_dir = tmp_path / "race-cache"
    ask = Forking(panel_dir, cache_dir, isolated_env, tmp_path, gated=True)
    ask.child()
    first = _line(ask.proc.stdout, "the answer")  # out while the child is held mid-save
    assert first and ask.proc.poll() is None
    assert _files(cache_dir) == [] and len(_files(cache_dir, "*.tmp")) == 1

    env = {**isolated_env, "PANELBOT_CACHE_DIR": str(cache_dir)}
    other = subprocess.Popen(
        [sys.executable, "-c", OPENER, str(panel_dir)],
        env=env,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert (
        _line(other.stderr, "the lock") == "test: locking\n"
    )  # no file yet: it waits for the lock
    assert other.poll() is None and _files(cache_dir) == []
    ask.gate.touch()
    out, err = other.communicate(timeout=120)
    assert (other.returncode, out.strip(), err) == (0, "cache", "")  # it read what the child wrote

    code, rest, err = ask.finish()
    assert code == 0 and json.loads(first + rest)["speakers"] == ["ivy"]
    assert err == "test: child reaped\n"
    _sound(panel_dir, cache_dir)


def test_the_command_returns_with_its_index_saved(
    panel_dir: Path, tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    cache_dir = tmp_path / "cli-cache"
    ask = Forking(panel_dir, cache_dir, isolated_env, tmp_path)
    code, out, err = ask.finish()
    assert code == 0 and json.loads(out)["speakers"] == ["ivy"]
    assert err == "test: child reaped\n"
    opened = _sound(panel_dir, cache_dir)
    assert len(opened.panel.quotes) == 6


def test_a_child_killed_mid_save_leaves_nothing_and_says_so(
    run_cli, panel_dir: Path, tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    cache_dir = tmp_path / "kill-cache"
    ask = Forking(panel_dir, cache_dir, isolated_env, tmp_path, gated=True)
    child = ask.child()
    _until(lambda: _files(cache_dir, "*.tmp"), "the temporary file")
    os.kill(child, signal.SIGKILL)
    code, out, err = ask.finish()
    assert code == 0 and json.loads(out)["speakers"] == ["ivy"]  # the answer stands
    assert err.splitlines() == [
        "panelbot: note: the index of panel 'gardens' was not saved (its saving process was killed by "
        "signal 9); it is rebuilt at the next start",
        "test: child reaped",
    ]
    assert _files(cache_dir) == []
    (left,) = _files(cache_dir, "*.tmp")  # emptied: nothing partial is kept, the next start is told
    assert left.stat().st_size == 0

    again = run_cli(
        "ask",
        "--json",
        "--no-log",
        "--panel",
        str(panel_dir),
        QUESTION,
        env={"PANELBOT_CACHE_DIR": str(cache_dir)},
    )
    assert again.returncode == 0 and again.stdout == out
    assert again.stderr.splitlines() == [
        "panelbot: note: the last save of the index of panel 'gardens' did not finish; rebuilt it"
    ]
    _sound(panel_dir, cache_dir)


def test_a_save_killed_with_its_command_is_found_by_the_next_start(
    run_cli, panel_dir: Path, tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    """Killed together (kill -9 of the process group): the temporary file stays behind; the next start
    removes it, rebuilds, and says so in one line."""
    cache_dir = tmp_path / "group-cache"
    ask = Forking(panel_dir, cache_dir, isolated_env, tmp_path, gated=True, session=True)
    child = ask.child()
    _until(lambda: _files(cache_dir, "*.tmp"), "the temporary file")
    os.killpg(ask.proc.pid, signal.SIGKILL)
    ask.finish()
    _until(lambda: not Path(f"/proc/{child}").exists(), "the killed child to be gone")
    assert _files(cache_dir) == [] and len(_files(cache_dir, "*.tmp")) == 1

    r = run_cli(
        "ask",
        "--json",
        "--no-log",
        "--panel",
        str(panel_dir),
        QUESTION,
        env={"PANELBOT_CACHE_DIR": str(cache_dir)},
    )
    assert r.returncode == 0 and json.loads(r.stdout)["speakers"] == ["ivy"]
    assert r.stderr.splitlines() == [
        "panelbot: note: the last save of the index of panel 'gardens' did not finish; rebuilt it"
    ]
    _sound(panel_dir, cache_dir)
    r = run_cli(
        "ask",
        "--json",
        "--no-log",
        "--panel",
        str(panel_dir),
        QUESTION,
        env={"PANELBOT_CACHE_DIR": str(cache_dir)},
    )
    assert r.returncode == 0 and r.stderr == ""


def test_ctrl_c_while_saving_stops_the_save_cleanly(
    panel_dir: Path, tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    """Ctrl-C (SIGINT to the process group, as a terminal sends it) once the answer is out: the save stops,
    its temporary file is removed, the child is reaped, one note and no traceback."""
    cache_dir = tmp_path / "int-cache"
    ask = Forking(panel_dir, cache_dir, isolated_env, tmp_path, gated=True, session=True)
    ask.child()
    assert _line(ask.proc.stdout, "the answer")  # out; the command waits for its save
    wchan = Path(
        f"/proc/{ask.proc.pid}/wchan"
    )  # where the kernel has it wait: do_wait = in waitpid
    try:
        _until(
            lambda: wchan.read_text() == "do_wait", "the command to wait for its child", timeout=30
        )
    except (AssertionError, OSError):
        ask.gate.touch()
        ask.finish()
        pytest.skip("this kernel does not say where a process waits (/proc/PID/wchan)")
    os.killpg(ask.proc.pid, signal.SIGINT)
    code, _, err = ask.finish()
    assert "Traceback" not in err and code in (0, 130)
    lines = err.splitlines()
    assert lines[-1] == "test: child reaped"
    assert len(lines) == 2 and lines[0] in (
        "panelbot: note: the index of panel 'gardens' was not saved (interrupted); it is rebuilt at the next start",
        "panelbot: note: the index of panel 'gardens' was not saved (its saving process was stopped); "
        "it is rebuilt at the next start",
    )
    assert _files(cache_dir) == [] and _files(cache_dir, "*.tmp") == []


def test_a_failed_save_in_the_child_gives_the_usual_note(
    cache_dir: Path, panel_dir: Path, tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    """The child cannot put the file in place (a directory is in the way): the command answers, then says
    so as a failed save in process does; no temporary file is left."""
    blocked = cache.cache_path(panel_dir)
    blocked.mkdir(parents=True)
    (blocked / "occupied").write_text("x")
    ask = Forking(panel_dir, cache_dir, isolated_env, tmp_path)
    code, out, err = ask.finish()
    assert code == 0 and json.loads(out)["speakers"] == ["ivy"]
    lines = err.splitlines()
    assert len(lines) == 3 and lines[0].startswith(
        "panelbot: note: the saved index of panel 'gardens' was "
    )
    assert lines[1:] == [
        "panelbot: note: could not save the index of panel 'gardens' (Is a directory); "
        "it is rebuilt at every start",
        "test: child reaped",
    ]
    assert _files(cache_dir, "*.tmp") == []
