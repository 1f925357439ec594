"""Follow-ups from any client: when earlier answers carry no quote ids (a plain list of questions, an answer a
client summarised, a model's answer citing nothing) the earlier questions are answered again to recover the
subject; and ``ask_panel``'s own JSON (or a chat answer's ``panelbot`` record) passed back as an assistant turn
is read for who answered with which quotes. In process (the adapter), over HTTP (chat completions, the real
server and the ``openai`` SDK) and over MCP (the real server and the MCP client SDK)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import openai
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import Client, StdioServerParameters

from panelbot.conversation.recover import recover_turns
from panelbot.conversation.resolve import NOTHING_TO_FOLLOW, resolve
from panelbot.conversation.turns import ConversationTurn
from panelbot.serve.answers_in import answer_record, with_answer_records
from panelbot.serve.conversation import parse_messages, route_conversation

KV = "How do you deal with a KV cache that keeps growing?"
RL = "How do you design RL environments?"


def ids(route) -> list[str]:
    return [sq.quote.id for sq in route.quotes]


@pytest.fixture(scope="module")
def reference(router) -> dict[str, Any]:
    """What a client that kept the ids gets: the first answer, then "why?" and "tell me more" after it."""
    first = router.route(KV, "auto")
    turn = ConversationTurn(KV, list(first.speakers), ids(first))
    return {
        "first": first,
        "turn": turn,
        "why": ids(resolve(router, [turn], "why?").route),
        "more": ids(resolve(router, [turn], "tell me more").route),
    }


def follow(panel, router, messages: list[Any], target: str = "auto"):
    conv = parse_messages(panel, messages, target)
    return route_conversation(router, conv.turns, conv.message, target)


# --------------------------------------------------------------------------------------------- in process


def test_without_recovery_a_plain_conversation_had_nothing_to_follow(router) -> None:
    """The defect this fixes, kept visible: the resolver alone cannot follow up on an id-less turn."""
    res = resolve(router, [ConversationTurn(KV)], "why?")
    assert res.route.abstained and res.route.reason == NOTHING_TO_FOLLOW


@pytest.mark.parametrize(
    "answer",
    [
        None,  # only the earlier question (the MCP tool's plain-string form)
        "Dan talked about storing the cache like a big database.",  # summarised by the client
        "Dan (VP of Kernels, Together AI):\nThey build a distributed file system for it.",  # no ids
        "",
    ],
)
@pytest.mark.parametrize("question", ["why?", "tell me more"])
def test_id_less_answers_are_answered_again(
    shipped_panel, router, reference, answer, question
) -> None:
    messages: list[Any] = [{"role": "user", "content": KV}]
    if answer is not None:
        messages.append({"role": "assistant", "content": answer})
    route, context = follow(
        shipped_panel, router, [*messages, {"role": "user", "content": question}]
    )
    want = reference["why" if question == "why?" else "more"]
    assert not route.abstained and ids(route) == want and want
    assert context["question"] == KV and context["previous_speakers"] == ["dan"]


def test_recovery_replays_a_whole_plain_conversation(router) -> None:
    """Each earlier question is answered in its place: the second is resolved against the first."""
    turns = recover_turns(router, [ConversationTurn(KV), ConversationTurn("why?")])
    first = router.route(KV, "auto")
    assert turns[0].quote_ids == ids(first) and turns[0].speakers == ["dan"]
    assert turns[1].quote_ids == ids(resolve(router, [turns[0]], "why?").route)
    assert turns[1].speakers == ["dan"]


def test_turns_with_ids_declines_and_named_speakers(router, reference) -> None:
    kept = reference["turn"]
    off = ConversationTurn("best pizza in Naples?")
    olive = ConversationTurn(RL, ["olive"], [])  # the heading named Olive; no ids
    out = recover_turns(router, [kept, off, olive])
    assert out[0] is kept  # ids already: untouched
    assert out[1] == off  # answered again as a decline: nothing to carry
    assert out[2].speakers == ["olive"] and out[2].quote_ids == ids(router.route(RL, "olive"))


def test_an_unknown_target_is_left_as_sent(router) -> None:
    turn = ConversationTurn(KV, [], [], "carol")
    assert recover_turns(router, [turn]) == [turn]


def test_ask_panels_own_json_is_read_as_the_answer(shipped_panel, router, reference) -> None:
    first = reference["first"]
    tool_out = {  # the shape ask_panel returns
        "panel": "minimax-m3",
        "question": KV,
        "answered_by": [{"id": "dan", "name": "Dan"}],
        "abstained": False,
        "quotes": [{"id": i, "speaker": "dan", "text": "..."} for i in ids(first)],
    }
    forms = [
        {"role": "assistant", "content": json.dumps(tool_out)},  # its JSON text
        {"role": "assistant", "content": tool_out},  # the object itself
        {"role": "assistant", "content": [{"type": "text", "text": json.dumps(tool_out)}]},
        tool_out,  # the whole result as the conversation item
    ]
    for form in forms:
        msg = with_answer_records(shipped_panel, [form])[0]
        assert msg["role"] == "assistant"
        assert msg["panelbot"] == {"speakers": ["dan"], "quotes": [{"id": i} for i in ids(first)]}
        assert msg["content"].startswith("Dan (VP of Kernels, Together AI):\n")
        assert all(f"[{i}]" in msg["content"] for i in ids(first))
        why = {"role": "user", "content": "why?"}
        route, _ = follow(shipped_panel, router, [{"role": "user", "content": KV}, form, why])
        assert ids(route) == reference["why"]


def test_a_chat_record_and_what_is_not_a_record(shipped_panel) -> None:
    record = {"speakers": ["olive"], "quotes": [{"id": "olive-13"}], "answer": "Olive's words"}
    msg = with_answer_records(shipped_panel, [{"role": "assistant", "content": record}])[0]
    assert msg["content"] == "Olive's words" and msg["panelbot"]["speakers"] == ["olive"]
    for content in ('{"quotes": "no"}', "{not json", '{"answered_by": []}', "[dan-22]", 5):
        assert answer_record(content) is None
    plain = {"role": "assistant", "content": '{"a": 1}'}
    assert with_answer_records(shipped_panel, [plain]) == [plain]
    kept = {"role": "assistant", "content": record, "panelbot": {"speakers": ["dan"]}}
    assert with_answer_records(shipped_panel, [kept])[0]["panelbot"] == {"speakers": ["dan"]}


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(
        st.one_of(
            st.text(max_size=20),
            st.dictionaries(
                st.sampled_from(["role", "content", "quotes", "answered_by", "speakers", "answer"]),
                st.recursive(
                    st.one_of(st.none(), st.integers(), st.text(max_size=10)),
                    lambda inner: st.one_of(
                        st.lists(inner, max_size=3),
                        st.dictionaries(st.sampled_from(["id", "text", "type"]), inner, max_size=3),
                    ),
                    max_leaves=8,
                ),
                max_size=5,
            ),
        ),
        max_size=5,
    )
)
def test_any_conversation_items_never_crash_the_reader(shipped_panel, items) -> None:
    out = with_answer_records(shipped_panel, items)
    assert len(out) == len(items)


# --------------------------------------------------------------------------------------------- over HTTP


def test_chat_completions_follow_up_without_ids(offline_server, reference) -> None:
    c = openai.OpenAI(base_url=offline_server.base_url, api_key="x", max_retries=0, timeout=60)
    r = c.chat.completions.create(
        model="panel",
        messages=[
            {"role": "user", "content": KV},
            {"role": "assistant", "content": "(the client dropped the earlier answer's text)"},
            {"role": "user", "content": "why?"},
        ],
    )
    extra = r.model_extra["panelbot"]
    assert [q["id"] for q in extra["quotes"]] == reference["why"]
    assert extra["context"]["kind"] == "reason"


# --------------------------------------------------------------------------------------------- over MCP


def test_mcp_follow_ups_from_plain_strings_and_from_its_own_output(
    isolated_env, tmp_path: Path, reference
) -> None:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "panelbot", "mcp"], env=isolated_env, cwd=str(tmp_path)
    )

    async def session() -> dict[str, Any]:
        got: dict[str, Any] = {}
        async with Client(params) as c:
            first = (await c.call_tool("ask_panel", {"question": KV})).structured_content
            got["plain"] = await c.call_tool(
                "ask_panel", {"question": "why?", "conversation": [KV]}
            )
            got["own_json"] = await c.call_tool(
                "ask_panel",
                {
                    "question": "why?",
                    "conversation": [KV, {"role": "assistant", "content": json.dumps(first)}],
                },
            )
            got["own_object"] = await c.call_tool(
                "ask_panel", {"question": "tell me more", "conversation": [KV, first]}
            )
        return got

    got = asyncio.run(asyncio.wait_for(session(), 120))
    for name, want in (("plain", "why"), ("own_json", "why"), ("own_object", "more")):
        out = got[name].structured_content
        assert not got[name].is_error and not out["abstained"], (name, out)
        assert [q["id"] for q in out["quotes"]] == reference[want], name
        assert out["context"]["question"] == KV
