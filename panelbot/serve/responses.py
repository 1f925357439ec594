"""``POST /v1/responses``: OpenAI's Responses API over the same answering as ``/v1/chat/completions``.

A request's ``input`` (a string, or a list of message items whose content is a string or ``input_text`` /
``output_text`` parts; other item types, such as reasoning or tool calls, are skipped) becomes a chat
``messages`` list: ``instructions`` first as a system message, then the stored conversation of
``previous_response_id`` when given, then the input. From there it is the chat path unchanged: the same model
ids, the same conversation reading and resolver (:mod:`panelbot.serve.conversation`), the same answer
(:class:`panelbot.serve.answering.AnswerRun`, a turn of the pipeline: verbatim quotes offline, or
generated and verified) and the same
extra field ``panelbot`` on the response object (:func:`panelbot.serve.openai_api.completion_extra`).

``stream: true`` sends OpenAI's events (``response.created``, ``response.in_progress``,
``response.output_item.added``, ``response.content_part.added``, ``response.output_text.delta`` ...,
``response.output_text.done``, ``response.content_part.done``, ``response.output_item.done``,
``response.completed``; ``response.failed`` if answering breaks), each numbered by ``sequence_number``.

Responses are kept for ``previous_response_id`` (and ``GET``/``DELETE /v1/responses/{id}``) in the worker's
memory, apart per API key (the bearer token, hashed; never stored), bounded in number per key, in total and in
age (:class:`ResponseStore`); ``store: false`` keeps nothing. With ``--workers`` > 1 a follow-up can reach
another worker: send the whole conversation as input items instead (the stateless form), which every worker
answers the same.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
import uuid
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from panelbot.conversation.pipeline import Session
from panelbot.conversation.turns import Resolution
from panelbot.serve.answering import AnswerRun
from panelbot.serve.conversation import RequestError, parse_messages, read_conversation
from panelbot.serve.openai_api import PanelAPI, completion_extra, error_response, usage_of

log = logging.getLogger("uvicorn.error")  # the server's log, where the 500s of chat completions go
MAX_PER_KEY = 256  # responses kept per API key (the oldest goes first)
MAX_TOTAL = 4096  # responses kept in all
MAX_CHARS = 64_000_000  # characters of conversation kept in all
MAX_AGE = 3600.0  # seconds a response is kept
ROLES = ("user", "assistant", "system", "developer")
TEXT_PARTS = ("input_text", "output_text", "text")
SKIPPED_PARTS = ("input_image", "input_file", "input_audio", "refusal")


# --------------------------------------------------------------------------------------------- the store


@dataclass
class Stored:
    owner: str
    messages: list[
        dict[str, Any]
    ]  # the conversation through this response's answer (no instructions)
    response: dict[str, Any]  # the response object, as sent
    at: float
    size: int


class ResponseStore:
    """Responses kept for ``previous_response_id``, apart per owner (a hash of the API key). At most
    ``per_key`` per owner and ``total`` in all, ``chars`` characters of conversation in all, each for
    ``max_age`` seconds; the oldest goes first."""

    def __init__(
        self,
        per_key: int = MAX_PER_KEY,
        total: int = MAX_TOTAL,
        chars: int = MAX_CHARS,
        max_age: float = MAX_AGE,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.per_key, self.total, self.chars, self.max_age = per_key, total, chars, max_age
        self.clock = clock
        self._items: OrderedDict[str, Stored] = OrderedDict()  # oldest first
        self._counts: dict[str, int] = {}
        self._size = 0

    def __len__(self) -> int:
        return len(self._items)

    def _drop(self, rid: str) -> None:
        item = self._items.pop(rid)
        self._size -= item.size
        self._counts[item.owner] -= 1
        if not self._counts[item.owner]:
            del self._counts[item.owner]

    def _expire(self) -> None:
        limit = self.clock() - self.max_age
        while self._items:
            rid, item = next(iter(self._items.items()))
            if item.at > limit:
                return
            self._drop(rid)

    def put(
        self, owner: str, rid: str, messages: list[dict[str, Any]], response: dict[str, Any]
    ) -> None:
        self._expire()
        size = len(json.dumps(messages, ensure_ascii=False))
        if size > self.chars:
            return  # bigger than the whole store: not kept (a follow-up gets a clear 404)
        self._items[rid] = Stored(owner, messages, response, self.clock(), size)
        self._counts[owner] = self._counts.get(owner, 0) + 1
        self._size += size
        if self._counts[owner] > self.per_key:
            self._drop(next(r for r, it in self._items.items() if it.owner == owner))
        while len(self._items) > self.total or self._size > self.chars:
            self._drop(next(iter(self._items)))

    def get(self, owner: str, rid: str) -> Stored | None:
        self._expire()
        item = self._items.get(rid)
        return item if item is not None and item.owner == owner else None

    def delete(self, owner: str, rid: str) -> bool:
        if self.get(owner, rid) is None:
            return False
        self._drop(rid)
        return True


def owner_of(request: Request) -> str:
    """Whose responses a request may see: a hash of its bearer token (the same for every keyless client)."""
    token = request.headers.get("authorization", "").partition(" ")[2].strip()
    return hashlib.sha256(token.encode("utf-8", "surrogateescape")).hexdigest()


# --------------------------------------------------------------------------------------------- input


def _part_text(part: Any, where: str) -> str | None:
    if isinstance(part, str):
        return part
    if not isinstance(part, dict) or not isinstance(part.get("type"), str):
        raise RequestError(f"{where} must be a content part object with a 'type'", "input")
    if part["type"] in TEXT_PARTS:
        if not isinstance(part.get("text"), str):
            raise RequestError(f"{where}.text must be a string", "input")
        return part["text"]
    if part["type"] in SKIPPED_PARTS:
        return None
    raise RequestError(
        f"{where}.type must be one of {', '.join(TEXT_PARTS + SKIPPED_PARTS)} (got {part['type']!r})",
        "input",
    )


def _item_message(item: Any, where: str) -> dict[str, Any] | None:
    """One input item -> a chat message; None for an item that is not a message (skipped)."""
    if not isinstance(item, dict):
        raise RequestError(f"{where} must be an object (a message item)", "input")
    kind = item.get("type", "message")
    if kind != "message":
        if isinstance(kind, str):
            return None  # reasoning, tool calls and their outputs: nothing the panel answers from
        raise RequestError(f"{where}.type must be a string", "input")
    role = item.get("role")
    if role not in ROLES:
        raise RequestError(
            f"{where}.role must be one of {', '.join(ROLES)} (got {role!r})", "input"
        )
    content = item.get("content")
    if isinstance(content, str):
        text = content
    elif isinstance(content, list):
        parts = [_part_text(p, f"{where}.content[{i}]") for i, p in enumerate(content)]
        text = "\n".join(p for p in parts if p is not None)
    else:
        raise RequestError(f"{where}.content must be a string or a list of content parts", "input")
    message: dict[str, Any] = {"role": role, "content": text}
    if isinstance(item.get("panelbot"), dict):  # a client that kept panelbot's record on an item
        message["panelbot"] = item["panelbot"]
    return message


def input_messages(value: Any) -> list[dict[str, Any]]:
    """``input`` (a string or a list of items) -> chat messages, the last one the user's question."""
    if isinstance(value, str):
        if not value.strip():
            raise RequestError("'input' (the question) is empty", "input")
        return [{"role": "user", "content": value}]
    if not isinstance(value, list) or not value:
        raise RequestError("'input' must be a string or a non-empty list of message items", "input")
    messages = [
        m for i, item in enumerate(value) if (m := _item_message(item, f"input[{i}]")) is not None
    ]
    last = next((m for m in reversed(messages) if m["role"] not in ("system", "developer")), None)
    if last is None or last["role"] != "user":
        raise RequestError("the last message item in 'input' must be the user's question", "input")
    if not last["content"].strip():
        raise RequestError("the last user message in 'input' (the question) is empty", "input")
    return messages


@dataclass
class ResponsesRequest:
    model: str
    input: list[dict[str, Any]]
    instructions: str | None
    previous: str | None
    stream: bool
    store: bool
    echo: dict[str, Any]  # request fields a response object repeats


_KINDS = {str: "a string", bool: "true or false", int: "a whole number", dict: "an object"}


def _optional(body: dict[str, Any], name: str, kind: type, default: Any) -> Any:
    """``body[name]`` if it is a ``kind`` (a float field takes any number), ``default`` when absent or null."""
    value = body.get(name)
    if value is None:
        return default
    want: tuple[type, ...] = (int, float) if kind is float else (kind,)
    if not isinstance(value, want) or (kind is not bool and isinstance(value, bool)):
        raise RequestError(f"'{name}' must be {_KINDS.get(kind, 'a number')} (got {value!r})", name)
    return value


def read_request(body: Any, models: list[str]) -> ResponsesRequest:
    """Validate a Responses request body. RequestError says what is wrong."""
    if not isinstance(body, dict):
        raise RequestError("the request body must be a JSON object with 'model' and 'input'")
    model = body.get("model")
    if not isinstance(model, str) or not model.strip():
        raise RequestError(f"'model' must be one of: {', '.join(models)}", "model")
    if "input" not in body:
        raise RequestError("'input' is required: a string or a list of message items", "input")
    if body.get("conversation") is not None:  # OpenAI's Conversations API: not kept here
        raise RequestError(
            "'conversation' is not supported: follow up with 'previous_response_id', or send the whole "
            "conversation as input items",
            "conversation",
        )
    previous = _optional(body, "previous_response_id", str, None)
    if previous is not None and not previous.strip():
        raise RequestError("'previous_response_id' must not be empty", "previous_response_id")
    echo = {
        "metadata": _optional(body, "metadata", dict, {}),
        "temperature": _optional(body, "temperature", float, None),
        "top_p": _optional(body, "top_p", float, None),
        "max_output_tokens": _optional(body, "max_output_tokens", int, None),
        "user": _optional(body, "user", str, None),
    }
    return ResponsesRequest(
        model=model,
        input=input_messages(body["input"]),
        instructions=_optional(body, "instructions", str, None),
        previous=previous,
        stream=_optional(body, "stream", bool, False),
        store=_optional(body, "store", bool, True),
        echo=echo,
    )


# --------------------------------------------------------------------------------------------- output


def usage_object(chat_usage: dict[str, int]) -> dict[str, Any]:
    """The chat ``usage`` (counted in words) in the Responses shape."""
    return {
        "input_tokens": chat_usage["prompt_tokens"],
        "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
        "output_tokens": chat_usage["completion_tokens"],
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": chat_usage["total_tokens"],
    }


def text_part(text: str) -> dict[str, Any]:
    return {"type": "output_text", "text": text, "annotations": [], "logprobs": []}


def message_item(item_id: str, text: str | None, status: str = "completed") -> dict[str, Any]:
    return {
        "id": item_id,
        "type": "message",
        "status": status,
        "role": "assistant",
        "content": [] if text is None else [text_part(text)],
    }


@dataclass
class Answering:
    """One response being made: its ids, what it repeats of the request, and the run answering it."""

    rid: str
    item_id: str
    created: float
    req: ResponsesRequest
    model_id: str
    panel: str
    context: dict | None
    run: AnswerRun
    question: str

    def response(
        self,
        status: str,
        output: list[dict[str, Any]],
        *,
        usage: dict[str, Any] | None = None,
        extra: dict[str, Any] | None = None,
        error: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        return {
            "id": self.rid,
            "object": "response",
            "created_at": self.created,
            "status": status,
            "completed_at": time.time() if status == "completed" else None,
            "error": error,
            "incomplete_details": None,
            "instructions": self.req.instructions,
            "model": self.model_id,
            "output": output,
            "parallel_tool_calls": False,
            "previous_response_id": self.req.previous,
            "reasoning": {"effort": None, "summary": None},
            "store": self.req.store,
            "text": {"format": {"type": "text"}},
            "tool_choice": "none",
            "tools": [],
            "truncation": "disabled",
            **self.req.echo,
            "usage": usage,
            "panelbot": extra,
        }


# --------------------------------------------------------------------------------------------- the API


class ResponsesAPI:
    """The ``/v1/responses`` endpoints of one worker, on top of its :class:`PanelAPI`."""

    def __init__(self, api: PanelAPI, store: ResponseStore | None = None) -> None:
        self.api = api
        self.store = store or ResponseStore()

    def routes(self) -> list[Route]:
        return [
            Route("/v1/responses", self.create, methods=["POST"]),
            Route("/v1/responses/{response_id}", self.retrieve, methods=["GET"]),
            Route("/v1/responses/{response_id}", self.delete, methods=["DELETE"]),
        ]

    @staticmethod
    def not_found(rid: str, param: str | None = None) -> Response:
        return error_response(
            404,
            f"no response {rid!r} is kept for this API key (responses are kept {int(MAX_AGE // 60)} "
            f"minutes, at most {MAX_PER_KEY} per key, by the worker that made them; or send the "
            "whole conversation as input items)",
            param=param,
            code="previous_response_not_found" if param else "not_found",
        )

    async def retrieve(self, request: Request) -> Response:
        if (denied := self.api.check_key(request)) is not None:
            return denied
        rid = request.path_params["response_id"]
        item = self.store.get(owner_of(request), rid)
        return self.not_found(rid) if item is None else JSONResponse(item.response)

    async def delete(self, request: Request) -> Response:
        if (denied := self.api.check_key(request)) is not None:
            return denied
        rid = request.path_params["response_id"]
        if not self.store.delete(owner_of(request), rid):
            return self.not_found(rid)
        return JSONResponse({"id": rid, "object": "response", "deleted": True})

    async def _read(self, request: Request) -> ResponsesRequest | Response:
        """The validated request, or the error response to send."""
        body, refused = await self.api.json_body(request)
        if refused is not None:
            return refused
        try:
            return read_request(body, list(self.api.catalog.models))
        except RequestError as exc:
            return error_response(400, str(exc), param=exc.param)

    async def create(self, request: Request) -> Response:
        if (denied := self.api.check_key(request)) is not None:
            return denied
        req = await self._read(request)
        if isinstance(req, Response):
            return req
        entry = self.api.catalog.model(req.model)
        if entry is None:
            return self.api.unknown_model(req.model)
        owner = owner_of(request)
        earlier: list[dict[str, Any]] = []
        if req.previous is not None:
            stored = self.store.get(owner, req.previous)
            if stored is None:
                return self.not_found(req.previous, "previous_response_id")
            earlier = stored.messages
        conversation = [*earlier, *req.input]
        system = [{"role": "system", "content": req.instructions}] if req.instructions else []
        pentry = self.api.catalog.panels[entry.panel]

        def prepare() -> tuple[Any, Session, Resolution]:  # CPU work: in a worker thread
            conv = parse_messages(
                pentry.panel, [*system, *conversation], entry.target, self.api.limits
            )
            return conv, *read_conversation(pentry.router, conv, entry.target, self.api.backend)

        try:
            conv, session, reading = await run_in_threadpool(prepare)
        except RequestError as exc:
            return error_response(
                400, str(exc).replace("'messages'", "'input'"), param="input", code=exc.code
            )
        answering = Answering(
            rid=f"resp_{uuid.uuid4().hex}",
            item_id=f"msg_{uuid.uuid4().hex}",
            created=float(int(time.time())),
            req=req,
            model_id=entry.id,
            panel=entry.panel,
            context=reading.context,
            run=AnswerRun(
                self.api.backend,
                pentry.panel,
                reading.route,
                conv.message,
                context=reading.context,
                session=session,
            ),
            question=conv.message,
        )
        if req.stream:
            return StreamingResponse(
                self._events(answering, owner, conversation),
                media_type="text/event-stream",
                headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
            )
        text = await answering.run.text()
        return JSONResponse(self._finish(answering, owner, conversation, text))

    def _finish(
        self, a: Answering, owner: str, conversation: list[dict[str, Any]], text: str
    ) -> dict[str, Any]:
        """The completed response object; kept for ``previous_response_id`` unless ``store`` is false."""
        extra = completion_extra(a.run, a.panel, a.context)
        response = a.response(
            "completed",
            [message_item(a.item_id, text)],
            usage=usage_object(usage_of(a.question, text)),
            extra=extra,
        )
        if a.req.store:
            said = {"role": "assistant", "content": text, "panelbot": extra}
            self.store.put(owner, a.rid, [*conversation, said], response)
        return response

    async def _events(
        self, a: Answering, owner: str, conversation: list[dict[str, Any]]
    ) -> AsyncIterator[str]:
        seq = 0

        def event(kind: str, **fields: Any) -> str:
            nonlocal seq
            obj = {"type": kind, "sequence_number": seq, **fields}
            seq += 1
            return f"event: {kind}\ndata: {json.dumps(obj, ensure_ascii=False)}\n\n"

        where = {"item_id": a.item_id, "output_index": 0, "content_index": 0}
        yield event("response.created", response=a.response("in_progress", []))
        yield event("response.in_progress", response=a.response("in_progress", []))
        yield event(
            "response.output_item.added",
            output_index=0,
            item=message_item(a.item_id, None, "in_progress"),
        )
        yield event("response.content_part.added", part=text_part(""), **where)
        parts: list[str] = []
        try:
            async for piece in a.run.pieces():
                parts.append(piece)
                yield event("response.output_text.delta", delta=piece, logprobs=[], **where)
        except (
            Exception
        ):  # the headers are gone: logged, then said in the failure event ending the stream
            log.exception("answering %s failed mid-stream", a.rid)
            error = {
                "code": "server_error",
                "message": "internal error while answering; see the server's log",
            }
            yield event("response.failed", response=a.response("failed", [], error=error))
            return
        text = "".join(parts)
        yield event("response.output_text.done", text=text, logprobs=[], **where)
        yield event("response.content_part.done", part=text_part(text), **where)
        yield event("response.output_item.done", output_index=0, item=message_item(a.item_id, text))
        yield event("response.completed", response=self._finish(a, owner, conversation, text))


def responses_routes(api: PanelAPI) -> list[Route]:
    """The Responses API's routes for ``api``'s app (one store per worker)."""
    return ResponsesAPI(api).routes()
