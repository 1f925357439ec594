"""The turn pipeline (``panelbot.conversation.pipeline``) every front end renders: its events in order for an
offline answer, a decline, small talk, a model's answer (a real local OpenAI-compatible server), every talk at
once, a follow-up, a stopped answer, and a history that cannot be written -- with the real SQLite history."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import fill_disk

from panelbot.conversation.pipeline import (
    NotSaved,
    Recorded,
    Resolved,
    Session,
    SpeakerDone,
    TalkAnswered,
    TalksSession,
    TextDelta,
)
from panelbot.conversation.session import ConversationLog
from panelbot.conversation.store import ConversationStore

KV = "How do you deal with a KV cache that keeps growing?"


def kinds(events: list[Any]) -> list[str]:
    return [type(e).__name__ for e in events]


def logged(path: Path, panel: str) -> ConversationLog:
    return ConversationLog.open(path, panel)


def test_an_offline_answer_is_resolved_answered_then_recorded(shipped_panel, router, tmp_path):
    db = tmp_path / "history.sqlite3"
    log = logged(db, shipped_panel.name)
    events = list(Session(shipped_panel, router, None, log).ask_now(KV))
    assert kinds(events)[0] == "Resolved" and kinds(events)[-1] == "Recorded"
    middle = events[1:-1]
    assert middle and all(isinstance(e, TextDelta | SpeakerDone) for e in middle)
    # each speaker's words, then that speaker done; the words are their verbatim quotes with ids
    first = middle[0]
    assert isinstance(first, TextDelta) and isinstance(middle[1], SpeakerDone)
    assert middle[1].speaker == first.speaker and "[dan-" in first.text
    recorded = events[-1]
    assert recorded.conversation_id is not None and recorded.turn.quote_ids
    log.close()
    with ConversationStore(db) as store:
        messages = store.messages(recorded.conversation_id)
    assert [m.role for m in messages] == ["user", "assistant"]
    assert messages[1].quote_ids == recorded.turn.quote_ids  # the turn in memory is the turn stored


def test_a_decline_and_small_talk_are_declined_events_and_recorded_as_such(
    shipped_panel, router, tmp_path
):
    db = tmp_path / "history.sqlite3"
    log = logged(db, shipped_panel.name)
    session = Session(shipped_panel, router, None, log)
    declined = list(session.ask_now("best pizza in Naples?"))
    assert kinds(declined) == ["Resolved", "Declined", "Recorded"]
    assert declined[0].route.abstained and not declined[1].small_talk
    hello = list(session.ask_now("hello!"))
    assert kinds(hello) == ["Resolved", "Declined", "Recorded"]
    assert hello[1].small_talk and hello[1].text  # a friendly reply, not a decline
    cid = hello[-1].conversation_id
    log.close()
    with ConversationStore(db) as store:
        rows = store.messages(cid)
    assert [m.role for m in rows] == ["user", "decline", "user", "decline"]
    assert not rows[1].meta.get("small_talk") and rows[3].meta.get("small_talk")


def test_a_follow_up_is_read_against_the_turns_before_it(shipped_panel, router):
    session = Session(shipped_panel, router)
    first = list(session.ask_now(KV))
    more = list(session.ask_now("tell me more"))
    assert first[0].context is None and more[0].context is not None
    assert more[-1].turn.quote_ids and not set(more[-1].turn.quote_ids) & set(
        first[-1].turn.quote_ids
    )
    assert len(session.turns) == 2 and session.history[0].text == KV
    assert more[-1].conversation_id is None  # nothing logged


def test_a_model_answer_streams_from_a_real_server_and_is_recorded_with_its_verdict(
    shipped_panel, router, tmp_path, fake_model_server
):
    from panelbot.answer.backends.openai_compat import OpenAICompatBackend
    from panelbot.config import Config

    fake_model_server.state.answer = "Long contexts are hard to serve [dan-21]."
    config = Config().with_endpoint(fake_model_server.url("ok"), "m", "openai", generate=True)
    db = tmp_path / "history.sqlite3"
    log = logged(db, shipped_panel.name)

    async def turn() -> list[Any]:
        backend = OpenAICompatBackend(config, shipped_panel)
        try:
            return [e async for e in Session(shipped_panel, router, backend, log).ask(KV, "dan")]
        finally:
            await backend.aclose()

    events = asyncio.run(turn())
    assert kinds(events)[0] == "Resolved" and kinds(events)[-1] == "Recorded"
    text = "".join(e.text for e in events if isinstance(e, TextDelta))
    assert "Long contexts" in text
    (done,) = [e for e in events if isinstance(e, SpeakerDone)]
    assert done.speaker == "dan" and done.error is None and done.verdict is not None
    log.close()
    with ConversationStore(db) as store:
        answer = store.messages(events[-1].conversation_id)[1]
    assert "Long contexts" in answer.text and "verdict" in answer.meta  # shown again as it was


def test_every_talk_at_once(shipped_panel, router, bread_router):
    from panelbot.retrieval.library import Library

    talks = TalksSession(Library([router, bread_router]))
    hello = list(talks.ask("hello!"))  # not following anything up: the talks' friendly reply
    assert kinds(hello) == ["Declined", "Recorded"] and hello[0].small_talk
    answered = list(talks.ask(KV))
    assert kinds(answered)[-1] == "Recorded"
    got = [e for e in answered if isinstance(e, TalkAnswered)]
    assert (
        got
        and got[0].panel.name == shipped_panel.name
        and "[dan-" in "".join(got[0].texts.values())
    )
    assert talks.last_talks == [shipped_panel.name]
    more = list(talks.ask("tell me more"))  # goes on with the talk the last answer came from
    assert isinstance(more[0], Resolved) and more[0].context is not None
    declined = list(talks.ask("what is the best pizza in Naples?"))
    assert kinds(declined) == ["TalksRouted", "Declined", "Recorded"]
    assert declined[1].panel is None and declined[0].answer.abstained  # no talk got into it


def test_a_stopped_answer_keeps_what_was_finished(shipped_panel, router, tmp_path):
    """Cancelled part way (Esc in the app): recorded as far as it got, the unfinished answer marked."""
    db = tmp_path / "history.sqlite3"
    log = logged(db, shipped_panel.name)
    session = Session(shipped_panel, router, None, log)

    async def stop_after_first_words() -> None:
        async for event in session.ask(KV, "both"):
            if isinstance(event, TextDelta):
                raise asyncio.CancelledError  # as a cancelled task's await raises it

    with pytest.raises(asyncio.CancelledError):
        asyncio.run(stop_after_first_words())
    assert session.turns[-1].quote_ids == []  # nothing finished: nothing counts as shown
    with ConversationStore(db) as store:
        rows = store.messages(log.conversation_id)
    assert [m.role for m in rows] == ["user", "assistant"] and rows[1].meta.get("cancelled")


def test_a_history_that_cannot_be_written_answers_then_says_why(shipped_panel, router, tmp_path):
    """A real OS error: the history's directory is a file, so no database can be made there."""
    blocked = tmp_path / "not-a-directory"
    blocked.write_text("a file where the data directory belongs", encoding="utf-8")
    log = logged(blocked / "history.sqlite3", shipped_panel.name)
    events = list(Session(shipped_panel, router, None, log).ask_now(KV))
    assert kinds(events)[0] == "Resolved" and any(isinstance(e, SpeakerDone) for e in events)
    last = events[-1]
    assert isinstance(last, NotSaved) and str(blocked) in last.why
    assert last.turn.quote_ids  # remembered for a follow-up all the same


@pytest.mark.skipif(sys.platform != "linux", reason="a tmpfs is Linux's")
def test_a_full_disk_mid_conversation_is_not_saved_and_loses_nothing(
    shipped_panel, router, tmp_path
):
    """The history fills its disk (a real 256 KB tmpfs, when this test may mount one)."""
    import subprocess

    data = tmp_path / "small"
    data.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(data)]).returncode:
        pytest.skip("cannot mount a tmpfs here")
    log = None
    try:
        log = logged(data / "history.sqlite3", shipped_panel.name)
        session = Session(shipped_panel, router, None, log)
        assert isinstance(list(session.ask_now(KV))[-1], Recorded)
        fill_disk(data / "fill")
        events = list(session.ask_now("tell me more"))
        assert isinstance(events[-1], NotSaved) and "full" in events[-1].why
        assert any(isinstance(e, SpeakerDone) for e in events)
        assert len(session.turns) == 2  # the follow-up is remembered
    finally:
        if log is not None:
            log.close()
        subprocess.run(["umount", "-l", str(data)])


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="/dev/full is Linux's")
def test_the_shared_fill_disk_helper_stops_when_the_disk_is_full() -> None:
    """``conftest.fill_disk`` (shared with the app's full-disk test) returns once a write fails."""
    fill_disk(Path("/dev/full"))  # every write fails at once: ENOSPC
