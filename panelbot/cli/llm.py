"""``panelbot ask --llm``: stream generated, verified answers to the terminal (or print JSON Lines).

Exit status: 0 every answer came from the model; 3 the backend failed for at least one panelist and the
answer fell back to their verbatim quotes (one line on stderr names the URL and the cause); 2 a usage,
config or data error. httpx is imported only when a generative backend is built, never by importing this.
"""

from __future__ import annotations

import asyncio
import textwrap
from typing import Any, TextIO

from panelbot.answer.backends.base import AnswerRequest, Backend, Message, SpeakerDone, TextDelta
from panelbot.answer.backends.offline import quotes_text
from panelbot.answer.compose import decline_text, speaker_heading, terminal_width
from panelbot.answer.present import answer_meta, present
from panelbot.answer.record import answer_record, decline_record
from panelbot.cli.common import EXIT_FALLBACK, EXIT_OK, print_json
from panelbot.config import Config
from panelbot.conversation.resolve import resolve
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
    status = EXIT_OK
    try:
        for i, question in enumerate(questions):
            conv = conversation if chained or i == 0 else conversation.fresh()
            res = resolve(router, conv.turns, question, target)
            route: RouteResult = res.route
            extra = {"conversation": None, "context": res.context}
            if not json_out and len(questions) > 1:
                out.write(("\n" if i else "") + f"Q: {question}\n")
            if route.abstained:
                text = decline_text(panel, route)
                unsaved = conv.record_or_why_not(
                    question,
                    target,
                    res,
                    [],
                    decline=(panel.host.id if panel.host else "panel", text),
                )
                extra["conversation"] = conv.conversation_id
                _abstain(panel, route, text, json_out, out, extra)
                _say_if_unsaved(unsaved, out, err)
                continue
            history = [Message(role, text) for role, text in conv.said]
            view = (
                _JsonView(panel, out)
                if json_out
                else _TextView(panel, out, verbatim=no_model is not None, width=terminal_width())
            )
            dones: list[SpeakerDone] = []
            async for event in backend.answer(AnswerRequest(question, panel, route, history)):
                if isinstance(event, TextDelta):
                    view.delta(event)
                else:
                    if no_model and json_out:  # the offline stand-in: JSON says why (text: stderr)
                        event.error = no_model
                    dones.append(event)
                    view.done(event)
            meta = [
                answer_meta(verdict=d.verdict, grounded=d.grounded, error=d.error) for d in dones
            ]
            unsaved = conv.record_or_why_not(
                question,
                target,
                res,
                [
                    (
                        d.speaker,
                        d.text,
                        [sq.quote.id for sq in (d.quotes or route.quotes_for(d.speaker))],
                        m,
                    )
                    for d, m in zip(dones, meta, strict=True)
                ],
            )
            extra["conversation"] = conv.conversation_id
            view.finish(route, dones, backend, extra)
            _say_if_unsaved(unsaved, out, err)
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


MODEL_INDENT = "  "


def _indent(text: str, width: int | None = None) -> str:
    """Text under a speaker heading, indented two spaces; with ``width`` (the terminal) verbatim quotes are laid
    out as plain ``ask`` prints them: each passage wrapped to ``width`` (the API's text is never wrapped)."""
    if width is None:
        return textwrap.indent(text, MODEL_INDENT)
    return "\n".join(
        fill_text(line, width, MODEL_INDENT) for line in text.splitlines() if line.strip()
    )


class _TextView:
    """Speaker label, then the tokens as they arrive, then the verdict (and the quotes when needed).

    The model's words are always indented by two spaces, so only panelbot writes at the start of a line:
    a model cannot print a verdict line or a speaker heading that looks like panelbot's own."""

    def __init__(
        self, panel: Panel, out: TextIO, *, verbatim: bool = False, width: int | None = None
    ) -> None:
        self.panel = panel
        self.out = out
        self.verbatim = (
            verbatim  # the quotes stand in for a model: printed wrapped, as plain ``ask`` does
        )
        self.width = width  # a terminal's: quotes standing in for the model are wrapped to it
        self.current: str | None = None
        self.at_line_start = True

    def _write(self, text: str) -> None:
        text = strip_control(text)  # panel text and error text are untrusted too
        if text:
            self.out.write(text)
            self.at_line_start = text.endswith("\n")
            self.out.flush()

    def _heading(self, speaker: str) -> None:
        if self.current != speaker:
            if self.current is not None:
                self._write("\n")
            self._write(f"{speaker_heading(self.panel, speaker)}:\n")
            self.current = speaker

    def delta(self, event: TextDelta) -> None:
        self._heading(event.speaker)
        if self.verbatim:  # whole passages, not a stream: wrap them
            self._write(_indent(strip_control(event.text), self.width or terminal_width()) + "\n")
            return
        out: list[str] = []
        for i, piece in enumerate(strip_control(event.text).split("\n")):
            if i:
                out.append("\n")
                self.at_line_start = True
            if piece:
                if self.at_line_start:
                    out.append(MODEL_INDENT)
                out.append(piece)
                self.at_line_start = False
        if out:
            self.out.write("".join(out))
            self.out.flush()

    def done(self, d: SpeakerDone) -> None:
        self._heading(d.speaker)
        if not self.at_line_start:
            self._write("\n")
        name = self.panel.display_name(d.speaker)
        if d.error:
            error = strip_control(d.error, keep_newlines=False)
            self._write(
                f"[the model failed: {error}]\n{name}'s own words:\n{_indent(d.text, self.width)}\n"
            )
            return
        if d.grounded is None and d.verdict is None:  # verbatim quotes: nothing to verify
            return
        shown = present(name, [sq.quote for sq in d.quotes], verdict=d.verdict, grounded=d.grounded)
        self._write(shown.status_line() + "\n")
        for line in [*shown.details, *shown.notes]:
            self._write(f"[{line}]\n")
        if shown.own_words:
            self._write(f"{name}'s own words:\n{_indent(quotes_text(d.quotes), self.width)}\n")

    def finish(
        self, route: RouteResult, dones: list[SpeakerDone], backend: Backend, extra: dict[str, Any]
    ) -> None:
        if route.reason.startswith("follow-up"):
            self._write(f"({route.reason})\n")


class _JsonView:
    """One JSON object per question: the engine's object plus answer, citations, grounded, error."""

    def __init__(self, panel: Panel, out: TextIO) -> None:
        self.panel = panel
        self.out = out

    def delta(self, event: TextDelta) -> None:
        return None

    def done(self, d: SpeakerDone) -> None:
        return None

    def finish(
        self, route: RouteResult, dones: list[SpeakerDone], backend: Backend, extra: dict[str, Any]
    ) -> None:
        d = answer_record(self.panel, route, dones, backend.name, backend.label)
        d.update(extra)
        print_json(d, self.out)
        self.out.flush()


def _say_if_unsaved(why: str | None, out: TextIO, err: TextIO) -> None:
    """After an answer (verdict and sources included), one line when the history could not keep it."""
    if why:
        from panelbot.cli.ask import not_saved_line

        out.flush()
        err.write(not_saved_line(why))
