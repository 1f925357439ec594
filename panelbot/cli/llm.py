"""``panelbot ask --llm``: stream generated, verified answers to the terminal (or print JSON Lines).

Exit status: 0 every answer came from the model; 3 the backend failed for at least one panelist and the
answer fell back to their verbatim quotes (one line on stderr names the URL and the cause); 2 a usage,
config or data error. httpx is imported only when a generative backend is built, never by importing this.
"""

from __future__ import annotations

import asyncio
from typing import Any, TextIO

from panelbot.answer.backends.base import Backend, SpeakerDone, TextDelta
from panelbot.answer.compose import terminal_width
from panelbot.answer.record import answer_record, decline_record
from panelbot.answer.text_view import TextView
from panelbot.cli.common import EXIT_FALLBACK, EXIT_OK, print_json
from panelbot.config import Config
from panelbot.conversation.pipeline import Declined, Discussed, NotSaved, Resolved, Session
from panelbot.conversation.session import ConversationLog
from panelbot.errors import PanelbotError
from panelbot.panel import Panel
from panelbot.redact import scrub
from panelbot.retrieval.results import RouteResult
from panelbot.text import fill_text, strip_control


def ask_llm(
    questions: list[str],
    *,
    json_out: bool,
    config: Config,
    panel: Panel,
    router: Any,
    target: str,
    out: TextIO,
    err: TextIO,
    conversation: ConversationLog | None = None,
    chained: bool = False,
) -> int:
    """Answer each question in turn. With ``chained`` (``ask -c``) the questions continue ``conversation``:
    each is resolved against the turns before it (so "tell me more" retrieves on the earlier subject) and the
    model sees what was said; otherwise each question stands alone. A follow-up the panel never touched is
    declined without calling the model; one it can answer always reaches the model with quotes."""
    from panelbot.answer.backends.registry import get_backend

    conv = conversation or ConversationLog(None, None, panel.name, log=False)
    if config.backend.name == "openai" and not config.backend.base_url.strip():
        # As documented: no endpoint means the verbatim quotes, one line saying why, and exit 3 -- the
        # same as an endpoint that fails, so a script sees one "answered without the model" status.
        from panelbot.answer.backends.offline import OfflineBackend

        status = asyncio.run(
            _ask_all(
                OfflineBackend(config, panel),
                questions,
                json_out=json_out,
                panel=panel,
                router=router,
                target=target,
                out=out,
                err=err,
                conversation=conv,
                chained=chained,
                no_model=NO_ENDPOINT,
            )
        )
        if status == EXIT_FALLBACK:  # something was answered (declines need no model)
            err.write(f"panelbot: {NO_ENDPOINT}; answered with the panelists' own words\n")
        return status
    try:
        backend = get_backend(config.backend.name, config, panel)
    except PanelbotError as exc:
        # as main() reports it: the message may hold untrusted text (a server's words), one clean line
        err.write(f"panelbot: error: {scrub(strip_control(str(exc), keep_newlines=False))}\n")
        return exc.exit_code
    return asyncio.run(
        _ask_all(
            backend,
            questions,
            json_out=json_out,
            panel=panel,
            router=router,
            target=target,
            out=out,
            err=err,
            conversation=conv,
            chained=chained,
        )
    )


NO_ENDPOINT = "no model endpoint configured (pass --base-url or set OPENAI_BASE_URL)"


async def _ask_all(
    backend: Backend,
    questions: list[str],
    *,
    json_out: bool,
    panel: Panel,
    router: Any,
    target: str,
    out: TextIO,
    err: TextIO,
    conversation: ConversationLog,
    chained: bool,
    no_model: str | None = None,
) -> int:
    """Each question a turn of the pipeline (:class:`panelbot.conversation.pipeline.Session`), rendered."""
    status = EXIT_OK
    try:
        for i, question in enumerate(questions):
            conv = conversation if chained or i == 0 else conversation.fresh()
            if not json_out and len(questions) > 1:
                out.write(("\n" if i else "") + f"Q: {question}\n")
            session = Session(panel, router, backend, conv)
            view = (
                _JsonView(panel, out, backend)
                if json_out
                else TextView(panel, out, verbatim=no_model is not None, width=terminal_width())
            )
            dones = await _render_turn(session.ask(question, target), view, out, err, no_model)
            if no_model and dones:  # answered without a model: said once, by the caller
                status = EXIT_FALLBACK
            errors = list(dict.fromkeys(d.error for d in dones if d.error and not no_model))
            for e in errors:
                e = scrub(strip_control(e, keep_newlines=False))
                err.write(
                    f"panelbot: the model failed: {e}; answered with the panelists' own words\n"
                )
            if errors:
                status = EXIT_FALLBACK
    finally:
        await backend.aclose()
    return status


async def _render_turn(
    events: Any, view: TextView | _JsonView, out: TextIO, err: TextIO, no_model: str | None
) -> list[SpeakerDone]:
    """One turn's events on the terminal: a decline, or the answer as it forms; then, once it is recorded,
    the verdicts' close (JSON: the whole record) and one line when the history could not keep it."""
    resolved: Resolved | None = None
    declined: Declined | None = None
    dones: list[SpeakerDone] = []
    tail = ""
    async for event in events:
        if isinstance(event, Resolved):
            resolved = event
        elif isinstance(event, Discussed):  # a discussion: the host's lines around the turns
            tail = "" if isinstance(view, _JsonView) else event.tail
            if event.head and not isinstance(view, _JsonView):
                out.write(event.head + "\n\n")
        elif isinstance(event, Declined):
            declined = event
        elif isinstance(event, TextDelta):
            view.delta(event)
        elif isinstance(event, SpeakerDone):
            if no_model and isinstance(view, _JsonView):  # the offline stand-in: JSON says why
                event.error = no_model  # (text: stderr)
            dones.append(event)
            view.done(event)
        elif resolved is not None:  # Recorded or NotSaved: the turn is over
            extra = {
                "conversation": event.conversation_id,
                "context": resolved.context,
            }
            if declined is not None:
                json_out = isinstance(view, _JsonView)
                _abstain(view.panel, resolved.route, declined.text, json_out, out, extra)
            elif isinstance(view, _JsonView):
                view.finish(resolved.route, dones, extra)
            else:
                if tail:
                    out.write("\n" + tail + "\n")
                view.reason(resolved.route.reason)
            if isinstance(event, NotSaved):
                _say_if_unsaved(event.why, out, err)
    return dones


def _abstain(
    panel: Panel, route: RouteResult, text: str, json_out: bool, out: TextIO, extra: dict[str, Any]
) -> None:
    """No model call: the polite decline (and the suggestions in JSON)."""
    if json_out:
        d = decline_record(panel, route, text)
        d.update(extra)
        print_json(d, out)
    else:
        out.write("\n".join(fill_text(line, terminal_width()) for line in text.splitlines()) + "\n")
    out.flush()


class _JsonView:
    """One JSON object per question: the engine's object plus answer, citations, grounded, error."""

    def __init__(self, panel: Panel, out: TextIO, backend: Backend) -> None:
        self.panel = panel
        self.out = out
        self.backend = backend

    def delta(self, event: TextDelta) -> None:
        return None

    def done(self, d: SpeakerDone) -> None:
        return None

    def finish(self, route: RouteResult, dones: list[SpeakerDone], extra: dict[str, Any]) -> None:
        d = answer_record(self.panel, route, dones, self.backend.name, self.backend.label)
        d.update(extra)
        print_json(d, self.out)
        self.out.flush()


def _say_if_unsaved(why: str | None, out: TextIO, err: TextIO) -> None:
    """After an answer (verdict and sources included), one line when the history could not keep it."""
    if why:
        from panelbot.cli.ask import not_saved_line

        out.flush()
        err.write(not_saved_line(why))
