"""A round: the host asks everyone, and each panelist answers once. The round's answers the field decided
or left open are settled together (``settle_rounds``, after each pass of ``speakers._attribute``): distinct
panelists with the most evidence in total, else the order the panelists were introduced (only when the field
prefers no other assignment: a round is often answered out of seating order)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from panelbot.ingest.names import HOST, UNKNOWN
from panelbot.ingest.profiles import clear_lead

if TYPE_CHECKING:
    from panelbot.ingest.speakers import SpeakerTurn


def _in_order(
    open_: list[SpeakerTurn], pool: list[str], ids: list[str], first: str = ""
) -> list[str] | None:
    """The panelists left for a round's open answers in the order the talk introduced them, when that many
    answers are open and no answer's own evidence clearly points to someone else: panelists answer a round
    the way they sit, which is how the host presented them."""
    if len(pool) != len(open_):
        return None
    # from the one who opened it, when the host named someone to start ("Keisha, you start."), round the table
    offset = ids.index(first) if first in ids else 0
    order = sorted(pool, key=lambda p: (ids.index(p) - offset) % len(ids))
    for t, p in zip(open_, order, strict=True):
        mine = t.field_scores.get(p, 0.0)
        if any(
            v >= _ROUND_ORDER_OVERRULED
            and clear_lead(v, mine)
            and v - mine >= _ROUND_ORDER_OVERRULED
            for q, v in t.field_scores.items()
            if q != p and q in pool
        ):
            return None
    return order


_ROUND_ORDER_OVERRULED = (
    5.0  # field evidence this far ahead of the seating order's panelist overrules it
)

_ROUND_FIELD_SPEAKS = (
    0.5  # evidence each answer of a round needs before the field, not the order, settles it
)
# ... or the field's best assignment leading the seating order's by this much evidence in total (swept on the
# dev dirs of scripts/fixture_talks.py and scripts/attribution_accuracy.py: 0 to 0.5 the same, +6 and -2
# answers; 1 to 3 +5 and -2; 4 +3 and -2)
_ROUND_FIELD_PREFERRED = 0.5


def settle_rounds(turns: list[SpeakerTurn], ids: list[str]) -> None:
    """In a round each panelist answers once. The answers the field decided (or left open) get the assignment
    of distinct panelists with the most evidence in total, around the ones already settled; each keeps its
    panelist only when that one clearly leads among those the others did not take. When every panelist
    left answers and nothing clearly says otherwise, they answer in the order they were introduced."""
    for block in _round_blocks(turns):
        _settle_round(block, ids)


def _round_blocks(turns: list[SpeakerTurn]) -> Iterator[list[SpeakerTurn]]:
    """Each run of consecutive answers to a round (no host turn between them)."""
    i = 0
    while i < len(turns):
        if turns[i].speaker == HOST or not turns[i].in_round:
            i += 1
            continue
        j = i
        while j < len(turns) and turns[j].speaker != HOST and turns[j].in_round:
            j += 1
        yield turns[i:j]
        i = j


def _open_in_round(block: list[SpeakerTurn]) -> list[SpeakerTurn]:
    """A round's answers the field decided or left open (with field evidence to settle them by)."""
    return [
        t
        for t in block
        if t.field_scores
        and (
            t.speaker == UNKNOWN
            or t.why.startswith("their field")
            or t.why == "the last one in the round"
        )
    ]


def _settle_round(block: list[SpeakerTurn], ids: list[str]) -> None:
    """Settle one round's open answers: by the seating order when the field does not speak for every one of
    them, else by the assignment of distinct panelists with the most evidence."""
    open_ = _open_in_round(block)
    if len(open_) < 2:
        return
    taken = {t.speaker for t in block if t not in open_ and t.speaker != UNKNOWN}
    pool = sorted({p for t in open_ for p in t.field_scores} - taken)
    if len(pool) < len(open_) or len(pool) > 7:
        return
    best = _best_assignment(open_, pool)
    # the field settles the round only when it speaks for every answer; else the seating order does
    informative = all(
        t.field_scores.get(p, 0.0) >= _ROUND_FIELD_SPEAKS for t, p in zip(open_, best, strict=True)
    )
    opener = block[0].speaker if block[0] not in open_ else ""
    order = None if informative else _in_order(open_, pool, ids, opener)
    if order is not None and _total(open_, best) - _total(open_, order) >= _ROUND_FIELD_PREFERRED:
        order = None  # the field prefers another assignment: it settles, flagged as the field's
    if order is not None:
        _settle_in_order(open_, order)
        return
    for t, p in zip(open_, best, strict=True):
        others_taken = {q for u, q in zip(open_, best, strict=True) if u is not t} | taken
        _settle_by_field(t, p, others_taken, len(open_) + len(taken))


def _total(open_: list[SpeakerTurn], who: list[str] | tuple[str, ...]) -> float:
    """The field evidence in total for giving the open answers these panelists, in turn."""
    return sum(t.field_scores.get(p, 0.0) for t, p in zip(open_, who, strict=True))


def _settle_in_order(open_: list[SpeakerTurn], order: list[str]) -> None:
    """Give the open answers the panelists in the order the talk introduced them."""
    for t, p in zip(open_, order, strict=True):
        if t.speaker != p:
            t.speaker, t.why = p, "the round, in the order the panelists were introduced"


def _best_assignment(open_: list[SpeakerTurn], pool: list[str]) -> tuple[str, ...]:
    """Distinct panelists of ``pool`` for the open answers, in their order, with the most field evidence in
    total (the first such assignment when several tie)."""
    from itertools import permutations

    return max(
        permutations(pool, len(open_)),
        key=lambda perm: sum(t.field_scores.get(p, 0.0) for t, p in zip(open_, perm, strict=True)),
    )


def _settle_by_field(t: SpeakerTurn, p: str, others_taken: set[str], answering: int) -> None:
    """One open answer of a round, given panelist ``p`` by the best assignment: theirs when ``p`` clearly
    leads among the panelists the other answers did not take, or when no one else is left (and at least
    two answer the round); otherwise ``unknown``, unless it was already."""
    rest = [v for q, v in t.field_scores.items() if q != p and q not in others_taken]
    if p in t.field_scores and clear_lead(t.field_scores[p], max(rest, default=0.0)):
        if t.speaker != p:
            t.speaker = p
            t.why = f"the round: each panelist answers once (evidence {t.field_scores[p]:.1f})"
    elif p in t.field_scores and not rest and answering >= 2:
        if t.speaker != p:  # everyone else answered this round: the one left
            t.speaker, t.why = p, "the last one in the round"
    elif t.speaker != UNKNOWN:
        t.why = f"ambiguous: in a round, {t.speaker} fits another answer better"
        t.speaker = UNKNOWN
