"""Elaboration (a pronoun or an ellipsis: "how long does that take?", "and for training?"): the message's
words plus the previous subject's words, weighted below them, retrieve; the previous panelist keeps the floor
unless the new words clearly belong to someone else."""

from __future__ import annotations

from panelbot.conversation.kinds import Reading
from panelbot.conversation.strategies.context import FollowUp, PerSpeaker
from panelbot.conversation.subject import SUBJECT_WEIGHT, label_moved_to
from panelbot.conversation.terms import merged, names_a_subject, subject_weight_under_new_words
from panelbot.retrieval.results import RouteResult

SUBJECT_WEIGHT_STANDING = (
    0.25  # the subject's weight when the message would stand on its own anyway
)
STAY_RATIO = 0.5  # the previous panelist keeps the floor at this share of the best
SWITCH_RATIO = 0.5  # the new words alone must favour another panelist this clearly to switch


def _terms(f: FollowUp, reading: Reading) -> dict[str, float]:
    stands = reading.evidence >= f.router.settings.scope_floor
    weight = SUBJECT_WEIGHT_STANDING if stands else SUBJECT_WEIGHT
    if stands:
        # new words that would stand on their own ("is that what DeepSeek does?") lead, however many
        # terms the subject has
        weight = subject_weight_under_new_words(f.router, reading.terms, f.subject.terms, weight)
    return merged(reading.terms, f.subject.terms, weight)


def _who_keeps_the_floor(f: FollowUp, reading: Reading, per: PerSpeaker, top: float) -> list[str]:
    """The previous panelist(s) while they match well enough -- unless the new words that name a subject
    clearly belong to someone else ("and how did MiniMax train it?"); everyday words ("a practical use")
    never move the floor. Else whoever matches best."""
    strength = {p: f.strength(per.get(p, []), top) for p in f.panel.panelists}
    best = max(strength.values(), default=0.0)
    previous = [p for p in f.subject.speakers if strength.get(p, 0.0) >= STAY_RATIO * best]
    specific = {t: w for t, w in reading.terms.items() if names_a_subject(f.router, t)}
    if previous and specific:
        own, own_top = f.best_by_speaker(specific)
        mine = {p: f.strength(own.get(p, []), own_top) for p in f.panel.panelists}
        lead = max(mine.values(), default=0.0)
        if lead > 0 and all(mine[p] < SWITCH_RATIO * lead for p in previous):
            previous = []
            strength = mine
    order = list(f.panel.panelists)
    return previous or [max(order, key=lambda p: (strength[p], -order.index(p)))]


def elaboration(f: FollowUp, reading: Reading) -> RouteResult:
    """The new words plus the previous subject (weighted below them); the previous panelist keeps the
    floor unless the new words clearly belong to someone else."""
    terms = _terms(f, reading)
    per, top = f.best_by_speaker(terms)
    speakers = f.forced() or list(reading.addressed) or _who_keeps_the_floor(f, reading, per, top)
    spoke = set(f.who_spoke(per, top))
    answering = [p for p in speakers if p in spoke]
    if not answering:
        did = [p for p in f.panel.panelists if p in spoke and p not in speakers]
        who = f" ({f.names(did)} did)" if did else ""
        return f.decline(
            f"{f.names(speakers)} didn't speak to that on the panel{who}",
            reading.addressed,
            off_topic=not did,
        )
    quotes = f.pick(per, top, answering, terms, penalise_shown=True)
    # "what does he think about sparse attention?": a follow-up by its pronoun, about what it names
    moved = label_moved_to(f.router, f.subject, reading, [sq.quote.id for sq in quotes])
    about = f"follow-up about {moved}" if moved else f.about()
    if any(p in f.subject.speakers for p in answering):
        reason = f"{about}: {f.names(answering)} on that"
    else:
        reason = f"{about}: {f.names(answering)}'s best-matching quotes"
    return f.answer(answering, quotes, reason, reading.addressed)
