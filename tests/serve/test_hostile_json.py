"""Malformed JSON against the real servers: a lone UTF-16 surrogate in any string of a request (a 500 in
``serve`` before, a stream cut without ``[DONE]``, and no reply at all from MCP), nesting past any parser's
limit (a RecursionError), a 5,000-digit number, an unknown MCP prompt. Each gets a clear 400 (or a JSON-RPC
error for its id), never a 500, a traceback or silence, and the server goes on serving. Plus the start-up
refusals: a key of only spaces, a busy port."""

from __future__ import annotations

import asyncio
import json
import selectors
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import Client
from mcp.shared.exceptions import MCPError

from .conftest import ServerProcess, free_port
from .test_hostile_requests import RSS_BUDGET_MB, peak_rss_mb
from .test_mcp import stdio

SURROGATE = "\ud800"
VALID = {
    "model": "panel",
    "stream": False,
    "stream_options": {"include_usage": True},
    "temperature": 0.2,
    "messages": [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": [{"type": "text", "text": "kv cache?"}]},
        {
            "role": "assistant",
            "content": "Dan (VP of Kernels, Together AI):\n\u201c...\u201d [dan-22]",
            "panelbot": {"speakers": ["dan"], "quotes": [{"id": "dan-22"}]},
        },
        {"role": "user", "content": "why?"},
    ],
}


def with_surrogates(value: Any) -> Iterator[Any]:
    """``value`` once per string in it (every key and every string value), with a lone surrogate there."""
    if isinstance(value, str):
        yield value[:2] + SURROGATE + value[2:]
    elif isinstance(value, list):
        for i, item in enumerate(value):
            for changed in with_surrogates(item):
                yield [*value[:i], changed, *value[i + 1 :]]
    elif isinstance(value, dict):
        for key, item in value.items():
            yield {(SURROGATE + key if k == key else k): v for k, v in value.items()}
            for changed in with_surrogates(item):
                yield {**value, key: changed}


def post_raw(client: httpx.Client, url: str, body: bytes) -> httpx.Response:
    return client.post(url, content=body, headers={"Content-Type": "application/json"})


def test_a_lone_surrogate_anywhere_is_a_400(offline_server) -> None:
    url = f"{offline_server.base_url}/chat/completions"
    bodies = list(with_surrogates(VALID))
    assert len(bodies) > 30
    with httpx.Client(timeout=30) as c:
        for stream in (False, True):
            for body in bodies:
                raw = json.dumps(
                    {**body, "stream": stream}
                ).encode()  # "\ud800" escaped, as JSON allows
                r = post_raw(c, url, raw)
                assert r.status_code == 400, (r.status_code, raw[:200])
                err = r.json()["error"]
                assert set(err) == {"message", "type", "param", "code"}
                assert err["code"] == "invalid_text" and "surrogate" in err["message"], err
        ok = c.post(url, json=VALID)
        assert ok.status_code == 200 and ok.json()["choices"][0]["message"]["content"]


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=30)
    | st.sampled_from(["panel", "dan", "user", "assistant", "text", "kv cache?", SURROGATE]),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                [
                    "model",
                    "messages",
                    "role",
                    "content",
                    "type",
                    "text",
                    "panelbot",
                    "speakers",
                    "quotes",
                    "id",
                ]
            )
            | st.text(max_size=6),
            inner,
            max_size=5,
        )
    ),
    max_leaves=25,
)


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    database=None,
)
@given(
    body=st.fixed_dictionaries(
        {"model": st.sampled_from(["panel", "dan", "both"]) | json_values},
        optional={
            "messages": st.lists(json_values, max_size=5) | json_values,
            "stream": st.booleans() | json_values,
            "stream_options": json_values,
            "n": json_values,
        },
    )
    | json_values
)
def test_any_json_body_is_answered_or_refused_never_a_500(offline_server, body) -> None:
    r = httpx.post(
        f"{offline_server.base_url}/chat/completions",
        content=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
        timeout=30,
    )
    assert r.status_code in (200, 400, 404), (r.status_code, r.text[:300])
    if r.status_code != 200:
        assert set(r.json()["error"]) == {"message", "type", "param", "code"}
    elif r.headers["content-type"].startswith("text/event-stream"):
        assert r.text.rstrip().endswith("data: [DONE]")


DEEP = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize(
    ("body", "code"),
    [
        (DEEP, "too_deeply_nested"),
        ('{"model": "panel", "messages": ' + DEEP + "}", "too_deeply_nested"),
        (
            '{"model": "panel", "messages": [{"role": "user", "content": "kv", "panelbot": '
            + '{"a": ' * 5000
            + "1"
            + "}" * 5000
            + "}]}",
            "too_deeply_nested",
        ),
        ('{"model": "panel", "n": ' + "9" * 5000 + ', "messages": []}', "number_too_large"),
        (
            '{"model": "panel", "max_tokens": -' + "1" * 5000 + ', "messages": []}',
            "number_too_large",
        ),
        ('{"model": "panel", "seed": ' + "7" * 4000 + ', "messages": []}', "number_too_large"),
        ('{"model": "panel", "temperature": NaN, "messages": []}', None),
        (
            '{"model": "panel", "messages": [{"role": "user", "content": "kv"}], "x": Infinity}',
            None,
        ),
    ],
    ids=[
        "deep-body",
        "deep-messages",
        "deep-extra",
        "5000-digits",
        "negative",
        "4000-digits",
        "nan",
        "inf",
    ],
)
def test_deep_nesting_and_huge_numbers_are_a_400(
    offline_server, body: str, code: str | None
) -> None:
    url = f"{offline_server.base_url}/chat/completions"
    with httpx.Client(timeout=30) as c:
        for stream in ("false", "true"):
            raw = body.replace('"model": "panel"', f'"model": "panel", "stream": {stream}', 1)
            r = post_raw(c, url, raw.encode())
            assert r.status_code == 400, (r.status_code, r.text[:300])
            err = r.json()["error"]
            assert err["code"] == code and err["message"] and len(err["message"]) < 300, err
    assert peak_rss_mb(offline_server.proc.pid) < RSS_BUDGET_MB


# ------------------------------------------------------------------------------------------------ MCP


class RawMCP:
    """``panelbot mcp`` over stdio spoken to line by line: what a hostile client can send, not what an SDK
    would let it."""

    def __init__(self, env: dict[str, str], cwd: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "panelbot", "mcp"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd=str(cwd),
        )
        self.ask(
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "raw", "version": "1"},
                },
            },
            timeout=60,
        )
        self.send(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}')

    def send(self, line: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + b"\n")
        self.proc.stdin.flush()

    def reply(self, timeout: float = 30) -> dict[str, Any]:
        assert self.proc.stdout is not None
        with selectors.DefaultSelector() as sel:
            sel.register(self.proc.stdout, selectors.EVENT_READ)
            if not sel.select(timeout):
                raise AssertionError(f"no reply within {timeout} s")
        return json.loads(self.proc.stdout.readline())

    def ask(self, message: dict[str, Any] | bytes, timeout: float = 30) -> dict[str, Any]:
        self.send(message if isinstance(message, bytes) else json.dumps(message).encode())
        return self.reply(timeout)

    def close(self) -> str:
        assert self.proc.stdin is not None and self.proc.stderr is not None
        self.proc.stdin.close()
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)
        return self.proc.stderr.read().decode("utf-8", "replace")


def call(rid: int, tool: str, arguments: str) -> bytes:
    return (
        f'{{"jsonrpc": "2.0", "id": {rid}, "method": "tools/call", "params": {{"name": "{tool}", '
        f'"arguments": {arguments}}}}}'
    ).encode()


MCP_HOSTILE = [
    call(1, "ask_panel", '{"question": "kv \\ud800 cache"}'),
    call(2, "ask_panel", '{"question": "kv", "conversation": ["\\udfff"]}'),
    call(
        3,
        "ask_panel",
        '{"question": "kv", "conversation": [{"role": "user", "content": "\\ud83d"}]}',
    ),
    call(4, "search_quotes", '{"query": "kv", "speaker": "d\\ud800an"}'),
    call(5, "get_quote", '{"id": "dan-22\\udc00"}'),
    call(6, "ask_panel", '{"question": "kv", "conversation": ' + DEEP + "}"),
    call(7, "search_quotes", '{"query": "kv", "k": ' + "9" * 5000 + "}"),
    call(8, "ask_panel", '{"question": "' + "x" * 1_100_000 + '"}'),
    b'{"jsonrpc": "2.0", "id": 9, "method": "prompts/get", "params": {"name": "answer_as_dan", '
    b'"arguments": {"question": "\\ud800"}}}',
    b'{"jsonrpc": "2.0", "id": 10, "method": "resources/read", "params": {"uri": "panel://x/\\ud800"}}',
    b'{"jsonrpc": "2.0", "id": 11, "method": "prompts/get", "params": {"name": "answer_as_nobody", '
    b'"arguments": {"question": "kv"}}}',
    b'{"jsonrpc": "2.0", "id": "s\\ud800", "method": "tools/list"}',
    b'{"jsonrpc": "2.0", "id": 12, "method": "tools/list", "params": '
    + b'{"a": ' * 3000
    + b"1"
    + b"}" * 3000
    + b"}",
]


def test_mcp_answers_every_hostile_request_over_stdio(isolated_env, tmp_path: Path) -> None:
    mcp = RawMCP(isolated_env, tmp_path)
    try:
        replies = [mcp.ask(line) for line in MCP_HOSTILE]
        after = mcp.ask(call(99, "get_quote", '{"id": "dan-22"}'))
        rss = peak_rss_mb(mcp.proc.pid)
    finally:
        stderr = mcp.close()
    ids = [r.get("id") for r in replies]
    assert ids == [*range(1, 12), None, 12]
    for line, r in zip(MCP_HOSTILE, replies, strict=True):
        err = r.get("error") or {}
        assert err.get("message") and err.get("code") in (-32600, -32602), (line[:120], r)
    messages = [r["error"]["message"] for r in replies]
    assert all("surrogate" in m for m in messages[:5]), messages[:5]
    assert "nests deeper" in messages[5] and "5,000-digit" in messages[6]
    assert "over 1,000,000 bytes" in messages[7]
    assert "no prompt 'answer_as_nobody'" in messages[10] and "answer_as_dan" in messages[10]
    assert after["id"] == 99 and not after["result"]["isError"]
    assert "Traceback" not in stderr and "Error" not in stderr, stderr[-2000:]
    assert rss < RSS_BUDGET_MB


def test_an_unknown_prompt_through_the_sdk_is_an_mcp_error(isolated_env, tmp_path: Path) -> None:
    async def session() -> tuple[MCPError, Any]:
        async with Client(stdio(isolated_env, tmp_path)) as c:
            with pytest.raises(MCPError) as info:
                await c.get_prompt("answer_as_nobody", {"question": "kv"})
            return info.value, await c.get_prompt("answer_as_dan", {"question": "sparse attention"})

    error, prompt = asyncio.run(asyncio.wait_for(session(), 120))
    assert "no prompt 'answer_as_nobody'" in str(error) and error.error.code == -32602
    assert prompt.messages


def test_mcp_over_http_answers_hostile_bodies(isolated_env, tmp_path: Path) -> None:
    port = free_port()
    srv = ServerProcess(["mcp", "--http", str(port)], isolated_env, port, tmp_path)
    try:
        srv.wait_ready("/mcp")
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
        }
        with httpx.Client(timeout=30) as c:
            for rid, line in enumerate(MCP_HOSTILE[:7], 1):
                r = c.post(f"{srv.url}/mcp", content=line, headers=headers)
                assert r.status_code == 400, (r.status_code, r.text[:200])
                body = r.json()
                assert body["id"] == rid and body["error"]["message"], body
            r = c.post(f"{srv.url}/mcp", content=MCP_HOSTILE[7], headers=headers)
            assert r.status_code == 413 and "at most 1,000,000" in r.json()["error"]["message"]
        rss = peak_rss_mb(srv.proc.pid)
    finally:
        output = srv.stop()
    assert "Traceback" not in output
    assert rss < RSS_BUDGET_MB


# ----------------------------------------------------------------------------------------- start-up


@pytest.mark.parametrize("key", ["   ", "\t\n", "two words", "caf\u00e9"])
def test_a_key_of_spaces_or_unsendable_characters_is_refused(run_cli, key: str) -> None:
    for args in (["serve", "--port", str(free_port())], ["mcp", "--http", str(free_port())]):
        r = run_cli(*args, env={"PANELBOT_SERVE_KEY": key})
        assert r.returncode == 2, (args, r.stderr)
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and "PANELBOT_SERVE_KEY" in lines[0], r.stderr
        assert key.strip() not in lines[0] or not key.strip()  # the key is never echoed


def test_a_busy_port_is_one_line_and_exit_2(run_cli) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        for args in (["serve", "--port", str(port)], ["mcp", "--http", str(port)]):
            r = run_cli(*args)
            assert r.returncode == 2, (args, r.returncode, r.stderr)
            assert r.stderr == f"panelbot: error: port {port} is in use; pick another with --port\n"


def test_a_key_with_a_trailing_newline_still_works(start_server) -> None:
    """A key read from a file keeps its newline: the server strips it, as clients do."""
    srv = start_server(
        env={"PANELBOT_SERVE_KEY": "sekret-42\n"},
        ready_headers={"Authorization": "Bearer sekret-42"},
    )
    r = httpx.get(
        f"{srv.base_url}/models", headers={"Authorization": "Bearer sekret-42"}, timeout=30
    )
    assert r.status_code == 200
