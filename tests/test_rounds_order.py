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
