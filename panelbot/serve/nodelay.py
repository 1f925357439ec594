"""uvicorn's HTTP protocol with ``TCP_NODELAY`` set on every connection.

With ``--workers N`` uvicorn hands each worker the listening socket rebuilt from its file descriptor; that
socket reports protocol 0 instead of TCP, so asyncio skips its usual ``TCP_NODELAY`` and every streamed
response on a kept-alive connection waits ~40 ms on Nagle's algorithm and delayed ACKs
(``benchmarks/serve_load.py`` showed 2 workers at 44 ms per request where 1 worker took 3 ms). Setting the
option per connection makes both modes the same.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from typing import Any

from uvicorn.protocols.http.auto import AutoHTTPProtocol

PATH = "panelbot.serve.nodelay:NoDelayHTTPProtocol"  # uvicorn's ``http=`` (a string survives the worker spawn)


class NoDelayHTTPProtocol(AutoHTTPProtocol):  # type: ignore[misc, valid-type]
    def connection_made(self, transport: asyncio.BaseTransport) -> None:  # type: ignore[override]
        sock: Any = transport.get_extra_info("socket")
        if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        super().connection_made(transport)  # type: ignore[arg-type]
