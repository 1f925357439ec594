"""Hostile clients against ``panelbot serve``: how long they hold up a normal client, and the server's memory.

    python benchmarks/serve_hostile.py [--tree DIR] [--nofile 1024] [--bomb-timeout 120]

Starts ``python -m panelbot serve`` on a free loopback port (from ``--tree``, another checkout of panelbot,
to measure a version before a change: its directory goes first on PYTHONPATH) with the server's soft
open-files limit set to ``--nofile`` (1024 is the usual default; 0 leaves it as it is), then:

1. **Whitespace bombs.** For each bomb (an earlier assistant message of ``" \\n" * 300``: a 1 KB request,
   ``" " * 2000``, and larger ones), a bomb request is sent while a normal client asks a normal question
   every 50 ms: reported, how long the bomb request took and the longest the normal client waited.
2. **Half-open connections.** 1,100 connections that send part of a request's headers and then nothing;
   then the normal client asks: how long it waited (or that it got no answer within 10 s).
3. **Slowloris.** 200 connections trickling their headers a byte every 0.5 s while the normal client asks
   five times: the longest it waited; and how many slow connections the server had closed after 15 s.
4. **Malformed JSON.** A lone surrogate, 100,000 levels of nesting, a 5,000-digit number, a 1 MB body: the
   status codes.

Last, the server's peak resident memory (VmHWM). The clients share the machine with the server, so times
are what one machine shows, not a bound.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx

KV = "How do you deal with a KV cache that keeps growing?"
BOMBS = {
    '" \\n" * 300 (1 KB request)': " \n" * 300,
    '" " * 2000': " " * 2000,
    '"\\t \\n" * 2000': "\t \n" * 2000,
    '" \\n" * 40000 (80 KB)': " \n" * 40_000,
    '" *\\n(:[" * 10000 (60 KB)': " *\n(:[" * 10_000,
}
HEAD = b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: appli"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(tree: str | None, nofile: int, tmp: Path) -> tuple[subprocess.Popen, str]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PANELBOT_", "OPENAI_"))}
    env.update(PANELBOT_DATA_DIR=str(tmp / "data"), PANELBOT_CONFIG=os.devnull)
    if tree:
        env["PYTHONPATH"] = str(Path(tree).resolve())

    def limit() -> None:
        if nofile:
            _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
            resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, hard))

    proc = subprocess.Popen(
        [sys.executable, "-m", "panelbot", "serve", "--port", str(port)],
        env=env,
        cwd=str(tree or tmp),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        preexec_fn=limit,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        with contextlib.suppress(httpx.TransportError):
            if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                return proc, url
        time.sleep(0.2)
    proc.kill()
    raise SystemExit("the server did not start")


def chat(text: str, earlier: str | None = None) -> dict:
    messages = []
    if earlier is not None:
        messages = [{"role": "user", "content": KV}, {"role": "assistant", "content": earlier}]
    return {"model": "panel", "messages": [*messages, {"role": "user", "content": text}]}


def normal(url: str, timeout: float = 10) -> float:
    """How long a normal question took (``timeout`` when it got no answer in time)."""
    start = time.monotonic()
    try:
        r = httpx.post(f"{url}/v1/chat/completions", json=chat(KV), timeout=timeout)
        if r.status_code != 200:
            return float("inf")
    except httpx.HTTPError:
        return timeout
    return time.monotonic() - start


def bomb(url: str, text: str, timeout: float) -> tuple[float, float, str]:
    """(the bomb request's time, the longest a normal client waited meanwhile, the bomb's outcome)."""
    outcome: list[str] = []

    def send() -> None:
        try:
            r = httpx.post(f"{url}/v1/chat/completions", json=chat("why?", text), timeout=timeout)
            outcome.append(str(r.status_code))
        except httpx.HTTPError as exc:
            outcome.append(type(exc).__name__)

    start = time.monotonic()
    thread = threading.Thread(target=send)
    thread.start()
    waits = []
    while thread.is_alive():
        waits.append(normal(url, timeout=min(timeout, 30)))
        time.sleep(0.05)
    thread.join()
    return time.monotonic() - start, max(waits, default=0.0), outcome[0]


def connections(port: int, n: int, head: bytes = b"") -> list[socket.socket]:
    """Up to ``n`` connections to ``port`` that each sent ``head`` (part of a request) and then nothing
    (fewer when this process or the server runs out of them)."""
    socks = []
    for _ in range(n):
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            if head:
                s.sendall(head)
        except OSError:
            break
        socks.append(s)
    return socks


def closed_by_server(socks: list[socket.socket]) -> int:
    """How many of ``socks`` the server has closed (an end of file or a reset, read without waiting)."""
    closed = 0
    for s in socks:
        s.setblocking(False)
        try:
            closed += s.recv(1024) == b""
        except BlockingIOError:
            pass
        except OSError:
            closed += 1
    return closed


def half_open(url: str, port: int, n: int) -> tuple[float, int]:
    socks = connections(port, n, HEAD)
    try:
        return normal(url), len(socks)
    finally:
        for s in socks:
            s.close()


def slowloris(url: str, port: int, n: int) -> tuple[float, int]:
    socks = connections(port, n)
    stop = threading.Event()

    def trickle() -> None:
        for i in range(len(HEAD)):
            if stop.wait(0.5):
                return
            for s in socks:
                with contextlib.suppress(OSError):
                    s.send(HEAD[i : i + 1])

    thread = threading.Thread(target=trickle)
    thread.start()
    try:
        waited = max(normal(url) for _ in range(5))
        time.sleep(15)
        return waited, closed_by_server(socks)
    finally:
        stop.set()
        thread.join()
        for s in socks:
            s.close()


def malformed(url: str) -> dict[str, str]:
    cases = {
        "lone surrogate": b'{"model": "panel", "messages": [{"role": "user", "content": "kv \\ud800"}]}',
        "lone surrogate, stream": b'{"model": "panel", "stream": true, "messages": [{"role": "user", '
        b'"content": "kv \\ud800"}]}',
        "nesting 100,000 deep": b"[" * 100_000 + b"]" * 100_000,
        "5,000-digit number": b'{"model": "panel", "n": ' + b"9" * 5000 + b', "messages": []}',
        "1 MB question": json.dumps(chat("kv " * 330_000)).encode(),
    }
    out = {}
    for name, body in cases.items():
        try:
            r = httpx.post(
                f"{url}/v1/chat/completions",
                content=body,
                headers={"Content-Type": "application/json"},
                timeout=60,
            )
            done = "[DONE]" in r.text if b'"stream": true' in body else None
            out[name] = f"{r.status_code}" + ("" if done is None else f" ([DONE]: {done})")
        except httpx.HTTPError as exc:
            out[name] = type(exc).__name__
    return out


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tree", help="another panelbot checkout to run the server from")
    ap.add_argument("--nofile", type=int, default=1024, help="the server's soft open-files limit")
    ap.add_argument("--bomb-timeout", type=float, default=120.0, help="seconds to wait for a bomb")
    args = ap.parse_args()
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        proc, url = start(args.tree, args.nofile, Path(tmp))
        port = int(url.rsplit(":", 1)[1])
        try:
            normal(url)
            print(
                f"server: {args.tree or 'this checkout'}; open-files soft limit {args.nofile or 'as is'}"
            )
            print(f"a normal question alone: {normal(url):.3f} s")
            for name, text in BOMBS.items():
                took, waited, outcome = bomb(url, text, args.bomb_timeout)
                print(
                    f"bomb {name}: {outcome} in {took:.2f} s; a normal client waited at most "
                    f"{waited:.3f} s"
                )
                if (
                    outcome != "200"
                ):  # still busy with it for minutes: measure the rest on a new one
                    print(
                        f"  (peak RSS so far {peak_rss_mb(proc.pid):.0f} MB; restarting the server)"
                    )
                    proc.kill()
                    proc.wait(10)
                    proc, url = start(args.tree, args.nofile, Path(tmp))
                    port = int(url.rsplit(":", 1)[1])
                    normal(url)
            waited, opened = half_open(url, port, 1100)
            print(f"{opened} half-open connections: a normal client waited {waited:.3f} s")
            waited, closed = slowloris(url, port, 200)
            print(
                f"200 slowloris connections: a normal client waited at most {waited:.3f} s; "
                f"{closed} of 200 closed by the server after 15 s"
            )
            for name, status in malformed(url).items():
                print(f"{name}: {status}")
            print(f"server alive: {proc.poll() is None}; peak RSS {peak_rss_mb(proc.pid):.0f} MB")
        finally:
            proc.kill()
            proc.wait(10)


if __name__ == "__main__":
    main()
