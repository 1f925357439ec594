"""More about a panelist after the talk's framing or their introduction ("who is Dan?" -> "tell me more",
"what is this talk about?" -> "and Olive?"): what they spoke to on the panel -- their first answer to each
of the host's questions, in talk order, not shown yet -- their introduction only when not shown yet."""

from __future__ import annotations

from panelbot.conversation.kinds import Reading
from panelbot.conversation.strategies.context import FollowUp
from panelbot.conversation.subject import talk_order
from panelbot.conversation.terms import scored_quote
from panelbot.retrieval.results import RouteResult


def _first_answers(f: FollowUp, pid: str, n: int, intros: set[str]) -> list[str]:
    """The panelist's first quote answering each host question, in talk order, skipping what was shown."""
    theirs = sorted(f.panel.quotes_by(pid), key=lambda q: talk_order(q, q.id))
    out: list[str] = []
    asked: set[str | None] = set()
    for q in theirs:
        if q.id in intros or q.id in f.shown or (q.question is not None and q.question in asked):
            continue
        asked.add(q.question)
        out.append(q.id)
        if len(out) >= n:
            break
    return out


def panelist_overview(f: FollowUp, reading: Reading, speakers: list[str]) -> RouteResult:
    """Who they are when not introduced yet, else what each of them spoke to on the panel (see module doc);
    declined when all is shown."""
    introductions = f.router.framing_reader().introductions()
    intros = {q.id for q in introductions.values()}
    # one not introduced yet in this conversation ("and Dan?" after "what does Olive do?"): who they are
    unmet = [introductions[p].id for p in speakers if p in introductions]
    if unmet and not set(unmet) & f.shown:
        ids = unmet
        index_of = f.index_of(ids)
        quotes = [scored_quote(f.router, index_of[q], 1.0, 1.0, {}) for q in ids if q in index_of]
        reason = f"{f.names(speakers)}'s introduction on the panel"
        return f.answer(list(speakers), quotes, reason, reading.addressed)
    each = max(1, -(-f.k // max(1, len(speakers))))
    ids = [qid for p in speakers for qid in _first_answers(f, p, each, intros)]
    index_of = f.index_of(ids)
    quotes = [scored_quote(f.router, index_of[q], 1.0, 1.0, {}) for q in ids if q in index_of]
    if not quotes:
        return f.decline(
            f"everything {f.names(speakers)} said on the panel is already in this conversation",
            reading.addressed,
            off_topic=False,
        )
    answering = [p for p in speakers if any(sq.quote.speaker == p for sq in quotes)]
    reason = f"more about {f.names(answering)}: the first things {f.names(answering)} spoke to on the panel"
    return f.answer(answering, quotes, reason, reading.addressed)
