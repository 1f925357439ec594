"""``panelbot mcp --config-snippet``: each client's set-up, parsed in its own format, and the stdio and HTTP
ones actually used: the MCP client SDK starts the server exactly as the snippet says (or reaches its URL)."""

from __future__ import annotations

import asyncio
import json
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

from panelbot.cli import mcp_config, serve

from .conftest import ServerProcess, free_port

KV = "How do you deal with a KV cache that keeps growing?"


def _snippet(run_cli, *args: str) -> str:
    r = run_cli(*args)
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""
    return r.stdout


def test_the_claude_desktop_snippet_starts_a_working_server(
    run_cli, isolated_env, tmp_path
) -> None:
    """What a client does with the pasted JSON: run ``command`` with ``args`` and speak MCP over stdio."""
    entry = json.loads(_snippet(run_cli, "mcp", "--config-snippet", "claude-desktop"))
    server = entry["mcpServers"]["panelbot"]
    assert Path(server["command"]).is_absolute() and server["args"][-1] == "mcp"

    async def session() -> tuple[list[str], Any]:
        params = StdioServerParameters(
            command=server["command"], args=server["args"], env=isolated_env, cwd=str(tmp_path)
        )
        async with Client(params) as c:
            tools = sorted(t.name for t in (await c.list_tools()).tools)
            return tools, await c.call_tool("search_quotes", {"query": "kv cache", "k": 2})

    tools, found = asyncio.run(asyncio.wait_for(session(), 120))
    assert tools == ["ask_panel", "get_quote", "list_panels", "search_quotes"]
    assert not found.is_error and len(found.structured_content["result"]) == 2
    kinds = [c.type for c in found.content]
    assert kinds[0] == "text" and kinds.count("resource_link") == 2  # text fallback + links


def test_a_panel_given_goes_into_every_snippet(run_cli) -> None:
    out = _snippet(run_cli, "--panel", "minimax-m3", "mcp", "--config-snippet")
    for client in mcp_config.CLIENTS:
        assert f"# {client}: " in out
    assert (
        out.count("minimax-m3") == 5
    )  # mcpServers (5 clients, once), vscode, claude, codex, inspector
    vscode = json.loads(
        _snippet(run_cli, "--panel", "minimax-m3", "mcp", "--config-snippet", "vscode")
    )
    assert vscode["servers"]["panelbot"]["type"] == "stdio"
    assert vscode["servers"]["panelbot"]["args"] == ["mcp", "--panel", "minimax-m3"]
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    codex = tomllib.loads(_snippet(run_cli, "mcp", "--config-snippet", "codex"))
    assert codex["mcp_servers"]["panelbot"]["args"] == ["mcp"]
    claude = shlex.split(_snippet(run_cli, "mcp", "--config-snippet", "claude-code"))
    assert claude[:4] == ["claude", "mcp", "add", "panelbot"] and claude[-1] == "mcp"


def test_the_http_snippet_reaches_a_running_server(run_cli, isolated_env, tmp_path) -> None:
    port = free_port()
    cursor = json.loads(_snippet(run_cli, "mcp", "--http", str(port), "--config-snippet", "cursor"))
    url = cursor["mcpServers"]["panelbot"]["url"]
    assert (
        url == f"http://127.0.0.1:{port}/mcp" and "headers" not in cursor["mcpServers"]["panelbot"]
    )
    srv = ServerProcess(["mcp", "--http", str(port)], isolated_env, port, tmp_path)
    try:
        srv.wait_ready("/mcp")

        async def call() -> Any:
            from mcp.client.streamable_http import streamable_http_client

            async with Client(streamable_http_client(url)) as c:
                return await c.call_tool("ask_panel", {"question": KV})

        r = asyncio.run(asyncio.wait_for(call(), 120))
        assert not r.is_error and r.structured_content["answered_by"][0]["id"] == "dan"
    finally:
        srv.stop()
    r = run_cli(
        "mcp", "--http", "8002", "--config-snippet", "vscode", env={"PANELBOT_SERVE_KEY": "k"}
    )
    keyed = json.loads(r.stdout)
    assert keyed["servers"]["panelbot"]["headers"] == {"Authorization": "Bearer KEY"}


def test_the_parser_knows_every_client() -> None:
    assert tuple(mcp_config.CLIENTS) == serve.MCP_CLIENTS


@pytest.mark.parametrize("client", list(mcp_config.CLIENTS))
def test_every_snippet_names_this_installation(client: str) -> None:
    text = mcp_config.snippet(client)
    command = mcp_config.panelbot_command()[0]
    assert command in text or json.dumps(command) in text
    assert Path(command).is_absolute() and Path(command).exists()
    assert sys.executable in command or Path(command).parent == Path(sys.executable).parent
