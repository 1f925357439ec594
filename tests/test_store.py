"""Conversation history: schema, migrations, durability across a killed process."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from panelbot.conversation.store import MIGRATIONS, SCHEMA_VERSION, ConversationStore, StoreError


def test_round_trip(tmp_path: Path) -> None:
    with ConversationStore(tmp_path / "h.sqlite3") as store:
        cid = store.new_conversation("minimax-m3", "What is M3?")
        store.add_message(cid, "user", "", "What is M3?")
        store.add_message(
            cid, "assistant", "olive", "It is [bold]big[/]", ["olive-001"], {"target": "auto"}
        )
        msgs = store.messages(cid)
        assert [m.role for m in msgs] == ["user", "assistant"]
        assert msgs[1].speaker == "olive"
        assert msgs[1].text == "It is [bold]big[/]"
        assert msgs[1].quote_ids == ["olive-001"]
        assert msgs[1].meta == {"target": "auto"}
        (summary,) = store.list_conversations()
        assert (
            summary.id == cid and summary.title == "What is M3?" and summary.panel == "minimax-m3"
        )
        assert summary.message_count == 2
        assert summary.to_dict()["message_count"] == 2
        assert store.last_conversation_id() == cid


def test_last_conversation_is_most_recently_updated(tmp_path: Path) -> None:
    ticks = iter(f"2026-01-01T00:00:{i:02d}+00:00" for i in range(60))
    store = ConversationStore(tmp_path / "h.sqlite3", clock=lambda: next(ticks))
    a = store.new_conversation("p", "first")
    b = store.new_conversation("p", "second")
    assert store.last_conversation_id() == b
    store.add_message(a, "user", "", "back to the first")
    assert store.last_conversation_id() == a
    assert [c.id for c in store.list_conversations()] == [a, b]
    assert store.messages(999) == []


def test_empty_store(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path / "nested" / "dir" / "h.sqlite3")
    assert store.list_conversations() == []
    assert store.last_conversation_id() is None
    assert store.schema_version() == SCHEMA_VERSION


def test_wal_mode(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path / "h.sqlite3")
    mode = store._db.execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"


def test_migrates_a_version_1_database(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
    for stmt in MIGRATIONS[1]:
        db.execute(stmt)
    db.execute("INSERT INTO schema_version VALUES (1)")
    db.execute(
        "INSERT INTO conversations (title, panel, started_at, updated_at) VALUES ('t', 'p', 'a', 'a')"
    )
    db.execute(
        "INSERT INTO messages (conversation_id, role, speaker, text, created_at) VALUES (1, 'user', '', 'hi', 'a')"
    )
    db.commit()
    db.close()
    store = ConversationStore(path)
    assert store.schema_version() == SCHEMA_VERSION
    (msg,) = store.messages(1)
    assert msg.text == "hi" and msg.meta == {} and msg.quote_ids == []


def test_refuses_a_newer_schema(tmp_path: Path) -> None:
    path = tmp_path / "new.sqlite3"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
    db.execute("INSERT INTO schema_version VALUES (?)", (SCHEMA_VERSION + 5,))
    db.commit()
    db.close()
    with pytest.raises(StoreError, match="newer"):
        ConversationStore(path)


def test_not_a_database_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "junk.sqlite3"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match="cannot open"):
        ConversationStore(path)


def test_killed_process_loses_no_earlier_message(tmp_path: Path) -> None:
    """A process that writes messages then dies hard (os._exit mid-answer) keeps every committed message."""
    path = tmp_path / "h.sqlite3"
    script = textwrap.dedent(
        f"""
        import os
        from panelbot.conversation.store import ConversationStore
        s = ConversationStore({str(path)!r})
        cid = s.new_conversation("p", "q")
        s.add_message(cid, "user", "", "question one")
        s.add_message(cid, "assistant", "dan", "answer one", ["dan-001"])
        s.add_message(cid, "user", "", "question two")
        os._exit(9)  # killed mid-answer: no close, no cleanup
        """
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert proc.returncode == 9, proc.stderr
    store = ConversationStore(path)
    cid = store.last_conversation_id()
    assert cid is not None
    assert [m.text for m in store.messages(cid)] == ["question one", "answer one", "question two"]


def test_recent_questions(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path / "h.sqlite3")
    a = store.new_conversation("p", "a")
    store.add_message(a, "user", "", "first")
    store.add_message(a, "assistant", "dan", "answer")
    b = store.new_conversation("p", "b")
    store.add_message(b, "user", "", "second")
    store.add_message(b, "user", "", "third")
    assert store.recent_questions() == ["first", "second", "third"]
    assert store.recent_questions(limit=2) == ["second", "third"]
    assert store.recent_questions(exclude=b) == ["first"]
