"""A round's answers that the field only partly speaks for (issue 21 §2): the seating order decides them only
when the field prefers no other assignment, since a round is often answered out of seating order; what the
field settles stays doubtful (flagged), as the order's guess was."""

from __future__ import annotations

from panelbot.ingest.basis import is_doubtful
from panelbot.ingest.rounds import settle_rounds
from panelbot.ingest.speakers import SpeakerTurn

IDS = ["ana", "ben", "cleo"]  # the order the host introduced them


def _answer(text: str, scores: dict[str, float]) -> SpeakerTurn:
    t = SpeakerTurn("unknown", text, why="ambiguous: the field evidence is close")
    t.in_round, t.field_scores = True, scores
    return t


def _round(*answers: SpeakerTurn) -> list[SpeakerTurn]:
    ask = SpeakerTurn("host", "One last thought from each of you?", why="asks a question")
    return [ask, *answers]


def test_the_field_settles_a_round_it_prefers_out_of_seating_order() -> None:
    turns = _round(
        _answer("Measure the ice every spring.", {"ana": 0.2, "ben": 0.0, "cleo": 1.2}),
        _answer("Go and see it while you can.", {"ana": 1.0, "ben": 0.1, "cleo": 0.0}),
        _answer("Start early, come down early.", {"ana": 0.0, "ben": 0.3, "cleo": 0.0}),
    )
    settle_rounds(turns, IDS)
    assert [t.speaker for t in turns[1:]] == ["cleo", "ana", "ben"]
    assert all(is_doubtful(t.why) for t in turns[1:])


def test_the_seating_order_decides_where_the_field_prefers_nothing_else() -> None:
    turns = _round(
        _answer("Measure the ice every spring.", {"ana": 0.3, "ben": 0.0, "cleo": 0.0}),
        _answer("Go and see it while you can.", {"ana": 0.0, "ben": 0.0, "cleo": 0.0}),
        _answer("Start early, come down early.", {"ana": 0.0, "ben": 0.0, "cleo": 0.1}),
    )
    settle_rounds(turns, IDS)
    assert [t.speaker for t in turns[1:]] == ["ana", "ben", "cleo"]
    assert all(t.why == "the round, in the order the panelists were introduced" for t in turns[2:])


def test_two_field_turns_in_a_row_get_the_pair_with_most_evidence() -> None:
    """Decided one at a time, the first field turn took the engineer, and the engineer's own break-in after
    it went to someone else; together, the two distinct panelists with most evidence win."""
    from panelbot.ingest.speakers import _settle_field_pairs

    ask = SpeakerTurn("host", "Is warmer light better for them?", why="asks a question")
    first = SpeakerTurn("ben", "Warmer is better, yes.", why="their field (evidence 2.3 vs 0.1)")
    first.field_scores = {"ana": 0.1, "ben": 2.3, "cleo": 0.0}
    second = SpeakerTurn(
        "ana", "Can I come in there? Our lamps dim.", why="their field (evidence 0.4 vs 0.2)"
    )
    second.field_scores = {"ana": 0.4, "ben": 3.9, "cleo": 0.2}
    turns = [ask, first, second, SpeakerTurn("host", "Is it safe?", why="asks a question")]
    _settle_field_pairs(turns, IDS)
    assert [first.speaker, second.speaker] == ["ana", "ben"]  # 0.1 + 3.9 over 2.3 + 0.4
    assert is_doubtful(first.why) and is_doubtful(second.why)
