"""Continuation ("tell me more", "go on", "how so?"): the same panelist(s) on the same subject, what was not
shown yet -- the rest of the same answer first, then their related answers (not for "how so?", which asks
about the answer itself); when nothing new is left, it says so, naming what they did say by id."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from panelbot.conversation.cues import CLARIFY, MORE, OTHER
from panelbot.conversation.kind_bank import CLARIFY as CLARIFY_KIND
from panelbot.conversation.kind_bank import kind_of
from panelbot.conversation.kinds import Reading
from panelbot.conversation.strategies.context import PER_SPEAKER, RELATED_RATIO, FollowUp
from panelbot.conversation.strategies.other_panelist import others_who_would_answer
from panelbot.conversation.terms import merged, ranked, scored_quote, weighted_scores
from panelbot.retrieval.results import RouteResult

if TYPE_CHECKING:
    from panelbot.conversation.router_view import FollowUpRouter


def asks_what_it_means(router: FollowUpRouter, message: str) -> bool:
    """ "how so?", "what do you mean by that?": about the answer itself, never another one -- by its cue
    words, or by meaning (``kind_bank``: its nearest example asks what was meant)."""
    if MORE.search(message):
        return False
    return bool(CLARIFY.search(message)) or kind_of(router, message) == CLARIFY_KIND


def _rest_of_answer(f: FollowUp, speakers: list[str]) -> list[str]:
    """The same speakers' quotes in the turn being answered, not shown yet: after the last one shown
    first, in spoken order, then the ones before it."""
    positions: dict[tuple[str, int | None], int] = {}
    for qid in f.answer_being_given(speakers):
        q = f.panel.quote(qid)
        if q is not None and q.turn is not None:  # a quote with no turn is no part of an answer
            key = (q.speaker, q.turn)
            positions[key] = max(positions.get(key, -1), f.position(q))
    rest = []
    for speaker in {sp for sp, _ in positions}:
        for q in f.panel.quotes_by(speaker):
            key = (q.speaker, q.turn)
            if key in positions and q.id not in f.shown:
                after = f.position(q) > positions[key]
                rest.append((0 if after else 1, f.position(q), q.id))
    return [qid for _, _, qid in sorted(rest)]


def _chosen(
    f: FollowUp,
    speakers: list[str],
    scores: dict[int, float],
    top: float,
    on_subject: bool,
) -> list[tuple[int, float]]:
    best = max(scores.values(), default=0.0)
    clarifying = asks_what_it_means(f.router, f.message)
    # related answers by the same panelist(s), not shown: close to the subject's best match, or about one of
    # the subject's own specific words ("kv cache", "rl") -- not for "how so?": that is in the answer itself
    about = {} if clarifying else f.about_distinctive_terms(speakers)

    def related(i: int, s: float) -> bool:
        return 100.0 * s / top >= f.floor and (s >= RELATED_RATIO * best or about.get(i, 0.0) > 0)

    keep: Callable[[int, float], bool] = (
        related if on_subject else (lambda i, s: 100.0 * s / top >= f.floor)
    )
    rest = _rest_of_answer(f, speakers)
    index_of = f.index_of(rest)
    chosen: list[tuple[int, float]] = []
    seen: set[str] = set()
    for qid in rest:
        i = index_of[qid]
        s = max(scores.get(i, 0.0), 0.0)
        if top and keep(i, s):
            chosen.append((i, s))
            seen.add(qid)
    if clarifying:
        return chosen
    # a panelist's self-introduction is never "more" on a subject: it is what they do, not what they said
    intros = {q.id for q in f.router.framing_reader().introductions().values()}
    for i, s in ranked(scores, len(f.shown) + len(seen) + f.k + PER_SPEAKER):
        q = f.router.index.quotes[i]
        if q.id in f.shown or q.id in seen or q.id in intros:
            continue
        if related(i, s):
            chosen.append((i, s))
            seen.add(q.id)
        if len(chosen) >= f.k:
            break
    return chosen


def continuation(f: FollowUp, reading: Reading, *, on_subject: bool = False) -> RouteResult:
    """The same panelist(s), the same subject; what was not shown yet, the rest of the answer first --
    where it matches the subject at least the minimum quote score (a turn can move on to something
    else). ``on_subject``: asked for their view again ("What does Dan think?" after his answer), the rest
    of the answer counts only where it is about the subject as a related answer must be. When nothing
    is left, it says so, by id."""
    speakers = f.asked(reading.addressed)
    on_subject = on_subject or bool(OTHER.search(f.message))  # their view, not the rest of the turn
    terms = merged(reading.terms, f.subject.terms, 1.0)
    scores, top = weighted_scores(f.router, terms, set(speakers))
    chosen = _chosen(f, speakers, scores, top, on_subject)
    picked = [scored_quote(f.router, i, s, top, terms) for i, s in chosen[: f.k]]
    if not picked:
        # named only when asking them would be answered (the other panelist's own reading of it)
        spoke = [p for p in others_who_would_answer(f) if p not in speakers]
        said = f.shown_ids_note(speakers, f.on_subject(scores, top))
        return f.decline(
            f"{f.names(speakers)} had nothing more to say about {f.subject.label} than what you've "
            f"already seen{said}.{f.spoke_too(spoke)}",
            reading.addressed,
            off_topic=False,
        )
    answering = [p for p in speakers if any(sq.quote.speaker == p for sq in picked)]
    reason = f"{f.about()}: more from {f.names(answering)}, not shown yet"
    return f.answer(answering, picked, reason, reading.addressed)
