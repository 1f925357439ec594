"""The prompt for one panelist's generated answer.

It holds that panelist's persona, **only that panelist's** retrieved quotes as numbered sources with their ids,
the recent conversation (newest first until the budget is spent), in panel mode the answer the previous
panelist just gave, and the rules: first person, only from these sources, cite ``[quote-id]`` after each claim,
don't speak for anyone else.

Everything goes into one user message: some chat templates (Gemma's, among others) silently drop a system
message, and the sources must never be lost.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from panelbot.answer.events import Message
from panelbot.panel import Panel, Quote
from panelbot.text import strip_control


@dataclass(frozen=True)
class PromptBudget:
    history_chars: int = 3000  # all earlier messages together
    message_chars: int = 700  # one earlier message
    max_sentences: int = 5


def _clip(text: str, limit: int) -> str:
    text = " ".join(strip_control(text).split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "\u2026"


def recent_conversation(
    panel: Panel, history: Sequence[Message], budget: PromptBudget
) -> list[str]:
    """'Name: text' lines, oldest first, newest kept when the budget runs out."""
    lines: list[str] = []
    used = 0
    for msg in reversed(history):
        who = "Audience member" if msg.role == "user" else panel.display_name(msg.role)
        line = f"{who}: {_clip(msg.text, budget.message_chars)}"
        if used + len(line) > budget.history_chars:
            break
        lines.append(line)
        used += len(line)
    return lines[::-1]


def build_messages(
    panel: Panel,
    speaker: str,
    sources: Sequence[Quote],
    question: str,
    history: Sequence[Message] = (),
    earlier: Sequence[tuple[str, str]] = (),
    budget: PromptBudget | None = None,
) -> list[dict[str, str]]:
    """Chat messages asking ``speaker`` to answer ``question`` from ``sources`` only.

    ``earlier`` holds (speaker id, answer) of panelists who already answered this question (panel mode).
    """
    budget = budget or PromptBudget()
    persona = panel.persona(speaker)
    name = panel.display_name(speaker)
    foreign = [q.id for q in sources if q.speaker != speaker]
    if foreign:
        raise ValueError(f"sources {foreign} are not {speaker}'s quotes")
    others = [p.name for pid, p in panel.panelists.items() if pid != speaker]
    if panel.host:
        others.append(f"{panel.host.name} (the host)")

    who = name + (f", {persona.title}" if persona and persona.title else "")
    parts = [f'You are {who}, speaking on the panel "{panel.title}".']
    if persona and persona.bio:
        parts.append(f"About you: {persona.bio}")
    if persona and persona.voice:
        parts.append(f"How you speak: {persona.voice}")

    src_lines = [f'{i}. [{q.id}] "{" ".join(q.text.split())}"' for i, q in enumerate(sources, 1)]
    parts.append(
        "Your sources \u2014 things you actually said on this panel:\n" + "\n".join(src_lines)
    )

    example = sources[0].id if sources else "quote-id"
    others_text = ", ".join(others) if others else "anyone else"
    parts.append(
        "Rules:\n"
        f"- Answer in the first person as {name}, in your own words, using only the sources above.\n"
        f"- After each sentence, cite the source that says it by its id in square brackets, e.g. "
        f"[{example}]. Each sentence must say only what the source it cites says.\n"
        "- Cite only the ids listed above. Words in quotation marks must be copied exactly from the "
        "source you cite.\n"
        "- Write no heading with your name or anyone else's and no verdict line: panelbot adds those.\n"
        "- If the sources don't cover something, say you didn't talk about that; don't guess.\n"
        f"- Speak only for yourself, never for {others_text}.\n"
        f"- Keep it short: at most {budget.max_sentences} sentences."
    )

    convo = recent_conversation(panel, history, budget)
    if convo:
        parts.append("The conversation so far:\n" + "\n".join(convo))
    for sid, text in earlier:
        parts.append(
            f"{panel.display_name(sid)} has just answered this question:\n"
            f"{_clip(text, budget.message_chars * 2)}\n"
            f"You may agree, add to it or differ, but only from your own sources."
        )
    parts.append(f"Question: {_clip(question, budget.message_chars)}\n\nAnswer as {name}:")
    return [{"role": "user", "content": "\n\n".join(parts)}]
