"""Reason ("why?", "how come?", "why's that?"): the passages where the same panelist(s) give a cause or a
motivation for the subject (``panelbot.conversation.reasons``) -- the rest of the answer first, then their
related answers, and an already shown one when that is where the reason sits (the note quotes the reason and
its id); when the talk gives no reason, it says so."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass

from panelbot.conversation.kinds import Reading
from panelbot.conversation.reasons import (
    cause_relevance,
    cause_sentences,
    causes,
    reason_excerpt,
    reason_passage,
    states_cause,
)
from panelbot.conversation.strategies.context import (
    RELATED_RATIO,
    SHOWN_PENALTY,
    FollowUp,
    PerSpeaker,
)
from panelbot.conversation.terms import merged, ranked, scored_quote, weighted_scores
from panelbot.records import replace
from panelbot.retrieval.results import RouteResult, ScoredQuote

EXCERPT_SHARE = (
    0.6  # a reason note quotes the passage only when its excerpt is under this share of it
)
REASONS_EACH = 2  # passages giving a reason, per panelist
REASON_POOL = (
    5  # a reason from another answer: one of each speaker's this many best passages on the subject
)
CAUSE_BONUS = 0.25  # a passage with two markers of a reason ranks this much above one with one
CAUSE_SHARE = (
    0.5  # a reason just shown is for the subject when its sentence says this share of the best one
)
THE_ANSWER, RELATED = 0, 1  # tiers: what was just said and the rest of that answer; related answers


@dataclass
class _Search:
    """One "why?" being answered: the speakers asked, the subject's terms and their scores."""

    f: FollowUp
    speakers: list[str]
    terms: dict[str, float]
    scores: dict[int, float]
    top: float
    answer_only: bool = (
        False  # only the answer being given ("why is that hard?"), no related answers
    )

    def relevance(self, sentence: str) -> float:
        """How much of the subject a sentence says (its words and those of its answers)."""
        return sum(self.terms.get(t, 0.0) for t in set(self.f.router.norm.terms(sentence)))

    def off_subject(self, text: str) -> bool:
        """A reason in what was just shown must be given for the subject: its sentence says at least
        CAUSE_SHARE as much of the subject as the passage's most relevant sentence."""
        cause, most = cause_relevance(text, self.relevance)
        return cause < CAUSE_SHARE * most


def _candidates(s: _Search, last: list[str]) -> dict[str, int]:
    """Quote id -> tier: the last answer and the rest of that turn, then their related answers."""
    f = s.f
    # the answer each speaker was giving for the subject (as continuing does): never the answer a related
    # quote of the last turn came from; a quote with no turn is no answer
    turns = {
        (q.speaker, q.turn)
        for qid in f.answer_being_given(s.speakers)
        if (q := f.panel.quote(qid)) is not None and q.turn is not None
    }
    tier: dict[str, int] = dict.fromkeys(last, THE_ANSWER)
    for speaker in {sp for sp, _ in turns}:
        for q in f.panel.quotes_by(speaker):
            if (q.speaker, q.turn) in turns:
                tier.setdefault(q.id, THE_ANSWER)
    # related: close to the subject's best match, or about one of its own specific words (as continuing),
    # among each speaker's few best passages on it: a reason given in another answer is a reason for the
    # subject only when that answer is about it too
    about = f.about_distinctive_terms(s.speakers)
    best = max(s.scores.values(), default=0.0)
    quotes = f.router.index.quotes
    if s.answer_only:
        return tier
    for i, sc in ranked(s.scores, REASON_POOL * max(1, len(s.speakers))):
        if 100.0 * sc / s.top >= f.floor and (sc >= RELATED_RATIO * best or about.get(i, 0.0) > 0):
            tier.setdefault(quotes[i].id, RELATED)
    return tier


def _rank_of_reason(s: _Search, qid: str, tier: int, i: int, last: list[str]) -> tuple | None:
    """Where a passage ranks as the reason asked for, or None when it gives none for the subject."""
    text = s.f.router.index.quotes[i].text
    n = causes(text)
    if not n:
        return None
    if qid in last and qid not in s.f.answered_why and s.off_subject(text):
        return None  # what was just shown gives a reason for something else (not the answer to a "why")
    if tier == RELATED and not any(
        s.relevance(said) > 0 for _, said in cause_sentences(text, s.relevance)
    ):
        return None  # another answer's reason, given with no word of the subject
    stated = states_cause(text)
    # grounds only ("we found", "we're seeing") count in the answer itself, not in another one
    if not (stated or tier == THE_ANSWER):
        return None
    # how well it matches the subject, a little more for a second marker, a little less when shown
    sc = max(s.scores.get(i, 0.0), 0.0)
    rank = sc * (1.0 + CAUSE_BONUS * (min(n, 2) - 1)) * (SHOWN_PENALTY if qid in s.f.shown else 1.0)
    # a cause stated outright comes before grounds only ("we found"), shown or not
    return (tier, 0 if stated else 1, -rank)


def _reasons(s: _Search, last: list[str]) -> list[tuple[tuple, int, float]]:
    tier = _candidates(s, last)
    index_of = s.f.index_of(list(tier))
    found = []
    for qid, t in tier.items():
        i = index_of.get(qid)
        if i is None:
            continue
        key = _rank_of_reason(s, qid, t, i, last)
        if key is not None:
            found.append((key, i, max(s.scores.get(i, 0.0), 0.0)))
    found.sort(key=lambda r: (r[0], r[1]))
    return found


def _per_speaker(f: FollowUp, found: list[tuple[tuple, int, float]]) -> PerSpeaker:
    """A second passage only when it states a cause and is new: a quote already shown comes again only as
    the speaker's main reason, grounds alone ("we found") only when nothing states one."""
    quotes = f.router.index.quotes
    per: PerSpeaker = defaultdict(list)
    for key, i, sc in found:
        theirs = per[quotes[i].speaker]
        if not theirs or (
            len(theirs) < REASONS_EACH and key[1] == 0 and quotes[i].id not in f.shown
        ):
            theirs.append((i, sc))
    return per


def _no_reason(s: _Search, reading: Reading) -> RouteResult:
    """Nobody asked gave a reason: one asked who never spoke to the subject says so (and who did);
    else that they gave none, and what they said of it by id."""
    f = s.f
    others = [p for p in s.speakers if p not in f.subject.speakers]
    if others:
        # asked of someone who never spoke to it ("Olive, why?" after Dan's answer): that, not a reason
        per_all, top_all = f.best_by_speaker(s.terms)
        spoke = f.who_spoke(per_all, top_all)
        if not set(others) & set(spoke):
            return f.never_spoke_to_it(others, spoke, reading.addressed)
    said = f.shown_ids_note(s.speakers, f.on_subject(s.scores, s.top))
    return f.decline(
        f"{f.names(s.speakers)} gave no reason for that on the panel; all {f.names(s.speakers)} "
        f"said about {f.subject.label} is shown above{said}.",
        reading.addressed,
        off_topic=False,
    )


def _only_what_explains(
    f: FollowUp, sq: ScoredQuote, relevance: Callable[[str], float]
) -> ScoredQuote:
    """A passage already shown, given as the reason: only its sentences that give it (verbatim), never the
    same passage again; as it is when those sentences are all of it."""
    if sq.quote.id not in f.shown:
        return sq
    passage = reason_passage(sq.quote.text, relevance)
    return replace(sq, quote=replace(sq.quote, text=passage)) if passage else sq


def _note(f: FollowUp, pid: str, i: int, relevance: Callable[[str], float]) -> str:
    """ "the reason Dan gave [dan-15]: “...”": the passage's id, and its reason when that singles out part
    of it (the passage itself is shown with the note). One already shown is given by its sentences that
    explain (``_only_what_explains``), so the note says where it was, and that it is all there is when the
    whole passage is the reason."""
    q = f.router.index.quotes[i]
    if q.id in f.shown:
        who = f.names([pid])
        if not reason_passage(q.text, relevance):
            return f"the reason {who} gave is the passage already shown above [{q.id}], all of it"
        return (
            f"the reason {who} gave is in what was shown above [{q.id}]; the sentences that give it "
            "are quoted again here"
        )
    excerpt = reason_excerpt(q.text, relevance)
    short = len(excerpt.split()) < EXCERPT_SHARE * len(q.text.split())
    said = f": \u201c{excerpt}\u201d" if short else ""
    return f"the reason {f.names([pid])} gave [{q.id}]{said}"


def reason(f: FollowUp, reading: Reading) -> RouteResult:
    """Why: the passages where the same panelist(s) give a cause or motivation for the subject -- the
    rest of the last answer first, then their related answers -- including one already shown when the
    reason sits there (the note quotes it, with its id); when the talk gives none, it says so."""
    speakers = f.asked(reading.addressed)
    terms = merged(reading.terms, f.subject.terms, 1.0)
    scores, top = weighted_scores(f.router, terms, set(speakers))
    s = _Search(f, speakers, terms, scores, top, reading.about_the_answer)
    last = [
        qid
        for qid in f.subject.quote_ids
        if (q := f.panel.quote(qid)) is not None and q.speaker in speakers
    ]
    found = _reasons(s, last)
    quotes = f.router.index.quotes
    again = [r for r in found if quotes[r[1]].id in f.given]
    found = [r for r in found if quotes[r[1]].id not in f.given]
    if again and not found:
        # asked "why?" again: the only reasons in the talk are the ones just given
        ids = ", ".join(dict.fromkeys(quotes[i].id for _, i, _ in again))
        return f.decline(
            f"{f.names(speakers)} gave no other reason for that on the panel than the "
            f"one just shown ({ids}).",
            reading.addressed,
            off_topic=False,
        )
    per = _per_speaker(f, found)
    answering = [p for p in speakers if per.get(p)]
    if not answering:
        return _no_reason(s, reading)
    picked = [
        _only_what_explains(f, scored_quote(f.router, i, sc, top, terms), s.relevance)
        for p in answering
        for i, sc in per[p]
    ]
    notes = [_note(f, p, per[p][0][0], s.relevance) for p in answering]
    silent = [p for p in speakers if p not in answering]
    tail = f"; {f.names(silent)} gave no reason for it" if silent else ""
    return f.answer(
        answering, picked, f"{f.about()}: " + "; ".join(notes) + tail, reading.addressed
    )
