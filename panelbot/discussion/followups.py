"""Follow-ups to a discussion: "why do they disagree?", "where do they agree?", "Olive, respond to that".

Read in general English, against the discussion just shown (not the talk's words): a question about their
agreement or difference is answered from the measured points -- and when none was measured, says so rather
than inventing one; a panelist asked to respond gets their turn, with the points that pair their quotes with
the other's. Anything else is not a follow-up to the discussion (the usual resolver reads it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from panelbot.discussion.render import point_line
from panelbot.discussion.stage import Discussion, Point
from panelbot.panel import Panel, Quote
from panelbot.text import fold, words

_DISAGREE = re.compile(
    r"\b(disagree|differ|difference|differences|different|contradict|clash|at odds)\b"
)
_AGREE = re.compile(r"\b(agree|agreement|in common|same page|align|concur)\b")
_ABOUT_THEM = re.compile(r"\b(they|them|both|the two|the panel|each other|panelists)\b")
_RESPOND = re.compile(
    r"\b(respond|reply|answer|react|rebut|response|what do you (say|think)|your (take|view)|"
    r"over to you|come back on)\b"
)


@dataclass(frozen=True)
class FollowUpAnswer:
    kind: str  # "difference", "agreement", "respond"
    text: str  # plain text, ids in square brackets
    quotes: tuple[Quote, ...]
    speaker: str = ""  # who responds ("respond")


def _points_text(panel: Panel, points: list[Point], none: str) -> str:
    if not points:
        return none
    lines = []
    for p in points:
        lines.append(point_line(panel, p))
        for q in (p.a, p.b):
            lines.append(f"  {panel.display_name(q.speaker)}: \u201c{q.text}\u201d [{q.id}]")
    return "\n".join(lines)


def _addressed(panel: Panel, text: str) -> str | None:
    folded = fold(text)
    named = [
        pid
        for pid, p in panel.panelists.items()
        if re.search(rf"\b{re.escape(fold(p.name))}\b", folded) or re.search(rf"\b{pid}\b", folded)
    ]
    return named[0] if len(named) == 1 else None


def _only_names(panel: Panel, text: str) -> bool:
    """``text`` says nothing but a panelist's name ("and Dan?", "what about Olive?"), nor asks why, nor
    asks for more ("Olive, tell me more": more of what she said, which the usual resolver goes on with)."""
    from panelbot.conversation.cues import CONTINUE
    from panelbot.retrieval.lexicon import stopwords

    names = {w for pid, p in panel.panelists.items() for w in (pid, *words(p.name or ""))}
    said = words(text)
    rest = [w for w in said if w not in names and w not in stopwords()]
    return not rest and "why" not in said and not CONTINUE.search(text)


def _asked_to_respond(panel: Panel, folded: str) -> bool:
    """Asked to respond to what was just said ("Olive, respond to that", "Dan, what do you think?") and
    nothing new: a subject of its own ("Olive, what do you think about the KV cache?") is a question."""
    from panelbot.retrieval.lexicon import stopwords

    if not _RESPOND.search(folded):
        return False
    names = {w for pid, p in panel.panelists.items() for w in (pid, *words(fold(p.name or "")))}
    rest = words(_RESPOND.sub(" ", folded))
    back = {"that", "this", "it", "him", "her", "them", "point", "said"}
    return not [w for w in rest if w not in names and w not in stopwords() and w not in back]


def read_followup(panel: Panel, d: Discussion | None, text: str) -> FollowUpAnswer | None:
    """The answer to ``text`` as a follow-up to ``d``, or None when it is not one."""
    if d is None or d.declined or not d.turns:
        return None
    folded = fold(text)
    who = _addressed(panel, text)
    if who is not None and (_asked_to_respond(panel, folded) or _only_names(panel, text)):
        # "Olive, respond to that", "and Dan?": their turn, and where it meets the others' words
        return _respond(panel, d, who)
    if (who is None and _ABOUT_THEM.search(folded)) or len(d.turns) == 1:
        if _DISAGREE.search(folded):
            return _difference(panel, d)
        if _AGREE.search(folded):
            return _agreement(panel, d)
    return None


def _difference(panel: Panel, d: Discussion) -> FollowUpAnswer:
    points = [p for p in d.points if p.verdict == "differ"]
    if len(d.turns) < 2:
        none = d.note or "Only one panelist spoke to this: there is no one to disagree with."
    elif any(p.verdict == "both" for p in d.points):
        none = (
            "No difference is measured on this: where their quotes meet, whether they agree is not "
            "measured, so panelbot claims neither."
        )
    else:
        none = "No difference is measured on this" + (
            ": they agree where their quotes meet." if d.points else f". {d.note}"
        )
    return FollowUpAnswer(
        "difference",
        _points_text(panel, points, none),
        tuple(q for p in points for q in (p.a, p.b)),
    )


def _agreement(panel: Panel, d: Discussion) -> FollowUpAnswer:
    points = [p for p in d.points if p.verdict == "agree"]
    if len(d.turns) < 2:
        none = d.note or "Only one panelist spoke to this."
    else:
        none = "No agreement is measured on this." + (f" {d.note}" if d.note else "")
    return FollowUpAnswer(
        "agreement",
        _points_text(panel, points, none),
        tuple(q for p in points for q in (p.a, p.b)),
    )


def _respond(panel: Panel, d: Discussion, who: str) -> FollowUpAnswer:
    name = panel.display_name(who)
    turn = next((t for t in d.turns if t.speaker == who), None)
    if turn is None:
        return FollowUpAnswer(
            "respond",
            f"{name} did not speak to this on the panel: there are no words of theirs to respond with.",
            (),
            who,
        )
    mine = [p for p in d.points if who in (p.a.speaker, p.b.speaker)]
    lines = [f"{name} on this, in their own words:"]
    lines += [f"  \u201c{q.text}\u201d [{q.id}]" for q in turn.quotes]
    if mine:
        lines += ["Where that meets the others' words:"]
        lines += [f"  - {point_line(panel, p)}" for p in mine]
    return FollowUpAnswer("respond", "\n".join(lines), turn.quotes, who)
