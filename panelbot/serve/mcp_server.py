"""``panelbot mcp``: the panel as Model Context Protocol tools, resources and prompts (official MCP Python SDK,
``mcp.server.mcpserver.MCPServer``, over stdio or streamable HTTP).

Tools: ``ask_panel``, ``search_quotes``, ``get_quote``, ``list_panels``. Resources: each panelist's profile
(``panel://<panel>/<panelist>``) and each quote (``panel://<panel>/quotes/<quote id>``). Prompts: one per
panelist of the default panel (``answer_as_<id>``), built by the same prompt builder ``ask --llm`` uses.

Everything is answered from the panel's verbatim quotes: no model is called. A bad argument is reported as a
tool error (``is_error``) or an MCP protocol error with one clear line; nothing a client sends stops the server.
"""

from __future__ import annotations

import base64
import functools
import inspect
import json
import uuid
from collections.abc import Callable
from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceNotFoundError, ToolError
from mcp.server.mcpserver.prompts.base import Prompt
from mcp.server.mcpserver.resources.types import FunctionResource
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS, ToolAnnotations
from mcp_types import CallToolResult, ResourceLink, TextContent
from pydantic import Field

from panelbot import __version__
from panelbot.answer.llm.prompt import build_messages
from panelbot.config import ServeLimits
from panelbot.conversation.followups import suggest_followups
from panelbot.conversation.pipeline import Declined, Resolved, Session
from panelbot.conversation.session import ConversationLog
from panelbot.errors import PanelbotError
from panelbot.panel import Panel, Quote
from panelbot.retrieval.results import ScoredQuote
from panelbot.serve.catalog import Catalog, PanelEntry
from panelbot.serve.conversation import (
    Conversation,
    RequestError,
    parse_messages,
    session_of,
    shown,
)
from panelbot.serve.mcp_conversations import MAX_AGE, ConversationMemory
from panelbot.serve.mcp_schemas import (
    AskResult,
    PanelList,
    PanelListing,
    QuoteDetail,
    SearchResult,
)
from panelbot.text import count_of, strip_control

MAX_K = 50
MAX_SEARCH_DEPTH = 500  # search results reachable through pages (cursor)
MAX_LISTED_QUOTES = (
    2000  # a bigger panel's quotes are still readable through the URI template, not listed
)


def _clean(text: str) -> str:
    return strip_control(text, keep_newlines=False).strip()


def _instructions(catalog: Catalog) -> str:
    entry = catalog.entry(None)
    p = entry.panel
    who = "; ".join(
        f"{x.name} ({x.title}; talked about {', '.join(x.covers[:6])})"
        if x.covers
        else f"{x.name} ({x.title})"
        for x in p.panelists.values()
    )
    return (
        f'This server holds a recorded expert panel, "{p.title}". The panelists: {who}. Every answer is made '
        "of their verbatim words from the talk, each quote with an id you can cite and look up (get_quote). "
        "Use ask_panel for a question (it declines, with topics it can answer, when the panel never discussed "
        "it); search_quotes to look words up; list_panels for what is installed. Quote the text exactly and "
        "attribute it to the speaker; never invent what a panelist said."
    )


def _quote_dict(panel: Panel, sq: ScoredQuote | Quote) -> dict[str, Any]:
    q = sq.quote if isinstance(sq, ScoredQuote) else sq
    d: dict[str, Any] = {
        "id": q.id,
        "speaker": q.speaker,
        "speaker_name": panel.display_name(q.speaker),
        "text": q.text,
    }
    if isinstance(sq, ScoredQuote):
        d["score"] = round(sq.score, 1)
    hq = panel.question(q.question)
    d["host_question"] = hq.text if hq else None
    d["resource"] = f"panel://{panel.name}/quotes/{q.id}"
    return d


def _persona_dict(panel: Panel, pid: str) -> dict[str, Any]:
    p = panel.panelists[pid]
    return {
        "id": pid,
        "name": p.name,
        "role": p.role,
        "organisation": p.organisation,
        "covers": list(p.covers),
        "bio": p.bio,
        "quotes": len(panel.quotes_by(pid)),
        "resource": f"panel://{panel.name}/{pid}",
    }


def _profile_text(panel: Panel, pid: str) -> str:
    p = panel.panelists[pid]
    lines = [f"# {p.name}", ""]
    if p.title:
        lines.append(f"{p.title}. On the panel \u201c{panel.title}\u201d.")
    if p.bio:
        lines += ["", p.bio]
    if p.covers:
        lines += ["", "Talked about: " + ", ".join(p.covers) + "."]
    if p.voice:
        lines += ["", f"How they speak: {p.voice}"]
    quotes = panel.quotes_by(pid)
    lines += [
        "",
        f"{count_of(len(quotes), 'quote')} on this panel (resources panel://{panel.name}/quotes/<id>):",
    ]
    lines += [f"- [{q.id}] {q.text[:100]}{'…' if len(q.text) > 100 else ''}" for q in quotes]
    return "\n".join(lines) + "\n"


class PanelTools:
    """The tools' behaviour, independent of the transport (and easy to test directly)."""

    def __init__(self, catalog: Catalog, top_k: int = 3, limits: ServeLimits | None = None) -> None:
        self.catalog = catalog
        self.top_k = top_k
        self.limits = limits or ServeLimits()
        self.memory = ConversationMemory()

    def _entry(self, panel: str | None) -> PanelEntry:
        try:
            return self.catalog.entry(panel or None)
        except PanelbotError as exc:
            raise ToolError(str(exc)) from None

    def _text(self, value: Any, name: str, limit: int | None = None) -> str:
        limit = self.limits.max_question if limit is None else limit
        if not isinstance(value, str) or not value.strip():
            raise ToolError(f"'{name}' must be a non-empty string")
        if len(value) > limit:
            raise ToolError(f"'{name}' is {len(value):,} characters; at most {limit:,}")
        return value.strip()

    def ask_panel(
        self,
        question: Annotated[str, Field(description="The question, in plain language")],
        to: Annotated[
            str,
            Field(
                description="Who answers: 'auto' (the panel decides), 'both', or a panelist id "
                "(see list_panels)"
            ),
        ] = "auto",
        conversation: Annotated[
            list[dict[str, Any] | str] | None,
            Field(
                description="Earlier turns of this chat, oldest first: {role: 'user'|'assistant', content: text} "
                "objects, plain strings for earlier questions, or an earlier ask_panel result as it came "
                "(as the assistant turn's content or as the item itself)"
            ),
        ] = None,
        panel: Annotated[
            str | None, Field(description="Installed panel name; default: the served panel")
        ] = None,
        conversation_id: Annotated[
            str | None,
            Field(
                description="The conversation_id of an earlier ask_panel result: this question "
                "continues that conversation, which the server keeps (instead of 'conversation')"
            ),
        ] = None,
        ctx: Context | None = None,
    ) -> dict[str, Any]:
        question = self._text(question, "question")
        owner = self.memory.owner_of(_headers_of(ctx))
        log = self._kept(owner, conversation_id, conversation, panel)
        entry = self._entry(panel or (log.panel if log is not None else None))
        p = entry.panel
        target = self.catalog.target_for(p, to if isinstance(to, str) else "")
        if target is None:
            raise ToolError(
                f"'to' must be auto, both or one of: {', '.join(p.panelists)} (got {shown(to)})"
            )
        if conversation is not None and len(conversation) >= self.limits.max_messages:
            raise ToolError(
                f"'conversation' holds {len(conversation):,} turns; at most "
                f"{self.limits.max_messages - 1:,}"
            )
        if log is None:
            conv = self._parsed(p, question, conversation, target)
            session = session_of(entry.router, conv)
            question = conv.message
        else:
            session = Session(p, entry.router, None, log)
        events = list(session.ask_now(question, target))
        resolved = next(e for e in events if isinstance(e, Resolved))
        route, context = resolved.route, resolved.context
        cid = conversation_id or uuid.uuid4().hex
        self.memory.put(owner, cid, session.log)
        out: dict[str, Any] = {
            "panel": p.name,
            "question": question,
            "answered_by": [{"id": s, "name": p.display_name(s)} for s in route.speakers],
            "abstained": route.abstained,
            "reason": _clean(route.reason),
            "quotes": [_quote_dict(p, sq) for sq in route.quotes],
            "context": context,
            "conversation_id": cid,
        }
        if not route.abstained:  # each one is resolved in this conversation first: it has an answer
            out["suggested_followups"] = [
                {"question": f.text, "kind": f.kind, "answered_by": list(f.speakers)}
                for f in suggest_followups(entry.router, session.turns, 3)
            ]
        if route.small_talk:  # "hi", "thanks!": a friendly reply, not a decline
            out.update(kind="small_talk", small_talk=route.small_talk)
        declined = next((e for e in events if isinstance(e, Declined)), None)
        if declined is not None:
            out["decline"] = declined.text
            out["suggested_topics"] = list(p.topics[:8])
            out["suggested_questions"] = [s for s in route.suggestions if s not in p.topics][:3]
        return out

    def _kept(
        self, owner: str, cid: Any, conversation: Any, panel: str | None
    ) -> ConversationLog | None:
        """The conversation kept for ``cid`` (None when no id is given); ToolError when none is kept for
        this client, it is held with another panel, or earlier turns are given as well."""
        if cid is None:
            return None
        if not isinstance(cid, str) or not cid.strip():
            raise ToolError("'conversation_id' must be the conversation_id of an earlier result")
        if conversation:
            raise ToolError(
                "give 'conversation_id' (a conversation this server keeps) or 'conversation' (the "
                "earlier turns), not both"
            )
        log = self.memory.get(owner, cid)
        if log is None:
            raise ToolError(
                f"no conversation {shown(cid)} is kept for this client (conversations are kept "
                f"{int(MAX_AGE // 60)} minutes, by the server that started them, for the client "
                "that started them); pass the earlier turns as 'conversation' instead"
            )
        if panel and log.panel != panel:
            raise ToolError(f"conversation {shown(cid)} is with panel {log.panel!r}, not {panel!r}")
        return log

    def _parsed(self, p: Panel, question: str, conversation: Any, target: str) -> Conversation:
        """The earlier turns a client passed (``conversation``) and the question, read as a conversation."""
        messages: list[Any] = []
        for i, item in enumerate(conversation or []):
            if isinstance(item, str):
                messages.append({"role": "user", "content": item})
            elif isinstance(item, dict):
                messages.append(item)
            else:
                raise ToolError(
                    f"conversation[{i}] must be a string (an earlier question) or "
                    "{role: user|assistant, content: text}"
                )
        messages.append({"role": "user", "content": question})
        try:
            return parse_messages(p, messages, target, self.limits)
        except RequestError as exc:
            raise ToolError(str(exc).replace("messages[", "conversation[")) from None

    def search_quotes(
        self,
        query: Annotated[str, Field(description="Words to look for in what the panelists said")],
        k: Annotated[int, Field(description=f"How many quotes, 1-{MAX_K}")] = 5,
        speaker: Annotated[
            str | None, Field(description="Only this panelist's quotes (an id or name)")
        ] = None,
        panel: Annotated[
            str | None, Field(description="Installed panel name; default: the served panel")
        ] = None,
        cursor: Annotated[
            str | None,
            Field(
                description="next_cursor from an earlier search_quotes result: the next page of the "
                "same search (same query, speaker and panel)"
            ),
        ] = None,
    ) -> dict[str, Any]:
        query = self._text(query, "query")
        if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_K:
            raise ToolError(f"'k' must be a whole number from 1 to {MAX_K} (got {shown(k)})")
        entry = self._entry(panel)
        speakers = None
        if speaker:
            sid = self.catalog.target_for(entry.panel, speaker)
            if sid in (None, "auto", "both"):
                raise ToolError(
                    f"'speaker' must be one of: {', '.join(entry.panel.panelists)} "
                    f"(got {shown(speaker)})"
                )
            speakers = {sid}
        search = [query, sorted(speakers or ()), entry.panel.name]
        start = 0 if cursor is None else _cursor_offset(cursor, search)
        stop = min(start + k, MAX_SEARCH_DEPTH)
        hits = entry.router.search(query, stop + 1, speakers)
        more = len(hits) > stop and stop < MAX_SEARCH_DEPTH
        return {
            "result": [_quote_dict(entry.panel, h) for h in hits[start:stop]],
            "next_cursor": _make_cursor(stop, search) if more else None,
        }

    def get_quote(
        self,
        id: Annotated[
            str, Field(description="A quote id such as 'dan-22' (from ask_panel or search_quotes)")
        ],
        panel: Annotated[
            str | None, Field(description="Installed panel name; default: the served panel")
        ] = None,
    ) -> dict[str, Any]:
        qid = self._text(id, "id", 200)
        if "/" in qid and panel is None:  # "minimax-m3/dan-22"
            panel, _, qid = qid.rpartition("/")
        entry = self._entry(panel)
        p = entry.panel
        hq, turn, q = p.context(qid)
        if q is None:
            near = [x.id for x in p.quotes if x.id.split("-")[0] == qid.split("-")[0]][:5]
            hint = f" (e.g. {', '.join(near)})" if near else ""
            raise ToolError(
                f"no quote {qid!r} in panel {p.name!r}{hint}; ids come from ask_panel or "
                "search_quotes"
            )
        d = _quote_dict(p, q)
        d.update(
            panel=p.name,
            topics=list(q.topics),
            host_question=({"id": hq.id, "text": hq.text} if hq else None),
            whole_answer=turn.text if turn else None,
            resource=f"panel://{p.name}/quotes/{q.id}",
        )
        return d

    def list_panels(self) -> list[PanelListing]:
        out = []
        for name, entry in self.catalog.panels.items():
            p = entry.panel
            out.append(
                {
                    "name": name,
                    "title": p.title,
                    "default": name == self.catalog.default,
                    "panelists": [_persona_dict(p, pid) for pid in p.panelists],
                    "quotes": len(p.quotes),
                    "topics": list(p.topics),
                    "to": ["auto", *p.panelists, *(["both"] if len(p.panelists) > 1 else [])],
                }
            )
        return out

    def answer_prompt(
        self, pid: str, question: str, panel: str | None = None
    ) -> list[dict[str, Any]]:
        entry = self._entry(panel)
        p = entry.panel
        question = self._text(question, "question")
        route = entry.router.route(question, pid)
        quotes = [sq.quote for sq in route.quotes_for(pid)]
        if not quotes:
            quotes = [h.quote for h in entry.router.search(question, self.top_k, {pid})]
        return build_messages(p, pid, quotes, question)


def _headers_of(ctx: Context | None) -> Any:
    """The HTTP headers of the request calling a tool (None over stdio, or outside a request)."""
    try:
        request = ctx.request_context.request if ctx is not None else None
    except ValueError:  # no request
        return None
    return getattr(request, "headers", None)


def _make_cursor(offset: int, search: list[Any]) -> str:
    raw = json.dumps({"offset": offset, "search": search}, ensure_ascii=False)
    return base64.urlsafe_b64encode(raw.encode()).decode()


def _cursor_offset(cursor: Any, search: list[Any]) -> int:
    """Where the page ``cursor`` (a ``next_cursor``) starts; ToolError for one of another search or none."""
    try:
        got = json.loads(base64.urlsafe_b64decode(str(cursor).encode()))
        offset = got["offset"]
        same = got["search"] == search
    except (ValueError, TypeError, KeyError):
        raise ToolError("'cursor' is not a next_cursor this server gave") from None
    if not same or isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
        raise ToolError(
            "'cursor' belongs to another search: repeat the same query, speaker and panel with it"
        )
    return offset


def _quote_links(result: dict[str, Any]) -> list[ResourceLink]:
    """A resource_link for each quote in a tool's result (its quotes, its page, or itself)."""
    quotes = (
        result.get("quotes") or result.get("result") or ([result] if "resource" in result else [])
    )
    return [
        ResourceLink(
            type="resource_link",
            uri=q["resource"],
            name=q["resource"].removeprefix("panel://"),
            title=f"{q['speaker_name']} [{q['id']}]",
            description=q["text"][:120],
            mime_type="application/json",
        )
        for q in quotes
    ]


def _tool(
    method: Callable[..., Any],
    schema: type,
    links: Callable[[dict[str, Any]], list[ResourceLink]] | None = None,
) -> Callable[..., CallToolResult]:
    """``method`` as a tool: its result (a list is ``{"result": [...]}``) as structured content, checked
    against ``schema`` (the output schema published), the same JSON as text for clients that read only text,
    then ``links``' resource_links."""
    signature = inspect.signature(method, eval_str=True)

    @functools.wraps(method)
    def tool(*args: Any, **kwargs: Any) -> CallToolResult:
        result = method(*args, **kwargs)
        structured = result if isinstance(result, dict) else {"result": result}
        text = TextContent(type="text", text=json.dumps(structured, ensure_ascii=False))
        extra = links(structured) if links else []
        return CallToolResult(content=[text, *extra], structured_content=structured)

    tool.__signature__ = signature.replace(  # type: ignore[attr-defined]
        return_annotation=Annotated[CallToolResult, schema]
    )
    return tool


ASK_DESCRIPTION = """Ask a recorded expert panel a question and get the panelists' own words.

{who}
The answer is never generated: it is the verbatim quotes (each with an id, the speaker and a 0-100 match \
score) from the panelist(s) best placed to answer, plus a one-line reason for the choice and up to three \
suggested follow-up questions that are known to have an answer. When the panel never \
discussed the subject, abstained is true and you get a polite decline with topics and example questions the \
panel can answer; do not retry with the same question.

Arguments: question (plain language); to: "auto" (default, the panel picks who answers), "both" (every \
panelist) or a panelist id ({ids}); conversation: the earlier turns of this chat, oldest first, each \
{{"role": "user"|"assistant", "content": text}}, or a plain string for an earlier question; an earlier \
ask_panel result can be passed back as it came (as an assistant turn's content, or as the item itself), and \
earlier answers that kept no quote ids are answered again, so follow-ups like "why?" or "what does the other \
one think?" work; conversation_id: instead of conversation, the conversation_id every result carries: the \
server keeps that conversation (for an hour, for the client that started it) and the question continues it; panel: an \
installed panel name (default: {default}, see list_panels)."""


class _CheckedPrompt(Prompt):
    """A prompt whose missing or empty argument is an invalid-params error with a clear message (the SDK would
    report an internal error)."""

    async def render(self, arguments: dict[str, Any] | None = None, context: Any = None) -> Any:
        for arg in self.arguments or []:
            value = (arguments or {}).get(arg.name)
            if arg.required and (not isinstance(value, str) or not value.strip()):
                raise MCPError(
                    INVALID_PARAMS, f"prompt {self.name!r} needs the argument {arg.name!r} (text)"
                )
        return await super().render(arguments, context)


class PanelMCPServer(MCPServer):
    """The SDK's server, with an unknown prompt name answered as an invalid-params error naming the prompts
    (the SDK raises it as an internal error and logs a traceback), and stdio read through the checks of
    :mod:`panelbot.serve.mcp_wire`."""

    limits: ServeLimits = ServeLimits()

    async def get_prompt(self, name: str, arguments: Any = None, context: Any = None) -> Any:
        names = [p.name for p in await self.list_prompts()]
        if name not in names:
            raise MCPError(
                INVALID_PARAMS,
                f"no prompt {shown(name)} on this server; prompts: {', '.join(names)}",
            )
        return await super().get_prompt(name, arguments, context)

    async def run_stdio_async(self) -> None:
        from panelbot.serve.mcp_wire import guarded_stdio

        low = self._lowlevel_server
        async with guarded_stdio(self.limits) as (read_stream, write_stream):
            await low.run(read_stream, write_stream, low.create_initialization_options())


def build_server(
    catalog: Catalog, top_k: int = 3, limits: ServeLimits | None = None
) -> PanelMCPServer:
    tools = PanelTools(catalog, top_k, limits)
    default = catalog.entry(None).panel
    server = PanelMCPServer(
        "panelbot",
        title=f"panelbot: {default.title}",
        instructions=_instructions(catalog),
        version=__version__,
        log_level="WARNING",
    )
    server.limits = tools.limits
    ro = ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False)
    who = " ".join(
        f"{p.name}: {p.title}; covers {', '.join(p.covers)}." for p in default.panelists.values()
    )
    server.add_tool(
        _tool(tools.ask_panel, AskResult, _quote_links),
        name="ask_panel",
        title="Ask the panel",
        annotations=ro,
        description=ASK_DESCRIPTION.format(
            who=f'The panel: "{default.title}". {who}',
            ids=", ".join(default.panelists),
            default=default.name,
        ),
    )
    server.add_tool(
        _tool(tools.search_quotes, SearchResult, _quote_links),
        name="search_quotes",
        title="Search the panel's quotes",
        annotations=ro,
        description=(
            "Full-text search over everything the panelists said (verbatim quotes), best match first; no "
            "routing and no declining, so weak matches can come back: check the score (0-100). Arguments: "
            f"query; k: how many (1-{MAX_K}, default 5); speaker: only this panelist's quotes "
            f"({', '.join(default.panelists)}); panel: an installed panel (default {default.name}); "
            "cursor: the next_cursor of an earlier result, for the next page of the same search. Each "
            "result: id, speaker, speaker_name, text, score, host_question (what the host had asked), "
            "resource (the quote's panel:// URI); next_cursor is null on the last page."
        ),
    )
    server.add_tool(
        _tool(tools.get_quote, QuoteDetail, _quote_links),
        name="get_quote",
        title="Get a quote in context",
        annotations=ro,
        description=(
            "One quote by its id (e.g. 'dan-22', as returned by ask_panel or search_quotes; "
            "'panel-name/dan-22' also works), with its context: the host's question it answered and the "
            "panelist's whole answer from the transcript. Use it to check a quote or read around it."
        ),
    )
    server.add_tool(
        _tool(tools.list_panels, PanelList),
        name="list_panels",
        title="List the installed panels",
        annotations=ro,
        description=(
            "The recorded panels this server can answer from: name, title, whether it is the default, the "
            "panelists (id, name, role, organisation, the subjects they covered, bio), the number of quotes, "
            "the panel's topics and the values ask_panel's 'to' accepts."
        ),
    )

    for name, entry in catalog.panels.items():
        p = entry.panel
        for pid, persona in p.panelists.items():
            server.add_resource(
                FunctionResource(
                    uri=f"panel://{name}/{pid}",
                    name=f"{name}/{pid}",
                    title=f"{persona.name}, {persona.title}",
                    description=f"Profile of {persona.name} on the panel \u201c{p.title}\u201d, with the ids of "
                    "their quotes",
                    mime_type="text/markdown",
                    fn=lambda p=p, pid=pid: _profile_text(p, pid),
                )
            )
        for q in p.quotes if len(p.quotes) <= MAX_LISTED_QUOTES else ():
            server.add_resource(
                FunctionResource(
                    uri=f"panel://{name}/quotes/{q.id}",
                    name=f"{name}/quotes/{q.id}",
                    title=f"{p.display_name(q.speaker)} [{q.id}]",
                    description=q.text[:120],
                    mime_type="application/json",
                    fn=lambda entry=entry, qid=q.id, name=name: json.dumps(
                        tools.get_quote(qid, name), ensure_ascii=False
                    ),
                )
            )

    @server.resource(
        "panel://{panel}/quotes/{quote_id}",
        name="quote",
        mime_type="application/json",
        description="A quote by id, with the host question and the panelist's whole answer",
    )
    def quote_resource(panel: str, quote_id: str) -> str:
        try:
            return json.dumps(tools.get_quote(quote_id, panel), ensure_ascii=False)
        except ToolError as exc:
            raise ResourceNotFoundError(str(exc)) from None

    for pid, persona in default.panelists.items():

        def make(pid: str = pid):
            def prompt(question: str) -> list[dict[str, Any]]:
                try:
                    return tools.answer_prompt(pid, question)
                except ToolError as exc:
                    raise MCPError(INVALID_PARAMS, str(exc)) from None

            return prompt

        server.add_prompt(
            _CheckedPrompt.from_function(
                make(),
                name=f"answer_as_{pid}",
                title=f"Answer as {persona.name}",
                description=(
                    f"Answer a question as {persona.name} ({persona.title}) would on \u201c{default.title}"
                    f"\u201d: only from {persona.name}'s own quotes retrieved for the question, citing "
                    "their ids in [brackets], saying so when they never talked about it."
                ),
            )
        )
    return server


def _refusal(status: int, message: str, code: str) -> Any:
    """A request refused before the MCP app saw it (too large, too slow), as a JSON-RPC error."""
    from mcp.types import INVALID_REQUEST
    from starlette.responses import JSONResponse

    error = {"code": INVALID_REQUEST, "message": message, "data": {"reason": code}}
    return JSONResponse({"jsonrpc": "2.0", "id": None, "error": error}, status_code=status)


def http_app(
    server: MCPServer, key: str = "", host: str = "127.0.0.1", limits: ServeLimits | None = None
) -> Any:
    """The streamable HTTP app (path ``/mcp``); with ``key`` every request needs ``Authorization: Bearer key``
    (compared in constant time, never logged). Bodies are read within ``limits`` (size and time)."""
    from starlette.responses import JSONResponse

    from panelbot.serve.binding import KEY_ENV, bearer_matches
    from panelbot.serve.guard import BodyGuard
    from panelbot.serve.mcp_wire import http_refusal

    limits = limits or ServeLimits()
    app = BodyGuard(
        server.streamable_http_app(host=host),
        limits.max_body,
        limits.body_timeout,
        _refusal,
        http_refusal(limits),
    )
    if not key:
        return app

    async def guarded(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            auth = dict(scope.get("headers") or []).get(b"authorization", b"").decode("latin-1")
            if not bearer_matches(auth, key):
                resp = JSONResponse(
                    {
                        "error": "this MCP server needs 'Authorization: Bearer <key>' "
                        f"(the value of {KEY_ENV} on the server)"
                    },
                    status_code=401,
                )
                await resp(scope, receive, send)
                return
        await app(scope, receive, send)

    return guarded


def run_http(
    server: MCPServer, key: str, host: str, port: int, limits: ServeLimits | None = None
) -> None:
    """Serve MCP over streamable HTTP (path ``/mcp``) with uvicorn until interrupted, within ``limits``
    (the same connection, header and body limits as ``panelbot serve``)."""
    import uvicorn

    from panelbot.serve.protocol import uvicorn_options

    limits = limits or ServeLimits()
    uvicorn.run(
        http_app(server, key, host, limits),
        host=host,
        port=port,
        log_level="warning",
        server_header=False,
        **uvicorn_options(limits),
    )
