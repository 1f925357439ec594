"""An async client for OpenAI-compatible ``POST {base_url}/chat/completions``.

Streams with server-sent events and falls back to a plain JSON reply when a server doesn't stream. It retries
429/503 a bounded number of times honouring ``Retry-After``, applies connect, read and total timeouts, caps an
endless answer, closes the connection when the consumer stops or is cancelled, and turns every failure into
one :class:`LLMError` line naming the URL and the cause. The API key goes only to the configured base URL
(redirects are never followed, proxies from the environment are ignored) and never appears in a message.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import email.utils
import json
import time
import zlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any
from urllib.parse import urlsplit

import httpx

from panelbot import __version__
from panelbot.answer.events import BackendError
from panelbot.answer.llm.sse import SSELimitError, SSEParser
from panelbot.config import BackendSettings
from panelbot.errors import ConfigError
from panelbot.redact import register
from panelbot.text import strip_control

RETRY_STATUSES = (429, 503)
MAX_RETRY_WAIT = 30.0  # never sleep longer than this for one Retry-After
MAX_ERROR_BODY = 64 * 1024
MAX_MODELS_BODY = 1 << 20  # a /models list larger than this is not a model list
MAX_STREAM_BYTES = 32 << 20  # an event stream never needs more than this (after decompression)
READ_PIECE = (
    64 * 1024
)  # decompress and parse at most this much at a time, yielding to the event loop
_END = object()


class LLMError(BackendError):
    """One clear line: ``URL: cause``. ``kind`` is a short machine-readable tag (e.g. 'auth', 'timeout')."""

    def __init__(self, url: str, cause: str, kind: str = "error") -> None:
        url = strip_control(url, keep_newlines=False)
        self.url = url
        self.cause = cause
        self.kind = kind
        super().__init__(f"{url}: {cause}")


class _Retry(Exception):
    def __init__(self, error: LLMError, after: float | None, *, adapted: bool = False) -> None:
        self.error = error
        self.after = after
        self.adapted = (
            adapted  # the request was changed to suit the server: retry at once, uncounted
        )


def chat_url(base_url: str) -> str:
    """``{base_url}/chat/completions``; ConfigError for a URL that is not http(s)://host[...]."""
    return _endpoint(base_url, "chat/completions")


def _endpoint(base_url: str, path: str) -> str:
    base = (base_url or "").strip().rstrip("/")
    if not base:
        raise ConfigError(  # read by every front end: the app and the servers take no --base-url
            "no endpoint configured: set PANELBOT_BASE_URL (or OPENAI_BASE_URL, or backend.base_url in "
            "the config; ask takes --base-url)"
        )
    try:
        parts = urlsplit(base)
    except ValueError as exc:  # e.g. an unbalanced '[' (an IPv6 literal)
        raise ConfigError(f"backend.base_url is not a valid URL ({exc}): {base!r}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"backend.base_url must look like http(s)://host[:port]/v1, got {base!r}")
    if parts.username or parts.password:
        raise ConfigError("backend.base_url must not hold credentials; use PANELBOT_API_KEY")
    try:
        port = parts.port
    except ValueError:
        port = -1
    if port == 0 or port == -1:
        raise ConfigError(f"backend.base_url has an invalid port (1-65535), got {base!r}")
    if strip_control(base, keep_newlines=False) != base or any(c.isspace() for c in base):
        raise ConfigError(f"backend.base_url holds spaces or control characters: {base!r}")
    return f"{base}/{path}"


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a Retry-After header (delta-seconds or an HTTP date); None if absent/bad."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    now = time.time() if now is None else now
    return max(0.0, when.timestamp() - now)


def answer_char_cap(max_tokens: int) -> int:
    """The most characters accepted before an answer counts as endless (a token is ~4 characters)."""
    return max(2000, max_tokens * 12)


class ChatClient:
    """One endpoint, one model. ``stream(messages)`` yields the answer's text pieces as they arrive."""

    def __init__(
        self,
        settings: BackendSettings,
        *,
        sleep: Callable[[float], Awaitable[Any]] | None = None,
    ) -> None:
        from panelbot.config import clean_api_key
        from panelbot.records import replace

        settings = replace(
            settings, api_key=clean_api_key(settings.api_key, settings.api_key_source)
        )
        self.settings = settings
        self.url = chat_url(settings.base_url)
        self.model = settings.model
        self.max_chars = answer_char_cap(settings.max_tokens)
        self._sleep = sleep or asyncio.sleep
        self._http: httpx.AsyncClient | None = None
        self._dropped: set[str] = set()  # request parameters the server refused (see _adapt)
        self.redactor = register(settings.api_key)
        self.stream_cap = min(MAX_STREAM_BYTES, max(4 << 20, self.max_chars * 256))

    def __repr__(self) -> str:  # never the key
        return f"ChatClient(url={self.url!r}, model={self.model!r})"

    # ------------------------------------------------------------------------------------------ plumbing

    def _client(self) -> httpx.AsyncClient:
        if self._http is None:
            s = self.settings
            self._http = httpx.AsyncClient(
                timeout=httpx.Timeout(
                    connect=s.connect_timeout,
                    read=s.read_timeout,
                    write=s.read_timeout,
                    pool=s.connect_timeout,
                ),
                follow_redirects=False,
                trust_env=False,
            )
        return self._http

    def _headers(self, *, stream: bool) -> dict[str, str]:
        h = {
            "Accept": "text/event-stream" if stream else "application/json",
            "User-Agent": f"panelbot/{__version__}",
            "Accept-Encoding": "identity",  # compression is only a way to send more than we read
        }
        if self.settings.api_key:
            h["Authorization"] = f"Bearer {self.settings.api_key}"
        return h

    def _fail(self, cause: str, kind: str = "error", url: str | None = None) -> LLMError:
        return LLMError(url or self.url, self._redact(cause), kind)

    def _redact(self, text: str) -> str:
        """One line without control characters and without any recognisable part of the key."""
        return " ".join(self.redactor.redact(strip_control(self.redactor.redact(text))).split())

    async def aclose(self) -> None:
        if self._http is not None:
            await self._http.aclose()
            self._http = None

    # ------------------------------------------------------------------------------------------ public

    async def stream(self, messages: list[dict[str, str]]) -> AsyncIterator[str]:
        """Yield text pieces; raise LLMError on any failure. Stopping early closes the connection."""
        queue: asyncio.Queue[Any] = asyncio.Queue()
        task = asyncio.ensure_future(self._produce(messages, queue))
        try:
            while True:
                item = await queue.get()
                if item is _END:
                    break
                if isinstance(item, BaseException):
                    raise item
                yield item
        finally:
            if not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task

    async def complete(self, messages: list[dict[str, str]]) -> str:
        """The whole answer as one string."""
        return "".join([piece async for piece in self.stream(messages)])

    async def _produce(self, messages: list[dict[str, str]], queue: asyncio.Queue[Any]) -> None:
        total = self.settings.total_timeout
        try:
            await asyncio.wait_for(self._run(messages, queue.put_nowait), timeout=total)
        except asyncio.TimeoutError:
            queue.put_nowait(
                self._fail(f"no complete answer within {total:g} s (total timeout)", "timeout")
            )
        except LLMError as exc:
            queue.put_nowait(exc)
        except Exception as exc:  # anything unforeseen still ends as one line, never a traceback
            queue.put_nowait(self._fail(f"unexpected failure: {type(exc).__name__}: {exc}"))
        else:
            queue.put_nowait(_END)

    # ------------------------------------------------------------------------------------------ requests

    async def _run(self, messages: list[dict[str, str]], emit: Callable[[str], None]) -> None:
        if not self.model:
            self.model = await self._discover_model()
        stream = self.settings.stream
        attempt = 0
        while True:
            try:
                await self._attempt(messages, emit, stream=stream)
                return
            except _Retry as r:
                if r.adapted:
                    stream = stream and "stream" not in self._dropped
                    continue
                if attempt >= self.settings.max_retries:
                    raise r.error from None
                wait = r.after if r.after is not None else 0.5 * 2**attempt
                if wait > MAX_RETRY_WAIT:
                    raise self._fail(
                        f"{r.error.cause}; the server asks to retry after {wait:g} s", r.error.kind
                    ) from None
                attempt += 1
                await self._sleep(wait)

    async def _discover_model(self) -> str:
        url = _endpoint(self.settings.base_url, "models")
        try:
            async with self._client().stream(
                "GET", url, headers=self._headers(stream=False)
            ) as resp:
                if resp.status_code != 200:
                    body = await self._read_capped(resp, MAX_ERROR_BODY, truncate=True)
                    raise self._status_error(resp.status_code, body, url=url)
                try:
                    raw = await self._read_capped(resp, MAX_MODELS_BODY)
                except LLMError:
                    raise self._fail(
                        f"the model list is larger than {MAX_MODELS_BODY} bytes; pass "
                        "--model or set backend.model",
                        "endless",
                        url=url,
                    ) from None
        except httpx.HTTPError as exc:
            raise self._transport_error(exc, started=False, url=url) from None
        try:
            ids = [m["id"] for m in json.loads(raw)["data"] if isinstance(m.get("id"), str)]
        except (ValueError, KeyError, TypeError, AttributeError, RecursionError):
            ids = []
        if not ids:
            raise self._fail(
                "no model set and the server lists none: pass --model or set "
                "backend.model / PANELBOT_MODEL",
                "config",
                url=url,
            )
        return ids[0]

    def _body(self, messages: list[dict[str, str]], stream: bool) -> dict[str, Any]:
        s = self.settings
        body: dict[str, Any] = {"model": self.model, "messages": messages, "stream": stream}
        body["max_completion_tokens" if "max_tokens" in self._dropped else "max_tokens"] = (
            s.max_tokens
        )
        if "temperature" not in self._dropped:
            body["temperature"] = s.temperature
        if s.seed is not None and "seed" not in self._dropped:
            body["seed"] = s.seed
        return body

    def _adapt(self, message: str, stream: bool) -> bool:
        """A 400 that names a parameter this server or model doesn't take: leave it out (once each).

        Covers servers that can't stream, and models that want ``max_completion_tokens`` instead of
        ``max_tokens`` or accept no ``temperature`` / ``seed``. True when the request was changed."""
        unsupported = "support" in message or "unknown" in message or "unrecognized" in message
        if stream and "stream" in message and "stream" not in self._dropped:
            self._dropped.add("stream")
            return True
        if "max_completion_tokens" in message and "max_tokens" not in self._dropped:
            self._dropped.add("max_tokens")
            return True
        for param in ("temperature", "seed"):
            if unsupported and param in message and param not in self._dropped:
                self._dropped.add(param)
                return True
        return False

    async def _attempt(
        self, messages: list[dict[str, str]], emit: Callable[[str], None], *, stream: bool
    ) -> None:
        started = False
        try:
            async with self._client().stream(
                "POST",
                self.url,
                json=self._body(messages, stream),
                headers=self._headers(stream=stream),
            ) as resp:
                if resp.status_code != 200:
                    body = await self._read_capped(resp, MAX_ERROR_BODY, truncate=True)
                    err = self._status_error(
                        resp.status_code, body, location=resp.headers.get("location")
                    )
                    if resp.status_code in RETRY_STATUSES:
                        raise _Retry(err, parse_retry_after(resp.headers.get("retry-after")))
                    if resp.status_code == 400 and self._adapt(
                        body.decode("utf-8", "replace").lower(), stream
                    ):
                        raise _Retry(err, 0.0, adapted=True) from None
                    raise err
                started = True
                ctype = resp.headers.get("content-type", "")
                if "text/event-stream" in ctype:
                    await self._read_sse(resp, emit)
                else:
                    await self._read_json(resp, ctype, emit)
        except httpx.HTTPError as exc:
            raise self._transport_error(exc, started=started) from None

    async def _read_capped(
        self, resp: httpx.Response, cap: int, *, truncate: bool = False
    ) -> bytes:
        chunks: list[bytes] = []
        size = 0
        async for chunk in self._body_pieces(resp, cap + 1):
            chunks.append(chunk)
            size += len(chunk)
            if size > cap:
                if truncate:
                    break
                raise self._fail(f"the reply is larger than {cap} bytes; cut off", "endless")
        return b"".join(chunks)[:cap]

    async def _body_pieces(self, resp: httpx.Response, cap: int) -> AsyncIterator[bytes]:
        """The body, decompressed by at most READ_PIECE bytes at a time and never more than ``cap`` bytes
        in all (a gzip bomb stops at the cap, not in memory); control returns to the event loop after
        each piece, so timeouts stay on time."""
        encoding = resp.headers.get("content-encoding", "identity").strip().lower()
        inflate: Any = None
        if encoding in ("gzip", "x-gzip", "deflate"):
            inflate = zlib.decompressobj(32 + zlib.MAX_WBITS)  # gzip or zlib header, detected
        elif encoding not in ("", "identity"):
            raise self._fail(
                f"the reply uses an unsupported content encoding {encoding[:40]!r}", "protocol"
            )
        total = 0
        async for raw in resp.aiter_raw():  # as it arrives (a chunk size would wait for that much)
            pending = raw
            while pending:
                if inflate is None:
                    piece, pending = pending[:READ_PIECE], pending[READ_PIECE:]
                else:
                    try:
                        piece = inflate.decompress(pending, READ_PIECE)
                    except zlib.error as exc:
                        raise self._fail(
                            f"the compressed reply is corrupt ({exc})", "protocol"
                        ) from None
                    pending = inflate.unconsumed_tail
                    if inflate.eof and inflate.unused_data:  # another gzip member follows
                        pending = inflate.unused_data + pending
                        inflate = zlib.decompressobj(32 + zlib.MAX_WBITS)
                total += len(piece)
                if total > cap:
                    yield piece[: max(0, cap - (total - len(piece)))]
                    raise self._fail(f"the reply is larger than {cap} bytes; cut off", "endless")
                if piece:
                    yield piece
                await asyncio.sleep(0)

    # ------------------------------------------------------------------------------------------ replies

    async def _read_json(
        self, resp: httpx.Response, ctype: str, emit: Callable[[str], None]
    ) -> None:
        """A non-streamed reply (the server ignored or refused stream: true)."""
        raw = await self._read_capped(
            resp, min(self.stream_cap, self.max_chars * 8 + MAX_ERROR_BODY)
        )
        try:
            data = json.loads(raw)
        except (ValueError, RecursionError):
            shown = ctype.split(";")[0] or "no content type"
            raise self._fail(
                f"the reply is not JSON ({shown}); is base_url an OpenAI-compatible endpoint "
                "(usually ending in /v1)?",
                "protocol",
            ) from None
        text = self._choice_text(data, key="message")
        if text is None:
            raise self._fail(self._no_choice_cause(data), "protocol")
        if len(text) > self.max_chars:
            emit(text[: self.max_chars])
            raise self._fail(
                f"the answer is longer than {self.max_chars} characters; cut off", "endless"
            )
        emit(text)

    async def _read_sse(self, resp: httpx.Response, emit: Callable[[str], None]) -> None:
        parser = SSEParser()
        produced = 0
        empty_choices = False

        def handle(data: str) -> bool:
            nonlocal produced, empty_choices
            done, text, empty = self._sse_event(data)
            empty_choices = empty_choices or empty
            if text:
                room = self.max_chars - produced
                if len(text) > room:
                    emit(text[:room])
                    raise self._fail(
                        f"the answer went past {self.max_chars} characters without ending; cut off",
                        "endless",
                    )
                produced += len(text)
                emit(text)
            return done

        finished = False
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        try:
            async for chunk in self._body_pieces(resp, self.stream_cap):
                if any([handle(ev.data) for ev in parser.feed(decoder.decode(chunk))]):
                    finished = True
                    break
            if not finished:
                parser.feed(decoder.decode(b"", final=True))
                finished = any([handle(ev.data) for ev in parser.finish()])
        except SSELimitError as exc:
            raise self._fail(f"{exc}; cut off", "endless") from None
        if not finished:
            raise self._fail(
                "the stream ended before the answer was complete (truncated)", "protocol"
            )
        if produced == 0 and empty_choices:
            raise self._fail("the server returned no choices", "protocol")

    def _sse_event(self, data: str) -> tuple[bool, str, bool]:
        """(finished, text, had empty choices) for one event's data."""
        if data.strip() == "[DONE]":
            return True, "", False
        try:
            obj = json.loads(data)
        except (ValueError, RecursionError):
            raise self._fail(
                f"malformed event in the stream (not JSON): {data[:60]!r}", "protocol"
            ) from None
        if not isinstance(obj, dict):
            raise self._fail("malformed event in the stream (not an object)", "protocol")
        if "error" in obj:
            raise self._fail(
                f"the server reported an error mid-stream: {_error_message(obj)}", "server"
            )
        choices = obj.get("choices")
        if not isinstance(choices, list):
            raise self._fail("malformed event in the stream (no 'choices')", "protocol")
        if not choices:
            return False, "", True
        choice = choices[0] if isinstance(choices[0], dict) else {}
        delta = choice.get("delta") or {}
        text = delta.get("content") if isinstance(delta, dict) else None
        if text is None:  # some servers stream completions-style chunks: choices[0].text
            text = choice.get("text")
        if not isinstance(text, str):
            text = ""
        return bool(choice.get("finish_reason")), text, False

    @staticmethod
    def _choice_text(data: Any, *, key: str) -> str | None:
        if (
            not isinstance(data, dict)
            or not isinstance(data.get("choices"), list)
            or not data["choices"]
        ):
            return None
        choice = data["choices"][0]
        if not isinstance(choice, dict) or not isinstance(choice.get(key), dict):
            return None
        content = choice[key].get("content")
        return content if isinstance(content, str) else None

    @staticmethod
    def _no_choice_cause(data: Any) -> str:
        if isinstance(data, dict) and "error" in data:
            return f"the server reported an error: {_error_message(data)}"
        if isinstance(data, dict) and data.get("choices") == []:
            return "the server returned no choices"
        return "the reply holds no answer (no choices[0].message.content)"

    # ------------------------------------------------------------------------------------------ errors

    def _status_error(
        self, status: int, body: bytes, *, url: str | None = None, location: str | None = None
    ) -> LLMError:
        detail = ""
        with contextlib.suppress(ValueError, RecursionError):
            detail = _error_message(json.loads(body))
        suffix = f" ({detail})" if detail else ""
        if status in (401, 403):
            if self.settings.api_key:
                src = self.settings.api_key_source or "the configured key"
                cause = f"HTTP {status}: the API key was refused; it is wrong or lacks access (from {src})"
            else:
                cause = f"HTTP {status}: no API key is set; set PANELBOT_API_KEY or OPENAI_API_KEY"
            return self._fail(
                cause, "auth", url
            )  # the server's text may echo the key: leave it out
        if status == 404:
            return self._fail(
                f"HTTP 404: unknown model {self.model!r} or wrong base URL "
                f"(it usually ends in /v1){suffix}",
                "not-found",
                url,
            )
        if status == 429:
            return self._fail(f"HTTP 429: rate limited{suffix}", "rate-limit", url)
        if 300 <= status < 400:
            where = f" to {location}" if location else ""
            return self._fail(
                f"HTTP {status}: redirected{where}; not followed (the key goes only to "
                "the configured base URL)",
                "redirect",
                url,
            )
        if status >= 500:
            return self._fail(f"HTTP {status}: the server failed{suffix}", "server", url)
        return self._fail(f"HTTP {status}: request refused{suffix}", "http", url)

    def _transport_error(
        self, exc: httpx.HTTPError, *, started: bool, url: str | None = None
    ) -> LLMError:
        s = self.settings
        text = str(exc)
        low = " ".join(str(e) for e in _chain(exc)).lower()
        if isinstance(exc, httpx.ConnectTimeout):
            return self._fail(
                f"could not connect within {s.connect_timeout:g} s (connect timeout)",
                "timeout",
                url,
            )
        if isinstance(exc, httpx.ReadTimeout):
            if started:
                return self._fail(
                    f"the server stalled mid-answer: nothing for {s.read_timeout:g} s "
                    "(read timeout)",
                    "timeout",
                    url,
                )
            return self._fail(
                f"no reply within {s.read_timeout:g} s (read timeout)", "timeout", url
            )
        if isinstance(exc, httpx.TimeoutException):
            return self._fail(f"timed out ({type(exc).__name__})", "timeout", url)
        if isinstance(exc, httpx.ConnectError):
            host = urlsplit(url or self.url).hostname or "?"
            if any(
                m in low
                for m in (
                    "name or service not known",
                    "nodename nor servname",
                    "temporary failure in name resolution",
                    "no address associated",
                    "getaddrinfo failed",
                    "name resolution",
                )
            ):
                return self._fail(f"unknown host {host!r} (the name does not resolve)", "dns", url)
            if "refused" in low or any(isinstance(e, ConnectionRefusedError) for e in _chain(exc)):
                return self._fail(
                    "connection refused: is the server running on that port?", "refused", url
                )
            return self._fail(f"could not connect: {text or type(exc).__name__}", "connect", url)
        if isinstance(exc, (httpx.RemoteProtocolError, httpx.ReadError)):
            if started:
                return self._fail(
                    "the server closed the connection mid-answer (truncated)", "protocol", url
                )
            return self._fail(
                f"the server closed the connection: {text or type(exc).__name__}", "protocol", url
            )
        return self._fail(f"{type(exc).__name__}: {text}", "http", url)


def _chain(exc: BaseException) -> list[BaseException]:
    """The exception and its causes (anyio hides 'connection refused' a few levels down)."""
    out: list[BaseException] = []
    cur: BaseException | None = exc
    while cur is not None and len(out) < 10:
        out.append(cur)
        cur = cur.__cause__ or cur.__context__
    return out


def _error_message(obj: Any) -> str:
    """The human part of an OpenAI-style error object, shortened."""
    if isinstance(obj, dict):
        err = obj.get("error", obj)
        msg = (err.get("message") or err.get("detail") or "") if isinstance(err, dict) else err
        if not msg and "detail" in obj:
            msg = obj["detail"]
        msg = str(msg) if msg else ""
        return msg[:200]
    return ""
