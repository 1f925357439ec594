"""A scripted OpenAI-compatible HTTP server on 127.0.0.1 for fault tests (a real socket, not a mock).

The behaviour is chosen by the URL: base URL ``http://127.0.0.1:PORT/b/<behaviour>/v1``. Every request is
recorded (path, headers, JSON body). Loops are bounded and stop when the server stops.
"""

from __future__ import annotations

import contextlib
import functools
import json
import re
import socket
import threading
import zlib
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

DEFAULT_ANSWER = 'I said the KV cache grows with context [dan-1]. It is "a memory problem" [dan-1].'


@dataclass
class Seen:
    path: str
    headers: dict[str, str]
    body: Any


@dataclass
class FakeState:
    answer: str = DEFAULT_ANSWER
    retry_after: str = "0"
    redirect_to: str = ""
    requests: list[Seen] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    disconnected: threading.Event = field(default_factory=threading.Event)
    stop: threading.Event = field(default_factory=threading.Event)


@functools.lru_cache(maxsize=4)
def gzip_bomb(unit: bytes, total: int = 512 << 20) -> bytes:
    """``unit`` repeated to ``total`` bytes, gzip-compressed (built once per test session)."""
    comp = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = unit * max(1, (1 << 20) // len(unit))
    out = [comp.compress(block) for _ in range(total // len(block))]
    out.append(comp.flush())
    return b"".join(out)


def _chunk(content: str | None = None, finish: str | None = None, choices: bool = True) -> dict:
    if not choices:
        return {"id": "x", "object": "chat.completion.chunk", "choices": []}
    delta = {} if content is None else {"content": content}
    return {
        "id": "x",
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def tokens(text: str) -> list[str]:
    """Split text into word-ish pieces that join back to it exactly."""
    out, cur = [], ""
    for ch in text:
        cur += ch
        if ch == " ":
            out.append(cur)
            cur = ""
    if cur:
        out.append(cur)
    return out


class Handler(BaseHTTPRequestHandler):
    server: FakeHTTPServer
    protocol_version = "HTTP/1.0"  # the body ends when the connection closes: truncation is real

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        return

    @property
    def st(self) -> FakeState:
        return self.server.state

    def _behaviour(self) -> str:
        parts = self.path.split("/")
        return parts[2] if len(parts) > 2 and parts[1] == "b" else "ok"

    def _record(self) -> Any:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = raw
        self.st.requests.append(Seen(self.path, dict(self.headers.items()), body))
        return body

    def _send(
        self,
        status: int,
        body: bytes | str,
        ctype: str = "application/json",
        headers: dict[str, str] | None = None,
    ) -> None:
        data = body.encode() if isinstance(body, str) else body
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def _json(self, status: int, obj: Any, headers: dict[str, str] | None = None) -> None:
        self._send(status, json.dumps(obj), headers=headers)

    def _sse_start(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()

    def _event(self, obj: Any) -> bool:
        """Write one event; False when the client has gone."""
        data = obj if isinstance(obj, str) else json.dumps(obj)
        try:
            self.wfile.write(f"data: {data}\n\n".encode())
            self.wfile.flush()
            return True
        except (BrokenPipeError, ConnectionResetError):
            self.st.disconnected.set()
            return False

    def _stream_answer(self, text: str, *, done: bool = True) -> None:
        self._sse_start()
        for piece in tokens(text):
            if not self._event(_chunk(piece)):
                return
        if done:
            self._event(_chunk(finish="stop"))
            self._event("[DONE]")

    def _completion(self, text: str) -> dict:
        return {
            "id": "x",
            "object": "chat.completion",
            "model": "fake",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": text},
                    "finish_reason": "stop",
                }
            ],
        }

    def _echo(self) -> str:
        """Like real servers that log the request into the error: the key, in a few disguises (so every
        'the key never appears in the error' test meets a server that echoes it, not only 401/403)."""
        key = self.headers.get("authorization", "").removeprefix("Bearer ")
        return (
            f" (request by {key}; header {self.headers.get('authorization', '')!r}; {key.upper()})"
            if key
            else ""
        )

    def _write(self, data: bytes) -> bool:
        try:
            self.wfile.write(data)
            self.wfile.flush()
            return True
        except (BrokenPipeError, ConnectionResetError):
            self.st.disconnected.set()
            return False

    def _forever(self, piece: bytes, limit: int = 400 << 20) -> None:
        """Write ``piece`` again and again (up to ``limit`` bytes) until the client hangs up."""
        sent = 0
        while sent < limit and not self.st.stop.is_set() and self._write(piece):
            sent += len(piece)

    def _gzip_bomb(self, ctype: str, unit: bytes, status: int = 200) -> None:
        """A gzip body of about 500 KB that inflates to 512 MB of ``unit`` repeated."""
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Encoding", "gzip")
        self.end_headers()
        self._write(gzip_bomb(unit))

    def do_GET(self) -> None:
        self._record()
        b = self._behaviour()
        if b == "huge-models":  # an endless model list
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            if self._write(b'{"object": "list", "data": ['):
                self._forever(b'{"id": "m", "object": "model"}, ' * 1000)
            return
        if b == "gzip-models":
            self._gzip_bomb("application/json", b'{"id": "m", "object": "model"}, ')
            return
        if self.path.endswith("/models"):
            self._json(200, {"object": "list", "data": [{"id": "fake-model", "object": "model"}]})
        else:
            self._json(404, {"error": {"message": "not found"}})

    def do_POST(self) -> None:  # noqa: C901 - one branch per scripted behaviour
        body = self._record()
        b = self._behaviour()
        n = self.st.counts[b] = self.st.counts.get(b, 0) + 1
        stream = isinstance(body, dict) and body.get("stream")
        answer = self.st.answer
        if b == "ok":
            if stream:
                self._stream_answer(answer)
            else:
                self._json(200, self._completion(answer))
        elif b == "strict-params":  # like OpenAI's reasoning models
            if "max_tokens" in body:
                self._json(
                    400,
                    {
                        "error": {
                            "message": "Unsupported parameter: 'max_tokens' is not supported "
                            "with this model. Use 'max_completion_tokens' instead."
                        }
                    },
                )
            elif body.get("temperature", 1) != 1:
                self._json(
                    400,
                    {
                        "error": {
                            "message": "Unsupported value: 'temperature' does not support "
                            f"{body['temperature']} with this model."
                        }
                    },
                )
            else:
                self._stream_answer(answer)
        elif b == "json-only":  # ignores stream: true
            self._json(200, self._completion(answer))
        elif b == "no-stream-400":
            if stream:
                self._json(400, {"error": {"message": "stream is not supported by this server"}})
            else:
                self._json(200, self._completion(answer))
        elif b == "stall-headers":
            self.st.stop.wait(30)
        elif b == "stall-mid":
            self._sse_start()
            self._event(_chunk("I said "))
            self.st.stop.wait(30)
        elif b == "slow":
            self._sse_start()
            for i in range(600):
                if self.st.stop.is_set() or not self._event(_chunk(f"w{i} ")):
                    return
                self.st.stop.wait(0.05)
        elif b == "endless":
            self._sse_start()
            for _ in range(200_000):
                if self.st.stop.is_set() or not self._event(_chunk("more ")):
                    return
        elif b in ("429", "503", "500"):
            self._json(
                int(b),
                {"error": {"message": f"status {b}{self._echo()}"}},
                headers={"Retry-After": self.st.retry_after} if b != "500" else None,
            )
        elif b in ("429-once", "503-once"):
            if n == 1:
                self._json(
                    int(b[:3]),
                    {"error": {"message": f"busy{self._echo()}"}},
                    headers={"Retry-After": self.st.retry_after},
                )
            else:
                self._stream_answer(answer)
        elif b == "400":
            self._json(400, {"error": {"message": f"context too long{self._echo()}"}})
        elif b in ("401", "403"):
            auth = self.headers.get("authorization", "")
            self._json(int(b), {"error": {"message": f"Incorrect API key provided: {auth}"}})
        elif b == "404":
            model = body.get("model") if isinstance(body, dict) else None
            self._json(
                404, {"error": {"message": f"The model `{model}` does not exist{self._echo()}"}}
            )
        elif b == "html":
            self._send(200, "<html><body>Welcome to nginx!</body></html>", "text/html")
        elif b == "malformed":
            self._sse_start()
            self._event(_chunk("Hello "))
            self._event("{not json at all")
            self._event("[DONE]")
        elif b == "truncated":
            self._stream_answer("I said the KV cache ", done=False)
        elif b == "cut-mid-event":
            self._sse_start()
            self._event(_chunk("Hello "))
            self.wfile.write(b'data: {"choices": [{"delta": {"cont')
        elif b == "empty-choices":
            if stream:
                self._sse_start()
                self._event(_chunk(choices=False))
                self._event("[DONE]")
            else:
                self._json(200, {"id": "x", "object": "chat.completion", "choices": []})
        elif b == "error-event":
            self._sse_start()
            self._event({"error": {"message": f"model overloaded{self._echo()}"}})
        elif b == "redirect":
            self._send(307, "", headers={"Location": self.st.redirect_to})
        elif b == "dribble":  # one byte per write: events and UTF-8 characters split across reads
            self._sse_start()
            wire = "".join(
                f"data: {json.dumps(_chunk(p), ensure_ascii=False)}\n\n" for p in tokens(answer)
            )
            for byte in (wire + "data: [DONE]\n\n").encode():
                self.wfile.write(bytes([byte]))
                self.wfile.flush()
        elif b == "crlf":  # CRLF line endings, comments, a multi-chunk event
            self._sse_start()
            self.wfile.write(b": keep-alive\r\n\r\n")
            for piece in tokens(answer):
                self.wfile.write(f"data: {json.dumps(_chunk(piece))}\r\n\r\n".encode())
                self.wfile.flush()
            self.wfile.write(b"data: [DONE]\r\n\r\n")
        # ------------------------------------------------------------------ hostile servers (fault tests)
        elif b == "endless-line":  # one data: line that never ends
            self._sse_start()
            if self._write(b"data: "):
                self._forever(b"x" * 65536)
        elif b == "endless-event":  # data: lines forever, never a blank line to end the event
            self._sse_start()
            self._forever(b"data: " + b"y" * 200 + b"\n")
        elif b == "endless-comments":  # keep-alive comments forever: never an answer
            self._sse_start()
            self._forever(b": keep-alive\n" * 1000)
        elif b == "endless-empty-events":  # blank lines and empty events forever
            self._sse_start()
            self._forever(b"\n\ndata:\n\n" * 1000)
        elif b == "gzip-sse":  # an event stream that inflates to 512 MB
            self._gzip_bomb(
                "text/event-stream", b"data: " + json.dumps(_chunk("z")).encode() + b"\n\n"
            )
        elif b == "gzip-json":  # a JSON reply that inflates to 512 MB
            self._gzip_bomb("application/json", b" " * 4096)
        elif b == "gzip-error":  # an error body that inflates to 512 MB
            self._gzip_bomb("application/json", b" " * 4096, status=500)
        elif b == "bad-encoding":
            self._send(
                200, "data: x\n\n", "text/event-stream", headers={"Content-Encoding": "zstd-ish"}
            )
        elif b == "deep-json":  # nesting that blows the recursion limit of a naive parser
            self._sse_start()
            self._event("[" * 100_000 + "]" * 100_000)
            self._event("[DONE]")
        elif b == "echo-key":  # the answer holds the key the client sent, in several disguises
            key = self.headers.get("authorization", "").removeprefix("Bearer ")
            text = (
                f"Your key is {key} [dan-1]. Upper {key.upper()} and a piece {key[3:12]}. "
                f"Escaped {json.dumps(key + chr(13))} end."
            )
            self._sse_start()
            for i in range(0, len(text), 3):  # small pieces: the key arrives split across events
                if not self._event(_chunk(text[i : i + 3])):
                    return
            self._event(_chunk(finish="stop"))
            self._event("[DONE]")
        elif b in ("echo-key-500", "echo-key-400", "echo-key-429", "echo-key-mid"):
            auth = self.headers.get("authorization", "")
            msg = {"error": {"message": f"bad request from {auth!r} (key {auth[7:].lower()})"}}
            if b == "echo-key-mid":
                self._sse_start()
                self._event(_chunk("Hello "))
                self._event(msg)
            else:
                self._json(int(b[-3:]), msg, headers={"Retry-After": "0"})
        elif (
            b == "cite-sources"
        ):  # a well-behaved model: cites the first source id the prompt lists
            # its one sentence is in the source's own words (so the verifier finds it supported)
            prompt = " ".join(str(m.get("content", "")) for m in body.get("messages", []))
            found = re.search(r'^\s*\d+\. \[([^\]]+)\] "([^"\n]*)', prompt, re.M)
            ident = found.group(1) if found else "none"
            words = found.group(2).split()[:14] if found else ["nothing"]
            self.st.counts["cited:" + ident] = 1
            said = " ".join(w.strip(".,?!;:") for w in words)
            self._stream_answer(f"As I said, {said} [{ident}].")
        elif b == "escapes":  # terminal escapes, bidi, fake verdicts and headings in the answer
            self._stream_answer(self.st.answer)
        else:
            self._json(500, {"error": {"message": f"unknown behaviour {b}"}})


class FakeHTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.state = FakeState()
        self._thread = threading.Thread(
            target=self.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def port(self) -> int:
        return self.server_address[1]

    def url(self, behaviour: str = "ok") -> str:
        return f"http://127.0.0.1:{self.port}/b/{behaviour}/v1"

    def reset(self) -> None:
        stop = self.state.stop
        stop.set()
        self.state = FakeState()

    def start(self) -> FakeHTTPServer:
        self._thread.start()
        return self

    def close(self) -> None:
        self.state.stop.set()
        self.shutdown()
        self.server_close()


def refused_port() -> int:
    """A loopback port that was just free: connecting to it is refused."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def unanswering_port():
    """A loopback port whose accept queue is full, so a new connection never completes (connect timeout)."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(0)
    port = srv.getsockname()[1]
    fillers = []
    try:
        for _ in range(4):
            c = socket.socket()
            c.setblocking(False)
            with contextlib.suppress(BlockingIOError):
                c.connect(("127.0.0.1", port))
            fillers.append(c)
        yield port
    finally:
        for c in fillers:
            c.close()
        srv.close()
