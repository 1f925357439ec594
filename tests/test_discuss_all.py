"""A discussion across every installed talk: ``panelbot discuss --all SUBJECT`` (in process) and the turn
pipeline's :meth:`TalksSession.discuss` / a typed request in :meth:`TalksSession.ask`: staged on each talk whose
panel spoke to the subject, which talks and why said, declined when none did, followed up on that talk."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_discussion_turns import _cli  # panelbot's main in process: (exit status, stdout, stderr)

from panelbot.conversation.pipeline import (
    Declined,
    Recorded,
    TalkAnswered,
    TalkDiscussed,
    TalksDiscussed,
    TalksSession,
)
from panelbot.conversation.session import ConversationLog
from panelbot.conversation.store import ConversationStore

LIBRARY = Path(__file__).resolve().parent / "fixtures" / "library"


@pytest.fixture
def talks(isolated_env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The shipped talk and the fixture library's (gardens, storage) installed."""
    monkeypatch.setenv("PANELBOT_PANELS", str(LIBRARY))


def test_discuss_all_stages_it_on_the_talk_whose_panel_spoke_to_it(talks) -> None:
    code, out, err = _cli("discuss", "--all", "open source")
    assert code == 0, err
    assert out.startswith("== ") and "[minimax-m3]\nDiscussion: open source" in out
    assert "The host asked [q03]" in out and "Dan (" in out and "Olive (" in out
    assert "Where they meet:" in out and "[gardens]" not in out
    last = " ".join(out.strip().splitlines()[-2:])
    assert "discussed on the talk whose panel spoke to it: minimax-m3" in last
    assert "gardens" in last and "storage" in last and "did not speak to it" in last

    code, out, err = _cli("discuss", "--all", "compost")
    assert code == 0, err
    assert "[gardens]\nDiscussion: compost" in out and "[minimax-m3]" not in out
    assert "Only Sam spoke to this on the panel; Ivy did not." in out


def test_discuss_all_json_and_a_subject_no_talk_spoke_to(talks) -> None:
    code, out, _ = _cli("discuss", "--all", "--json", "open source")
    obj = json.loads(out)
    assert code == 0 and obj["declined"] is False and obj["subject"] == "open source"
    assert [t["panel"] for t in obj["talks"]] == ["minimax-m3"]
    assert [t["speaker"] for t in obj["talks"][0]["turns"]] == ["dan", "olive"]
    assert set(obj["silent"]) == {"gardens", "storage"}
    code, out, _ = _cli("discuss", "--all", "--json", "the best pizza in Naples")
    obj = json.loads(out)
    assert code == 0 and obj["declined"] is True and obj["talks"] == []
    assert obj["reason"].startswith("No talk's panel spoke to")
    code, out, _ = _cli("discuss", "--all", "the best pizza in Naples")
    assert code == 0 and out.startswith("No talk's panel spoke to") and "==" not in out


@pytest.mark.parametrize(
    "argv",
    [
        ("discuss", "--all", "--map"),
        ("discuss", "--all", "--llm", "open source"),
    ],
)
def test_discuss_all_usage_errors_are_one_line_exit_2(talks, argv) -> None:
    code, out, err = _cli(*argv)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1


def test_talks_session_stages_typed_requests_and_follows_them_up(
    shipped_panel, router, bread_router, tmp_path
) -> None:
    from panelbot.retrieval.library import Library

    log = ConversationLog.open(tmp_path / "h.db", shipped_panel.name)
    talks = TalksSession(Library([router, bread_router]), log)
    events = list(talks.ask("discuss open source"))
    summary = next(e for e in events if isinstance(e, TalksDiscussed))
    assert summary.talks == (shipped_panel.name,) and summary.silent == (bread_router.panel.name,)
    (staged,) = [e for e in events if isinstance(e, TalkDiscussed)]
    assert [d.speaker for d in staged.dones] == ["dan", "olive"]
    assert staged.discussed.head.startswith("Discussion: open source")
    assert "[dan-02]" in staged.dones[0].text and isinstance(events[-1], Recorded)
    assert talks.last_talks == [shipped_panel.name]
    assert talks.talk_turns[shipped_panel.name][-1].discussed == "open source"

    why = list(talks.ask("why do they disagree?"))  # a follow-up on the talk it was staged on
    (followed,) = [e for e in why if isinstance(e, TalkDiscussed)]
    assert followed.panel is shipped_panel and not followed.dones
    assert followed.discussed.tail.startswith("No difference is measured on this")

    other = list(talks.ask("discuss sourdough"))  # a new subject is asked of every talk again
    summary = next(e for e in other if isinstance(e, TalksDiscussed))
    assert summary.talks == (bread_router.panel.name,)

    none = list(talks.discuss("the best pizza in Naples"))
    assert isinstance(none[0], Declined) and none[0].text.startswith("No talk's panel spoke to")
    assert not any(isinstance(e, TalkAnswered | TalkDiscussed) for e in none)

    # the history keeps each discussion named by its talk: host lines, then the panelists' turns
    store = ConversationStore(tmp_path / "h.db")
    try:
        messages = store.messages(log.conversation_id)
    finally:
        store.close()
    first = [m for m in messages if m.meta.get("panel") == shipped_panel.name][:3]
    assert [(m.role, m.speaker) for m in first] == [
        ("search", ""),
        ("assistant", "dan"),
        ("assistant", "olive"),
    ]
    assert first[1].meta["all_talks"] is True and "[dan-02]" in first[1].text


def test_a_typed_request_no_talk_spoke_to_is_read_once_per_talk_and_declined_by_its_subject(
    router, bread_router, monkeypatch
) -> None:
    """A typed request is read as one by each talk once (its subject, for the decline's text, is the one
    that reading found -- not a second reading of the same message)."""
    from panelbot.conversation import kind_bank
    from panelbot.retrieval.library import Library

    read: list[str] = []
    real = kind_bank.discussion_request

    def counted(r, message: str) -> str | None:
        read.append(r.panel.name)
        return real(r, message)

    monkeypatch.setattr(kind_bank, "discussion_request", counted)
    talks = TalksSession(Library([router, bread_router]))
    events = list(talks.ask("discuss the best pizza in Naples"))
    assert isinstance(events[0], Declined)
    assert events[0].text.startswith("No talk's panel spoke to best pizza in Naples,")
    assert sorted(read) == sorted([router.panel.name, bread_router.panel.name])
