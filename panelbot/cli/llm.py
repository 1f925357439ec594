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
from panelbot.answer.compose import decline_text, speaker_heading
from panelbot.answer.llm.verify import verdict
from panelbot.cli.common import EXIT_FALLBACK, EXIT_OK, print_json
from panelbot.config import Config
from panelbot.errors import PanelbotError
from panelbot.panel import Panel
from panelbot.redact import scrub
from panelbot.retrieval.results import RouteResult
from panelbot.text import strip_control


def ask_llm(questions: list[str], *, json_out: bool, config: Config, panel: Panel, router: Any,
            target: str, out: TextIO, err: TextIO) -> int:
    """Answer each question in turn (a conversation: later questions see earlier answers)."""
    from panelbot.answer.backends.registry import get_backend

    try:
        backend = get_backend(config.backend.name, config, panel)
    except PanelbotError as exc:
        err.write(f"panelbot: error: {exc}\n")
        return exc.exit_code
    return asyncio.run(_ask_all(backend, questions, json_out=json_out, panel=panel, router=router,
                                target=target, out=out, err=err))


async def _ask_all(backend: Backend, questions: list[str], *, json_out: bool, panel: Panel, router: Any,
                   target: str, out: TextIO, err: TextIO) -> int:
    history: list[Message] = []
    status = EXIT_OK
    try:
        for i, question in enumerate(questions):
            route: RouteResult = router.route(question, target)
            if not json_out and len(questions) > 1:
                out.write(("\n" if i else "") + f"Q: {question}\n")
            if route.abstained:
                _abstain(panel, route, json_out, out)
                continue
            view = _JsonView(panel, out) if json_out else _TextView(panel, out)
            dones: list[SpeakerDone] = []
            async for event in backend.answer(AnswerRequest(question, panel, route, list(history))):
                if isinstance(event, TextDelta):
                    view.delta(event)
                else:
                    dones.append(event)
                    view.done(event)
            view.finish(route, dones, backend)
            errors = list(dict.fromkeys(d.error for d in dones if d.error))
            for e in errors:
                e = scrub(strip_control(e, keep_newlines=False))
                err.write(f"panelbot: the model failed: {e}; answered with the panelists' own words\n")
            if errors:
                status = EXIT_FALLBACK
            history.append(Message("user", question))
            history.extend(Message(d.speaker, d.text) for d in dones)
    finally:
        await backend.aclose()
    return status


def _abstain(panel: Panel, route: RouteResult, json_out: bool, out: TextIO) -> None:
    """No model call: the polite decline (and the suggestions in JSON)."""
    text = decline_text(panel, route)
    if json_out:
        d = route.to_dict()
        d.update(suggestions=route.suggestions, answer=text, citations=[], grounded=None, error=None)
        print_json(d, out)
    else:
        out.write(textwrap.fill(text, 100) + "\n")
    out.flush()


MODEL_INDENT = "  "


def _indent(text: str) -> str:
    return textwrap.indent(text, "  ")


class _TextView:
    """Speaker label, then the tokens as they arrive, then the verdict (and the quotes when needed).

    The model's words are always indented by two spaces, so only panelbot writes at the start of a line:
    a model cannot print a verdict line or a speaker heading that looks like panelbot's own."""

    def __init__(self, panel: Panel, out: TextIO) -> None:
        self.panel = panel
        self.out = out
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
            self._write(f"[the model failed: {error}]\n{name}'s own words:\n{_indent(d.text)}\n")
            return
        if d.grounded is None:  # a backend that answers with verbatim quotes: nothing to verify
            return
        line = verdict(d, name).split("; ")[0]
        if d.grounded:
            self._write(f"[{line}]\n")
        else:
            self._write(f"[{line}]\n{name}'s own words:\n{_indent(quotes_text(d.quotes))}\n")
        for sent in d.unsupported_sentences[:3]:
            self._write(f"[cites nothing: \u201c{textwrap.shorten(sent, 90)}\u201d]\n")
        more = len(d.unsupported_sentences) - 3
        if more > 0:
            self._write(f"[... and {more} more sentence(s) citing nothing]\n")

    def finish(self, route: RouteResult, dones: list[SpeakerDone], backend: Backend) -> None:
        return None


class _JsonView:
    """One JSON object per question: the engine's object plus answer, citations, grounded, error."""

    def __init__(self, panel: Panel, out: TextIO) -> None:
        self.panel = panel
        self.out = out

    def delta(self, event: TextDelta) -> None:
        return None

    def done(self, d: SpeakerDone) -> None:
        return None

    def finish(self, route: RouteResult, dones: list[SpeakerDone], backend: Backend) -> None:
        d = route.to_dict()
        answers = [{
            "speaker": x.speaker,
            "answer": x.text,
            "citations": [c.to_dict() for c in x.citations],
            "grounded": x.grounded if not x.error else False,
            "error": x.error,
            "unsupported_sentences": list(x.unsupported_sentences),
        } for x in dones]
        errors = list(dict.fromkeys(x.error for x in dones if x.error))
        if len(dones) == 1:
            answer = dones[0].text
        else:
            answer = "\n\n".join(f"{self.panel.display_name(x.speaker)}: {x.text}" for x in dones)
        d.update(
            backend=backend.name,
            model=backend.label,
            answer=answer,
            citations=[c for a in answers for c in a["citations"]],
            grounded=(None if dones and all(a["grounded"] is None for a in answers)
                      else bool(dones) and all(a["grounded"] is True for a in answers)),
            error="; ".join(errors) if errors else None,
            answers=answers,
        )
        print_json(d, self.out)
        self.out.flush()

