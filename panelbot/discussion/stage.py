"""A moderated discussion of a subject, and the map of the subjects the panelists both spoke to.

``discuss`` stages a subject as the talk would have run had the host pressed on: the subject framed (the
host's own question when the talk has one), each panelist who spoke to it in their quoted words, then the
points where a pair of their quotes is measured (``pairing``) to be about the same thing -- agreement,
difference, or both spoke to it with no verdict measured. Who spoke to it, and whether it is the panel's
subject at all, is the router's decision (its scope and "asked of both"), as for any question.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations

from panelbot.discussion.pairing import Pairing, PairVerdict
from panelbot.panel import Quote
from panelbot.retrieval.lexicon import stopwords
from panelbot.retrieval.results import RouteResult
from panelbot.retrieval.router import Router
from panelbot.text import and_list, words

PER_PANELIST = 3  # at most this many quotes of each panelist in a discussion
KEEP_RATIO = 0.5  # ... each scoring at least this share of that panelist's best for the subject
MAX_POINTS = 4

VERDICT_LINES = {
    "agree": "agree",
    "differ": "differ",
    "both": "both spoke to it",
}


@dataclass(frozen=True)
class Point:
    """Two quotes, one of each of two panelists, measured to be about the same thing."""

    verdict: str  # "agree", "differ", or "both" (no verdict measured)
    a: Quote
    b: Quote
    same: float
    agree: float

    @classmethod
    def of(cls, v: PairVerdict) -> Point:
        return cls(v.verdict, v.a, v.b, v.same, v.agree)

    @property
    def ids(self) -> tuple[str, str]:
        return (self.a.id, self.b.id)

    def to_dict(self) -> dict[str, object]:
        return {
            "verdict": self.verdict,
            "ids": list(self.ids),
            "same": round(self.same, 3),
            "agree": round(self.agree, 3),
        }


@dataclass(frozen=True)
class Turn:
    speaker: str
    quotes: tuple[Quote, ...]


@dataclass(frozen=True)
class Discussion:
    subject: str
    declined: bool
    reason: str  # the router's reason (why declined, who was asked)
    framing: str = ""  # the host's question from the talk, when there is one
    framing_id: str | None = None
    turns: tuple[Turn, ...] = ()
    points: tuple[Point, ...] = ()
    note: str = ""  # "only Dan spoke to this", "they spoke to different aspects"
    silent: tuple[str, ...] = ()  # panelists who did not speak to it
    suggestions: tuple[str, ...] = ()
    route: RouteResult | None = field(
        default=None, compare=False
    )  # the router's decision (a decline's text)

    @property
    def speakers(self) -> list[str]:
        return [t.speaker for t in self.turns]

    def quote_ids(self) -> list[str]:
        return [q.id for t in self.turns for q in t.quotes]

    def to_dict(self) -> dict[str, object]:
        return {
            "subject": self.subject,
            "declined": self.declined,
            "reason": self.reason,
            "framing": {"question": self.framing, "id": self.framing_id} if self.framing else None,
            "turns": [
                {
                    "speaker": t.speaker,
                    "quotes": [{"id": q.id, "text": q.text, "start": q.start} for q in t.quotes],
                }
                for t in self.turns
            ],
            "points": [p.to_dict() for p in self.points],
            "note": self.note,
            "silent": list(self.silent),
            "suggestions": list(self.suggestions),
        }


def _said_order(q: Quote) -> tuple[int, int]:
    if q.turn is None or not q.sentences:
        return (1 << 30, 0)
    return (q.turn, q.sentences[0])


def _quotes_for(
    router: Router, routed: RouteResult, subject: str, speaker: str
) -> tuple[Quote, ...]:
    """The panelist's quotes on the subject: those the router chose to answer it (asked of both), else
    their best matches scoring at least ``KEEP_RATIO`` of their best; in the order they were said."""
    chosen = [sq.quote for sq in routed.quotes_for(speaker)][:PER_PANELIST]
    if not chosen:
        hits = router.search(subject, k=PER_PANELIST, speakers={speaker})
        floor = KEEP_RATIO * hits[0].score if hits else 0.0
        chosen = [sq.quote for sq in hits if sq.score >= floor]
    return tuple(sorted(chosen, key=_said_order))


def _framing(router: Router, turns: Sequence[Turn]) -> tuple[str, str | None]:
    """The host's question that most of the speakers answer (earliest in their turns first); with several
    speakers, only one that at least two of them answered: a question put to one of them would frame the
    other's words as an answer to it."""
    panel = router.panel
    counts: dict[str, tuple[set[str], int]] = {}
    for t in turns:
        for rank, q in enumerate(t.quotes):
            if q.question and panel.question(q.question):
                speakers, best = counts.setdefault(q.question, (set(), 1 << 30))
                speakers.add(t.speaker)
                counts[q.question] = (speakers, min(best, rank))
    if not counts:
        return "", None
    qid = min(counts, key=lambda k: (-len(counts[k][0]), counts[k][1], k))
    if len(turns) > 1 and len(counts[qid][0]) < 2:
        return "", None
    hq = panel.question(qid)
    return (hq.text if hq else ""), qid


def choose_points(verdicts: Sequence[PairVerdict], limit: int = MAX_POINTS) -> list[Point]:
    """The paired pairs, surest first, each quote in at most one point (so no point repeats another)."""
    used: set[str] = set()
    points: list[Point] = []
    for v in sorted(verdicts, key=lambda v: (-v.same, v.a.id, v.b.id)):
        if not v.paired or v.a.id in used or v.b.id in used:
            continue
        used.update((v.a.id, v.b.id))
        points.append(Point.of(v))
        if len(points) == limit:
            break
    return points


def discuss(router: Router, subject: str, pairing: Pairing | None = None) -> Discussion:
    """The discussion of ``subject`` (declined, as any off-topic question, when the panel never spoke to it)."""
    subject = subject.strip()
    routed = router.route(subject, "both")
    if routed.abstained:
        return Discussion(
            subject, True, routed.reason, suggestions=tuple(routed.suggestions), route=routed
        )
    panel = router.panel
    turns = tuple(
        Turn(pid, quotes)
        for pid in routed.speakers
        if (quotes := _quotes_for(router, routed, subject, pid))
    )
    silent = tuple(p for p in panel.panelists if p not in {t.speaker for t in turns})
    framing, framing_id = _framing(router, turns)
    base = Discussion(
        subject, False, routed.reason, framing, framing_id, turns, silent=silent, route=routed
    )
    if len(turns) < 2:
        names = and_list([panel.display_name(p) for p in silent])
        only = panel.display_name(turns[0].speaker) if turns else "nobody"
        note = f"Only {only} spoke to this on the panel; {names} did not."
        return _replace(base, note=note)
    pairing = pairing or Pairing(router)
    verdicts = [
        pairing.judge(a, b)
        for t1, t2 in combinations(turns, 2)
        for a in t1.quotes
        for b in t2.quotes
    ]
    points = tuple(choose_points(verdicts))
    note = (
        ""
        if points
        else "They spoke to different aspects of it: no pair of their quotes is measured to be about "
        "the same thing."
    )
    return _replace(base, points=points, note=note)


def _replace(d: Discussion, **changes: object) -> Discussion:
    import dataclasses

    return dataclasses.replace(d, **changes)  # type: ignore[arg-type]


@dataclass(frozen=True)
class MapEntry:
    """A subject both panelists spoke to: the name to discuss it by, the verdict, the points' ids."""

    subject: str
    verdict: str  # "agree", "differ", "both", or "mixed" (points of more than one kind)
    points: tuple[Point, ...]
    framing_id: str | None = None
    title: str = (
        ""  # a short name to show when ``subject`` is a host question ("" = the subject itself)
    )

    @property
    def name(self) -> str:
        """What the map shows: the short title, else the subject."""
        return self.title or self.subject

    def to_dict(self) -> dict[str, object]:
        return {
            "subject": self.subject,
            "title": self.name,
            "verdict": self.verdict,
            "points": [p.to_dict() for p in self.points],
            "question": self.framing_id,
        }


def _groups(verdicts: Sequence[PairVerdict]) -> list[list[PairVerdict]]:
    """Paired pairs grouped by the two host questions they answer (a pair of quotes with no host
    question stands alone), in the order the talk reached them."""
    out: dict[tuple[str, str], list[PairVerdict]] = {}
    for v in verdicts:
        if v.paired:
            key = (v.a.question or v.a.id, v.b.question or v.b.id)
            out.setdefault(key, []).append(v)
    return sorted(out.values(), key=lambda g: min(_said_order(v.a) for v in g))


def _verdict_of(points: Sequence[Point]) -> str:
    """ "agree" or "differ" when every measured verdict is that one, "mixed" when both occur, "both" when
    none was measured."""
    kinds = {p.verdict for p in points} - {"both"}
    if not kinds:
        return "both"
    return kinds.pop() if len(kinds) == 1 else "mixed"


def _title(router: Router, group: Sequence[PairVerdict], pairing: Pairing, name: str) -> str:
    """A short name to show for a group labelled by a host question (a whole question reads badly in a
    list): of its surest pair's curated topics, the one that describes both quotes best in meaning (not one
    panelist's side of it) and whose own discussion shows one of the group's pairs; "" when the label is no
    host question or no topic leads back."""
    if not any(hq.text == name for hq in router.panel.questions):
        return ""
    wanted = {tuple(sorted(p.ids)) for p in choose_points(group)}
    surest = max(group, key=lambda v: v.same)
    sides = {
        w
        for p in router.panel.panelists.values()
        for w in _bare_words(f"{p.name or ''} {p.organisation or ''}")
        if w not in stopwords()
    }
    # a topic naming one side ("together's view on ...") is that panelist's half of it: last
    topics = dict.fromkeys(t for q in (surest.a, surest.b) for t in q.topics)
    for topic in sorted(
        topics,
        key=lambda t: (bool(sides & _bare_words(t)), -pairing.fits_both(t, surest.a, surest.b)),
    ):
        d = discuss(router, topic, pairing)
        if any(tuple(sorted(p.ids)) in wanted for p in d.points):
            return topic
    return ""


def _bare_words(text: str) -> set[str]:
    """Its words, a possessive's "'s" left off ("together's" -> "together")."""
    return {w.removesuffix("'s").removesuffix("\u2019s") for w in words(text)}


def _label(
    router: Router, group: Sequence[PairVerdict], pairing: Pairing
) -> tuple[str, Discussion]:
    """A name that leads back: the first candidate whose own discussion shows one of the group's pairs.
    Candidates are the quotes' curated topics (surest pair first) and their host questions -- the host
    questions first when the group holds more than one pair (a topic names one pair, the question all)."""
    panel = router.panel
    ranked = sorted(group, key=lambda v: -v.same)
    topics = [t for v in ranked for q in (v.a, v.b) for t in q.topics]
    hosts = [
        hq.text
        for v in ranked
        for q in (v.a, v.b)
        if (hq := panel.question(q.question)) is not None
    ]
    candidates = [*hosts, *topics] if len(group) > 1 else [*topics, *hosts]
    wanted = {tuple(sorted(p.ids)) for p in choose_points(group)}  # the pairs the map shows
    for name in dict.fromkeys(candidates):
        d = discuss(router, name, pairing)
        if any(tuple(sorted(p.ids)) in wanted for p in d.points):
            return name, d
    return None


def discussion_map(router: Router, pairing: Pairing | None = None) -> list[MapEntry]:
    """For the whole talk: each subject both (any two) panelists spoke to, measured as in ``discuss``: the
    paired pairs of quotes, grouped by the host questions they answer, each group named by a subject whose
    own discussion shows one of its pairs (a group no such name leads back to is left off)."""
    pairing = pairing or Pairing(router)
    kept = _kept_map(router, pairing.remembered("map"))
    if kept is not None:
        return kept
    panel = router.panel
    ids = list(panel.panelists)
    verdicts = [
        pairing.judge(a, b)
        for p1, p2 in combinations(ids, 2)
        for a in panel.quotes_by(p1)
        for b in panel.quotes_by(p2)
    ]
    entries: list[MapEntry] = []
    seen: set[str] = set()
    for group in _groups(verdicts):
        labelled = _label(router, group, pairing)
        if labelled is None:
            continue
        name, d = labelled
        if name in seen:
            continue
        seen.add(name)
        points = tuple(choose_points(group))
        title = _title(router, group, pairing, name)
        entries.append(MapEntry(name, _verdict_of(points), points, d.framing_id, title))
    # every pair measured and the map worked out from them: the next map (a fresh process) reads them back
    pairing.remember("map", [_entry_row(e) for e in entries])
    pairing.save()
    return entries


def _entry_row(e: MapEntry) -> list[object]:
    points = [[p.verdict, p.a.id, p.b.id, p.same, p.agree] for p in e.points]
    return [e.subject, e.verdict, points, e.framing_id, e.title]


def _kept_map(router: Router, rows: object) -> list[MapEntry] | None:
    """The map kept with the measured pairs, its quotes the panel's; None when there is none, or it names a
    quote the panel lacks."""
    if not isinstance(rows, list):
        return None
    panel = router.panel
    try:
        entries = []
        for subject, verdict, points, framing_id, title in rows:
            kept = []
            for v, a, b, same, agree in points:
                qa, qb = panel.quote(a), panel.quote(b)
                if qa is None or qb is None:
                    return None
                kept.append(Point(str(v), qa, qb, float(same), float(agree)))
            framing = str(framing_id) if framing_id is not None else None
            entries.append(MapEntry(str(subject), str(verdict), tuple(kept), framing, str(title)))
    except (TypeError, ValueError):
        return None
    return entries


def entry_discussion(router: Router, entry: MapEntry) -> Discussion:
    """The discussion of one subject of the map: its points' quotes, each panelist in turn, and its points
    (what the map measured, not a fresh retrieval of its name)."""
    by: dict[str, list[Quote]] = {}
    for p in entry.points:
        for q in (p.a, p.b):
            if q not in by.setdefault(q.speaker, []):
                by[q.speaker].append(q)
    turns = tuple(Turn(s, tuple(sorted(qs, key=_said_order))) for s, qs in by.items())
    framing, framing_id = _framing(router, turns)
    return Discussion(
        entry.subject,
        False,
        "a subject of the map",
        framing,
        framing_id,
        turns,
        tuple(entry.points),
        silent=tuple(p for p in router.panel.panelists if p not in by),
    )
