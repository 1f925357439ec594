"""A discussion and the map in plain text (the CLI prints it; the app shows it as plain text, never markup)."""

from __future__ import annotations

from collections.abc import Sequence

from panelbot.answer.compose import decline_text, speaker_heading
from panelbot.discussion.stage import Discussion, MapEntry, Point
from panelbot.discussion.voices import VoicedTurn
from panelbot.panel import Panel
from panelbot.text import fill_text, strip_control

POINT_WORDS = {
    "agree": "Agreement",
    "differ": "Difference",
    "both": "Both spoke to it (no verdict measured)",
}
MAP_WORDS = {
    "agree": "agree",
    "differ": "differ",
    "both": "both spoke to it",
    "mixed": "agree and differ",
}


def _clean(text: str) -> str:
    return strip_control(text, keep_newlines=False)


def point_line(panel: Panel, p: Point) -> str:
    """'Agreement: Dan [dan-02] and Olive [olive-03] say the same about it.' and the like."""
    a = f"{panel.display_name(p.a.speaker)} [{p.a.id}]"
    b = f"{panel.display_name(p.b.speaker)} [{p.b.id}]"
    if p.verdict == "agree":
        return f"Agreement: {a} and {b} say the same about it."
    if p.verdict == "differ":
        return f"Difference: {a} and {b} answer it differently."
    return f"Both spoke to it: {a} and {b} are about the same thing; whether they agree is not measured."


def discussion_text(
    panel: Panel, d: Discussion, width: int = 100, voiced: Sequence[VoicedTurn] | None = None
) -> str:
    """The discussion in plain text; with ``voiced`` (``--llm``) each turn is the model's verified words,
    or their quotes with the reason the model's turn was not used."""
    if d.declined:
        text = decline_text(panel, d.route) if d.route is not None else _clean(d.reason)
        return "\n".join(fill_text(line, width) for line in text.splitlines())
    lines = [fill_text(f"Discussion: {_clean(d.subject)}", width)]
    if d.framing:
        lines.append(
            fill_text(f"The host asked [{d.framing_id}]: \u201c{_clean(d.framing)}\u201d", width)
        )
    if voiced is not None:
        lines += _voiced_lines(panel, voiced, width)
    for turn in d.turns if voiced is None else ():
        lines += ["", f"{speaker_heading(panel, turn.speaker)}:"]
        for q in turn.quotes:
            lines.append(fill_text(f"\u201c{_clean(q.text)}\u201d [{q.id}]", width, "  "))
    lines.append("")
    if d.points:
        lines.append("Where they meet:")
        lines += [fill_text(f"- {point_line(panel, p)}", width, "  ", "    ") for p in d.points]
    if d.note:
        lines.append(fill_text(_clean(d.note), width))
    return "\n".join(lines)


def _voiced_lines(panel: Panel, voiced: Sequence[VoicedTurn], width: int) -> list[str]:
    lines: list[str] = []
    for t in voiced:
        lines += ["", f"{speaker_heading(panel, t.speaker)}:"]
        text = strip_control(t.text)
        lines += [fill_text(line, width, "  ") for line in text.splitlines() if line.strip()]
        if t.voiced:
            lines.append(f"[verified against {', '.join(t.citations or t.ids)}]")
        else:
            lines.append(f"[{_clean(t.fallback)}: their own words instead]")
    return lines


def map_line(panel: Panel, e: MapEntry) -> str:
    ids = "; ".join(" + ".join(p.ids) for p in e.points)
    return f"{_clean(e.name)} -- {MAP_WORDS.get(e.verdict, e.verdict)} [{ids}]"


def map_text(panel: Panel, entries: Sequence[MapEntry], width: int = 100) -> str:
    if not entries:
        return "No subject is measured to have been spoken to by two panelists."
    names = " and ".join(panel.display_name(p) for p in panel.panelists)
    lines = [f"Subjects {names} both spoke to ({len(entries)}):"]
    lines += [
        fill_text(f"{i}. {map_line(panel, e)}", width, "   ", " " * (5 + len(str(i))))
        for i, e in enumerate(entries, 1)
    ]
    lines.append(
        fill_text('Discuss one: panelbot discuss "SUBJECT" (or its number: --map N).', width)
    )
    return "\n".join(lines)
