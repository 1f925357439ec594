"""What the ``llm`` plugin (:mod:`panelbot.llm_plugin`) registers: the panel's models, the ``panelbot:``
fragment loader and the ``search_quotes`` tool. Imported only when ``llm`` asks for one of them; panelbot's
core is imported inside the functions, when a question is asked (see the plugin's doc)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import llm
from pydantic import Field

PREFIX = "panelbot-"
FRAGMENT_PREFIX = "panelbot"
MAX_K = 50


# --------------------------------------------------------------------------------------------- models


def _configured_elsewhere() -> set[str]:
    """Model ids the user set up in ``extra-openai-models.yaml`` (e.g. panelbot-dan on a running server)."""
    path = llm.user_dir() / "extra-openai-models.yaml"
    if not path.is_file():
        return set()
    import yaml

    try:
        entries = yaml.safe_load(path.read_text(encoding="utf-8")) or []
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return set()  # llm's own loader reports a broken file
    return {e["model_id"] for e in entries if isinstance(e, dict) and "model_id" in e}


def model_specs() -> list[dict[str, str]]:
    """What :func:`register_models` registers: model id, panel name and target, for every installed talk."""
    import sys

    from panelbot.config import load_config
    from panelbot.errors import PanelbotError
    from panelbot.panel.loader import find_panel_dir, list_panels, panel_info

    try:
        cfg = load_config(None)
        talks = [p for p in list_panels() if p.status != "error"]
        default = next((p for p in talks if p.name == cfg.panel), None)
        if default is None:  # the config names a panel directory, not an installed name
            default = panel_info(find_panel_dir(cfg.panel))
    except (
        PanelbotError
    ) as exc:  # llm keeps working; one line says why panelbot's models are missing
        sys.stderr.write(f"panelbot (llm plugin): no panelbot models: {exc}\n")
        return []
    taken = _configured_elsewhere()
    out: dict[str, dict[str, str]] = {}
    for info, prefix in ((default, PREFIX), *((t, f"{PREFIX}{t.name}/") for t in talks)):
        targets = [*info.panelists, "panel", *(["both"] if len(info.panelists) > 1 else [])]
        for target in targets:
            model_id = f"{prefix}{target}"
            if model_id not in taken and model_id not in out:
                out[model_id] = {
                    "model_id": model_id,
                    "panel": str(info.path),
                    "talk": info.name,
                    "target": "auto" if target == "panel" else target,
                }
    return list(out.values())


class PanelOptions(llm.Options):
    backend: str | None = Field(
        description="offline (default: the verbatim quotes) or a panelbot backend such as openai "
        "(generated, cited and verified answers)",
        default=None,
    )
    base_url: str | None = Field(
        description="OpenAI-compatible endpoint for generated answers (implies backend openai)",
        default=None,
    )
    model: str | None = Field(
        description="the endpoint's model name (implies backend openai)", default=None
    )
    k: int | None = Field(
        description="quotes per answer (default: panelbot's config)", default=None, ge=1, le=MAX_K
    )


class _PanelIdentity:
    """What a panelbot model id stands for: a panel and who answers (a panelist, ``auto`` or ``both``)."""

    model_id: str
    can_stream = True
    Options = PanelOptions

    def __init__(self, model_id: str, panel: str, talk: str, target: str) -> None:
        self.model_id = model_id
        self.panel = panel  # the panel's directory
        self.talk = talk
        self.target = target

    def __str__(self) -> str:
        who = {"auto": "the panel picks who answers", "both": "every panelist answers"}.get(
            self.target, f"{self.target} answers"
        )
        return f"panelbot: {self.model_id} (talk {self.talk}; {who})"

    def _answer(self, prompt: Any, conversation: Any) -> _Answer:
        from panelbot.errors import PanelbotError

        try:
            return _Answer(self, prompt, conversation)
        except PanelbotError as exc:
            raise llm.ModelError(str(exc)) from None


class PanelModel(_PanelIdentity, llm.Model):
    """A panelbot model for llm's synchronous API (the CLI)."""

    def execute(self, prompt: Any, stream: bool, response: Any, conversation: Any) -> Iterator[Any]:
        import asyncio

        answer = self._answer(prompt, conversation)
        loop = asyncio.new_event_loop()
        pieces = answer.run.pieces()
        parts: list[str] = []
        try:
            while True:
                try:
                    piece = loop.run_until_complete(pieces.__anext__())
                except StopAsyncIteration:
                    break
                parts.append(piece)
                yield piece
        finally:
            loop.run_until_complete(pieces.aclose())
            loop.run_until_complete(answer.backend.aclose())
            loop.close()
        yield from answer.finish(parts, response)


class AsyncPanelModel(_PanelIdentity, llm.AsyncModel):
    """The same for llm's asynchronous API (``llm.get_async_model``, ``llm --async``)."""

    async def execute(
        self, prompt: Any, stream: bool, response: Any, conversation: Any
    ) -> AsyncIterator[Any]:
        answer = self._answer(prompt, conversation)
        parts: list[str] = []
        try:
            async for piece in answer.run.pieces():
                parts.append(piece)
                yield piece
        finally:
            await answer.backend.aclose()
        for marker in answer.finish(parts, response):
            yield marker


# --------------------------------------------------------------------------------------------- answering


def _text_parts(message: Any) -> tuple[str, dict | None]:
    """An llm Message's text, and panelbot's record on it (kept on the text part's provider metadata)."""
    text, record = [], None
    for part in getattr(message, "parts", None) or []:
        if type(part).__name__ != "TextPart":
            continue
        text.append(part.text or "")
        meta = getattr(part, "provider_metadata", None)
        if isinstance(meta, dict) and isinstance(meta.get("panelbot"), dict):
            record = meta["panelbot"]
    return "".join(text), record


def earlier_messages(prompt: Any, conversation: Any) -> list[dict[str, Any]]:
    """The conversation before this prompt as chat messages (``panelbot`` records on panelbot's answers):
    from the prompt's message chain (llm 0.30 and later; what ``llm -c`` loads from its log), else from the
    conversation's earlier responses (their prompts, texts and ``response_json``)."""
    chain = list(getattr(prompt, "messages", None) or [])
    if len(chain) > 1 and all(hasattr(m, "parts") for m in chain):
        out = []
        for m in chain[:-1]:  # the last one is this prompt
            if m.role in ("user", "assistant"):
                text, record = _text_parts(m)
                out.append({"role": m.role, "content": text, "panelbot": record})
        return out
    out = []
    for r in getattr(conversation, "responses", None) or []:
        out.append({"role": "user", "content": r.prompt.prompt or ""})
        record = r.response_json if isinstance(r.response_json, dict) else None
        text = r.text_or_raise() if isinstance(r, llm.Response) else ""  # async: the record says it
        out.append({"role": "assistant", "content": text, "panelbot": record})
    return out


def _question(prompt: Any) -> str:
    """This prompt's own words (without fragments, which :func:`fragment_messages` reads)."""
    own = getattr(prompt, "_prompt", None)
    return own if isinstance(own, str) and own.strip() else (prompt.prompt or "")


def fragment_messages(panel: Any, fragments: Any) -> list[dict[str, Any]]:
    """``-f panelbot:<id>`` given to a panelbot model: each quote as an answer already shown (to the host's
    question it answered), so "why?" or "tell me more" follow up on it."""
    out = []
    for f in fragments or []:
        source = str(getattr(f, "source", "") or "")
        if not source.startswith(f"{FRAGMENT_PREFIX}:"):
            continue
        talk, _, qid = source.partition(":")[2].rpartition("/")
        hq, _, q = panel.context(qid)
        if q is None or (talk and talk != panel.name):
            continue
        out.append({"role": "user", "content": hq.text if hq else q.text})
        out.append(
            {
                "role": "assistant",
                "content": f"\u201c{q.text}\u201d [{q.id}]",
                "panelbot": {"speakers": [q.speaker], "quotes": [{"id": q.id}]},
            }
        )
    return out


def _config(options: Any) -> Any:
    """panelbot's config with the model's options over it: offline unless a backend or endpoint is given."""
    from panelbot.config import load_config
    from panelbot.records import replace

    cfg = load_config(None)
    if options.k:
        cfg = replace(cfg, retrieval=replace(cfg.retrieval, top_k=options.k))
    name = options.backend or ("openai" if options.base_url or options.model else "offline")
    return cfg.with_endpoint(options.base_url, options.model, name)


class _Answer:
    """One prompt answered: resolved against the conversation, then through the backend (see AnswerRun)."""

    def __init__(self, model: _PanelIdentity, prompt: Any, conversation: Any) -> None:
        from panelbot.answer.backends.registry import get_backend
        from panelbot.errors import UsageError
        from panelbot.retrieval.cache import open_indexed
        from panelbot.retrieval.router import Router
        from panelbot.serve.answering import AnswerRun
        from panelbot.serve.conversation import RequestError, parse_messages, read_conversation

        cfg = _config(prompt.options)
        if cfg.backend.name == "openai" and not cfg.backend.base_url.strip():
            raise UsageError(
                "no model endpoint for generated answers: pass -o base_url URL (and -o model NAME), "
                "or set backend.base_url in panelbot's config or OPENAI_BASE_URL"
            )
        opened = open_indexed(model.panel)
        panel = opened.panel
        router = Router(panel, cfg.retrieval, index=opened.index)
        self.question = _question(prompt).strip()
        messages = [
            *earlier_messages(prompt, conversation),
            *fragment_messages(panel, getattr(prompt, "fragments", None)),
            {"role": "user", "content": self.question},
        ]
        try:
            conv = parse_messages(panel, messages, model.target)
        except RequestError as exc:
            raise UsageError(str(exc).replace("'messages'", "the prompt")) from None
        self.backend = get_backend(cfg.backend.name, cfg, panel)
        session, reading = read_conversation(router, conv, model.target, self.backend)
        self.run = AnswerRun(
            self.backend,
            panel,
            reading.route,
            conv.message,
            context=reading.context,
            session=session,
        )
        self.extra = {"panel": panel.name, "target": model.target, "context": reading.context}
        self.text = ""

    @property
    def record(self) -> dict[str, Any]:
        """The ``ask --llm --json`` record (speakers, quotes with ids, ...) plus panel, target, context."""
        return {**self.run.record, **self.extra}

    def finish(self, parts: list[str], response: Any) -> list[Any]:
        """The answer is all said: its record and usage onto llm's response; what is left to yield (an empty
        event carrying the ids onto llm's logged message, when this llm has such events)."""
        self.text = "".join(parts)
        response.response_json = self.record
        response.set_usage(input=len(self.question.split()), output=len(self.text.split()))
        marker = _record_event(self.record)
        return [] if marker is None else [marker]


def _record_event(record: dict[str, Any]) -> Any:
    """An empty text event whose provider metadata keeps who answered with which quotes on the logged
    message, which is what ``llm -c`` loads back (llm 0.30 and later; None before)."""
    try:
        from llm.parts import StreamEvent
    except ImportError:
        return None
    kept = {
        "speakers": list(record.get("speakers") or []),
        "quotes": [{"id": q["id"]} for q in record.get("quotes") or [] if isinstance(q, dict)],
        "target": record.get("target"),
    }
    return StreamEvent(type="text", chunk="", provider_metadata={"panelbot": kept})


# --------------------------------------------------------------------------------------------- fragments


def _open_talk(talk: str) -> Any:
    from panelbot.config import load_config
    from panelbot.panel import load_panel

    return load_panel(talk or load_config(None).panel)


def quote_fragment(argument: str) -> Any:
    """``panelbot:dan-13`` / ``panelbot:minimax-m3/dan-13`` -> the quote, with who said it and where."""
    from panelbot.answer.compose import speaker_heading
    from panelbot.errors import PanelbotError

    talk, _, qid = argument.strip().rpartition("/")
    try:
        panel = _open_talk(talk)
    except PanelbotError as exc:
        raise ValueError(str(exc)) from None
    q = panel.quote(qid)
    if q is None:
        near = [x.id for x in panel.quotes if x.id.split("-")[0] == qid.split("-")[0]][:3]
        hint = f" (e.g. {', '.join(near)})" if near else ""
        raise ValueError(f"no quote {qid!r} in the talk {panel.name!r}{hint}")
    text = (
        f"{speaker_heading(panel, q.speaker)}, on \u201c{panel.title}\u201d [{q.id}]:\n"
        f"\u201c{q.text}\u201d"
    )
    return llm.Fragment(text, f"{FRAGMENT_PREFIX}:{panel.name}/{q.id}")


# --------------------------------------------------------------------------------------------- the tool


def search_quotes(query: str, speaker: str = "", k: int = 5, talk: str = "") -> str:
    """Search what the panelists of a recorded expert panel said, word for word. Returns a JSON list of
    the best matching quotes, best first: id (cite it as [id]), speaker, speaker_name, text (verbatim),
    score (0-100; weak matches come back too), host_question (what the host had asked).

    query: words to look for. speaker: only this panelist's quotes (an id or name; empty for all).
    k: how many quotes, 1 to 50. talk: an installed talk's name (empty: panelbot's default panel)."""
    from panelbot.config import load_config
    from panelbot.retrieval.cache import open_indexed
    from panelbot.retrieval.router import Router

    if not isinstance(query, str) or not query.strip():
        raise ValueError("'query' must be some words to look for")
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_K:
        raise ValueError(f"'k' must be a whole number from 1 to {MAX_K} (got {k!r})")
    cfg = load_config(None)
    opened = open_indexed(talk.strip() or cfg.panel)
    panel = opened.panel
    speakers = None
    if speaker.strip():
        wanted = speaker.strip().lower()
        sid = next(
            (pid for pid, p in panel.panelists.items() if wanted in (pid, p.name.lower())), None
        )
        if sid is None:
            raise ValueError(
                f"'speaker' must be one of: {', '.join(panel.panelists)} (got {speaker!r})"
            )
        speakers = {sid}
    router = Router(panel, cfg.retrieval, index=opened.index)
    hits = router.search(query.strip(), k, speakers)
    return json.dumps(
        [
            {
                "id": h.quote.id,
                "speaker": h.quote.speaker,
                "speaker_name": panel.display_name(h.quote.speaker),
                "text": h.quote.text,
                "score": round(h.score, 1),
                "host_question": (hq.text if (hq := panel.question(h.quote.question)) else None),
            }
            for h in hits
        ],
        ensure_ascii=False,
    )
