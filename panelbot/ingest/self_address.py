"""Where a speaker label (or an attribution) has probably slipped: turns that address their own speaker by
name, and the places a diarizer's labels change where no one hands over.

People do not call themselves by name to hand over, thank or ask ("Priya, who pays for the repairs?",
"Thanks, Tomás."), so a turn given to Priya that does is most likely someone else's -- often the host's
question that a diarizer ran into the guest's answer, or a stretch the other way. The health report points
at such a turn as doubtful, whatever its attribution rests on (a label in the file included).

A diarizer also cuts between people where no one stops: a label that changes in the middle of a sentence
("… and that is why we" | "moved to oak barrels."), or one panelist's short turn between two of another's
that no one asked for and that names no one. A person does talk over another, so these are not changed,
only pointed at.
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


_ENDS_SENTENCE = tuple(".?!…\"'\u201d\u2019)")
SHORT_INTERJECTION = (
    40  # words: a labelled turn this short between two of another's turns is doubtful
)


def label_slips(panel: Panel, labelled: list[bool]) -> dict[int, str]:
    """Turn index -> why it is doubtful, for each turn whose speaker a label gives (``labelled``, one flag
    a turn) where the label changes mid-sentence (the turn before ends with no sentence mark) or cuts an
    unasked sentence into another's answer."""
    turns, out = panel.turns, {}
    for i, t in enumerate(turns):
        if not labelled[i] or i == 0 or turns[i - 1].speaker == t.speaker:
            continue
        before = turns[i - 1].text.rstrip()
        if before and not before.endswith(_ENDS_SENTENCE):
            out[i] = "the speaker label changes in the middle of a sentence: check who said it"
        elif i + 1 < len(turns) and _unasked_between(panel, i):
            name = panel.panelists[turns[i - 1].speaker].name
            out[i] = f"a short turn inside {name}'s answer that no one asked for: check who said it"
    return out


def _unasked_between(panel: Panel, i: int) -> bool:
    """Is turn ``i`` a short panelist's turn between two turns of another panelist, where the turn before
    asks nothing and it asks nothing and names no one?"""
    before, t, after = panel.turns[i - 1 : i + 2]
    if before.speaker != after.speaker or before.speaker not in panel.panelists:
        return False
    if t.speaker not in panel.panelists or len(t.text.split()) > SHORT_INTERJECTION:
        return False
    if before.text.rstrip().endswith("?") or "?" in t.text:
        return False
    said = set(re.findall(r"[\w'-]+", ascii_fold(t.text).lower()))
    names = {ascii_fold(p.name.split()[0]).lower() for p in panel.panelists.values() if p.name}
    return not said & names
