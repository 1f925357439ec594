"""A discussion as a turn of the conversation: recognised by the resolver ("discuss open source", "where do
Dan and Olive disagree?"), answered and recorded by the one turn pipeline in the same SQLite history every
other turn uses (``panelbot discuss``, ``ask``), and followed up as elsewhere ("why do they disagree?",
"Olive, respond to that", "and Dan?", ``ask -c``). Real panel, real router, real history files."""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest

from panelbot.cli.main import main
from panelbot.conversation.kind_bank import MessageKinds, discussion_request
from panelbot.conversation.pipeline import Discussed, Recorded, Resolved, Session, SpeakerDone
from panelbot.conversation.resolve import resolve
from panelbot.conversation.session import ConversationLog
from panelbot.conversation.store import ConversationStore
from panelbot.conversation.turns import DISCUSSION, ConversationTurn, turns_from_messages
from panelbot.discussion.evaluation import load_requests, score_requests
from panelbot.discussion.turn import WHOLE_TALK, staged
from panelbot.panel import load_panel
from panelbot.retrieval.router import Router

ROOT = Path(__file__).resolve().parent.parent
PANEL = ROOT / "persona_data" / "minimax-m3"


MEASURED = re.compile(
    r"Dan \[dan-\d+\] and Olive \[olive-\d+\]"
)  # a measured point: a quote of each


@pytest.fixture(scope="module")
def router() -> Router:
    return Router(load_panel(PANEL))


def _cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as exc:
            code = int(exc.code or 0)
    return code, out.getvalue(), err.getvalue()


def _history(env: dict[str, str]) -> Path:
    return Path(env["PANELBOT_DATA_DIR"]) / "history.sqlite3"


# ------------------------------------------------------------------------------ the kind, by meaning


@pytest.mark.parametrize(
    ("message", "subject"),
    [
        ("discuss open weights", "open weights"),
        ("what do they both think about evaluation?", "evaluation"),
        ("where do Dan and Olive disagree?", ""),
        ("do Dan and Olive agree on open source?", "open source"),
    ],
)
def test_a_discussion_request_and_its_subject(router: Router, message: str, subject: str) -> None:
    assert discussion_request(router, message) == subject


@pytest.mark.parametrize(
    "message",
    [
        "How do you deal with a KV cache that keeps growing?",
        "what do you think about RL environments?",
        "what does Olive think?",
        "do you agree?",
        "tell me more",
        "Isn't open weights bad for business?",
        "Olive and Dan, how do your two teams work together on a release?",  # asked of both, not a debate
    ],
)
def test_an_ordinary_question_is_no_discussion_request(router: Router, message: str) -> None:
    assert discussion_request(router, message) is None


def test_the_other_slot_fills_each_pair_of_panelists(router: Router) -> None:
    bank = MessageKinds(router.panel, {"discuss": ("where do {name} and {other} disagree?",)})
    assert sorted(t for _, t in bank.rows) == [
        "where do Dan and Olive disagree?",
        "where do Olive and Dan disagree?",
    ]


def test_the_follow_up_kinds_never_read_a_frame_example(router: Router) -> None:
    """The discussion examples are not among a follow-up's: 'do you agree?' is another panelist's view."""
    from panelbot.conversation.kind_bank import message_kinds

    kinds = message_kinds(router)
    assert kinds.nearest("do you agree?").kind == "other"
    assert kinds.nearest("where do they disagree?").kind not in ("discuss", "ask")
    assert kinds.nearest("where do they disagree?", discussions=True).kind == "discuss"


def test_the_dev_set_precision_and_recall(router: Router) -> None:
    """eval/discussion_requests_dev.yaml through the resolver (a follow-up after its question)."""
    s = score_requests(router, load_requests(ROOT / "eval" / "discussion_requests_dev.yaml"))
    assert s.precision >= 0.95 and s.recall >= 0.85, s.misses
    assert s.subjects_right >= s.correct - 2, s.misses


# ------------------------------------------------------------------------------ the resolver


def test_the_resolver_stages_a_discussion(router: Router) -> None:
    res = resolve(router, [], "discuss open source")
    assert res.kind == DISCUSSION and res.discussion is not None
    assert res.route.speakers == ["dan", "olive"] and not res.route.abstained
    assert res.context is not None and res.context["kind"] == "discussion"
    shown = {sq.quote.id for sq in res.route.quotes}
    a, b = res.context["points"][0]["ids"]  # one quote of each, both among the quotes shown
    assert a.startswith("dan-") and b.startswith("olive-") and {a, b} <= shown


def _asked(router: Router, question: str) -> ConversationTurn:
    """The turn a first question makes in the history."""
    first = resolve(router, [], question)
    return ConversationTurn(
        question, list(first.route.speakers), [sq.quote.id for sq in first.route.quotes]
    )


def _discussed(router: Router, request: str) -> tuple[Any, ConversationTurn]:
    """The discussion a first request stages, and the turn it makes in the history."""
    d = resolve(router, [], request).discussion
    turn = ConversationTurn(
        d.subject, d.discussion.speakers, d.discussion.quote_ids(), "both", d.subject
    )
    return d, turn


def test_a_request_naming_no_subject_discusses_the_conversation_s(router: Router) -> None:
    turn = _asked(router, "Why open source the model?")
    res = resolve(router, [turn], "where do they disagree?")
    assert res.kind == DISCUSSION and res.discussion.subject == "Why open source the model?"
    # ... and with nothing before it, everything they both spoke to (no difference is claimed)
    alone = resolve(router, [], "where do Dan and Olive disagree?")
    assert alone.discussion.subject == WHOLE_TALK
    assert "No difference between them is measured" in alone.discussion.discussion.note


def test_after_a_question_about_the_talk_itself_a_discussion_is_of_the_whole_talk(
    router: Router,
) -> None:
    """'what is this talk about?' opens no subject two panelists could meet on: 'where do Dan and Olive
    disagree?' after it discusses everything they both spoke to, not their introductions."""
    turn = _asked(router, "what is this talk about?")
    res = resolve(router, [turn], "where do Dan and Olive disagree?")
    assert res.kind == DISCUSSION and res.discussion.subject == WHOLE_TALK


def test_after_a_question_only_one_panelist_spoke_to_a_disagreement_is_of_the_whole_talk(
    router: Router,
) -> None:
    """Seen in the app: 'where do they disagree?' after an RL-environments answer staged that question,
    with 'Only Olive spoke to this': one panelist alone cannot disagree; it is the whole talk, saying so."""
    turn = _asked(router, "how do you build the training worlds for reinforcement learning?")
    assert turn.speakers == ["olive"]
    res = resolve(router, [turn], "where do they disagree?")
    assert res.kind == DISCUSSION and res.discussion.subject == WHOLE_TALK
    note = res.discussion.discussion.note
    assert note.startswith("Only Olive spoke to") and "Across the talk:" in note
    assert len(res.discussion.discussion.turns) == 2


def test_a_panelist_asked_about_a_new_subject_after_a_discussion_is_asked_afresh(
    router: Router,
) -> None:
    """'Olive, what do you think about the KV cache?' after 'discuss open source' is a question of its own,
    not Olive's turn of the open-source discussion again; 'Olive, respond to that' still is one."""
    d, turn = _discussed(router, "discuss open source")
    kv = resolve(router, [turn], "Olive, what do you think about the KV cache?")
    assert kv.kind != DISCUSSION
    assert not {sq.quote.id for sq in kv.route.quotes} & set(d.discussion.quote_ids())
    respond = resolve(router, [turn], "Olive, respond to that")
    assert respond.kind == DISCUSSION and respond.discussion.followup.kind == "respond"


def test_a_subject_neither_spoke_to_is_declined(router: Router) -> None:
    res = resolve(router, [], "discuss sourdough bread recipes")
    assert res.route.abstained and res.discussion is None


def test_one_panelist_named_is_asked_not_the_panel(router: Router) -> None:
    assert resolve(router, [], "Olive, do you agree on open source?").kind != DISCUSSION


def test_follow_ups_pick_up_the_discussion_s_subject(router: Router) -> None:
    d, turn = _discussed(router, "discuss open source")
    why = resolve(router, [turn], "why do they disagree?")
    assert why.kind == DISCUSSION and why.discussion.followup.kind == "difference"
    assert why.route.speakers == [] and not why.route.abstained
    assert "No difference is measured on this" in why.discussion.tail(router.panel)
    olive = resolve(router, [turn], "Olive, respond to that")
    assert olive.route.speakers == ["olive"] and olive.discussion.followup.kind == "respond"
    assert re.search(r"\[olive-\d+\]", olive.discussion.tail(router.panel))  # a point pairing hers
    dan = resolve(router, [turn], "and Dan?")
    assert dan.route.speakers == ["dan"]
    # a decline between leaves the discussion in view; an ordinary answer ends it: asked after that,
    # "why do they disagree?" is a request for a discussion of what was asked since
    declined = ConversationTurn("best pizza in Naples?", [], [])
    assert resolve(router, [turn, declined], "and Dan?").route.speakers == ["dan"]
    other = ConversationTurn("How do agents change inference?", ["dan"], ["dan-15"])
    after = resolve(router, [turn, other], "why do they disagree?")
    assert after.discussion.followup is None
    # ... which only Dan spoke to: one panelist cannot disagree, so it is where they meet across the talk
    assert after.discussion.subject == WHOLE_TALK
    assert after.discussion.discussion.note.startswith("Only Dan spoke to")


def test_a_panelist_asked_for_more_after_a_discussion_goes_on_with_what_they_have_not_said(
    router: Router,
) -> None:
    """ "Olive, tell me more" is more of what she said, not her turn of the discussion again."""
    d, turn = _discussed(router, "discuss open source")
    more = resolve(router, [turn], "Olive, tell me more")
    assert more.kind != DISCUSSION
    assert more.route.speakers == ["olive"] and more.route.quotes
    assert not {sq.quote.id for sq in more.route.quotes} & set(d.discussion.quote_ids())


def test_a_whole_talk_disagreement_question_is_a_discussion_request(router: Router) -> None:
    """Read by meaning against the discussion examples, at the floor fitted without the dev "both" turns."""
    assert discussion_request(router, "what did they disagree about?") == ""
    assert resolve(router, [], "what did they disagree about?").kind == DISCUSSION


# ------------------------------------------------------------------------------ the pipeline


def test_the_pipeline_answers_and_records_a_discussion(router: Router, tmp_path: Path) -> None:
    store = ConversationStore(tmp_path / "history.sqlite3")
    log = ConversationLog(store, None, router.panel.name)
    session = Session(router.panel, router, None, log)
    events = list(session.ask_now("discuss open source"))
    kinds = [type(e).__name__ for e in events]
    assert kinds[:2] == ["Resolved", "Discussed"] and kinds[-1] == "Recorded"
    discussed = next(e for e in events if isinstance(e, Discussed))
    assert discussed.head.startswith("Discussion: open source")
    assert MEASURED.search(discussed.tail)
    assert [e.speaker for e in events if isinstance(e, SpeakerDone)] == ["dan", "olive"]
    cid = events[-1].conversation_id
    store.close()
    again = ConversationStore(tmp_path / "history.sqlite3")  # read back from the file
    messages = again.messages(cid)
    assert [(m.role, m.speaker) for m in messages] == [
        ("user", ""),
        ("search", ""),
        ("assistant", "dan"),
        ("assistant", "olive"),
        ("search", ""),
    ]
    assert messages[0].text == "discuss open source"
    turns = turns_from_messages(messages)
    assert turns == [session.turns[-1]] and turns[0].discussed == "open source"
    assert turns[0].question == "open source" and "olive-03" in turns[0].quote_ids
    # the next turn of the reopened conversation follows it up
    reopened = Session(
        router.panel, router, None, ConversationLog(again, cid, router.panel.name, turns)
    )
    follow = list(reopened.ask_now("why do they disagree?"))
    resolved = next(e for e in follow if isinstance(e, Resolved))
    assert resolved.resolution.kind == DISCUSSION
    assert isinstance(follow[-1], Recorded)
    again.close()


def test_a_model_turn_sees_the_one_before(router: Router) -> None:
    """Each panelist's turn is asked of the backend in order, with only their quotes, the later turn
    seeing what the earlier one said."""
    from panelbot.answer.events import SpeakerDone as Done
    from panelbot.answer.events import TextDelta

    asked = []

    class Recording:
        name, label = "recording", "recording"

        async def answer(self, request):  # noqa: ANN001, ANN202
            asked.append(request)
            for speaker in request.route.speakers:
                quotes = request.route.quotes_for(speaker)
                yield TextDelta(speaker, f"{speaker} says")
                yield Done(speaker, f"{speaker} says", quotes)

        async def aclose(self) -> None:
            return None

    session = Session(router.panel, router, Recording())
    reading = staged(router, "open source", "discuss open source")
    list(session.ask_now("discuss open source", reading=reading))
    assert [r.route.speakers for r in asked] == [["dan"], ["olive"]]
    assert all(sq.quote.speaker == r.route.speakers[0] for r in asked for sq in r.route.quotes)
    assert "respond to what Dan just said" in asked[1].question
    assert [(m.role, m.text) for m in asked[1].history][-1] == ("dan", "dan says")


# ------------------------------------------------------------------------------ the shell


def test_discuss_is_saved_and_followed_up_with_ask_c(isolated_env: dict[str, str]) -> None:
    code, out, err = _cli("discuss", "open source")
    assert code == 0, err
    assert out.startswith("Discussion: open source")
    assert _history(isolated_env).is_file()
    code, out, err = _cli("history", "show", "1")
    assert code == 0, err
    assert "You: open source" in out and "Discussion:" in out and "Dan:" in out and "Olive:" in out
    assert MEASURED.search(out)
    code, out, err = _cli("ask", "-c", "--json", "why do they disagree?")
    obj = json.loads(out)
    assert code == 0 and obj["conversation"] == 1
    assert obj["context"]["kind"] == "discussion" and obj["context"]["followup"] == "difference"
    code, out, _ = _cli("ask", "-c", "Olive, respond to that")
    assert out.startswith("Olive (") and "Where they meet:" in out and "[olive-03]" in out
    code, out, _ = _cli("ask", "-c", "--json", "and Dan?")
    assert json.loads(out)["speakers"] == ["dan"]
    # every turn is in the one conversation, in the file
    store = ConversationStore(_history(isolated_env))
    try:
        users = [m.text for m in store.messages(1) if m.role == "user"]
        assert users == [
            "open source",
            "why do they disagree?",
            "Olive, respond to that",
            "and Dan?",
        ]
        assert store.last_conversation_id() == 1
    finally:
        store.close()


def test_discuss_json_names_its_conversation_and_no_log_writes_nothing(
    isolated_env: dict[str, str],
) -> None:
    code, out, _ = _cli("discuss", "--json", "--no-log", "open source")
    assert code == 0 and json.loads(out)["conversation"] is None
    assert not _history(isolated_env).exists()
    code, out, _ = _cli("discuss", "--json", "open source")
    assert json.loads(out)["conversation"] == 1


def test_ask_stages_a_discussion_request(isolated_env: dict[str, str]) -> None:
    code, out, err = _cli("ask", "what do they both think about open source?")
    assert code == 0, err
    assert out.startswith("Discussion: open source") and "Where they meet:" in out
    code, out, _ = _cli("ask", "--json", "How do you deal with a KV cache that keeps growing?")
    assert json.loads(out)["context"] is None  # an ordinary question, answered as ever


@pytest.mark.parametrize("name", ["discussion_requests_dev.yaml", "discussion_requests_test.yaml"])
def test_the_labelled_request_sets_load(name: str) -> None:
    items = load_requests(ROOT / "eval" / name)
    assert any(it.discussion for it in items) and any(not it.discussion for it in items)
    assert all(it.message.strip() for it in items)
    assert len({it.message for it in items}) == len(items)  # no message twice
