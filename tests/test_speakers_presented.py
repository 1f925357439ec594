"""Guests the host presents are panelists, and the host's words that say who is asked (issue 21 §2,
class e): a guest presented by full name in a turn that asks, a remark to the last speaker before a new
question, a title said to its holder, a round called without a question mark."""

from __future__ import annotations

from panelbot.ingest.captions import split_turns
from panelbot.ingest.speakers import identify_speakers

_TALK = (
    "Hi everyone, welcome to tonight's talk on choirs. I'm Tom Whitcombe, I present the music programme. "
    "We've got three guests. Ingrid, do you want to tell people who you are? >> Sure. I'm Ingrid "
    "Brekke-Solheim, I'm a choral conductor from Bergen and I run two community choirs here in town. >> "
    "Lovely. And next to Ingrid we have Dr. Kwame Asante-Boateng, who is a voice specialist at the "
    "hospital. And on the end, Maëlle Le Goff, who is an acoustician, so she designs concert halls. Why "
    "does singing make people feel good? Kwame, is there anything medical in that? >> There is, yes, the "
    "breathing slows down and the heart rates of the singers start to move together after a while. >> "
    "And I see that from the front every week, people come in tired and leave laughing at my jokes. >> "
    "You're not, Ingrid, I've been. Okay, the room. A lot of choirs rehearse in a school hall with a "
    "carpet. Does the room actually matter? >> Oh, it matters enormously, the reverberation time of the "
    "hall decides how loud everybody has to sing to hear their neighbours. >> So, doctor, is that bad "
    "for the voice? >> It can be, the vocal folds swell when people force them for years, we see it in "
    "clinic every week. >> Last one, a quick round, and anyone can go first. One piece of advice for a "
    "new singer. >> Drink water and never shout over the music in the pub afterwards, doctor's orders. "
    ">> Stand in the middle of the row so you hear everybody around you. >> Come three times before you "
    "decide, the first night is always terrifying. >> Water, the middle, three nights. Thank you all."
)


def _speaker_of(turns, start: str) -> str:  # noqa: ANN001
    return next(t.speaker for t in turns if t.text.startswith(start))


def test_a_guest_presented_in_a_turn_that_asks_is_a_panelist() -> None:
    _, names = identify_speakers(split_turns(_TALK))
    assert names == ["Ingrid", "Kwame", "Maëlle"]


def test_a_remark_to_the_last_speaker_does_not_put_the_next_question_to_them() -> None:
    turns, _ = identify_speakers(split_turns(_TALK))
    assert _speaker_of(turns, "You're not, Ingrid").startswith("host")
    room = next(t for t in turns if t.text.startswith("You're not, Ingrid"))
    assert room.addressed == []
    assert _speaker_of(turns, "Oh, it matters") != "ingrid"


def test_a_title_said_to_its_holder_puts_the_question_to_them() -> None:
    turns, _ = identify_speakers(split_turns(_TALK))
    asked = next(t for t in turns if t.text.startswith("So, doctor"))
    assert asked.addressed == ["kwame"]
    assert _speaker_of(turns, "It can be") == "kwame"


def test_a_round_called_without_a_question_mark_is_the_hosts() -> None:
    turns, _ = identify_speakers(split_turns(_TALK))
    assert _speaker_of(turns, "Last one, a quick round") == "host"
    assert {_speaker_of(turns, s) for s in ("Drink", "Stand", "Come")} <= {
        "ingrid",
        "kwame",
        "maelle",
    }
