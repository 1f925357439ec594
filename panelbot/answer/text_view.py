"""The text of an answer as it forms, as the shell prints it and the servers send it: each speaker's heading,
then their words as they arrive (a model's words indented two spaces, so only panelbot writes at the start of a
line), then the verdict (and the panelist's own words when needed). Plain Python: writes to any text sink."""

from __future__ import annotations

import textwrap
from typing import TextIO

from panelbot.answer.compose import quotes_text, speaker_heading, terminal_width
from panelbot.answer.events import SpeakerDone, TextDelta
from panelbot.answer.present import present
from panelbot.panel import Panel
from panelbot.text import fill_text, strip_control

MODEL_INDENT = "  "


def _indent(text: str, width: int | None = None) -> str:
    """Text under a speaker heading, indented two spaces; with ``width`` (the terminal) verbatim quotes are laid
    out as plain ``ask`` prints them: each passage wrapped to ``width`` (the API's text is never wrapped)."""
    if width is None:
        return textwrap.indent(text, MODEL_INDENT)
    return "\n".join(
        fill_text(line, width, MODEL_INDENT) for line in text.splitlines() if line.strip()
    )


class TextView:
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

    def reason(self, reason: str) -> None:
        """After the answer: how a follow-up was read, in brackets."""
        if reason.startswith("follow-up"):
            self._write(f"({reason})\n")
