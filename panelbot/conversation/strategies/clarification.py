"""Clarification ("how so?", "what do you mean by that?"): what was just said, read in context -- the
passage of the last answer (the speaker's whole turn on stage, in spoken order, shown before or not), never
another answer and never "nothing more"."""

from __future__ import annotations

from panelbot.conversation.kinds import Reading
from panelbot.conversation.strategies.context import FollowUp
from panelbot.conversation.terms import merged, scored_quote, weighted_scores
from panelbot.retrieval.results import RouteResult, ScoredQuote

PASSAGE_QUOTES = 6  # at most this many quotes of the turn are shown as its passage


def _passage(f: FollowUp, speakers: list[str]) -> list[str]:
    """The quotes of the turn each speaker's last answer came from, in spoken order."""
    out: list[str] = []
    for qid in f.answer_being_given(speakers):
        q = f.panel.quote(qid)
        if q is None or q.turn is None:
            out.append(qid)  # no turn known: the answer itself is its passage
            continue
        turn = [t for t in f.panel.quotes_by(q.speaker) if t.turn == q.turn]
        turn.sort(key=f.position)
        out.extend(t.id for t in turn)
    return list(dict.fromkeys(out))[:PASSAGE_QUOTES]


def clarification(f: FollowUp, reading: Reading, *, no_cause: bool = False) -> RouteResult | None:
    """The last answer's passage in context, or None when the answer's quotes are unknown. ``no_cause``:
    asked why ("why is that hard?") when the answer states no cause -- the note says so."""
    speakers = f.asked(reading.addressed)
    ids = _passage(f, speakers)
    if not ids:
        return None
    terms = merged(reading.terms, f.subject.terms, 1.0)
    scores, top = weighted_scores(f.router, terms, set(speakers))
    index_of = f.index_of(ids)
    quotes: list[ScoredQuote] = [
        scored_quote(f.router, index_of[qid], max(scores.get(index_of[qid], 0.0), 0.0), top, terms)
        for qid in ids
        if qid in index_of
    ]
    if not quotes:
        return None
    answering = [p for p in speakers if any(sq.quote.speaker == p for sq in quotes)]
    ids_said = ", ".join(sq.quote.id for sq in quotes)
    what = (
        f"{f.names(answering)} gave no reason beyond the answer itself"
        if no_cause
        else f"what {f.names(answering)} meant"
    )
    reason = f"{f.about()}: {what}, the passage in context ({ids_said}, in the order it was said)"
    return f.answer(answering, quotes, reason, reading.addressed)
