"""Suggested follow-ups (panelbot.conversation.followups): every one is answerable in its conversation."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from panelbot.conversation.followups import suggest_followups
from panelbot.conversation.resolve import resolve
from panelbot.conversation.turns import ConversationTurn


def _turns(router, *questions: str) -> list[ConversationTurn]:
    turns: list[ConversationTurn] = []
    for q in questions:
        res = resolve(router, turns, q)
        turns.append(
            ConversationTurn(q, list(res.route.speakers), [sq.quote.id for sq in res.route.quotes])
        )
    return turns


def _check_answerable(router, turns) -> list:
    ups = suggest_followups(router, turns)
    for f in ups:
        route = resolve(router, turns, f.text).route
        assert not route.abstained and route.quotes, f
        assert tuple(route.speakers) == f.speakers
    return ups


def test_kinds_and_guarantee(router) -> None:
    ups = _check_answerable(router, _turns(router, "Dan, what do you do at Together?"))
    assert [f.kind for f in ups] == ["continuation", "other_panelist", "next_question"]
    assert ups[1].text == "What does Olive think?" and ups[1].speakers == ("olive",)
    assert ups[2].speakers == ("olive",)  # the host's next question went to Olive


def test_other_panelist_offered_only_when_they_spoke_to_it(router) -> None:
    ups = _check_answerable(
        router, _turns(router, "How do you deal with a KV cache that keeps growing?")
    )
    assert "other_panelist" not in [f.kind for f in ups]  # Olive never spoke about the KV cache
    assert ups and len(ups) <= 3


def test_nothing_after_a_decline_or_at_the_start(router) -> None:
    assert suggest_followups(router, []) == []
    assert suggest_followups(router, _turns(router, "best pizza in Naples?")) == []


def test_deterministic(router) -> None:
    turns = _turns(router, "Why open source M3?", "tell me more")
    assert suggest_followups(router, turns) == suggest_followups(router, turns)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_every_suggestion_is_answerable_along_any_path(router, shipped_panel, data) -> None:
    """Start anywhere in the talk (a user-worded question), then keep picking suggestions."""
    asks = [a for q in shipped_panel.quotes for a in q.asks]
    turns = _turns(router, data.draw(st.sampled_from(asks)))
    for _ in range(3):
        ups = _check_answerable(router, turns)
        if not ups:
            break
        pick = data.draw(st.sampled_from(ups))
        turns = _turns(router, *[t.question for t in turns], pick.text)
        assert turns[-1].speakers


def test_a_follow_up_is_offered_only_when_it_is_answered_on_the_subject(router):
    # asked of both, then of each in turn: every suggestion, asked, is answered with what is on the subject
    question = "Why did you open source M3?"
    res = resolve(router, [], question, target="both")
    history = [
        ConversationTurn(
            question, list(res.route.speakers), [sq.quote.id for sq in res.route.quotes]
        )
    ]
    floor = router.settings.min_quote_score
    for message in ("and Olive?", "What does Dan think?", "What does Dan think?", "tell me more"):
        res = resolve(router, history, message)
        history.append(
            ConversationTurn(
                message, list(res.route.speakers), [sq.quote.id for sq in res.route.quotes]
            )
        )
        for f in suggest_followups(router, history):
            got = resolve(router, history, f.text).route
            # the rest of a turn that moved on to something else is not "more" on the subject
            assert not got.abstained and all(sq.score >= floor for sq in got.quotes), (
                message,
                f.text,
            )
