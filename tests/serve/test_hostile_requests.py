"""Hostile requests against the real servers (``panelbot serve`` and ``panelbot mcp`` started by the test on
127.0.0.1): whitespace bombs in earlier answers, slow and half-open connections, oversized and malformed
bodies. Each must get a clear error or its answer without delaying any other client, and the server's memory
stays small.

Time limits here are generous budgets that catch a blocked server (which took ~30 s per bomb), not timings.
"""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import Any

import httpx
from mcp import Client

from .test_mcp import stdio

KV = "How do you deal with a KV cache that keeps growing?"
DELAY_BUDGET = 1.0  # seconds another client may wait while a hostile request is being handled
RSS_BUDGET_MB = 400

# what made the old speaker-heading expression backtrack: " \n" * 300 (a 1 KB request) blocked every client
# for ~30 s, 2,000 spaces for ~10 minutes; the larger ones are what the fix must handle just as fast
WHITESPACE_BOMBS = [
    " \n" * 300,
    " " * 2000,
    "\n" * 2000,
    "\t \n" * 2000,
    " \n" * 40_000,
    " *\n(:[" * 10_000,
    "**" + " " * 50_000 + "**",
    "Dan" + " " * 50_000 + ":",
]


def peak_rss_mb(pid: int) -> float:
    """The most memory the process has held (VmHWM of /proc/<pid>/status), in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmHWM in /proc status")


def chat(text: str, earlier_answer: str | None = None) -> dict[str, Any]:
    messages: list[dict[str, str]] = []
    if earlier_answer is not None:
        messages += [
            {"role": "user", "content": KV},
            {"role": "assistant", "content": earlier_answer},
        ]
    messages.append({"role": "user", "content": text})
    return {"model": "panel", "messages": messages}


def probe_while(busy: threading.Event, url: str) -> list[float]:
    """A normal client asking a normal question again and again while ``busy`` is set: how long each took
    (an answer later than the client's timeout counts as that timeout)."""
    delays: list[float] = []
    with httpx.Client(timeout=10) as client:
        while busy.is_set() or not delays:
            start = time.monotonic()
            try:
                r = client.post(f"{url}/v1/chat/completions", json=chat(KV))
                assert r.status_code == 200, r.text
            except httpx.TimeoutException:
                pass
            delays.append(time.monotonic() - start)
            time.sleep(0.02)
    return delays


def test_a_whitespace_bomb_does_not_delay_another_client(start_server) -> None:
    srv = start_server()
    busy = threading.Event()
    busy.set()
    answers: list[httpx.Response] = []

    def bomb() -> None:
        try:
            with httpx.Client(timeout=120) as client:
                deadline = time.monotonic() + 3  # keep bombing for a while, so the probes overlap
                while time.monotonic() < deadline or not answers:
                    for text in WHITESPACE_BOMBS:
                        answers.append(
                            client.post(f"{srv.base_url}/chat/completions", json=chat("why?", text))
                        )
        finally:
            busy.clear()

    bomber = threading.Thread(target=bomb)
    bomber.start()
    delays = probe_while(busy, srv.url)
    bomber.join(300)
    assert answers and all(r.status_code == 200 for r in answers), {r.status_code for r in answers}
    assert all(r.json()["choices"][0]["message"]["content"] for r in answers)
    assert len(delays) >= 5 and max(delays) < DELAY_BUDGET, (len(delays), max(delays))
    assert peak_rss_mb(srv.proc.pid) < RSS_BUDGET_MB


def test_a_whitespace_bomb_in_an_mcp_conversation(isolated_env, tmp_path: Path) -> None:
    """``ask_panel`` with such an earlier answer: answered, and a call made meanwhile is not held up."""

    async def session() -> tuple[list[Any], list[float]]:
        async with Client(stdio(isolated_env, tmp_path)) as c:
            await c.call_tool("list_panels", {})  # started and warm

            async def bombs() -> list[Any]:
                out = []
                for text in WHITESPACE_BOMBS:
                    conversation = [
                        {"role": "user", "content": KV},
                        {"role": "assistant", "content": text},
                    ]
                    out.append(
                        await c.call_tool(
                            "ask_panel", {"question": "why?", "conversation": conversation}
                        )
                    )
                return out

            async def probes(task: asyncio.Task) -> list[float]:
                delays = []
                while not task.done() or not delays:
                    start = time.monotonic()
                    await asyncio.wait_for(c.call_tool("get_quote", {"id": "dan-22"}), 30)
                    delays.append(time.monotonic() - start)
                    await asyncio.sleep(0.02)
                return delays

            task = asyncio.ensure_future(bombs())
            delays = await probes(task)
            return await task, delays

    results, delays = asyncio.run(asyncio.wait_for(session(), 300))
    assert len(results) == len(WHITESPACE_BOMBS) and not any(r.is_error for r in results)
    assert max(delays) < DELAY_BUDGET, max(delays)
