"""Export and history, exactly: the Markdown a person gets, file names in UTC, where the temporary file
lives, the no-hard-link fallback, the exact error lines of the history database, every stored field."""

from __future__ import annotations

import os
import sqlite3
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest

from panelbot.conversation import export as export_mod
from panelbot.conversation.export import (
    ExportMessage,
    NotARegularFile,
    conversation_markdown,
    default_export_name,
    write_export,
)
from panelbot.conversation.store import ConversationStore, StoreError

WHEN = datetime(2026, 11, 30, 9, 5, tzinfo=timezone.utc)


def test_markdown_exactly() -> None:
    msgs = [
        ExportMessage("user", "", "Q?"),
        ExportMessage("assistant", "Dan", "A [d-1]", ["d-1", "zz", ""]),
        ExportMessage("decline", "", "No."),
        ExportMessage("search", "X", "s"),
        ExportMessage("error", "", "boom"),
    ]
    md = conversation_markdown(
        "", "P", msgs, quote_lookup={"d-1": ("Dan", "It grows.")}.get, exported_at=WHEN
    )
    assert md == (
        "# Conversation\n\nPanel: P  \nExported: 2026-11-30 09:05 UTC\n\n## You\n\nQ?\n\n### Dan\n\nA [d-1]\n\n"
        "Sources:\n\n- `d-1` (Dan): \u201cIt grows.\u201d\n- `zz`\n\n### Panel (declines)\n\nNo.\n\n"
        "### Quote search\n\ns\n\n### Error\n\nboom\n"
    )
    md = conversation_markdown(
        "T", "P", [ExportMessage("assistant", "Dan", "A", ["d-1"])], exported_at=WHEN
    )
    assert (
        md
        == "# T\n\nPanel: P  \nExported: 2026-11-30 09:05 UTC\n\n### Dan\n\nA\n\nSources:\n\n- `d-1`\n"
    )


@pytest.fixture
def far_timezone(monkeypatch: pytest.MonkeyPatch):  # noqa: ANN201
    monkeypatch.setenv(
        "TZ", "Pacific/Kiritimati"
    )  # UTC+14: a local clock is never mistaken for UTC
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def test_times_are_utc_whatever_the_local_zone(far_timezone) -> None:  # noqa: ANN001
    before = datetime.now(timezone.utc)
    md = conversation_markdown("T", "P", [])
    name = default_export_name("T")
    after = datetime.now(timezone.utc)
    stamps = {before.strftime("%Y-%m-%d %H:%M UTC"), after.strftime("%Y-%m-%d %H:%M UTC")}
    assert md.split("\n")[3].removeprefix("Exported: ") in stamps
    assert name[len("panelbot-t-") : -len(".md")][:11] in {
        before.strftime("%Y%m%d-%H"),
        after.strftime("%Y%m%d-%H"),
    }


def test_default_names() -> None:
    assert (
        default_export_name("  --Hello, World!--  ", WHEN)
        == "panelbot-hello-world-20261130-090500.md"
    )
    assert default_export_name("a" * 60, WHEN) == f"panelbot-{'a' * 40}-20261130-090500.md"
    assert default_export_name("!!!", WHEN) == "panelbot-conversation-20261130-090500.md"


def test_the_temporary_file_sits_next_to_the_target(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[str] = []
    real_link = os.link

    def spy(src: str, dst: object) -> None:
        seen.append(str(src))
        real_link(src, dst)

    monkeypatch.setattr(export_mod.os, "link", spy)
    target = tmp_path / "a" / "b" / ("n" * 250 + ".md")[:250]
    write_export(target, "caf\u00e9\r\nline\n")
    assert target.read_bytes() == "caf\u00e9\r\nline\n".encode()  # UTF-8, newlines untouched
    (tmp,) = seen
    assert Path(tmp).parent == target.parent
    assert Path(tmp).name.startswith("." + target.name[:200] + ".") and tmp.endswith(".tmp")
    assert sorted(os.listdir(target.parent)) == [target.name]


def test_without_hard_links_it_still_never_clobbers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = tmp_path / "race.md"

    def no_links(src: str, dst: object) -> None:
        if Path(str(dst)) == other:  # someone else creates the file between the check and the write
            other.write_text("theirs")
        raise OSError(1, "Operation not permitted")

    monkeypatch.setattr(export_mod.os, "link", no_links)
    target = tmp_path / "out.md"
    assert write_export(target, "one") == target and target.read_text() == "one"
    with pytest.raises(FileExistsError) as info:
        write_export(other, "mine")
    assert str(info.value) == f"{other} already exists" and other.read_text() == "theirs"
    assert sorted(os.listdir(tmp_path)) == ["out.md", "race.md"]


def test_exact_refusals(tmp_path: Path) -> None:
    target = tmp_path / "x.md"
    target.write_text("keep")
    with pytest.raises(FileExistsError) as info:
        write_export(target, "new")
    assert str(info.value) == f"{target} already exists"
    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    with pytest.raises(NotARegularFile) as info:
        write_export(fifo, "x", overwrite=True)
    assert str(info.value) == (
        f"{fifo} is a named pipe (FIFO); an export is written only to a new or regular "
        "file, so it was left untouched"
    )
    with pytest.raises(IsADirectoryError) as info:
        write_export(tmp_path, "x")
    assert str(info.value).startswith(f"{tmp_path} is a directory;")
    link = tmp_path / "l"
    link.symlink_to(target)
    with pytest.raises(NotARegularFile, match="is a symbolic link;"):
        write_export(link, "x")
    with pytest.raises(NotARegularFile, match="is a character device;"):
        write_export(os.devnull, "x")
    blocks = (
        [p for p in Path("/dev").iterdir() if p.is_block_device()] if Path("/dev").is_dir() else []
    )
    if blocks:
        with pytest.raises(NotARegularFile, match="is a block device;"):
            write_export(blocks[0], "x", overwrite=True)


# ------------------------------------------------------------------------------------------ history


def test_every_stored_field(tmp_path: Path) -> None:
    ticks = iter(["t1", "t2", "t3", "t4", "t5"])
    with ConversationStore(tmp_path / "h.sqlite3", clock=lambda: next(ticks)) as store:
        other = store.new_conversation("p", "other")  # t1
        cid = store.new_conversation("p", "  title  ")  # t2
        mid = store.add_message(cid, "assistant", "dan", "text", ["a-1"], {"k": 1})  # t3
        (m,) = store.messages(cid)
        assert (
            m.id,
            m.conversation_id,
            m.role,
            m.speaker,
            m.text,
            m.quote_ids,
            m.meta,
            m.created_at,
        ) == (mid, cid, "assistant", "dan", "text", ["a-1"], {"k": 1}, "t3")
        summaries = store.list_conversations()
        assert [
            (s.id, s.title, s.panel, s.started_at, s.updated_at, s.message_count) for s in summaries
        ] == [(cid, "title", "p", "t2", "t3", 1), (other, "other", "p", "t1", "t1", 0)]
        assert store.last_conversation_id() == cid
        store.add_message(other, "user", "", "later")  # t4: the other is now the newest
        assert store.last_conversation_id() == other
        assert store.new_conversation("p", "   ") > 0  # t5
        assert store.list_conversations()[0].title == "(untitled)"


def test_damaged_json_fields_fall_back_to_empty(tmp_path: Path) -> None:
    with ConversationStore(tmp_path / "h.sqlite3") as store:
        cid = store.new_conversation("p", "t")
        store.add_message(cid, "user", "", "x")
        store._db.execute("UPDATE messages SET quote_ids = '{\"a\": 1}', meta = '[1]'")
        (m,) = store.messages(cid)
        assert m.quote_ids == [] and m.meta == {}
        store._db.execute("UPDATE messages SET quote_ids = 'not json', meta = 'null'")
        (m,) = store.messages(cid)
        assert m.quote_ids == [] and m.meta == {}


def test_history_error_lines_exactly(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite3"
    with ConversationStore(path) as store:
        store._db.execute("DROP TABLE messages")
        with pytest.raises(StoreError) as info:
            store.messages(1)
        assert str(info.value) == (
            f"{path}: history database error (no such table: messages); the file is "
            "damaged: move it aside to start a new history"
        )
        store._db.execute("CREATE TABLE messages (id INTEGER PRIMARY KEY, conversation_id INTEGER)")
        with pytest.raises(StoreError) as info:
            store.messages(1)
        assert str(info.value).endswith(
            "; the file is damaged: move it aside to start a new history"
        )
        assert "no such column" in str(info.value)
        with pytest.raises(StoreError) as info:
            store._db.execute("SELEC 1")
        assert (
            str(info.value) == f'{path}: history database error (near "SELEC": syntax error)'
        )  # no hint
        with pytest.raises(StoreError) as info:
            store._db.execute("INSERT INTO conversations (id) VALUES (NULL)")
        assert "NOT NULL constraint failed" in str(info.value) and "damaged" not in str(info.value)
    bad = tmp_path / "bad.sqlite3"
    bad.write_bytes(b"x" * 4096)
    with pytest.raises(StoreError) as info:
        ConversationStore(bad)
    assert str(info.value) == (
        f"{bad}: cannot open the history database (file is not a database); the file "
        "is damaged: move it aside to start a new history"
    )


def test_a_rollback_after_a_failed_commit_clears_the_transaction(tmp_path: Path) -> None:
    with ConversationStore(tmp_path / "h.sqlite3") as store:
        cid = store.new_conversation("p", "t")
        store._db.execute("BEGIN")
        store._db.execute(
            "INSERT INTO messages (conversation_id, role, text, created_at) "
            "VALUES (?, 'user', 'x', 'now')",
            (cid,),
        )
        assert store._db.in_transaction
        store._db.rollback()
        assert not store._db.in_transaction and store.messages(cid) == []
        store._db.rollback()  # no transaction: nothing to do, no error
        raw = sqlite3.connect(tmp_path / "h.sqlite3")
        assert raw.execute("SELECT COUNT(*) FROM messages").fetchone() == (0,)
        raw.close()
