"""What a request body may be, checked before any handler sees it: the servers' shared line of defence.

:class:`BodyGuard` (ASGI middleware) reads a request's body whole, within a size (413) and a time (408) limit,
then hands it on. :func:`decode_json` turns it into Python values or a :class:`RequestError` saying what is
wrong: not JSON, nested deeper than the limit, an integer of thousands of digits, ``NaN``, or a lone UTF-16
surrogate (``"\\ud800"``: valid JSON, but no UTF-8 text can hold it, so every answer echoing it would fail).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

import anyio

from panelbot.serve.conversation import RequestError

MAX_INT_DIGITS = 32  # an integer a client may send (ids and seeds are at most 20 digits)
BODY_METHODS = ("POST", "PUT", "PATCH")

ASGIApp = Callable[..., Awaitable[None]]
Refusal = Callable[[int, str, str], ASGIApp]  # (status, message, code) -> the response to send


def _integer(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_INT_DIGITS:
        raise RequestError(
            f"the request holds a {digits:,}-digit number; numbers here have at most "
            f"{MAX_INT_DIGITS} digits",
            code="number_too_large",
        )
    return int(text)


def _constant(name: str) -> Any:
    raise RequestError(f"the request body is not valid JSON: {name} is not a JSON number")


def _where(path: tuple[str | int, ...]) -> str:
    out = ""
    for key in path:
        out += f"[{key}]" if isinstance(key, int) else (f".{key}" if out else key)
    return out or "the body"


def _has_surrogate(text: str) -> bool:
    if text.isascii():
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def check_values(value: Any, max_depth: int) -> None:
    """RequestError when ``value`` (decoded JSON) nests deeper than ``max_depth`` or a string or key in it
    holds a lone surrogate. Walks the values with a stack, never recursion."""
    stack: list[tuple[Any, tuple[str | int, ...]]] = [(value, ())]
    while stack:
        item, path = stack.pop()
        if len(path) > max_depth:
            raise RequestError(
                f"the request's JSON nests deeper than {max_depth} levels (at {_where(path[:8])}"
                "...)",
                code="too_deeply_nested",
            )
        if isinstance(item, str):
            if _has_surrogate(item):
                raise RequestError(
                    f"{_where(path)} holds a lone UTF-16 surrogate (an escape such as \\ud800 "
                    "without its pair), which is not text; send valid Unicode",
                    _where(path[:1]) if path else None,
                    "invalid_text",
                )
        elif isinstance(item, dict):
            for key, sub in item.items():
                if _has_surrogate(key):
                    raise RequestError(
                        f"a key in {_where(path)} holds a lone UTF-16 surrogate; send valid Unicode",
                        code="invalid_text",
                    )
                stack.append((sub, (*path, key)))
        elif isinstance(item, list):
            stack.extend((sub, (*path, i)) for i, sub in enumerate(item))


def decode_json(raw: bytes, max_depth: int) -> Any:
    """The request body as Python values; RequestError (one clear line) for anything else."""
    if not raw.strip():
        raise RequestError("the request body is empty; expected a JSON object")
    try:
        value = json.loads(raw, parse_int=_integer, parse_constant=_constant)
    except RequestError:
        raise
    except RecursionError:
        raise RequestError(
            f"the request's JSON nests deeper than {max_depth} levels", code="too_deeply_nested"
        ) from None
    except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError, an integer past int()'s limit
        raise RequestError(f"the request body is not valid JSON: {exc}") from None
    check_values(value, max_depth)
    return value


class BodyGuard:
    """ASGI middleware: the body of a POST/PUT/PATCH is read whole before the app runs, refused with 413 past
    ``max_body`` bytes (by its Content-Length, or as it arrives) and with 408 when it has not all arrived
    within ``body_timeout`` seconds of the headers (a client trickling a body cannot hold a request open).
    The app then receives the body in one message (unless ``inspect`` has another answer for it)."""

    def __init__(
        self,
        app: ASGIApp,
        max_body: int,
        body_timeout: float,
        refuse: Refusal,
        inspect: Callable[[bytes], ASGIApp | None] | None = None,
    ) -> None:
        self.app = app
        self.max_body = max_body
        self.body_timeout = body_timeout
        self.refuse = refuse
        self.inspect = (
            inspect  # the whole body -> the response to send instead of the app's, or None
        )

    def _too_large(self, size: int | str) -> ASGIApp:
        return self.refuse(
            413,
            f"the request is {size} bytes; this server accepts at most {self.max_body:,}",
            "request_too_large",
        )

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] not in BODY_METHODS:
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length", b"").strip()
        if declared.isdigit() and int(declared) > self.max_body:
            shown = f"{int(declared):,}" if len(declared) < 20 else "over 10^19"
            await self._too_large(shown)(scope, receive, send)
            return
        body = bytearray()
        with anyio.move_on_after(self.body_timeout) as timer:
            while True:
                message = await receive()
                if message["type"] == "http.disconnect":
                    return
                body += message.get("body", b"")
                if len(body) > self.max_body:
                    await self._too_large(f"over {self.max_body:,}")(scope, receive, send)
                    return
                if not message.get("more_body", False):
                    break
        if timer.cancelled_caught:
            refusal = self.refuse(
                408,
                f"the request body did not arrive within {self.body_timeout:g} s "
                f"({len(body):,} bytes came)",
                "request_timeout",
            )
            await refusal(scope, receive, send)
            return
        if self.inspect is not None and (instead := self.inspect(bytes(body))) is not None:
            await instead(scope, receive, send)
            return
        whole = {"type": "http.request", "body": bytes(body), "more_body": False}
        handed = False

        async def replay() -> Any:
            nonlocal handed
            if not handed:
                handed = True
                return whole
            return await receive()  # after the body: only the disconnect is left to hear

        await self.app(scope, replay, send)
