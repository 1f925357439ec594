"""Fault injection, round two (issue 20): ids too large for SQLite, version fields that are not numbers,
FIFOs where panelbot's own files belong, alias bombs in a config, read-only and full history disks.

Each case ends in one clear line (exit 2) or carries on; nothing hangs, nothing a person had is lost.
Cases that could hang run in a subprocess under a generous timeout: a hang is a failure, never a stuck run.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from panelbot.conversation.store import ConversationStore

TOO_BIG = str(2**63)  # one more than SQLite's largest INTEGER
HANG_BUDGET = 60  # seconds; these commands take well under one


def one_error_line(proc: subprocess.CompletedProcess) -> str:
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr
    assert proc.stderr.startswith("panelbot") and " error: " in proc.stderr
    return proc.stderr


def run_panelbot(env: dict[str, str], *args: str, cwd: Path) -> subprocess.CompletedProcess:
    """The CLI in a subprocess; a hang fails the test (after HANG_BUDGET seconds) instead of stalling."""
    try:
        return subprocess.run(
            [sys.executable, "-m", "panelbot", *args],
            capture_output=True,
            text=True,
            encoding="utf-8",
            cwd=str(cwd),
            env=env,
            timeout=HANG_BUDGET,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"panelbot {' '.join(args)} hung")


# ------------------------------------------------------------------------ class 6: ids and versions


@pytest.mark.parametrize(
    "args",
    [
        ("ask", "--offline", "--cid", TOO_BIG, "what about GPUs"),
        ("history", "show", TOO_BIG),
        ("history", "rm", TOO_BIG),
        ("history", "rename", TOO_BIG, "new title"),
        ("--resume", TOO_BIG),
        ("history", "show", "9" * 5000),  # beyond int()'s digit limit too
    ],
    ids=["ask-cid", "show", "rm", "rename", "resume", "5000-digits"],
)
def test_an_id_beyond_sqlite_is_one_line(run_cli, args) -> None:  # noqa: ANN001
    with ConversationStore(Path(os.environ["PANELBOT_DATA_DIR"]) / "history.sqlite3") as store:
        store.new_conversation("minimax-m3", "kept")
    err = one_error_line(run_cli(*args))
    assert "ids go up to 9223372036854775807" in err or "conversation id" in err
    assert len(err) < 200  # the 5,000 digits are not echoed back


def test_the_largest_id_is_still_an_id(run_cli) -> None:  # noqa: ANN001
    proc = run_cli("history", "show", str(2**63 - 1))
    assert "Traceback" not in proc.stderr and "no conversation" in proc.stderr.lower(), proc.stderr


def _history_with_version(version: object) -> Path:
    path = Path(os.environ["PANELBOT_DATA_DIR"]) / "history.sqlite3"
    with ConversationStore(path) as store:
        store.new_conversation("minimax-m3", "kept")
    with sqlite3.connect(path) as db:
        db.execute("UPDATE schema_version SET version = ?", (version,))
    db.close()
    return path


@pytest.mark.parametrize("version", ["abc", "3.5x", b"\x00\x01", -1])
def test_a_history_schema_version_that_is_no_number_is_one_line(run_cli, version) -> None:  # noqa: ANN001
    path = _history_with_version(version)
    err = one_error_line(run_cli("history"))
    assert "schema version" in err and "move it aside" in err
    assert path.stat().st_size > 0  # nothing destroyed: the user decides


def test_a_history_schema_version_written_as_text_digits_still_opens(run_cli) -> None:  # noqa: ANN001
    _history_with_version("3")
    proc = run_cli("history")
    assert proc.returncode == 0 and "kept" in proc.stdout, proc.stderr


def test_a_panel_format_that_is_no_number_is_one_line(run_cli, panel_dir: Path) -> None:  # noqa: ANN001
    meta = panel_dir / "panel.yaml"
    text = meta.read_text(encoding="utf-8")
    kept = [line for line in text.splitlines() if not line.startswith("format:")]
    meta.write_text("format: 'abc'\n" + "\n".join(kept) + "\n", encoding="utf-8")
    err = one_error_line(run_cli("quote", "--panel", str(panel_dir), "soil"))
    assert "unsupported format 'abc'" in err


def test_a_config_format_field_is_one_line(run_cli, tmp_path: Path) -> None:  # noqa: ANN001
    cfg = tmp_path / "c.yaml"
    cfg.write_text("schema_version: 'abc'\nformat: [1]\n", encoding="utf-8")
    err = one_error_line(run_cli("--config", str(cfg), "quote", "gpu"))
    assert "unknown section" in err


# ------------------------------------------------------------------------ class 3: FIFOs, alias bombs


def _env_with_cache(isolated_env: dict[str, str], cache: Path) -> dict[str, str]:
    return {**isolated_env, "PANELBOT_CACHE_DIR": str(cache)}


def _fifo(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    os.mkfifo(path)


@pytest.mark.parametrize("where", ["index", "record"])
def test_a_fifo_where_the_saved_index_belongs_never_hangs(
    isolated_env: dict[str, str],
    cache_dir: Path,
    panel_dir: Path,
    tmp_path: Path,
    where: str,
) -> None:
    from panelbot.retrieval.cache import FILES_SUFFIX, cache_path

    env = _env_with_cache(isolated_env, cache_dir)
    path = cache_path(panel_dir)
    _fifo(path if where == "index" else path.with_suffix(FILES_SUFFIX))
    for _ in range(2):  # the start that meets the FIFO, and the one after it
        proc = run_panelbot(env, "quote", "--panel", str(panel_dir), "soil", cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
        assert "[" in proc.stdout  # quotes with their ids
    if where == "index":  # replaced by a real saved index
        assert path.is_file()
    info = run_panelbot(env, "cache", "info", cwd=tmp_path)  # lists it, never opens a FIFO
    assert info.returncode == 0 and "Traceback" not in info.stderr, info.stderr


def test_a_fifo_among_saved_indexes_does_not_hang_cache_info(
    isolated_env: dict[str, str], cache_dir: Path, tmp_path: Path
) -> None:
    from panelbot import paths

    env = _env_with_cache(isolated_env, cache_dir)
    _fifo(paths.index_cache_dir() / "junk-0123456789abcdef.idx")
    assert paths.index_cache_dir().joinpath("junk-0123456789abcdef.idx").exists()
    proc = run_panelbot(env, "cache", "info", cwd=tmp_path)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr


def _quote_with_config(
    env: dict[str, str], cache: Path, tmp_path: Path, text: str, *, fifo_record: bool = False
) -> subprocess.CompletedProcess:
    """``panelbot --config FILE quote gpu`` with FILE holding ``text`` (and optionally a FIFO where its
    remembered parse belongs)."""
    from panelbot.panel.yaml_lines import _remembered_at

    cfg = tmp_path / "panelbot.yaml"
    cfg.write_text(text, encoding="utf-8")
    if fifo_record:
        _fifo(_remembered_at(cfg))
    env = _env_with_cache(env, cache)
    return run_panelbot(env, "--config", str(cfg), "quote", "gpu", cwd=tmp_path)


def test_a_fifo_where_a_remembered_config_parse_belongs_never_hangs(
    isolated_env: dict[str, str], cache_dir: Path, tmp_path: Path
) -> None:
    text = "retrieval:\n  top_k: 3\n"
    proc = _quote_with_config(isolated_env, cache_dir, tmp_path, text, fifo_record=True)
    assert proc.returncode == 0, proc.stderr


def test_a_config_that_is_a_fifo_is_one_line(isolated_env: dict[str, str], tmp_path: Path) -> None:
    cfg = tmp_path / "panelbot.yaml"
    _fifo(cfg)
    err = one_error_line(
        run_panelbot(isolated_env, "--config", str(cfg), "quote", "gpu", cwd=tmp_path)
    )
    assert "not a regular file" in err


def _alias_bomb(levels: int = 12) -> str:
    lines = ['a0: &a0 ["x", "x", "x", "x", "x", "x", "x", "x", "x", "x"]']
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, levels)]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("nest", [False, True], ids=["top", "inside-a-section"])
def test_an_alias_bomb_in_a_config_is_one_line(
    isolated_env: dict[str, str], cache_dir: Path, tmp_path: Path, nest: bool
) -> None:
    text = _alias_bomb()
    if nest:
        text = "retrieval:\n" + "".join(f"  {line}\n" for line in text.splitlines())
    err = one_error_line(_quote_with_config(isolated_env, cache_dir, tmp_path, text))
    assert "alias" in err


def test_a_self_referencing_config_is_one_line(
    isolated_env: dict[str, str], cache_dir: Path, tmp_path: Path
) -> None:
    text = "retrieval: &r\n  again: *r\n"
    one_error_line(_quote_with_config(isolated_env, cache_dir, tmp_path, text))


def test_expanded_size_counts_shared_values_at_each_parent() -> None:
    from panelbot.panel.yaml_lines import expanded_size

    leaf = ["x"] * 10
    assert expanded_size(leaf, 1000) == 11
    assert expanded_size({"a": leaf, "b": leaf}, 1000) == 1 + 2 * 11
    bomb: list = ["x"] * 10
    for _ in range(12):
        bomb = [bomb] * 10
    assert expanded_size(bomb, 100_000) == 100_001


# ------------------------------------------------------------------------ class 7: read-only and full disks


def _can_mount_tmpfs() -> bool:
    """A private mount namespace (``unshare -rm``: no real root needed) in which a tmpfs can be mounted."""
    if not shutil.which("unshare") or sys.platform != "linux":
        return False
    probe = subprocess.run(
        ["unshare", "-rm", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt || exit 1"],
        capture_output=True,
    )
    return probe.returncode == 0


needs_tmpfs = pytest.mark.skipif(not _can_mount_tmpfs(), reason="cannot mount a tmpfs here")


def _on_a_small_tmpfs(env: dict[str, str], data: Path, script: str) -> subprocess.CompletedProcess:
    """Run ``script`` (sh) in a private mount namespace with a 256 KB tmpfs at ``data``; $PB is panelbot."""
    data.mkdir(parents=True, exist_ok=True)
    pb = f"{sys.executable} -m panelbot"
    full = f"mount -t tmpfs -o size=256k tmpfs {data} || exit 99\nPB='{pb}'\n{script}"
    try:
        return subprocess.run(
            ["unshare", "-rm", "sh", "-c", full],
            capture_output=True,
            text=True,
            encoding="utf-8",
            env={**env, "PANELBOT_DATA_DIR": str(data)},
            timeout=HANG_BUDGET * 2,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        pytest.fail("hung")


@needs_tmpfs
def test_a_read_only_history_can_still_be_listed_and_shown(
    isolated_env: dict[str, str], tmp_path: Path
) -> None:
    data = tmp_path / "ro"
    proc = _on_a_small_tmpfs(
        isolated_env,
        data,
        '$PB ask --offline "what about GPUs" > /dev/null || exit 98\n'
        f"mount -o remount,ro {data} || exit 97\n"
        "echo ==list; $PB history; echo rc=$?\n"
        "echo ==show; $PB history show 1; echo rc=$?\n"
        "echo ==rm; $PB history rm 1; echo rc=$?\n",
    )
    assert proc.returncode == 0, (proc.stdout, proc.stderr)
    listing, show, rm = proc.stdout.split("==")[1:]
    assert "what about GPUs" in listing and "rc=0" in listing, proc.stderr
    assert "what about GPUs" in show and "rc=0" in show, proc.stderr
    assert "rc=2" in rm and "Traceback" not in proc.stderr  # a write: one line


@needs_tmpfs
@pytest.mark.parametrize("chained", [False, True], ids=["new", "continued"])
def test_on_a_full_disk_ask_shows_the_answer_then_says_it_was_not_saved(
    isolated_env: dict[str, str], tmp_path: Path, chained: bool
) -> None:
    data = tmp_path / "full"
    flag = "-c " if chained else ""
    proc = _on_a_small_tmpfs(
        isolated_env,
        data,
        '$PB ask --offline "what about GPUs" > /dev/null || exit 98\n'
        f"dd if=/dev/zero of={data}/fill bs=4k 2>/dev/null\n"
        f'$PB ask --offline {flag}"and the inference costs of training at scale, in detail"\n',
    )
    assert proc.returncode == 0, (proc.stdout, proc.stderr)
    assert "[dan-" in proc.stdout or "[olive-" in proc.stdout  # the answer, with its quote ids
    assert "Traceback" not in proc.stderr
    warning = [line for line in proc.stderr.splitlines() if "not saved" in line]
    assert len(warning) == 1 and warning[0].startswith("panelbot: warning: "), proc.stderr
    assert "readonly" not in warning[0]  # why it could not be written, not a symptom of that


@needs_tmpfs
@pytest.mark.parametrize("mode", ["offline", "json"])
def test_on_a_full_disk_the_first_ask_with_no_history_yet_answers_then_says_it_was_not_saved(
    isolated_env: dict[str, str], tmp_path: Path, mode: str
) -> None:
    """No history database yet, and no room to create one: the answer all the same, then one line."""
    data = tmp_path / "full"
    flag = "--json " if mode == "json" else ""
    proc = _on_a_small_tmpfs(
        isolated_env,
        data,
        f"dd if=/dev/zero of={data}/fill bs=4k 2>/dev/null\n"
        f'$PB ask --offline {flag}"and the inference costs of training at scale, in detail"\n'
        "echo rc=$?\n",
    )
    assert "rc=0" in proc.stdout, (proc.stdout, proc.stderr)
    assert "[dan-" in proc.stdout or "[olive-" in proc.stdout or '"id": "' in proc.stdout
    assert "Traceback" not in proc.stderr and "error" not in proc.stderr, proc.stderr
    warning = [line for line in proc.stderr.splitlines() if "not saved" in line]
    assert len(warning) == 1 and warning[0].startswith("panelbot: warning: "), proc.stderr
    assert "full" in warning[0], warning  # says why: the disk is full


@needs_tmpfs
def test_on_a_full_disk_a_model_answer_keeps_its_verdict_then_says_it_was_not_saved(
    isolated_env: dict[str, str], tmp_path: Path, fake_model_server: Any
) -> None:
    fake_model_server.state.answer = "Long contexts are hard to serve [dan-21]."
    llm = f"--llm --base-url {fake_model_server.url('escapes')} --model m --to dan"
    data = tmp_path / "full"
    proc = _on_a_small_tmpfs(
        isolated_env,
        data,
        '$PB ask --offline "what about GPUs" > /dev/null || exit 98\n'
        f"dd if=/dev/zero of={data}/fill bs=4k 2>/dev/null\n"
        f'$PB ask {llm} -c "and the inference costs of training at scale, in detail"\n',
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    assert "Long contexts" in proc.stdout and "grounded" in proc.stdout.lower(), proc.stdout
    warning = [line for line in proc.stderr.splitlines() if "not saved" in line]
    assert len(warning) == 1 and proc.stderr.rstrip().endswith(warning[0]), proc.stderr
    assert proc.returncode in (0, 3), (
        proc.stderr
    )  # 3: answered from the quotes after a model failure
