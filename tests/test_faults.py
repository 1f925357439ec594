"""Fault injection without a network: damaged history databases, impossible paths (that fail even as
root), special files as export targets, hostile config and YAML, oversized and undecodable input.

Each case ends in one clear line (exit 2) or carries on; nothing a person had is destroyed.
"""

from __future__ import annotations

import os
import socket
import sqlite3
import stat
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from panelbot.config import DEFAULT_KEYS, Config, is_key_name, load_config
from panelbot.conversation.export import NotARegularFile, write_export
from panelbot.conversation.store import ConversationStore, StoreError
from panelbot.errors import ConfigError, DataError, PanelNotFound
from panelbot.panel import load_panel
from panelbot.panel.yaml_lines import load_yaml
from panelbot.text import MAX_QUESTION_CHARS

# A path that cannot be created by anyone, root included: its parent is a regular file.
UNDER_A_FILE = "/etc/hostname/x" if Path("/etc/hostname").is_file() else "/proc/version/x"


def one_error_line(proc) -> str:  # noqa: ANN001
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr
    assert proc.stderr.startswith("panelbot: error: ")
    return proc.stderr


# ------------------------------------------------------------------------------------------ history


def _history(tmp_path: Path) -> Path:
    path = tmp_path / "data" / "history.sqlite3"
    path.parent.mkdir(parents=True, exist_ok=True)
    with ConversationStore(path) as store:
        for i in range(40):
            cid = store.new_conversation("minimax-m3", f"question {i}")
            store.add_message(cid, "user", "", "x" * 2000)
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    return path


def _damage_page(path: Path, table: str = "conversations") -> None:
    """Overwrite the table's root page with junk (the header stays intact): a damaged page, as after a
    bad disk or a torn write."""
    with sqlite3.connect(path) as db:
        (root,) = db.execute(
            "SELECT rootpage FROM sqlite_master WHERE name = ?", (table,)
        ).fetchone()
        (page,) = db.execute("PRAGMA page_size").fetchone()
    db.close()
    data = bytearray(path.read_bytes())
    start = (root - 1) * page
    data[start : start + page] = b"\xa5" * page
    path.write_bytes(bytes(data))


def test_history_on_a_damaged_page_is_one_line(tmp_path: Path, run_cli) -> None:  # noqa: ANN001
    path = _history(tmp_path)
    _damage_page(path)
    err = one_error_line(run_cli("history", env={"PANELBOT_DATA_DIR": str(path.parent)}))
    assert str(path) in err and "damaged" in err


def test_history_with_a_missing_table_is_one_line(tmp_path: Path, run_cli) -> None:  # noqa: ANN001
    path = _history(tmp_path)
    with sqlite3.connect(path) as db:
        db.execute("DROP TABLE messages")
    err = one_error_line(run_cli("history", env={"PANELBOT_DATA_DIR": str(path.parent)}))
    assert "no such table: messages" in err
    with ConversationStore(path) as store, pytest.raises(StoreError, match="damaged"):
        store.messages(1)


def test_history_that_is_not_a_database_is_one_line(tmp_path: Path, run_cli) -> None:  # noqa: ANN001
    path = tmp_path / "data" / "history.sqlite3"
    path.parent.mkdir()
    path.write_bytes(os.urandom(8192))
    err = one_error_line(run_cli("history", "--json", env={"PANELBOT_DATA_DIR": str(path.parent)}))
    assert "cannot open the history database" in err


@pytest.mark.parametrize("where", [UNDER_A_FILE, "/proc/panelbot-test/x"])
def test_a_data_dir_that_cannot_be_created_is_a_store_error(where: str) -> None:
    with pytest.raises(StoreError, match="cannot create the data directory"):
        ConversationStore(Path(where) / "history.sqlite3")


def test_a_failed_history_write_rolls_back_and_leaves_no_transaction_open(tmp_path: Path) -> None:
    with ConversationStore(tmp_path / "h.sqlite3") as store:
        cid = store.new_conversation("p", "t")
        store.add_message(cid, "user", "", "kept")
        # the INSERT succeeds, then the UPDATE in the same transaction fails
        store._db.execute(
            "CREATE TRIGGER boom BEFORE UPDATE ON conversations "
            "BEGIN SELECT RAISE(ABORT, 'disk on fire'); END"
        )
        with pytest.raises(StoreError, match="disk on fire"):
            store.add_message(cid, "user", "", "half written")
        assert not store._db.in_transaction
        assert [m.text for m in store.messages(cid)] == ["kept"]  # the INSERT was undone
        store._db.execute("DROP TRIGGER boom")
        store.add_message(
            cid, "user", "", "after"
        )  # the next write works (no transaction left open)
        assert [m.text for m in store.messages(cid)] == ["kept", "after"]


def test_a_write_that_cannot_begin_reports_the_real_cause(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite3"
    with ConversationStore(path) as store:
        cid = store.new_conversation("p", "t")
        other = sqlite3.connect(path, timeout=0.1, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")  # another process holds the write lock
        store._db._conn.execute("PRAGMA busy_timeout = 100")
        try:
            with pytest.raises(StoreError, match="locked"):
                store.add_message(cid, "user", "", "x")
            assert not store._db.in_transaction
        finally:
            other.execute("ROLLBACK")
            other.close()
        store.add_message(cid, "user", "", "x")


# ------------------------------------------------------------------------------------------ export


def _special_files(tmp_path: Path) -> dict[str, Path]:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    sock_path = tmp_path / "sock"
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(sock_path))
    sock.close()
    target = tmp_path / "precious.txt"
    target.write_text("precious")
    link = tmp_path / "link.md"
    link.symlink_to(target)
    dangling = tmp_path / "dangling.md"
    dangling.symlink_to(tmp_path / "nowhere")
    return {
        "a character device": Path(os.devnull),
        "a named pipe": fifo,
        "a socket": sock_path,
        "a symbolic link": link,
        "dangling": dangling,
    }


@pytest.mark.parametrize("overwrite", [False, True])
def test_export_never_replaces_a_device_fifo_socket_or_symlink(
    tmp_path: Path, overwrite: bool
) -> None:
    for kind, path in _special_files(tmp_path).items():
        before = path.lstat()
        with pytest.raises(NotARegularFile) as info:
            write_export(path, "# hi\n", overwrite=overwrite)
        if kind != "dangling":
            assert kind in str(info.value)
        assert "left untouched" in str(info.value)
        after = path.lstat()
        assert (after.st_ino, stat.S_IFMT(after.st_mode)) == (
            before.st_ino,
            stat.S_IFMT(before.st_mode),
        )
    assert (tmp_path / "precious.txt").read_text() == "precious"
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_export_into_a_directory_or_under_a_file_fails_cleanly(tmp_path: Path) -> None:
    with pytest.raises(IsADirectoryError):
        write_export(tmp_path, "x", overwrite=True)
    with pytest.raises(OSError):
        write_export(Path(UNDER_A_FILE) / "c.md", "x")


def test_export_still_overwrites_a_regular_file_when_asked(tmp_path: Path) -> None:
    path = tmp_path / "c.md"
    path.write_text("old")
    with pytest.raises(FileExistsError):
        write_export(path, "new")
    assert write_export(path, "new", overwrite=True) == path and path.read_text() == "new"


# ------------------------------------------------------------------------------------------ config


def _cfg(tmp_path: Path, text: str) -> Config:
    f = tmp_path / "c.yaml"
    f.write_text(text, encoding="utf-8")
    return load_config(f, environ={})


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("retrieval:\n  top_k: 2.5\n", "retrieval.top_k must be a whole number"),
        ("retrieval:\n  top_k: 3.0\n", "retrieval.top_k must be a whole number"),
        ("retrieval:\n  top_k: true\n", "retrieval.top_k must be a whole number"),
        ("retrieval:\n  scope_floor: .nan\n", "retrieval.scope_floor must be a number"),
        ("retrieval:\n  both_ratio: .inf\n", "retrieval.both_ratio must be a number"),
        ("backend:\n  read_timeout: -.inf\n", "backend.read_timeout must be a number"),
        ("backend:\n  seed: 1.5\n", "backend.seed must be a whole number"),
        ("backend:\n  max_retries: " + "9" * 5000 + "\n", "over 4,300 digits"),
        ("tui:\n  keys:\n    send: hello\n", "tui.keys.send must be a key name"),
        ("tui:\n  keys:\n    send: 'ctrl+ctrl+a'\n", "tui.keys.send must be a key name"),
        ("tui:\n  keys:\n    copy: 'ctrl+'\n", "tui.keys.copy must be a key name"),
        ("tui:\n  keys:\n    quit: 'ctrl+q x'\n", "tui.keys.quit must be a key name"),
    ],
)
def test_bad_settings_are_refused_with_file_and_line(tmp_path: Path, text: str, says: str) -> None:
    with pytest.raises((ConfigError, DataError)) as info:
        _cfg(tmp_path, text)
    assert says in str(info.value) and str(tmp_path / "c.yaml") in str(info.value)


def test_float_settings_accept_whole_numbers_and_keys_accept_real_keys(tmp_path: Path) -> None:
    cfg = _cfg(
        tmp_path,
        "retrieval:\n  scope_floor: 2\ntui:\n  keys:\n    send: 'Ctrl+S'\n"
        "    export: 'f2,ctrl+e'\n",
    )
    assert cfg.retrieval.scope_floor == 2.0 and isinstance(cfg.retrieval.scope_floor, float)
    assert cfg.tui.keys["send"] == "ctrl+s" and cfg.tui.keys["export"] == "f2,ctrl+e"


def test_every_default_key_binding_is_a_key_name() -> None:
    assert all(is_key_name(k) for k in DEFAULT_KEYS.values())
    assert not any(
        is_key_name(k) for k in ("", "ctrl", "enterr", "ctrl+", "+", "a b", "f25", "ctrl+\x1b")
    )


def test_panelbot_config_naming_a_missing_file_or_a_directory_is_an_error(
    tmp_path: Path, isolated_env, run_cli
) -> None:  # noqa: ANN001
    for where, says in (
        (tmp_path / "missing.yaml", "not a readable file"),
        (tmp_path, "is a directory"),
    ):
        err = one_error_line(run_cli("ask", "kv cache", env={"PANELBOT_CONFIG": str(where)}))
        assert says in err and str(where) in err
    proc = run_cli("ask", "--offline", "kv cache", env={"PANELBOT_CONFIG": os.devnull})
    assert proc.returncode == 0  # /dev/null: explicitly no user config


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:99999/v1",
        "http://127.0.0.1:0/v1",
        "http://127.0.0.1:x/v1",
        "http://127.0.0.1:80\x1b]52;c;eA==\x07/v1",
        "http://h ost/v1",
    ],
)
def test_a_bad_base_url_is_one_line_and_echoes_no_escape(url: str, run_cli) -> None:  # noqa: ANN001
    err = one_error_line(run_cli("ask", "--llm", "--base-url", url, "kv cache"))
    assert "backend.base_url" in err and "\x1b" not in err and "\x07" not in err


_yaml_scalar = st.one_of(
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.none(),
    st.text(max_size=20),
    st.lists(st.integers(), max_size=3),
    st.sampled_from(
        [".nan", ".inf", "-.inf", "1e400", "0x10", "1_000", "2.5", "~", "'3'", "9" * 4400]
    ),
)
_SETTINGS = {
    "retrieval": ["top_k", "scope_floor", "both_ratio", "min_quote_score", "typo_ratio"],
    "backend": [
        "connect_timeout",
        "read_timeout",
        "total_timeout",
        "max_tokens",
        "temperature",
        "seed",
        "max_retries",
        "stream",
        "model",
        "base_url",
    ],
    "tui": ["theme"],
}


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.sampled_from([(s, k) for s, ks in _SETTINGS.items() for k in ks]), _yaml_scalar)
def test_config_fuzz_either_refused_in_one_line_or_valid(
    tmp_path: Path, where: tuple[str, str], value: object
) -> None:
    import math

    import yaml

    section, key = where
    raw = (
        value
        if isinstance(value, str) and value[:1] in ".-0129'~"
        else yaml.safe_dump(value).strip()
    )
    if raw.endswith("..."):
        raw = raw[:-3].strip()
    text = f"{section}:\n  {key}: {raw}\n"
    try:
        cfg = _cfg(tmp_path, text)
    except (ConfigError, DataError) as exc:
        assert "\n" not in str(exc) and "c.yaml" in str(exc)
        return
    for group in (cfg.retrieval, cfg.backend):
        for name, v in vars(group).items():
            if isinstance(v, float):
                assert math.isfinite(v), (name, v)
    assert isinstance(cfg.retrieval.top_k, int) and not isinstance(cfg.retrieval.top_k, bool)
    assert 1 <= cfg.retrieval.top_k <= 50
    assert isinstance(cfg.backend.max_tokens, int) and isinstance(cfg.backend.max_retries, int)


def test_huge_integers_in_panel_and_eval_yaml_are_one_line(tmp_path: Path) -> None:
    f = tmp_path / "panel.yaml"
    f.write_text("format_version: " + "1" * 5000 + "\n")
    with pytest.raises(DataError, match="over 4,300 digits"):
        load_yaml(f)
    with pytest.raises(DataError, match="over 4,300 digits"):
        load_panel(tmp_path)


# ------------------------------------------------------------------------------------------ panels


def test_a_panel_name_over_255_bytes_is_one_line(run_cli) -> None:  # noqa: ANN001
    err = one_error_line(run_cli("ask", "--panel", "p" * 300, "kv cache"))
    assert "255 bytes" in err
    with pytest.raises(PanelNotFound):
        load_panel("\u00e9" * 200)  # 400 bytes in UTF-8


def test_unreadable_panel_search_dirs_are_skipped(run_cli) -> None:  # noqa: ANN001
    # /proc/1/root is unreadable for an unprivileged user and, inside a container, often for root too;
    # a path under a regular file fails for everyone
    bad = os.pathsep.join(["/proc/1/root/persona", UNDER_A_FILE, "/proc/self/fd/0"])
    proc = run_cli("panels", env={"PANELBOT_PANELS": bad})
    assert proc.returncode == 0 and "minimax-m3" in proc.stdout and "Traceback" not in proc.stderr
    proc = run_cli("ask", "kv cache", env={"PANELBOT_PANELS": bad})
    assert proc.returncode == 0 and "Traceback" not in proc.stderr


# ------------------------------------------------------------------------------------------ ingest


def test_ingest_into_impossible_places_is_one_line(
    tmp_path: Path, run_cli, fixtures_dir: Path
) -> None:  # noqa: ANN001
    captions = str(fixtures_dir / "clean_storage_panel.txt")
    for out in (UNDER_A_FILE, "/proc/panelbot-test"):
        err = one_error_line(run_cli("ingest", captions, "--out", out))
        assert "cannot write the panel there" in err
    afile = tmp_path / "afile"
    afile.write_text("keep me")
    err = one_error_line(run_cli("ingest", captions, "--out", str(afile), "--force"))
    assert "is a file, not a directory" in err and afile.read_text() == "keep me"


@pytest.mark.parametrize(
    "manifest",
    [
        "{bad",
        "[1, 2]",
        '{"files": [1]}',
        '{"files": {"../../x": "y"}}',
        '{"files": {"a": 3}}',
        "[" * 100_000,
    ],
)
def test_a_malformed_ingest_manifest_is_refused_in_one_line(
    tmp_path: Path,
    run_cli,
    fixtures_dir: Path,  # noqa: ANN001
    manifest: str,
) -> None:
    out = tmp_path / "panel"
    out.mkdir()
    (out / "panel.yaml").write_text("mine")
    (out / ".ingest.json").write_text(manifest)
    err = one_error_line(
        run_cli("ingest", str(fixtures_dir / "clean_storage_panel.txt"), "--out", str(out))
    )
    assert ".ingest.json is unreadable" in err and (out / "panel.yaml").read_text() == "mine"


# ------------------------------------------------------------------------------------------ input


def test_a_question_over_the_limit_is_refused_and_says_so(run_cli) -> None:  # noqa: ANN001
    err = one_error_line(run_cli("ask", "kv " * MAX_QUESTION_CHARS))
    assert f"the limit is {MAX_QUESTION_CHARS:,}" in err
    err = one_error_line(
        run_cli("ask", "-", stdin="kv cache?\n" + "a" * (MAX_QUESTION_CHARS + 1) + "\n")
    )
    assert "line 2 of stdin" in err


def test_stdin_questions_are_echoed_clean_and_undecodable_bytes_never_come_back_raw(
    isolated_env,
) -> None:  # noqa: ANN001
    import subprocess
    import sys

    questions = (
        b"What about the KV cache?\x1b[2J\x1b]52;c;ZXZpbA==\x07\n"
        b"And \x9b31m kernels \xff\xfe?\xe2\x80\xae\n"
    )
    proc = subprocess.run(
        [sys.executable, "-m", "panelbot", "ask", "-"],
        input=questions,
        capture_output=True,
        env=isolated_env,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    for bad in (b"\x1b", b"\x9b", b"\x07", b"\xff", b"\xe2\x80\xae"):
        assert bad not in out
    text = out.decode("utf-8")  # valid UTF-8 throughout
    assert (
        "Q: What about the KV cache?\n" in text
        and "Q: And \ufffd31m kernels \ufffd\ufffd?\n" in text
    )
