"""``panelbot mcp``'s tool results, driven by the MCP client SDK over stdio: every tool publishes an output schema
its results satisfy, each result carries its JSON as text too and a ``resource_link`` to each quote (which the
server then serves), and ``search_quotes`` pages with ``cursor`` through the same results one big search gives."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from typing import Any

import jsonschema
import pytest
from mcp import Client, StdioServerParameters

KV = "How do you deal with a KV cache that keeps growing?"


def run(coro: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coro, 180))


@pytest.fixture(scope="module")
def session_results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("mcp")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PANELBOT_", "OPENAI_"))}
    env.update(PANELBOT_DATA_DIR=str(tmp / "data"), PANELBOT_CONFIG=os.devnull)
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "panelbot", "mcp"], env=env, cwd=str(tmp)
    )

    async def session() -> dict[str, Any]:
        got: dict[str, Any] = {}
        async with Client(params) as c:
            got["tools"] = {t.name: t for t in (await c.list_tools()).tools}
            got["ask"] = await c.call_tool("ask_panel", {"question": KV})
            got["decline"] = await c.call_tool("ask_panel", {"question": "best pizza in Naples?"})
            got["quote"] = await c.call_tool("get_quote", {"id": "olive-13"})
            got["panels"] = await c.call_tool("list_panels", {})
            got["all"] = await c.call_tool("search_quotes", {"query": "model", "k": 50})
            pages, cursor = [], None
            while len(pages) < 20:
                args: dict[str, Any] = {"query": "model", "k": 7}
                if cursor:
                    args["cursor"] = cursor
                page = await c.call_tool("search_quotes", args)
                pages.append(page)
                cursor = page.structured_content["next_cursor"]
                if cursor is None:
                    break
            got["pages"] = pages
            first = pages[0].structured_content["next_cursor"]
            got["other_search"] = await c.call_tool(
                "search_quotes", {"query": "kernels", "k": 7, "cursor": first}
            )
            got["bad_cursor"] = await c.call_tool(
                "search_quotes", {"query": "model", "cursor": "not-a-cursor"}
            )
            links = [b for b in got["ask"].content if b.type == "resource_link"]
            got["linked"] = [
                json.loads((await c.read_resource(str(b.uri))).contents[0].text) for b in links
            ]
        return got

    return run(session())


@pytest.mark.parametrize("tool", ["ask_panel", "search_quotes", "get_quote", "list_panels"])
def test_every_tool_has_an_output_schema_its_results_satisfy(session_results, tool) -> None:
    schema = session_results["tools"][tool].output_schema
    assert schema and schema["type"] == "object"
    results = {
        "ask_panel": ["ask", "decline"],
        "search_quotes": ["all", "pages"],
        "get_quote": ["quote"],
        "list_panels": ["panels"],
    }[tool]
    for name in results:
        got = session_results[name]
        for r in got if isinstance(got, list) else [got]:
            assert not r.is_error
            jsonschema.validate(r.structured_content, schema)
            assert json.loads(r.content[0].text) == r.structured_content  # the text fallback


def test_schemas_name_the_fields(session_results) -> None:
    tools = session_results["tools"]
    ask = tools["ask_panel"].output_schema
    assert {"answered_by", "abstained", "quotes", "reason", "context"} <= set(ask["required"])
    search = tools["search_quotes"].output_schema
    assert set(search["properties"]) == {"result", "next_cursor"}
    assert "cursor" in tools["search_quotes"].input_schema["properties"]


def test_a_resource_link_to_each_quote(session_results) -> None:
    ask = session_results["ask"]
    links = [b for b in ask.content if b.type == "resource_link"]
    quotes = ask.structured_content["quotes"]
    assert [str(b.uri) for b in links] == [f"panel://minimax-m3/quotes/{q['id']}" for q in quotes]
    assert [q["resource"] for q in quotes] == [str(b.uri) for b in links]
    assert all(b.mime_type == "application/json" and b.title.startswith("Dan [") for b in links)
    assert [d["id"] for d in session_results["linked"]] == [q["id"] for q in quotes]  # served
    assert [b.type for b in session_results["decline"].content] == ["text"]  # no quotes, no links
    [link] = [b for b in session_results["quote"].content if b.type == "resource_link"]
    assert str(link.uri) == "panel://minimax-m3/quotes/olive-13"


def test_pages_walk_the_same_results_as_one_search(session_results) -> None:
    pages = [p.structured_content for p in session_results["pages"]]
    everything = session_results["all"].structured_content["result"]
    assert len(pages) > 2 and pages[-1]["next_cursor"] is None
    assert all(len(p["result"]) == 7 for p in pages[:-1])
    paged = [q["id"] for p in pages for q in p["result"]]
    assert len(paged) == len(set(paged))  # no quote twice
    assert paged[: len(everything)] == [q["id"] for q in everything]
    per_page = [b for p in session_results["pages"] for b in p.content if b.type == "resource_link"]
    assert len(per_page) == len(paged)


def test_a_cursor_of_another_search_or_none_is_refused(session_results) -> None:
    for name, says in (("other_search", "another search"), ("bad_cursor", "not a next_cursor")):
        r = session_results[name]
        assert r.is_error and says in r.content[0].text, (name, r.content[0].text)
