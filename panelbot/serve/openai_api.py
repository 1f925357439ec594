"""``panelbot serve``: the panel behind an OpenAI-compatible HTTP API (Starlette on uvicorn).

Endpoints: ``GET /v1/models`` (``/v1/models/{id}``), ``POST /v1/chat/completions`` (JSON or ``stream: true``
server-sent events ending ``data: [DONE]``), ``POST /v1/responses`` (OpenAI's Responses API on the same
answering: :mod:`panelbot.serve.responses`), ``GET /health``. Every response body that OpenAI defines keeps
exactly OpenAI's fields; panelbot's own information travels in one extra field, ``panelbot`` (see
:func:`completion_extra`). Errors use OpenAI's shape ``{"error": {"message", "type", "param", "code"}}``.

The server is stateless: the whole conversation comes with each request, so any number of workers or machines
can serve the same clients (only ``previous_response_id`` reaches back to a response the worker kept). When ``PANELBOT_SERVE_KEY`` is set every ``/v1`` request needs
``Authorization: Bearer <key>`` (compared in constant time; the key is never logged or echoed).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import asdict, dataclass
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from panelbot.answer.backends.base import Backend
from panelbot.config import Config, ServeLimits, load_config
from panelbot.conversation.pipeline import Session
from panelbot.records import replace
from panelbot.retrieval.results import RouteResult
from panelbot.serve.answering import AnswerRun
from panelbot.serve.binding import KEY_ENV, bearer_matches, host_name, is_loopback, server_key
from panelbot.serve.catalog import Catalog, load_catalog
from panelbot.serve.conversation import (
    Conversation,
    RequestError,
    parse_messages,
    read_conversation,
    shown,
)
from panelbot.serve.guard import BodyGuard, decode_json
from panelbot.serve.protocol import uvicorn_options

SETTINGS_ENV = (
    "PANELBOT_SERVE_SETTINGS"  # how `--workers N` hands the settings to each worker process
)


@dataclass(frozen=True)
class ServeSettings:
    panel: str | None = None
    config: str | None = None
    backend: str | None = None
    base_url: str | None = None
    model: str | None = None
    max_body: int | None = None  # bytes of a request body; None: the config's serve.max_body
    host: str = "127.0.0.1"  # the bound address: on loopback, only loopback Host headers are served
    allow_origins: tuple[str, ...] = ()  # browser origins allowed by CORS (none by default)

    def to_env(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None) -> ServeSettings:
        raw = (os.environ if environ is None else environ).get(SETTINGS_ENV)
        if not raw:
            return cls()
        d = json.loads(raw)
        d["allow_origins"] = tuple(d.get("allow_origins") or ())
        return cls(**d)

    def effective_config(self) -> Config:
        """The config file(s) and environment, then these flags; a model URL or name implies the openai backend."""
        cfg = load_config(self.config).with_endpoint(self.base_url, self.model, self.backend)
        if self.max_body is not None:
            cfg = replace(cfg, serve=replace(cfg.serve, max_body=self.max_body))
        return cfg


# --------------------------------------------------------------------------------------------- errors


def error_response(
    status: int,
    message: str,
    *,
    type_: str = "invalid_request_error",
    param: str | None = None,
    code: str | None = None,
) -> JSONResponse:
    """OpenAI's error shape."""
    return JSONResponse(
        {"error": {"message": message, "type": type_, "param": param, "code": code}},
        status_code=status,
    )


_STATUS_CODES = {404: "not_found", 405: "method_not_allowed"}


async def _http_error(request: Request, exc: Exception) -> Response:
    status = getattr(exc, "status_code", 500)
    detail = getattr(exc, "detail", "") or "error"
    if status == 404:
        detail = (
            f"no such endpoint: {request.method} {request.url.path} (try GET /v1/models, "
            "POST /v1/chat/completions, POST /v1/responses)"
        )
    elif status == 405:
        detail = (
            f"{request.method} is not allowed on {request.url.path} "
            f"(allowed: {getattr(exc, 'headers', {}).get('Allow', 'see the docs')})"
        )
    return error_response(status, str(detail), code=_STATUS_CODES.get(status))


async def _server_error(request: Request, exc: Exception) -> Response:
    return error_response(
        500, "internal error while answering; see the server's log", type_="server_error"
    )


# --------------------------------------------------------------------------------------------- the app


class PanelAPI:
    """The state one worker holds: the panels (indexed once), the backend, the key."""

    def __init__(
        self,
        settings: ServeSettings,
        catalog: Catalog,
        backend: Backend,
        config: Config,
        key: str = "",
    ) -> None:
        self.settings = settings
        self.catalog = catalog
        self.backend = backend
        self.config = config
        self._key = key
        self.created = int(time.time())

    # -- auth and body ----------------------------------------------------------------------------

    def check_key(self, request: Request) -> Response | None:
        if not self._key:
            return None
        auth = request.headers.get("authorization", "")
        if not auth.partition(" ")[2].strip():
            return error_response(
                401,
                "this server needs an API key: send 'Authorization: Bearer <key>' "
                f"(the value of {KEY_ENV} on the server)",
                code="invalid_api_key",
            )
        if not bearer_matches(auth, self._key):
            return error_response(
                401, "the API key is not valid for this server", code="invalid_api_key"
            )
        return None

    @property
    def limits(self) -> ServeLimits:
        return self.config.serve

    @staticmethod
    def not_json(request: Request) -> Response | None:
        """The 415 to send when the body is not declared JSON -- also what keeps a web page from posting
        here behind the user's back (no CORS preflight otherwise)."""
        ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if ctype == "application/json":
            return None
        return error_response(
            415,
            f"send the body as JSON with 'Content-Type: application/json' (got "
            f"{ctype or 'no content type'!r})",
            code="unsupported_media_type",
        )

    async def json_body(self, request: Request) -> tuple[Any, Response | None]:
        """(the request's JSON body, None), or (None, the error to send: 415 not sent as JSON, 400 not
        JSON or beyond the limits). The body is whole already, within the size and time limits
        (BodyGuard); it is decoded in a worker thread."""
        if (refused := self.not_json(request)) is not None:
            return None, refused
        raw = await request.body()
        try:
            return await run_in_threadpool(decode_json, raw, self.limits.max_json_depth), None
        except RequestError as exc:
            return None, error_response(400, str(exc), param=exc.param, code=exc.code)

    # -- endpoints ----------------------------------------------------------------------------------

    def model_object(self, model_id: str) -> dict[str, Any]:
        entry = self.catalog.models[model_id]
        return {
            "id": model_id,
            "object": "model",
            "created": self.created,
            "owned_by": "panelbot",
            "panelbot": entry.to_dict(),
        }

    async def list_models(self, request: Request) -> Response:
        if (denied := self.check_key(request)) is not None:
            return denied
        return JSONResponse(
            {"object": "list", "data": [self.model_object(m) for m in self.catalog.models]}
        )

    async def get_model(self, request: Request) -> Response:
        if (denied := self.check_key(request)) is not None:
            return denied
        model_id = request.path_params["model_id"]
        if self.catalog.model(model_id) is None:
            return self.unknown_model(model_id)
        return JSONResponse(self.model_object(self.catalog.model(model_id).id))  # type: ignore[union-attr]

    def unknown_model(self, model_id: Any) -> Response:
        return error_response(
            404,
            f"the model {shown(model_id)} does not exist; available: {', '.join(self.catalog.models)}",
            param="model",
            code="model_not_found",
        )

    async def chat_completions(self, request: Request) -> Response:
        if (denied := self.check_key(request)) is not None:
            return denied
        if (refused := self.not_json(request)) is not None:
            return refused
        raw = await request.body()  # whole already, within the size and time limits (BodyGuard)
        try:  # CPU work, in a worker thread: the event loop goes on serving the other clients
            asked = await run_in_threadpool(self.prepare, raw)
        except RequestError as exc:
            return error_response(400, str(exc), param=exc.param, code=exc.code)
        except _UnknownModel as exc:
            return self.unknown_model(exc.model)
        conv, route, context = asked.conv, asked.route, asked.context
        model_id, stream, entry = asked.model_id, asked.stream, self.catalog.models[asked.model_id]
        pentry = self.catalog.panels[entry.panel]
        run = AnswerRun(
            self.backend, pentry.panel, route, conv.message, context=context, session=asked.session
        )
        completion_id = f"chatcmpl-{uuid.uuid4().hex}"
        created = int(time.time())
        if stream:
            return StreamingResponse(
                self._stream(
                    run,
                    completion_id,
                    created,
                    model_id,
                    entry.panel,
                    context,
                    conv.message if asked.want_usage else None,
                ),
                media_type="text/event-stream",
                headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
            )
        text = await run.text()
        return JSONResponse(
            {
                "id": completion_id,
                "object": "chat.completion",
                "created": created,
                "model": model_id,
                "system_fingerprint": None,
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": text, "refusal": None},
                        "logprobs": None,
                        "finish_reason": "stop",
                    }
                ],
                "usage": usage_of(conv.message, text),
                "panelbot": completion_extra(run, entry.panel, context),
            }
        )

    def prepare(self, raw: bytes) -> _Asked:
        """A request body -> what it asks, resolved against its conversation (RequestError or _UnknownModel
        when it cannot be answered). Run in a worker thread."""
        body = decode_json(raw, self.limits.max_json_depth)
        req = self.validate(body)
        if req is None:
            raise _UnknownModel(body.get("model"))
        model_id, stream = req
        opts = body.get("stream_options")
        entry = self.catalog.models[model_id]
        pentry = self.catalog.panels[entry.panel]
        conv = parse_messages(pentry.panel, body["messages"], entry.target, self.limits)
        session, reading = read_conversation(pentry.router, conv, entry.target, self.backend)
        want_usage = isinstance(opts, dict) and opts.get("include_usage") is True
        return _Asked(model_id, stream, want_usage, conv, reading.route, reading.context, session)

    def validate(self, body: Any) -> tuple[str, bool] | None:
        """(model id, stream) for a well-formed request; None for an unknown model; RequestError otherwise."""
        if not isinstance(body, dict):
            raise RequestError("the request body must be a JSON object with 'model' and 'messages'")
        model = body.get("model")
        if not isinstance(model, str) or not model.strip():
            raise RequestError(f"'model' must be one of: {', '.join(self.catalog.models)}", "model")
        if "messages" not in body:
            raise RequestError(
                "'messages' is required: a list of {role, content} objects", "messages"
            )
        stream = body.get("stream", False)
        if stream is None:
            stream = False
        if not isinstance(stream, bool):
            raise RequestError(f"'stream' must be true or false (got {shown(stream)})", "stream")
        n = body.get("n", 1)
        if n not in (None, 1):
            raise RequestError(f"'n' must be 1: the panel gives one answer (got {shown(n)})", "n")
        entry = self.catalog.model(model)
        if entry is None:
            return None
        return entry.id, stream

    async def _stream(
        self,
        run: AnswerRun,
        cid: str,
        created: int,
        model: str,
        panel: str,
        context: dict | None,
        usage_question: str | None,
    ) -> AsyncIterator[str]:
        def chunk(
            delta: dict[str, Any], finish: str | None = None, extra: dict | None = None
        ) -> str:
            obj: dict[str, Any] = {
                "id": cid,
                "object": "chat.completion.chunk",
                "created": created,
                "model": model,
                "system_fingerprint": None,
                "choices": [
                    {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
                ],
            }
            if extra is not None:
                obj["panelbot"] = extra
            return f"data: {json.dumps(obj, ensure_ascii=False)}\n\n"

        yield chunk({"role": "assistant", "content": ""})
        parts: list[str] = []
        try:
            async for piece in run.pieces():
                parts.append(piece)
                yield chunk({"content": piece})
        except Exception:
            # the headers are gone: log it, say so in OpenAI's error event, and end the stream properly
            # (raising would cut the response short of its last chunk, [DONE] or not)
            logging.getLogger("panelbot.serve").exception(
                "internal error while streaming an answer"
            )
            err = {
                "error": {
                    "message": "internal error while answering; see the server's log",
                    "type": "server_error",
                    "param": None,
                    "code": None,
                }
            }
            yield f"data: {json.dumps(err)}\n\n"
            yield "data: [DONE]\n\n"
            return
        yield chunk({}, "stop", completion_extra(run, panel, context))
        if (
            usage_question is not None
        ):  # stream_options.include_usage: a last chunk, no choices, the usage
            obj = {
                "id": cid,
                "object": "chat.completion.chunk",
                "created": created,
                "model": model,
                "system_fingerprint": None,
                "choices": [],
                "usage": usage_of(usage_question, "".join(parts)),
            }
            yield f"data: {json.dumps(obj)}\n\n"
        yield "data: [DONE]\n\n"

    async def health(self, request: Request) -> Response:
        return JSONResponse(
            {"status": "ok", "panels": list(self.catalog.panels), "backend": self.backend.name}
        )


@dataclass
class _Asked:
    model_id: str
    stream: bool
    want_usage: bool
    conv: Conversation
    route: RouteResult
    context: dict | None
    session: Session  # the pipeline over the request's conversation, which answers it


class _UnknownModel(Exception):
    def __init__(self, model: Any) -> None:
        super().__init__(model)
        self.model = model


def usage_of(question: str, answer: str = "") -> dict[str, Any]:
    """OpenAI's ``usage`` object, counted in words: offline no model tokens are spent, and an upstream model's
    own counts are not passed through (clients such as ``llm`` need the object to exist)."""
    q, a = len(question.split()), len(answer.split())
    return {"prompt_tokens": q, "completion_tokens": a, "total_tokens": q + a}


def completion_extra(run: AnswerRun, panel: str, context: dict | None) -> dict[str, Any]:
    """The one extra field, ``panelbot``: the ``ask --llm --json`` record of this answer
    (``question, speakers, abstained, quotes [{id, speaker, text, score}], reason``; on abstention
    ``suggestions``; otherwise ``answer, citations [{id, valid}], grounded, error, backend, model, answers``)
    plus ``panel`` and ``context`` (what the conversation carried over, or null)."""
    return {**run.record, "panel": panel, "context": context}


def build_api(settings: ServeSettings) -> PanelAPI:
    """Load config, panels and backend (raises PanelbotError with one clear line when something is wrong)."""
    from panelbot.answer.backends.registry import get_backend

    cfg = settings.effective_config()
    catalog = load_catalog(cfg, settings.panel)
    backend = get_backend(cfg.backend.name, cfg, catalog.entry(None).panel)
    return PanelAPI(settings, catalog, backend, cfg, server_key())


class LoopbackHostGuard:
    """On a loopback bind, serve only requests whose Host header names the loopback (a web page that rebinds
    its own domain name to 127.0.0.1 sends its domain as the Host, and is refused)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            raw = dict(scope.get("headers") or []).get(b"host", b"").decode("latin-1")
            if not is_loopback(host_name(raw)):
                resp = error_response(
                    400,
                    f"this server answers only requests to the loopback address (Host "
                    f"{raw!r} refused); to serve others, bind another address with a key",
                    code="host_not_allowed",
                )
                await resp(scope, receive, send)
                return
        await self.app(scope, receive, send)


def create_app(settings: ServeSettings | None = None, api: PanelAPI | None = None) -> Starlette:
    """The ASGI app. With no arguments the settings come from ``$PANELBOT_SERVE_SETTINGS`` (each worker)."""
    from panelbot.serve.responses import responses_routes

    api = api or build_api(settings or ServeSettings.from_env())

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            yield
        finally:
            await api.backend.aclose()

    app = Starlette(
        routes=[
            Route("/v1/models", api.list_models, methods=["GET"]),
            Route("/v1/models/{model_id:path}", api.get_model, methods=["GET"]),
            Route("/v1/chat/completions", api.chat_completions, methods=["POST"]),
            *responses_routes(api),
            Route("/health", api.health, methods=["GET"]),
        ],
        exception_handlers={HTTPException: _http_error, 500: _server_error},
        lifespan=lifespan,
    )
    app.state.api = api
    limits = api.limits
    app.add_middleware(
        BodyGuard, max_body=limits.max_body, body_timeout=limits.body_timeout, refuse=refusal
    )
    if api.settings.allow_origins:
        from starlette.middleware.cors import CORSMiddleware

        app.add_middleware(
            CORSMiddleware,
            allow_origins=list(api.settings.allow_origins),
            allow_methods=["GET", "POST"],
            allow_headers=["Authorization", "Content-Type"],
        )
    if is_loopback(api.settings.host):
        app.add_middleware(LoopbackHostGuard)
    uvicorn_options(limits)  # this process's connection limits (each worker's, with --workers)
    return app


def refusal(status: int, message: str, code: str) -> Response:
    """A request refused before it reached a handler (too large, too slow), in OpenAI's error shape."""
    return error_response(status, message, code=code)


def run(api: PanelAPI, *, port: int, workers: int = 1, log_level: str = "warning") -> None:
    """Serve ``api`` with uvicorn until interrupted; with ``workers`` > 1 each worker process builds its own
    from the same settings (passed in ``$PANELBOT_SERVE_SETTINGS``)."""
    import uvicorn

    uvicorn_args = uvicorn_options(api.limits)
    common: dict[str, Any] = dict(
        host=api.settings.host,
        port=port,
        log_level=log_level,
        access_log=log_level in ("info", "debug"),
        server_header=False,
        timeout_graceful_shutdown=5,
        **uvicorn_args,
    )
    if workers == 1:
        uvicorn.run(create_app(api=api), **common)
    else:
        os.environ[SETTINGS_ENV] = api.settings.to_env()
        uvicorn.run("panelbot.serve.openai_api:create_app", factory=True, workers=workers, **common)
