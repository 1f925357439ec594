"""Turning untrusted text into renderables: always rich Text built from plain strings, never markup.

Quotes, questions, model output, panel names and error messages all go through :func:`safe`, which strips
terminal control sequences; the result is wrapped in ``Text`` so ``[bold]`` or ``[link=...]`` shows literally.
"""

from __future__ import annotations

import re

from rich.style import Style
from rich.text import Text

from panelbot.panel import Panel, Persona
from panelbot.retrieval.results import ScoredQuote
from panelbot.text import strip_control

QUOTE_ID_RE = re.compile(r"\[([a-z0-9][a-z0-9_.-]*)\]")
FALLBACK_COLOURS = ("#4ea1ff", "#ff8c42", "#7bd88f", "#c792ea", "#f7768e")


def safe(text: object, *, one_line: bool = False) -> str:
    return strip_control(str(text), keep_newlines=not one_line)


def plain(text: object, style: str | Style = "", *, one_line: bool = False) -> Text:
    return Text(safe(text, one_line=one_line), style=style)


def speaker_colour(panel: Panel | None, speaker: str) -> str:
    """The persona's colour when it is a valid colour, else a stable fallback."""
    persona = panel.persona(speaker) if panel else None
    if persona and persona.colour:
        try:
            Style.parse(persona.colour)
            return persona.colour
        except Exception:
            pass
    ids = list(panel.panelists) if panel else []
    index = ids.index(speaker) if speaker in ids else len(ids)
    return FALLBACK_COLOURS[index % len(FALLBACK_COLOURS)]


def persona_card(panel: Panel, persona: Persona) -> Text:
    colour = speaker_colour(panel, persona.id)
    text = Text()
    text.append("\u25cf ", style=colour)
    text.append(safe(persona.name, one_line=True), style=f"bold {colour}")
    if persona.role:
        text.append("\n  " + safe(persona.role, one_line=True), style="")
    if persona.organisation:
        text.append("\n  " + safe(persona.organisation, one_line=True), style="italic")
    return text


def answer_body(text: str) -> Text:
    """An answer with its quote ids picked out."""
    body = plain(text)
    body.highlight_regex(QUOTE_ID_RE, style="bold underline")
    return body


def source_option(panel: Panel | None, sq: ScoredQuote, width: int = 160) -> Text:
    q = sq.quote
    colour = speaker_colour(panel, q.speaker)
    name = panel.display_name(q.speaker) if panel else q.speaker
    text = Text()
    text.append(safe(q.id, one_line=True), style="bold")
    text.append("  ")
    text.append(safe(name, one_line=True), style=colour)
    if q.start is not None:
        from panelbot.panel.model import format_time

        text.append(f"  {format_time(q.start)}", style="dim")
    if sq.score:
        text.append(f"  match {sq.score:.0f}/100", style="dim")
    if q.url:
        text.append("\n" + safe(q.url, one_line=True), style="dim underline")
    if sq.reason:
        text.append("\n" + safe(sq.reason, one_line=True), style="dim italic")
    snippet = safe(q.text, one_line=True)
    if len(snippet) > width:
        snippet = snippet[: width - 1] + "\u2026"
    text.append("\n\u201c" + snippet + "\u201d")
    if q.note:  # the curator doubts the caption: say so wherever the quote is shown
        from panelbot.answer.compose import note_line

        text.append("\n" + safe(note_line(q.id, q.note), one_line=True), style="italic")
    return text


def highlight_quote(turn_text: str, quote_text: str) -> Text:
    """The whole answer with the quote highlighted (found by exact text, else word by word)."""
    body = plain(turn_text)
    needle = safe(quote_text).strip()
    start = body.plain.find(needle) if needle else -1
    if start >= 0:
        body.stylize("bold reverse", start, start + len(needle))
        return body
    # Whitespace may differ between the quote and the transcript: match with flexible spaces.
    words = needle.split()
    if words:
        pattern = r"\s+".join(re.escape(w) for w in words)
        match = re.search(pattern, body.plain)
        if match:
            body.stylize("bold reverse", match.start(), match.end())
    return body
