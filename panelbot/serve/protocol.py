"""uvicorn's HTTP/1.1 protocol (h11), guarded for clients that misbehave, and with ``TCP_NODELAY``.

- **A deadline for the headers.** uvicorn waits for a request's headers for ever: a client that connects and
  sends nothing, or sends its headers a byte at a time (slowloris), holds a connection open as long as it
  likes. Here a connection that has not sent a whole request head ``header_timeout`` seconds after it opened
  (or after it started a new request on a kept-alive connection) is closed. (The body has its own deadline,
  :class:`panelbot.serve.guard.BodyGuard`; idle kept-alive connections uvicorn's ``timeout_keep_alive``.)
- **A size limit for the headers**, ``max_header_bytes``, answered 431 in the API's error shape (h11's own
  limit only counts a head that has not all arrived).
- **A cap on open connections that never locks a client out.** Past ``max_connections`` open connections
  the one idle the longest -- one not being answered: half-open, trickling its headers, or kept alive
  between requests -- is closed to make room, so a flood of half-open connections costs its sender its
  oldest ones, never a newcomer its answer. Only when every connection is being answered is the newcomer
  told, in the API's error shape, that the server is busy (503). (uvicorn's own ``limit_concurrency``
  counts the half-open connections too: under such a flood it would refuse every normal client.) The
  open-files limit is raised to hold the cap and a backlog of new connections (at the usual soft limit of
  1,024, 1,100 half-open connections made accept fail, and nobody was answered any more).
- **TCP_NODELAY.** With ``--workers N`` uvicorn hands each worker the listening socket rebuilt from its file
  descriptor; that socket reports protocol 0 instead of TCP, so asyncio skips its usual ``TCP_NODELAY`` and
  every streamed response on a kept-alive connection waits ~40 ms on Nagle's algorithm and delayed ACKs
  (``benchmarks/serve_load.py`` showed 2 workers at 44 ms per request where 1 worker took 3 ms).

The limits are set per process by :func:`configure` (each worker calls it as it builds its app). The
protocol is always h11's (uvicorn would pick httptools when installed): the guards read h11's state.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
from dataclasses import dataclass, replace
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from panelbot.config import ServeLimits

PATH = "panelbot.serve.protocol:GuardedHTTPProtocol"  # uvicorn's ``http=`` (a string survives the spawn)
SPARE_FILES = 64  # file descriptors kept for everything but client connections
BACKLOG = 2048  # uvicorn's default accept backlog


@dataclass(frozen=True)
class ConnectionLimits:
    header_timeout: float = 10.0
    max_connections: int = 1000
    max_header_bytes: int = 16384
    backlog: int = BACKLOG  # connections the kernel queues for accepting


_limits = ConnectionLimits()


def uvicorn_options(limits: ServeLimits) -> dict[str, Any]:
    """Put ``limits`` in force for this process's connections; uvicorn's settings for the rest of them (this
    protocol, the keep-alive time, the most a request head may hold, the accept backlog)."""
    in_force = configure(
        ConnectionLimits(limits.header_timeout, limits.max_connections, limits.max_header_bytes)
    )
    return {
        "http": PATH,
        "timeout_keep_alive": limits.keep_alive,
        "h11_max_incomplete_event_size": limits.max_header_bytes,
        "backlog": in_force.backlog,
    }


def configure(limits: ConnectionLimits) -> ConnectionLimits:
    """Set this process's limits, with the connection cap and the backlog fitted to the open-files limit
    (raised first as far as the hard limit permits). Returns the limits in force."""
    global _limits
    connections, backlog = fit_open_files(limits.max_connections, limits.backlog)
    _limits = replace(limits, max_connections=connections, backlog=backlog)
    return _limits


def fit_open_files(connections: int, backlog: int = BACKLOG) -> tuple[int, int]:
    """(connections, backlog) this process can hold. asyncio accepts a whole backlog of waiting connections
    in one go, before the file of any connection closed to make room is released, so the open-files limit
    must hold both: past it, accept fails and asyncio stops accepting for a second. The soft limit is raised
    to fit them (never past the hard limit); when it cannot be, both are cut to share what it leaves."""
    try:
        import resource
    except ImportError:  # not a Unix
        return connections, backlog
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = connections + backlog + SPARE_FILES
    if soft != resource.RLIM_INFINITY and soft < want:
        new = want if hard == resource.RLIM_INFINITY else min(want, hard)
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (new, hard))
            soft = new
    room = want if soft == resource.RLIM_INFINITY else soft - SPARE_FILES
    if room >= connections + backlog:
        return connections, backlog
    connections = max(1, min(connections, room // 2))
    return connections, max(1, room - connections)


def refusal(status: int, reason: str, message: str, code: str) -> bytes:
    """A whole HTTP response refusing a request before any app sees it, in OpenAI's error shape."""
    kind = "server_error" if status >= 500 else "invalid_request_error"
    body = json.dumps(
        {"error": {"message": message, "type": kind, "param": None, "code": code}}
    ).encode()
    head = (
        f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\nconnection: close\r\n"
        f"content-length: {len(body)}\r\n\r\n"
    )
    return head.encode() + body


_BUSY = refusal(
    503,
    "Service Unavailable",
    "the server is busy answering as many clients as it holds; try again shortly",
    "server_busy",
)


class GuardedHTTPProtocol(H11Protocol):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._head_timer: asyncio.TimerHandle | None = None
        self._head = b""  # what came of the request head being received, up to the limit
        self._last_heard = 0.0
        self._closing = False

    # -- the transport's events ------------------------------------------------------------------

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        sock: Any = transport.get_extra_info("socket")
        if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        super().connection_made(transport)
        self._last_heard = self.loop.time()
        self._arm_head_timer()
        self._make_room()

    def data_received(self, data: bytes) -> None:
        self._last_heard = self.loop.time()
        if self.conn.their_state is h11.IDLE and self._head_too_large(data):
            limit = _limits.max_header_bytes
            self._refuse(
                refusal(
                    431,
                    "Request Header Fields Too Large",
                    f"the request's line and headers are over {limit:,} bytes; this server "
                    f"accepts at most {limit:,}",
                    "headers_too_large",
                )
            )
            return
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE:  # the head is in
            self._head = b""
        if self.answering():
            self._stop_head_timer()
        elif self._head_timer is None:  # the start of a new request on a kept-alive connection
            self._arm_head_timer()

    def send_400_response(self, msg: str) -> None:
        """A request that is not HTTP: uvicorn's 400, in the API's error shape."""
        self._refuse(
            refusal(400, "Bad Request", f"{msg} (not a valid HTTP/1.1 request)", "bad_http")
        )

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_head_timer()
        self._closing = True
        super().connection_lost(exc)

    # -- the guards ---------------------------------------------------------------------------------

    def answering(self) -> bool:
        """Whether a request's head has come in and its response is not finished."""
        cycle = getattr(self, "cycle", None)
        return cycle is not None and not cycle.response_complete

    def _arm_head_timer(self) -> None:
        self._head_timer = self.loop.call_later(_limits.header_timeout, self._head_too_slow)

    def _stop_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_too_slow(self) -> None:
        self._head_timer = None
        if not self.answering():
            self._close()

    def _head_too_large(self, data: bytes) -> bool:
        limit = _limits.max_header_bytes
        self._head += data[: max(0, limit + 4 - len(self._head))]
        end = self._head.find(b"\r\n\r\n")
        return end > limit if end >= 0 else len(self._head) > limit

    def _refuse(self, response: bytes) -> None:
        if not self.transport.is_closing():
            self.transport.write(response)
        self._close()

    def _close(self) -> None:
        self._closing = True
        self._stop_head_timer()
        if not self.transport.is_closing():
            self.transport.close()

    def _make_room(self) -> None:
        if len(self.connections) <= _limits.max_connections:
            return
        open_ = [c for c in self.connections if not getattr(c, "_closing", False)]
        if len(open_) <= _limits.max_connections:
            return
        idle = [
            c
            for c in open_
            if c is not self and isinstance(c, GuardedHTTPProtocol) and not c.answering()
        ]
        if idle:
            min(idle, key=lambda c: c._last_heard)._close()
        else:  # every other connection is being answered: this one is told to come back
            self._refuse(_BUSY)
