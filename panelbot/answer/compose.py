"""Turning a RouteResult into words for people: the verbatim answer and the polite decline."""

from __future__ import annotations

import shutil
import textwrap

from panelbot.panel import Panel
from panelbot.retrieval.results import RouteResult
from panelbot.text import strip_control


def decline_text(panel: Panel, result: RouteResult) -> str:
    """An in-character decline that offers what the panel did cover (never a random quote)."""
    if not result.off_topic:  # the chosen panelist never spoke to it, someone else did
        reason = strip_control(result.reason, keep_newlines=False)
        if reason.endswith("."):  # already a whole answer (a follow-up with nothing more to add)
            return f"{reason[:1].upper()}{reason[1:]}"
        return f"{reason[:1].upper()}{reason[1:]}. Ask them instead, or let panelbot choose (auto)."
    topics = [strip_control(t, keep_newlines=False) for t in panel.topics[:6]]
    questions = [s for s in result.suggestions if s not in panel.topics]
    parts = [
        "That's not something we got into on this panel, so we'd rather not guess."
    ]
    if topics:
        parts.append("We talked about " + _join(topics) + ".")
    if questions:
        parts.append("You could ask, for example: " + " / ".join(f"\u201c{q}\u201d" for q in questions[:3]))
    return " ".join(parts)


def _join(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def speaker_heading(panel: Panel, speaker: str) -> str:
    p = panel.persona(speaker)
    if p is None:
        return strip_control(speaker)
    title = f" ({p.title})" if p.title else ""
    return strip_control(f"{p.name}{title}", keep_newlines=False)


def format_route(panel: Panel, result: RouteResult, *, width: int | None = None) -> str:
    """Plain-text rendering for the terminal: who answers, each quote with its id and score."""
    width = width or min(100, shutil.get_terminal_size((100, 24)).columns)
    lines: list[str] = []
    if result.abstained:
        lines.append(textwrap.fill(decline_text(panel, result), width))
        return "\n".join(lines)
    for speaker in result.speakers:
        lines.append(f"{speaker_heading(panel, speaker)}:")
        for sq in result.quotes_for(speaker):
            body = strip_control(sq.quote.text, keep_newlines=False)
            lines.append(textwrap.fill(
                f"\u201c{body}\u201d [{sq.quote.id}]", width, initial_indent="  ", subsequent_indent="  "
            ))
        lines.append("")
    lines.append(f"({strip_control(result.reason, keep_newlines=False)})")
    return "\n".join(lines)
