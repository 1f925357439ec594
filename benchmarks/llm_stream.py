"""Time to first token and total time: panelbot's streaming path vs a raw httpx request to the same server.

    python benchmarks/llm_stream.py [--url http://127.0.0.1:PORT/v1] [--runs N]

Uses --url, else $PANELBOT_TEST_LLM_URL (e.g. the llama.cpp server from .ci/llm_server.sh), else starts a
local fake streaming server (127.0.0.1, N tokens a few milliseconds apart). Both paths send the same request
(the prompt panelbot builds for the routed panelist); panelbot's path is the whole backend: client, SSE
parsing, sanitising and verification. Reports medians and the ratios panelbot / raw (aim: <= 1.1).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import httpx  # noqa: E402

from panelbot.answer.backends.base import AnswerRequest, TextDelta  # noqa: E402
from panelbot.answer.backends.openai_compat import OpenAICompatBackend  # noqa: E402
from panelbot.answer.llm.prompt import build_messages  # noqa: E402
from panelbot.config import Config  # noqa: E402
from panelbot.panel import load_panel  # noqa: E402
from panelbot.retrieval.router import Router  # noqa: E402

QUESTION = "Why is the KV cache a problem for long-running agents?"
FAKE_TOKENS = 120
FAKE_DELAY = 0.004  # seconds between tokens: a fast local model


class _FakeHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def log_message(self, format: str, *args: object) -> None:
        return

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        time.sleep(FAKE_DELAY * 5)  # "prompt processing"
        for i in range(FAKE_TOKENS):
            text = f"word{i} " if i % 10 else "It is memory [dan-1]. "
            chunk = {"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]}
            self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
            self.wfile.flush()
            time.sleep(FAKE_DELAY)
        self.wfile.write(b'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n')
        self.wfile.write(b"data: [DONE]\n\n")


def start_fake() -> tuple[ThreadingHTTPServer, str]:
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _FakeHandler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv, f"http://127.0.0.1:{srv.server_address[1]}/v1"


async def raw_run(client: httpx.AsyncClient, url: str, body: dict) -> tuple[float, float]:
    """The baseline: httpx straight to the server, lines split, JSON decoded, content taken."""
    t0 = time.perf_counter()
    first = None
    async with client.stream("POST", url + "/chat/completions", json=body) as resp:
        async for line in resp.aiter_lines():
            if not line.startswith("data: "):
                continue
            data = line[6:]
            if data == "[DONE]":
                break
            delta = json.loads(data)["choices"][0]["delta"].get("content")
            if delta and first is None:
                first = time.perf_counter() - t0
    return first or 0.0, time.perf_counter() - t0


async def panelbot_run(backend: OpenAICompatBackend, request: AnswerRequest) -> tuple[float, float]:
    """panelbot's path: prompt, client, SSE parser, sanitiser, events, verification at the end."""
    t0 = time.perf_counter()
    first = None
    async for ev in backend.answer(request):
        if isinstance(ev, TextDelta) and first is None:
            first = time.perf_counter() - t0
    return first or 0.0, time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", default=os.environ.get("PANELBOT_TEST_LLM_URL", ""))
    ap.add_argument(
        "--runs", type=int, default=0, help="runs per path (default 5 real server, 20 fake)"
    )
    ap.add_argument("--max-tokens", type=int, default=64)
    args = ap.parse_args()

    fake = None
    url = args.url.rstrip("/")
    if not url:
        fake, url = start_fake()
    runs = args.runs or (20 if fake else 5)

    config = Config().with_backend(
        name="openai",
        base_url=url,
        model="bench",
        api_key="",
        temperature=0.0,
        seed=7,
        max_tokens=args.max_tokens,
    )
    panel = load_panel("minimax-m3")
    route = Router(panel, config.retrieval).route(QUESTION, "auto")
    route.speakers = route.speakers[:1]  # one panelist: one request per run on both paths
    request = AnswerRequest(QUESTION, panel, route)
    speaker = route.speakers[0]
    messages = build_messages(
        panel, speaker, [sq.quote for sq in route.quotes_for(speaker)], QUESTION
    )
    body = {
        "model": "bench",
        "messages": messages,
        "stream": True,
        "max_tokens": args.max_tokens,
        "temperature": 0.0,
        "seed": 7,
    }

    async def bench() -> dict[str, list[tuple[float, float]]]:
        # One long-lived client per path, as in the app (the TUI and a multi-question ask reuse it).
        res: dict[str, list[tuple[float, float]]] = {"raw": [], "panelbot": []}
        backend = OpenAICompatBackend(config, panel)
        async with httpx.AsyncClient(timeout=300) as client:
            await raw_run(client, url, body)  # warm-up (and the server's prompt cache) for both
            await panelbot_run(backend, request)
            for i in range(runs):  # alternate the order so drift hits both alike
                pair = [
                    ("raw", lambda: raw_run(client, url, body)),
                    ("panelbot", lambda: panelbot_run(backend, request)),
                ]
                for name, make in pair if i % 2 == 0 else pair[::-1]:
                    res[name].append(await make())
        await backend.aclose()
        return res

    res = asyncio.run(bench())
    if fake:
        fake.shutdown()
    med = {
        k: (statistics.median(t for t, _ in v), statistics.median(t for _, t in v))
        for k, v in res.items()
    }
    server = "fake streaming server (in-process)" if fake else url
    print(
        f"machine: {os.cpu_count()} cores, {platform.machine()}, Python {platform.python_version()}"
    )
    print(f"server: {server}; {runs} runs per path, medians; max_tokens {args.max_tokens}")
    print(f"{'path':<10} {'first token (s)':>16} {'total (s)':>10}")
    for k in ("raw", "panelbot"):
        print(f"{k:<10} {med[k][0]:>16.4f} {med[k][1]:>10.4f}")
    print(
        f"ratio panelbot/raw: first token {med['panelbot'][0] / med['raw'][0]:.3f}x, "
        f"total {med['panelbot'][1] / med['raw'][1]:.3f}x"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
