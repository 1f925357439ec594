"""Each MCP message checked before the SDK reads it, so that every request gets an answer.

The SDK drops a message it cannot parse without a word to the client, which then waits for ever: a lone UTF-16
surrogate (``"\\ud800"``) anywhere in it, nesting past its parser's limit, a 5,000-digit number. Here such a
message, and one larger than ``serve.max_body``, is answered with a JSON-RPC error for its id (read from the
message, or from its first kilobyte when it does not parse) saying what is wrong; every other message goes
to the SDK unchanged. Over stdio (:func:`guarded_stdio`, lines) and streamable HTTP (:func:`http_refusal`,
request bodies).
"""

from __future__ import annotations

import contextlib
import json
import re
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from io import TextIOWrapper
from typing import Any

import anyio
import anyio.to_thread
from mcp.types import INVALID_PARAMS, INVALID_REQUEST, PARSE_ERROR, ErrorData, JSONRPCError

from panelbot.config import ServeLimits
from panelbot.serve.conversation import RequestError
from panelbot.serve.guard import MAX_INT_DIGITS, decode_json

_ID_RE = re.compile(r'"id"\s{0,8}:\s{0,8}("(?:[^"\\\n]|\\.){0,200}"|-?\d{1,20})(?=\s{0,8}[,}])')
CHUNK = 65536  # how much of an over-long line is read (and dropped) at a time


@dataclass(frozen=True)
class Refusal:
    id: int | str | None
    code: int
    message: str
    is_request: bool  # a notification gets no answer, only dropped

    def response(self) -> dict[str, Any]:
        return {
            "jsonrpc": "2.0",
            "id": self.id,
            "error": {"code": self.code, "message": self.message},
        }


def _id_in(text: str) -> int | str | None:
    """The id a message gives, read with a bounded pattern from its start (when it cannot be parsed)."""
    m = _ID_RE.search(text[:1024])
    if m is None:
        return None
    try:
        value = json.loads(m.group(1))
    except ValueError:  # a lone surrogate in the id itself
        return None
    return value if isinstance(value, (int, str)) else None


def _id_of(text: str) -> tuple[int | str | None, bool]:
    """(the message's id, whether it is a request) from a lenient parse, else from its first kilobyte."""
    try:
        value = json.loads(text, parse_int=lambda s: int(s) if len(s) <= MAX_INT_DIGITS else None)
    except (ValueError, RecursionError):
        found = _id_in(text)
        return found, found is not None or '"method"' in text[:1024]
    if not isinstance(value, dict):
        return None, False
    rid = value.get("id")
    if isinstance(rid, str):
        try:
            rid.encode("utf-8")
        except UnicodeEncodeError:
            rid = None
    ok = isinstance(rid, (int, str)) and not isinstance(rid, bool)
    return (rid if ok else None), "method" in value and "id" in value


def check_message(raw: str | bytes, limits: ServeLimits) -> Refusal | None:
    """None when the message may go on to the SDK; else the error to answer it with."""
    data = raw.encode("utf-8") if isinstance(raw, str) else raw
    text = raw if isinstance(raw, str) else raw.decode("utf-8", "replace")
    if not text.strip():
        return Refusal(None, PARSE_ERROR, "an empty message", False)
    if len(data) > limits.max_body:
        return Refusal(
            _id_in(text),
            INVALID_REQUEST,
            f"the message is over {limits.max_body:,} bytes; this server accepts at most "
            f"{limits.max_body:,}",
            True,
        )
    try:
        decode_json(data, limits.max_json_depth)
    except RequestError as exc:
        rid, is_request = _id_of(text)
        code = PARSE_ERROR if "not valid JSON" in str(exc) else INVALID_PARAMS
        return Refusal(rid, code, str(exc).replace("the request", "the message"), is_request)
    return None


class _Unowned(TextIOWrapper):
    """A text layer over stdin that leaves stdin open when it is closed (or collected)."""

    def close(self) -> None:
        with contextlib.suppress(ValueError):
            self.detach()


class _CheckedLines:
    """stdin's lines for the SDK's stdio transport, each checked first; a refused one is answered on the
    transport's own write stream (so the answer never interleaves with another) and not passed on."""

    def __init__(self, limits: ServeLimits) -> None:
        self.limits = limits
        self.reply: Any = None
        self.ready = anyio.Event()
        self._file = _Unowned(sys.stdin.buffer, encoding="utf-8", errors="replace")

    async def _line(self) -> str:
        """The next line, or "" at the end; a line over the size limit is read to its end and cut short."""
        line = await anyio.to_thread.run_sync(self._file.readline, self.limits.max_body + 1)
        rest = line
        while len(rest) > self.limits.max_body and not rest.endswith("\n"):
            rest = await anyio.to_thread.run_sync(self._file.readline, CHUNK)
            if not rest:
                break
        return line

    async def __aiter__(self) -> AsyncIterator[str]:
        await self.ready.wait()
        while line := await self._line():
            refused = check_message(line, self.limits)
            if refused is None:
                yield line
            elif refused.is_request:
                await self.reply.send(_session_message(refused))


def _session_message(refused: Refusal) -> Any:
    from mcp.shared.message import SessionMessage

    error = ErrorData(code=refused.code, message=refused.message)
    return SessionMessage(JSONRPCError(jsonrpc="2.0", id=refused.id, error=error))


@asynccontextmanager
async def guarded_stdio(limits: ServeLimits) -> AsyncIterator[tuple[Any, Any]]:
    """The SDK's stdio transport (read stream, write stream), reading through :class:`_CheckedLines`."""
    from mcp.server.stdio import stdio_server

    lines = _CheckedLines(limits)
    async with stdio_server(stdin=lines) as (read_stream, write_stream):  # type: ignore[arg-type]
        lines.reply = write_stream
        lines.ready.set()
        yield read_stream, write_stream


def http_refusal(limits: ServeLimits) -> Any:
    """For :class:`panelbot.serve.guard.BodyGuard`: a request body -> the JSON-RPC error response to send
    instead of passing it to the SDK, or None."""
    from starlette.responses import JSONResponse

    def inspect(body: bytes) -> Any:
        refused = check_message(body, limits)
        if refused is None:
            return None
        return JSONResponse(refused.response(), status_code=400)

    return inspect
