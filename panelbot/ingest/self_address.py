"""Turns that address their own speaker by name: where a speaker label (or an attribution) has slipped.

People do not call themselves by name to hand over, thank or ask ("Priya, who pays for the repairs?",
"Thanks, Tomás."), so a turn given to Priya that does is most likely someone else's -- often the host's
question that a diarizer ran into the guest's answer, or a stretch the other way. The health report points
at such a turn as doubtful, whatever its attribution rests on (a label in the file included).
"""

from __future__ import annotations

import re

from panelbot.ingest.names import ascii_fold
from panelbot.panel import Panel
from panelbot.text import split_sentences

# a name in the place of the person spoken to: opening a sentence ("Priya, ..."), after a thank-you or a
# hand-over word ("thanks Priya", "over to you, Priya"), or closing it ("..., Priya?")
_LEADS = (
    r"(?:(?:thanks|thank you|ok|okay|so|and|well|now|right|yes|over to you|back to you)[\s,]+)?"
)


def _vocative(first: str) -> re.Pattern[str]:
    name = re.escape(ascii_fold(first).lower())
    return re.compile(rf"^\W*{_LEADS}{name}\s*[,?!.:]|,\s*{name}\s*[?!.]*\s*$")


def self_addressed(panel: Panel) -> dict[int, str]:
    """Turn index -> why it is doubtful, for each turn whose speaker it addresses by their first name."""
    people = dict(panel.panelists)
    if panel.host is not None:
        people[panel.host.id] = people["host"] = panel.host
    patterns = {
        pid: _vocative(p.name.split()[0])
        for pid, p in people.items()
        if p.name and p.name.split() and len(p.name.split()[0]) >= 2
    }
    out: dict[int, str] = {}
    for i, t in enumerate(panel.turns):
        rx = patterns.get(t.speaker)
        if rx is None:
            continue
        said = [ascii_fold(s).lower() for s in split_sentences(t.text)]
        if any(rx.search(s) for s in said):
            name = people[t.speaker].name
            out[i] = f"addresses {name} by name, so it is probably not {name}'s: check who said it"
    return out
