"""Load on ``panelbot serve``: concurrent clients streaming chat completions, one worker vs ``--workers 2``,
offline and through a loopback upstream model.

    python benchmarks/serve_load.py [--levels 1,16,64] [--requests 12] [--tokens 40] [--delay 0.005]

For each concurrency level C, C clients (asyncio + httpx, one connection each) each send ``--requests``
streamed requests back to back (``stream: true``, read to ``data: [DONE]``), cycling through on-topic
questions so every request is routed for real. Reported: requests/s over the whole level, p50/p99 of the
per-request time (request sent -> [DONE] read), and the CPU time the server process (and its workers) spent
per request (from /proc), which the clients sharing the machine do not distort.

Upstream rows: a loopback OpenAI-compatible model (Starlette on uvicorn in its own process, ``--tokens``
tokens ``--delay`` s apart) is timed twice with the same clients: directly (the model alone) and through
``panelbot serve --base-url`` (routing, prompt, the model, citation check, re-streaming). The ratio shows what
the server adds over the model. The clients run on the same 2 cores as the servers, so absolute numbers are a
floor, not a ceiling.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
QUESTIONS = [
    "How do you deal with a KV cache that keeps growing?",
    "What do you think about sparse attention?",
    "How do you stop reward hacking in RL?",
    "Will open models catch up with closed ones?",
    "How do you evaluate long agent runs?",
    "What is hard about serving agentic workloads?",
]
DAN_QUESTIONS = [  # each routes to Dan alone, so every request through panelbot makes exactly one model call
    "How do you deal with a KV cache that keeps growing?",
    "What do you think about sparse attention?",
    "What is hard about serving agentic workloads?",
    "How do you make GPU kernels faster?",
    "Does quantization hurt quality?",
]

UPSTREAM = r"""
import asyncio, json, sys
from starlette.applications import Starlette
from starlette.responses import StreamingResponse, JSONResponse
from starlette.routing import Route
import uvicorn

TOKENS, DELAY = int(sys.argv[2]), float(sys.argv[3])
WORDS = "I said the cache grows with context so it is a memory problem [dan-22] and we store it well".split()

async def chat(request):
    await request.body()
    async def gen():
        for i in range(TOKENS):
            await asyncio.sleep(DELAY)
            piece = WORDS[i % len(WORDS)] + " "
            yield "data: " + json.dumps({"id": "u", "object": "chat.completion.chunk", "choices": [
                {"index": 0, "delta": {"content": piece}, "finish_reason": None}]}) + "\n\n"
        yield "data: " + json.dumps({"id": "u", "object": "chat.completion.chunk", "choices": [
            {"index": 0, "delta": {}, "finish_reason": "stop"}]}) + "\n\n"
        yield "data: [DONE]\n\n"
    return StreamingResponse(gen(), media_type="text/event-stream")

async def models(request):
    return JSONResponse({"object": "list", "data": [{"id": "loopback", "object": "model"}]})

app = Starlette(routes=[Route("/v1/chat/completions", chat, methods=["POST"]), Route("/v1/models", models)])
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
"""


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process and its children (uvicorn's workers), from /proc."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            fields = (d / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(d.name) == pid or int(fields[1]) == pid:  # fields[1]: the parent's pid
            total += (int(fields[11]) + int(fields[12])) / tick
    return total


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_ready(url: str, proc: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"server exited: {proc.stderr.read() if proc.stderr else ''}")
        try:
            httpx.get(url, timeout=2)
            return
        except httpx.TransportError:
            time.sleep(0.1)
    raise SystemExit(f"{url} not ready")


def start(args: list[str], ready: str, env: dict[str, str]) -> subprocess.Popen:
    proc = subprocess.Popen(
        args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    wait_ready(ready, proc)
    return proc


def stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


async def one_level(
    url: str, model: str, clients: int, per_client: int, questions: list[str]
) -> dict[str, float]:
    times: list[float] = []
    errors = 0

    async def client(n: int) -> None:
        nonlocal errors
        limits = httpx.Limits(max_connections=1)
        async with httpx.AsyncClient(timeout=120, limits=limits) as http:
            for i in range(per_client):
                q = questions[(n + i) % len(questions)]
                body = {
                    "model": model,
                    "stream": True,
                    "messages": [{"role": "user", "content": q}],
                }
                t0 = time.perf_counter()
                done = False
                async with http.stream("POST", url, json=body) as r:
                    async for line in r.aiter_lines():
                        if line == "data: [DONE]":
                            done = True
                if r.status_code != 200 or not done:
                    errors += 1
                times.append(time.perf_counter() - t0)

    t0 = time.perf_counter()
    await asyncio.gather(*(client(n) for n in range(clients)))
    wall = time.perf_counter() - t0
    times.sort()
    return {
        "requests": len(times),
        "rps": len(times) / wall,
        "p50": statistics.median(times),
        "p99": times[min(len(times) - 1, int(0.99 * len(times)))],
        "errors": errors,
    }


def run_levels(
    label: str,
    url: str,
    model: str,
    levels: list[int],
    per_client: int,
    pid: int,
    questions: list[str] = QUESTIONS,
) -> list[tuple]:
    """Each level's throughput and latency, and the CPU the server process(es) spent per request."""
    rows = []
    asyncio.run(one_level(url, model, 2, 2, questions))  # warm-up
    for c in levels:
        cpu0 = cpu_seconds(pid)
        r = asyncio.run(one_level(url, model, c, per_client, questions))
        r["server_cpu_ms"] = (cpu_seconds(pid) - cpu0) * 1000 / r["requests"]
        rows.append((label, c, r))
        print(
            f"{label:<38} {c:>3} clients  {r['requests']:>4} req  {r['rps']:7.1f} req/s  "
            f"p50 {r['p50'] * 1000:7.1f} ms  p99 {r['p99'] * 1000:7.1f} ms  "
            f"server CPU {r['server_cpu_ms']:5.1f} ms/req  errors {r['errors']}",
            flush=True,
        )
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--levels", default="1,16,64")
    ap.add_argument(
        "--requests", type=int, default=12, help="streamed requests per client (default 12)"
    )
    ap.add_argument(
        "--tokens", type=int, default=40, help="upstream tokens per answer (default 40)"
    )
    ap.add_argument(
        "--delay", type=float, default=0.005, help="upstream seconds between tokens (default 0.005)"
    )
    ap.add_argument("--skip-upstream", action="store_true")
    args = ap.parse_args()
    levels = [int(x) for x in args.levels.split(",")]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PANELBOT_", "OPENAI_"))}
    env["PANELBOT_CONFIG"] = str(ROOT / "benchmarks" / "no-such-config.yaml")
    py = sys.executable
    print(
        f"# {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
        f"{args.requests} streamed requests per client"
    )
    rows: list[tuple] = []
    for workers in (1, 2):
        port = free_port()
        srv = start(
            [py, "-m", "panelbot", "serve", "--port", str(port), "--workers", str(workers)],
            f"http://127.0.0.1:{port}/health",
            env,
        )
        try:
            rows += run_levels(
                f"offline, {workers} worker{'s' if workers > 1 else ''}",
                f"http://127.0.0.1:{port}/v1/chat/completions",
                "panel",
                levels,
                args.requests,
                srv.pid,
            )
        finally:
            stop(srv)
    if not args.skip_upstream:
        up_port = free_port()
        upstream = start(
            [py, "-c", UPSTREAM, str(up_port), str(args.tokens), str(args.delay)],
            f"http://127.0.0.1:{up_port}/v1/models",
            env,
        )
        try:
            rows += run_levels(
                f"upstream alone ({args.tokens} tok x {args.delay * 1000:g} ms)",
                f"http://127.0.0.1:{up_port}/v1/chat/completions",
                "loopback",
                levels,
                args.requests,
                upstream.pid,
            )
            port = free_port()
            srv = start(
                [
                    py,
                    "-m",
                    "panelbot",
                    "serve",
                    "--port",
                    str(port),
                    "--base-url",
                    f"http://127.0.0.1:{up_port}/v1",
                    "--model",
                    "loopback",
                ],
                f"http://127.0.0.1:{port}/health",
                env,
            )
            try:
                rows += run_levels(
                    "through panelbot serve, 1 worker",
                    f"http://127.0.0.1:{port}/v1/chat/completions",
                    "dan",
                    levels,
                    args.requests,
                    srv.pid,
                    DAN_QUESTIONS,
                )
            finally:
                stop(srv)
        finally:
            stop(upstream)
    print(json.dumps([{"setup": label, "clients": c, **r} for label, c, r in rows]))


if __name__ == "__main__":
    main()
