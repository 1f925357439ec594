"""``panelbot serve``: the panel behind an OpenAI-compatible HTTP API (Starlette on uvicorn).

Endpoints: ``GET /v1/models`` (``/v1/models/{id}``), ``POST /v1/chat/completions`` (JSON or ``stream: true``
server-sent events ending ``data: [DONE]``), ``GET /health``. Every response body that OpenAI defines keeps
exactly OpenAI's fields; panelbot's own information travels in one extra field, ``panelbot`` (see
:func:`completion_extra`). Errors use OpenAI's shape ``{"error": {"message", "type", "param", "code"}}``.

The server is stateless: the whole conversation comes with each request, so any number of workers or machines
can serve the same clients. When ``PANELBOT_SERVE_KEY`` is set every ``/v1`` request needs
``Authorization: Bearer <key>`` (compared in constant time; the key is never logged or echoed).
"""

from __future__ import annotations

import contextlib
import json
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
from panelbot.config import Config, load_config
from panelbot.retrieval.results import RouteResult
from panelbot.serve.answering import AnswerRun
from panelbot.serve.binding import KEY_ENV, bearer_matches, host_name, is_loopback
from panelbot.serve.catalog import Catalog, load_catalog
from panelbot.serve.conversation import (
    Conversation,
    RequestError,
    parse_messages,
    route_conversation,
)

SETTINGS_ENV = (
    "PANELBOT_SERVE_SETTINGS"  # how `--workers N` hands the settings to each worker process
)
DEFAULT_MAX_BODY = 1_000_000  # bytes


@dataclass(frozen=True)
class ServeSettings:
    panel: str | None = None
    config: str | None = None
    backend: str | None = None
    base_url: str | None = None
    model: str | None = None
    max_body: int = DEFAULT_MAX_BODY
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
        return load_config(self.config).with_endpoint(self.base_url, self.model, self.backend)


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
        detail = f"no such endpoint: {request.method} {request.url.path} (try GET /v1/models, POST /v1/chat/completions)"
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

    async def read_json(self, request: Request) -> Any:
        limit = self.settings.max_body
        declared = request.headers.get("content-length")
        if declared and declared.isdigit() and int(declared) > limit:
            raise _TooLarge(int(declared))
        body = bytearray()
        async for chunk in request.stream():
            body += chunk
            if len(body) > limit:
                raise _TooLarge(len(body))
        if not body.strip():
            raise RequestError("the request body is empty; expected a JSON object")
        try:
            return json.loads(body)
        except (ValueError, UnicodeDecodeError) as exc:
            raise RequestError(f"the request body is not valid JSON: {exc}") from None

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
            f"the model {model_id!r} does not exist; available: {', '.join(self.catalog.models)}",
            param="model",
            code="model_not_found",
        )

    async def chat_completions(self, request: Request) -> Response:
        if (denied := self.check_key(request)) is not None:
            return denied
        ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if ctype != "application/json":
            # also what keeps a web page from posting here behind the user's back (no CORS preflight otherwise)
            return error_response(
                415,
                f"send the body as JSON with 'Content-Type: application/json' (got "
                f"{ctype or 'no content type'!r})",
                code="unsupported_media_type",
            )
        try:
            body = await self.read_json(request)
            req = self.validate(body)
        except _TooLarge as exc:
            return error_response(
                413,
                f"the request is {exc.size} bytes; this server accepts at most "
                f"{self.settings.max_body}",
                code="request_too_large",
            )
        except RequestError as exc:
            return error_response(400, str(exc), param=exc.param)
        if req is None:
            return self.unknown_model(body.get("model"))
        model_id, stream = req
        opts = body.get("stream_options")
        want_usage = isinstance(opts, dict) and opts.get("include_usage") is True
        entry = self.catalog.models[model_id]
        pentry = self.catalog.panels[entry.panel]

        def read_and_route() -> tuple[Conversation, RouteResult, dict | None]:
            conv = parse_messages(pentry.panel, body["messages"], entry.target)
            route, context = route_conversation(
                pentry.router, conv.turns, conv.message, entry.target
            )
            return conv, route, context

        try:  # CPU work, in a worker thread: the event loop goes on serving the other clients
            conv, route, context = await run_in_threadpool(read_and_route)
        except RequestError as exc:
            return error_response(400, str(exc), param=exc.param)
        run = AnswerRun(self.backend, pentry.panel, route, conv.message, conv.history)
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
                    conv.message if want_usage else None,
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
            raise RequestError(f"'stream' must be true or false (got {stream!r})", "stream")
        n = body.get("n", 1)
        if n not in (None, 1):
            raise RequestError(f"'n' must be 1: the panel gives one answer (got {n!r})", "n")
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
        except (
            Exception
        ):  # the headers are gone: say so in OpenAI's error event, then end the stream
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
            raise
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


class _TooLarge(Exception):
    def __init__(self, size: int) -> None:
        super().__init__(size)
        self.size = size


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
    return PanelAPI(settings, catalog, backend, cfg, os.environ.get(KEY_ENV, ""))


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
            Route("/health", api.health, methods=["GET"]),
        ],
        exception_handlers={HTTPException: _http_error, 500: _server_error},
        lifespan=lifespan,
    )
    app.state.api = api
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
    return app


def run(api: PanelAPI, *, port: int, workers: int = 1, log_level: str = "warning") -> None:
    """Serve ``api`` with uvicorn until interrupted; with ``workers`` > 1 each worker process builds its own
    from the same settings (passed in ``$PANELBOT_SERVE_SETTINGS``)."""
    import uvicorn

    from panelbot.serve.nodelay import PATH as http_protocol

    common: dict[str, Any] = dict(
        host=api.settings.host,
        port=port,
        http=http_protocol,
        log_level=log_level,
        access_log=log_level in ("info", "debug"),
        server_header=False,
        timeout_graceful_shutdown=5,
    )
    if workers == 1:
        uvicorn.run(create_app(api=api), **common)
    else:
        os.environ[SETTINGS_ENV] = api.settings.to_env()
        uvicorn.run("panelbot.serve.openai_api:create_app", factory=True, workers=workers, **common)
