"""The history store's conversation features: full-text search (FTS5), rename, delete, where a conversation
began, the v2 -> v3 migration, and stored messages read back as the resolver's turns."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from panelbot.conversation.store import MIGRATIONS, SCHEMA_VERSION, ConversationStore, fts_query
from panelbot.conversation.turns import ConversationTurn, turns_from_messages


def _filled(path: Path) -> tuple[ConversationStore, int, int]:
    store = ConversationStore(path)
    a = store.new_conversation("minimax-m3", "KV cache", source="cli")
    store.add_message(
        a, "user", "", "How do you deal with a KV cache that keeps growing?", (), {"target": "auto"}
    )
    store.add_message(
        a, "assistant", "dan", "\u201cLike a distributed file system.\u201d [dan-22]", ["dan-22"]
    )
    store.add_message(a, "user", "", "what does Olive think?", (), {"target": "auto"})
    store.add_message(a, "decline", "host", "Olive didn't speak to that (Dan did).")
    b = store.new_conversation("minimax-m3", "Evaluation")
    store.add_message(b, "user", "", "How do you evaluate long runs?")
    store.add_message(
        b, "assistant", "olive", "We evaluate each submission. [olive-13]", ["olive-13"]
    )
    store.add_message(b, "search", "", "Quotes matching cache: ...", ["dan-22"])
    return store, a, b


def test_search_finds_questions_and_answers_by_every_word(tmp_path: Path) -> None:
    store, a, b = _filled(tmp_path / "h.sqlite3")
    hits = store.search("distributed system")
    assert [(h.conversation_id, h.role, h.speaker) for h in hits] == [(a, "assistant", "dan")]
    assert "[distributed]" in hits[0].snippet and hits[0].title == "KV cache"
    assert {h.conversation_id for h in store.search("cache")} == {
        a
    }  # the /quote lookup is not searched
    assert store.search("evaluate")[0].conversation_id == b
    assert store.search("distributed pizza") == []
    assert store.search("") == [] and store.search("  ?! ") == []
    for odd in ('"', 'kv "cache', "NEAR(a b)", "a AND", "*", "col:x", "\u00e9t\u00e9 caf\u00e9"):
        store.search(odd)  # never an FTS5 syntax error


def test_fts_query_quotes_every_word() -> None:
    assert fts_query('kv "cache" OR x*') == '"kv" "cache" "OR" "x"'


def test_rename_and_delete(tmp_path: Path) -> None:
    store, a, b = _filled(tmp_path / "h.sqlite3")
    assert (
        store.rename_conversation(a, "  The   KV\ncache  ")
        and store.conversation(a).title == "The KV cache"
    )
    assert store.rename_conversation(a, "   ") and store.conversation(a).title == "(untitled)"
    assert not store.rename_conversation(999, "x")
    assert store.delete_conversation(a) and store.conversation(a) is None
    assert store.messages(a) == [] and store.search("distributed") == []
    assert not store.delete_conversation(a)
    assert [c.id for c in store.list_conversations()] == [b]


def test_source_is_kept(tmp_path: Path) -> None:
    store, a, b = _filled(tmp_path / "h.sqlite3")
    assert store.conversation(a).source == "cli" and store.conversation(b).source == "app"


def test_migrates_a_version_2_database_and_indexes_old_messages(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
    for version in (1, 2):
        for stmt in MIGRATIONS[version]:
            db.execute(stmt)
    db.execute("INSERT INTO schema_version VALUES (2)")
    db.execute(
        "INSERT INTO conversations (title, panel, started_at, updated_at) VALUES ('old', 'p', 't', 't')"
    )
    db.execute(
        "INSERT INTO messages (conversation_id, role, text, created_at) VALUES (1, 'user', "
        "'what about sparse attention', 't')"
    )
    db.commit()
    db.close()
    store = ConversationStore(path)
    assert store.schema_version() == SCHEMA_VERSION == 3
    assert [h.message_id for h in store.search("sparse")] == [1]
    assert store.conversation(1).source == "app"


def test_stored_messages_become_resolver_turns(tmp_path: Path) -> None:
    store, a, _ = _filled(tmp_path / "h.sqlite3")
    assert turns_from_messages(store.messages(a)) == [
        ConversationTurn(
            "How do you deal with a KV cache that keeps growing?", ["dan"], ["dan-22"], "auto"
        ),
        ConversationTurn("what does Olive think?", [], [], "auto"),
    ]
    assert turns_from_messages([]) == []


def test_a_conversation_opened_with_small_talk_is_titled_by_its_first_real_question(
    tmp_path: Path,
) -> None:
    store = ConversationStore(tmp_path / "h.sqlite3")
    kv = "How do you deal with a KV cache that keeps growing?"
    cid = store.new_conversation("minimax-m3", "hi")
    store.add_messages(
        cid,
        [
            ("user", "", "hi", (), {}),
            ("decline", "host", "Hi! Ask Dan ...", (), {"small_talk": "greeting"}),
        ],
    )
    store.add_messages(
        cid,
        [
            ("user", "", "thanks!", (), {}),
            ("decline", "host", "You're welcome!", (), {"small_talk": "thanks"}),
        ],
    )
    assert store.conversation(cid).title == "hi"  # nothing but small talk yet
    store.add_message(
        cid, "user", "", kv
    )  # the app saves the question, then each answer as it comes
    store.add_message(
        cid, "assistant", "dan", "\u201cLike a distributed file system.\u201d [dan-22]", ["dan-22"]
    )
    assert store.conversation(cid).title == kv
    store.add_messages(
        cid,
        [
            ("user", "", "why?", (), {}),
            ("assistant", "dan", "\u201cBecause.\u201d", ["dan-15"], {}),
        ],
    )
    assert store.conversation(cid).title == kv  # titled once

    # an off-topic question declined is a real question too; a title the person gave is kept
    b = store.new_conversation("minimax-m3", "hello")
    store.add_messages(
        b,
        [("user", "", "hello", (), {}), ("decline", "host", "Hi!", (), {"small_talk": "greeting"})],
    )
    store.add_messages(
        b,
        [
            ("user", "", "best pizza in town?", (), {}),
            ("decline", "host", "Not something ...", (), {}),
        ],
    )
    assert store.conversation(b).title == "best pizza in town?"
    c = store.new_conversation("minimax-m3", "hey")
    store.add_messages(
        c, [("user", "", "hey", (), {}), ("decline", "host", "Hi!", (), {"small_talk": "greeting"})]
    )
    assert store.rename_conversation(c, "Mine")
    store.add_messages(
        c, [("user", "", kv, (), {}), ("assistant", "dan", "\u201cYes.\u201d", ["dan-22"], {})]
    )
    assert store.conversation(c).title == "Mine"
    # a conversation that began with a question keeps it
    d = store.new_conversation("minimax-m3", kv)
    store.add_messages(
        d, [("user", "", kv, (), {}), ("assistant", "dan", "\u201cYes.\u201d", ["dan-22"], {})]
    )
    store.add_messages(
        d,
        [
            ("user", "", "tell me more", (), {}),
            ("assistant", "dan", "\u201cMore.\u201d", ["dan-24"], {}),
        ],
    )
    assert store.conversation(d).title == kv
    store.close()


def test_short_time_is_a_local_minute(monkeypatch) -> None:
    import time

    from panelbot.conversation.store import short_time

    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    try:
        assert short_time("2026-11-30T18:45:31+00:00") == "2026-11-30 18:45"
        monkeypatch.setenv("TZ", "America/New_York")
        time.tzset()
        assert short_time("2026-11-30T18:45:31+00:00") == "2026-11-30 13:45"
        assert short_time("not a time at all") == "not a time at all"[:16]
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()


def test_history_lists_conversations_with_a_readable_time(run_cli) -> None:
    import re

    assert run_cli("ask", "How do you deal with a KV cache that keeps growing?").returncode == 0
    listed = run_cli("history", env={"TZ": "UTC"})
    assert listed.returncode == 0, listed.stderr
    assert re.match(
        r"\s+1  \d{4}-\d\d-\d\d \d\d:\d\d    2 msgs  minimax-m3  How do you deal", listed.stdout
    )
