"""``ask_panel`` follow-ups by ``conversation_id``: the server keeps the conversation (bounded, per client), so
a client passes back the id of an earlier result instead of the earlier turns. Driven by the official MCP
client SDK over stdio and over streamable HTTP (two clients of one server)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters

from panelbot.conversation.session import ConversationLog
from panelbot.serve.mcp_conversations import ConversationMemory

from .conftest import ServerProcess, free_port

KV = "How do you deal with a KV cache that keeps growing?"


def _stdio(env: dict[str, str], cwd: Path) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable, args=["-m", "panelbot", "mcp"], env=env, cwd=str(cwd)
    )


def _run(coro: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coro, 120))


def _ids(result: Any) -> list[str]:
    return [q["id"] for q in result.structured_content["quotes"]]


def test_a_follow_up_by_conversation_id_goes_on_with_the_kept_conversation(
    isolated_env, tmp_path: Path
) -> None:
    async def session() -> dict[str, Any]:
        got: dict[str, Any] = {}
        async with Client(_stdio(isolated_env, tmp_path)) as c:
            got["first"] = first = await c.call_tool("ask_panel", {"question": KV})
            cid = first.structured_content["conversation_id"]
            got["more"] = await c.call_tool(
                "ask_panel", {"question": "tell me more", "conversation_id": cid}
            )
            got["again"] = await c.call_tool(
                "ask_panel", {"question": "tell me more", "conversation_id": cid}
            )
            got["alone"] = await c.call_tool("ask_panel", {"question": "tell me more"})
            got["unknown"] = await c.call_tool(
                "ask_panel", {"question": "why?", "conversation_id": "not-an-id"}
            )
            got["both"] = await c.call_tool(
                "ask_panel",
                {"question": "why?", "conversation_id": cid, "conversation": [KV]},
            )
            got["alive"] = await c.call_tool("ask_panel", {"question": KV})
        return got

    g = _run(session())
    first, more, again = g["first"], g["more"], g["again"]
    assert not first.is_error and first.structured_content["answered_by"]
    cid = first.structured_content["conversation_id"]
    assert isinstance(cid, str) and len(cid) >= 16  # not guessable
    # the follow-up is read against the kept turn: context carried over, new quotes of the same subject
    assert not more.is_error and more.structured_content["context"] is not None
    assert more.structured_content["conversation_id"] == cid
    assert _ids(more) and not set(_ids(more)) & set(_ids(first))
    # and the kept conversation grew: a second "tell me more" does not repeat the first two answers
    assert not set(_ids(again)) & (set(_ids(first)) | set(_ids(more)))
    # with no conversation "tell me more" has nothing to go on with, and starts one of its own
    assert g["alone"].structured_content["context"] is None
    assert g["alone"].structured_content["conversation_id"] != cid
    unknown = g["unknown"]
    assert unknown.is_error and "no conversation" in unknown.content[0].text
    assert "'conversation'" in unknown.content[0].text  # says what to do instead
    assert g["both"].is_error and "not both" in g["both"].content[0].text
    assert not g["alive"].is_error  # the server kept serving


def test_a_conversation_id_is_kept_for_the_client_that_started_it(
    isolated_env, tmp_path: Path
) -> None:
    port = free_port()
    srv = ServerProcess(["mcp", "--http", str(port)], isolated_env, port, tmp_path)
    try:
        srv.wait_ready("/mcp")

        async def two_clients() -> tuple[Any, Any, Any]:
            import httpx2
            from mcp.client.streamable_http import streamable_http_client

            # the conversations are kept per client credentials (and MCP session, when the transport
            # has one): a caller with other credentials cannot reach them
            other_key = httpx2.AsyncClient(headers={"Authorization": "Bearer someone-else"})
            async with (
                Client(streamable_http_client(f"{srv.url}/mcp")) as a,
                Client(streamable_http_client(f"{srv.url}/mcp", http_client=other_key)) as b,
            ):
                first = await a.call_tool("ask_panel", {"question": KV})
                cid = first.structured_content["conversation_id"]
                other = await b.call_tool(
                    "ask_panel", {"question": "tell me more", "conversation_id": cid}
                )
                mine = await a.call_tool(
                    "ask_panel", {"question": "tell me more", "conversation_id": cid}
                )
                return first, other, mine

        first, other, mine = _run(two_clients())
    finally:
        srv.stop()
    assert other.is_error and "no conversation" in other.content[0].text
    assert not mine.is_error and mine.structured_content["context"] is not None
    assert not set(_ids(mine)) & set(_ids(first))


def test_the_kept_conversations_are_bounded() -> None:
    now = [0.0]
    memory = ConversationMemory(
        per_client=2, total=3, max_age=10, max_turns=2, clock=lambda: now[0]
    )
    a, b = memory.owner_of(None), memory.owner_of({"authorization": "Bearer k"})

    def log(turns: int) -> ConversationLog:
        conv = ConversationLog(None, None, "p", log=False)
        conv.turns.extend([None] * turns)  # type: ignore[list-item]
        return conv

    memory.put(a, "a1", log(5))
    assert len(memory.get(a, "a1").turns) == 2  # the recent turns only
    memory.put(a, "a2", log(1))
    memory.put(a, "a3", log(1))
    assert memory.get(a, "a1") is None and memory.get(a, "a3") is not None  # per client
    assert memory.get(b, "a3") is None  # another client's
    memory.put(b, "b1", log(1))
    memory.put(b, "b2", log(1))
    assert len(memory) == 3 and memory.get(a, "a2") is None  # in all: the oldest went
    now[0] = 11.0
    assert memory.get(b, "b2") is None and len(memory) == 0  # aged out
