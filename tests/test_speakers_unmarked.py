"""Turns where the captions missed a '>>': a reply by name or someone breaking in starts a new speaker
(issue 21 §2, class g)."""

from __future__ import annotations

from panelbot.ingest.captions import split_turns
from panelbot.ingest.speakers import identify_speakers

_OPENING = (
    "Welcome, everyone. Let's go around and introduce ourselves. >> Hi, I'm Kofi, I design battery "
    "chemistry at Voltaic. >> And I'm Mirela, I run a recycling plant for old batteries. >> And I'm Tanvi, "
    "I set energy policy for the state. >> "
)


def _speaker_of(turns, start: str) -> str:  # noqa: ANN001
    return next(t.speaker for t in turns if t.text.startswith(start))


def test_a_reply_by_name_inside_a_turn_is_someone_else() -> None:
    raw = split_turns(
        _OPENING
        + "Mirela, who pays for recycling today? >> Mostly the producers, through a levy on every "
        "pack sold, and the levy has not changed in ten years. And that's exactly it, Mirela. The levy was "
        "set when packs were small, so the policy has to catch up with the market."
    )
    turns, _ = identify_speakers(raw)
    assert _speaker_of(turns, "Mostly") == "mirela"
    assert _speaker_of(turns, "And that's exactly it") not in ("mirela", "host")


def test_someone_breaking_in_inside_a_turn_is_someone_else() -> None:
    raw = split_turns(
        _OPENING
        + "Kofi, why do batteries lose capacity? >> The electrodes crack as lithium moves in and out, "
        "a little more on every charge, until after a few thousand cycles the cell holds less than it did. "
        "Sorry, can I jump in there, because in "
        "the plant we see packs that failed in the electronics, not in the cells."
    )
    turns, _ = identify_speakers(raw)
    assert _speaker_of(turns, "The electrodes") == "kofi"
    assert _speaker_of(turns, "Sorry, can I jump in") not in ("kofi", "host")


def test_naming_someone_inside_ones_own_answer_is_no_new_speaker() -> None:
    raw = split_turns(
        _OPENING
        + "Kofi, why do batteries lose capacity? >> The electrodes crack as lithium moves in and out, "
        "a little more on every charge. As Mirela said earlier, the packs also fail in the electronics, "
        "which is where most of the cost is."
    )
    turns, _ = identify_speakers(raw)
    assert _speaker_of(turns, "The electrodes") == "kofi"
    assert not any(t.text.startswith("As Mirela") for t in turns)


def test_a_remark_in_the_hosts_own_voice_then_giving_the_floor_is_the_hosts() -> None:
    raw = split_turns(
        _OPENING
        + "Kofi, why do batteries lose capacity? >> The electrodes crack as lithium moves in and out, "
        "a little more on every charge, until after a few thousand cycles the cell holds less. >> A little "
        "more on every charge. I love that. We've got time for a question or two. Yes, at the back. >> "
        "Hi, thanks. Is it safe to charge my phone overnight?"
    )
    turns, _ = identify_speakers(raw)
    assert _speaker_of(turns, "A little more on every charge") == "host"


def test_someone_asking_to_say_something_inside_a_turn_is_someone_else() -> None:
    raw = split_turns(
        _OPENING
        + "Kofi, why do batteries lose capacity? >> The electrodes crack as lithium moves in and out, "
        "a little more on every charge, until after a few thousand cycles the cell holds less than it did. "
        "And can I say, the packs we take in at the plant mostly failed in the electronics, not the cells."
    )
    turns, _ = identify_speakers(raw)
    assert _speaker_of(turns, "The electrodes") == "kofi"
    assert _speaker_of(turns, "And can I say") not in ("kofi", "host")
