"""``panelbot mcp`` over stdio, driven by the official MCP client SDK: every tool, bad arguments (errors, and
the server keeps serving), resources, prompts; and streamable HTTP with ``--http`` (with and without a key)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import httpx
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError

from .conftest import ServerProcess, free_port

KV = "How do you deal with a KV cache that keeps growing?"


def stdio(env: dict[str, str], cwd: Path) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable, args=["-m", "panelbot", "mcp"], env=env, cwd=str(cwd)
    )


def run(coro: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coro, 120))


def test_every_tool_resource_and_prompt_over_stdio(isolated_env, tmp_path: Path) -> None:
    async def session() -> dict[str, Any]:
        got: dict[str, Any] = {}
        async with Client(stdio(isolated_env, tmp_path)) as c:
            got["tools"] = {t.name: t for t in (await c.list_tools()).tools}
            got["ask"] = await c.call_tool("ask_panel", {"question": KV})
            got["ask_olive"] = await c.call_tool(
                "ask_panel", {"question": "reward hacking", "to": "olive"}
            )
            got["decline"] = await c.call_tool("ask_panel", {"question": "best pizza in Naples?"})
            got["hello"] = await c.call_tool("ask_panel", {"question": "hello!"})
            got["follow"] = await c.call_tool(
                "ask_panel",
                {
                    "question": "Olive, how do you evaluate long runs?",
                    "conversation": [
                        KV,
                        {"role": "assistant", "content": "Dan:\n\u201c...\u201d [dan-22]"},
                    ],
                },
            )
            shown = [q["id"] for q in got["ask"].structured_content["quotes"]]
            got["shown"] = shown
            got["more"] = await c.call_tool(
                "ask_panel",
                {
                    "question": "tell me more",
                    "conversation": [
                        {"role": "user", "content": KV},
                        {"role": "assistant", "content": " ".join(f"[{i}]" for i in shown)},
                    ],
                },
            )
            got["followups"] = [
                await c.call_tool(
                    "ask_panel",
                    {
                        "question": f["question"],
                        "conversation": [
                            {"role": "user", "content": KV},
                            {"role": "assistant", "content": " ".join(f"[{i}]" for i in shown)},
                        ],
                    },
                )
                for f in got["ask"].structured_content["suggested_followups"]
            ]
            got["search"] = await c.call_tool(
                "search_quotes", {"query": "sparse attention", "k": 2, "speaker": "dan"}
            )
            got["quote"] = await c.call_tool("get_quote", {"id": "dan-22"})
            got["panels"] = await c.call_tool("list_panels", {})
            got["bad_to"] = await c.call_tool("ask_panel", {"question": KV, "to": "zed"})
            got["bad_k"] = await c.call_tool("search_quotes", {"query": "kv", "k": 0})
            got["bad_type"] = await c.call_tool("search_quotes", {"query": "kv", "k": "many"})
            got["bad_id"] = await c.call_tool("get_quote", {"id": "dan-999"})
            got["empty"] = await c.call_tool("ask_panel", {"question": "   "})
            got["bad_conv"] = await c.call_tool(
                "ask_panel", {"question": KV, "conversation": [{"role": "x"}]}
            )
            got["after_errors"] = await c.call_tool("get_quote", {"id": "olive-13"})
            got["resources"] = [str(r.uri) for r in (await c.list_resources()).resources]
            got["profile"] = (await c.read_resource("panel://minimax-m3/dan")).contents[0].text
            got["quote_res"] = (
                (await c.read_resource("panel://minimax-m3/quotes/olive-13")).contents[0].text
            )
            try:
                await c.read_resource("panel://minimax-m3/quotes/nobody-1")
            except MCPError as exc:
                got["bad_resource"] = exc
            got["prompts"] = [p.name for p in (await c.list_prompts()).prompts]
            got["prompt"] = await c.get_prompt("answer_as_dan", {"question": "sparse attention"})
            try:
                await c.get_prompt("answer_as_dan", {})
            except MCPError as exc:
                got["bad_prompt"] = exc
        return got

    g = run(session())
    assert set(g["tools"]) == {"ask_panel", "search_quotes", "get_quote", "list_panels"}
    assert (
        "Dan" in g["tools"]["ask_panel"].description
        and "verbatim" in g["tools"]["ask_panel"].description
    )
    assert g["tools"]["ask_panel"].input_schema["required"] == ["question"]

    ask = g["ask"].structured_content
    assert (
        not g["ask"].is_error
        and ask["answered_by"] == [{"id": "dan", "name": "Dan"}]
        and not ask["abstained"]
    )
    assert ask["quotes"] and all(
        q["speaker"] == "dan" and q["id"].startswith("dan-") for q in ask["quotes"]
    )
    assert ask["reason"]
    assert [q["speaker"] for q in g["ask_olive"].structured_content["quotes"]] == ["olive"] * len(
        g["ask_olive"].structured_content["quotes"]
    )
    dec = g["decline"].structured_content
    assert dec["abstained"] and dec["quotes"] == [] and dec["suggested_topics"] and "decline" in dec
    assert "kind" not in dec
    hello = g[
        "hello"
    ].structured_content  # small talk: a friendly reply with questions that have answers
    assert (
        hello["kind"] == "small_talk"
        and hello["small_talk"] == "greeting"
        and hello["quotes"] == []
    )
    assert hello["decline"].startswith("Hi! ") and hello["suggested_questions"]
    assert (
        g["follow"].structured_content["answered_by"][0]["id"] == "olive"
    )  # a new subject stands alone
    assert g["followups"] and all(
        not f.is_error
        and f.structured_content["quotes"]  # suggestions that
        and not f.structured_content["abstained"]
        for f in g["followups"]
    )  # have answers
    more = g["more"].structured_content  # a follow-up: same panelist, quotes not shown yet
    assert more["answered_by"][0]["id"] == "dan" and more["context"]["kind"] == "continuation"
    assert more["quotes"] and not {q["id"] for q in more["quotes"]} & set(g["shown"])

    hits = g["search"].structured_content["result"]
    assert len(hits) == 2 and all(h["speaker"] == "dan" and 0 <= h["score"] <= 100 for h in hits)
    quote = g["quote"].structured_content
    assert (
        quote["id"] == "dan-22"
        and quote["host_question"]["text"]
        and quote["text"] in quote["whole_answer"]
    )
    panels = g["panels"].structured_content["result"]
    assert panels[0]["name"] == "minimax-m3" and panels[0]["default"]
    assert {p["id"] for p in panels[0]["panelists"]} == {"dan", "olive"}

    for name, says in (
        ("bad_to", "'to' must be"),
        ("bad_k", "'k' must be"),
        ("bad_type", "k"),
        ("bad_id", "no quote 'dan-999'"),
        ("empty", "'question' must be"),
        ("bad_conv", "conversation[0].role"),
    ):
        assert g[name].is_error, name
        assert says in g[name].content[0].text, (name, g[name].content[0].text)
    assert not g["after_errors"].is_error  # the server kept serving

    assert (
        "panel://minimax-m3/dan" in g["resources"]
        and "panel://minimax-m3/quotes/dan-22" in g["resources"]
    )
    assert g["profile"].startswith("# Dan") and "[dan-22]" in g["profile"]
    assert json.loads(g["quote_res"])["id"] == "olive-13"
    assert "no quote" in str(g["bad_resource"])
    assert g["prompts"] == ["answer_as_dan", "answer_as_olive"]
    text = g["prompt"].messages[0].content.text
    assert text.startswith("You are Dan") and "[dan-" in text and "cite" in text
    assert "needs the argument 'question'" in str(g["bad_prompt"])


def test_streamable_http_with_a_key(isolated_env, tmp_path: Path) -> None:
    port = free_port()
    key = "mcp-SECRET-key-42"
    srv = ServerProcess(
        ["mcp", "--http", str(port)], {**isolated_env, "PANELBOT_SERVE_KEY": key}, port, tmp_path
    )
    try:
        srv.wait_ready("/mcp")
        assert httpx.post(f"{srv.url}/mcp", json={}, timeout=10).status_code == 401

        async def call() -> Any:
            import httpx2
            from mcp.client.streamable_http import streamable_http_client

            http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"})

            async with Client(streamable_http_client(f"{srv.url}/mcp", http_client=http)) as c:
                return await c.call_tool("ask_panel", {"question": KV})

        r = run(call())
        assert not r.is_error and r.structured_content["answered_by"][0]["id"] == "dan"
    finally:
        out = srv.stop()
    assert key not in out


def test_mcp_http_refuses_a_public_address_without_a_key(run_cli) -> None:
    r = run_cli("mcp", "--http", "9", "--host", "0.0.0.0")
    assert r.returncode == 2 and "PANELBOT_SERVE_KEY" in r.stderr


def test_mcp_bad_panel_is_one_line(run_cli) -> None:
    r = run_cli("mcp", "--panel", "no-such-panel")
    assert r.returncode == 2 and "unknown panel" in r.stderr and "Traceback" not in r.stderr
