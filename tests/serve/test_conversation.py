"""The messages -> conversation adapter: reads back what the server itself wrote, never crashes on any input
(hypothesis), and reports malformed requests as RequestError with the field at fault."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from panelbot.answer.backends.offline import OfflineBackend
from panelbot.answer.compose import passages
from panelbot.serve.answering import AnswerRun
from panelbot.serve.conversation import RequestError, parse_messages, read_answer

QUESTIONS = [
    "How do you deal with a KV cache that keeps growing?",
    "sparse attention",
    "reward hacking",
    "Will open models catch up?",
    "ask both: what about evaluation?",
]


@pytest.mark.parametrize("question", QUESTIONS)
@pytest.mark.parametrize("target", ["auto", "both"])
def test_the_servers_own_answer_reads_back(
    shipped_panel, router, question: str, target: str
) -> None:
    route = router.route(question, target)
    text = asyncio.run(AnswerRun(OfflineBackend(), shipped_panel, route, question).text())
    speakers, ids = read_answer(shipped_panel, text)
    shown = [s for s in route.speakers if route.quotes_for(s)]
    assert [s for s in speakers if s in shown] == shown and set(speakers) <= set(route.speakers)
    # in the order shown: each panelist's passages in spoken order
    assert ids == [i for s in shown for p in passages(route.quotes_for(s)) for i in p.ids]


def test_extra_field_wins_when_the_client_kept_it(shipped_panel) -> None:
    extra = {"speakers": ["olive"], "quotes": [{"id": "olive-13"}, {"id": "not-a-quote"}]}
    assert read_answer(shipped_panel, "some rewritten text [dan-22]", extra) == (
        ["olive"],
        ["olive-13"],
    )


def test_ids_not_in_the_panel_and_foreign_headings_are_ignored(shipped_panel) -> None:
    speakers, ids = read_answer(
        shipped_panel, "Carol (CTO):\nI cite [carol-1] and [1] and [dan-22]."
    )
    assert speakers == ["dan"] and ids == ["dan-22"]


def test_turns_pair_questions_with_answers(shipped_panel) -> None:
    conv = parse_messages(
        shipped_panel,
        [
            {"role": "system", "content": "be nice"},
            {
                "role": "user",
                "content": [{"type": "text", "text": "kv cache?"}, {"type": "image_url"}],
            },
            {
                "role": "assistant",
                "content": "Dan (VP of Kernels, Together AI):\n\u201c...\u201d [dan-22]\n"
                "[grounded: cites dan-22]",
            },
            {"role": "user", "content": "unanswered"},
            {"role": "user", "content": "tell me more"},
        ],
    )
    assert conv.message == "tell me more"
    assert [(t.question, t.speakers, t.quote_ids) for t in conv.turns] == [
        ("kv cache?", ["dan"], ["dan-22"]),
        ("unanswered", [], []),
    ]
    assert [m.role for m in conv.history] == ["user", "dan", "user"]
    assert "grounded" not in conv.history[1].text and "VP of Kernels" not in conv.history[1].text


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
message = st.fixed_dictionaries(
    {"role": st.sampled_from(["user", "assistant", "system", "tool", "bot", 3, None])},
    optional={"content": json_values | st.text(max_size=200), "panelbot": json_values},
)


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(messages=st.lists(message | json_values, max_size=6) | json_values)
def test_any_messages_parse_or_raise_request_error(shipped_panel, messages) -> None:
    try:
        conv = parse_messages(shipped_panel, messages)
    except RequestError as exc:
        assert str(exc)
        return
    assert conv.message.strip()
    for t in conv.turns:
        assert all(s in shipped_panel.panelists for s in t.speakers)
        assert all(shipped_panel.quote(i) is not None for i in t.quote_ids)


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    extra=st.dictionaries(
        st.sampled_from(["speakers", "quotes", "other"]),
        json_values | st.lists(json_values | st.sampled_from(["dan", "olive"]), max_size=4),
        max_size=3,
    )
)
def test_any_panelbot_field_reads_back_or_is_ignored(shipped_panel, extra) -> None:
    """The extra field of an earlier answer is the client's to send: any shape of it is read or ignored."""
    speakers, ids = read_answer(shipped_panel, "an answer citing [dan-22]", extra)
    assert set(speakers) <= set(shipped_panel.panelists)
    assert all(shipped_panel.quote(i) is not None for i in ids)
