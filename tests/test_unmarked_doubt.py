"""In a transcript that marks no speaker at all, every cut is a guess: a turn is firm only where the evidence
for its speaker sits at its cut, and the health report points at turns that may hold another speaker's words
where the segmenter missed a cut (issue 21, "a health report that flags every turn whose attribution rests
only on order or field"). Labelled transcripts and '>>'-marked captions are not touched."""

from __future__ import annotations

from pathlib import Path

from panelbot.ingest.basis import doubtful_part
from panelbot.ingest.draft import build_draft, segment, write_draft
from panelbot.ingest.health import panel_health
from panelbot.ingest.speakers import SpeakerTurn
from panelbot.ingest.unmarked import (
    HOST_GOES_ON,
    HOST_OPINION,
    HOST_REPLY,
    NAME_NOT_AT_CUT,
    _host_reply,
    flag_unmarked,
)
from panelbot.panel import load_panel

# (speaker, words) of a talk about rivers; the speakers are only for the labelled and '>>' versions
RIVER = [
    (
        "Ruth",
        "Good evening and welcome. I'm Ruth Okoro, and tonight we're talking about rivers. With me are "
        "Tomasz Nowicki, who studies river fish at the university, and Leila Haddad, who farms beside the "
        "river. Tomasz, let's start with you, because the salmon are news this year. What is happening to "
        "them?",
    ),
    (
        "Tomasz",
        "They're running later, mostly. The water in the lower river is about two degrees warmer than it "
        "was thirty years ago, and the fish wait in the estuary until it cools. Some years they wait for "
        "weeks, and the seals know exactly where to find them.",
    ),
    ("Ruth", "The seals know where to find the salmon."),
    (
        "Tomasz",
        "Yes, the seals. They sit at the mouth of the river and take the tired ones first, which nobody "
        "planned for.",
    ),
    ("Ruth", "Leila, what does the heat mean on the farm?"),
    (
        "Leila",
        "It means the fields dry out by July and the ditches stop running, so we pump more water than we "
        "ever did. My father never pumped a drop in his whole life on that land.",
    ),
    ("Ruth", "Two pumps. Wow, okay."),
    ("Leila", "And now we need a licence for each of them, which costs money every single year."),
    ("Ruth", "So what can a farmer actually do about the ditches?"),
    (
        "Leila",
        "We plant willows along the banks, so the water stays shaded and cool, and we leave a strip of "
        "grass by the river that nobody ploughs or sprays.",
    ),
    (
        "Ruth",
        "We've had a lot of questions from listeners this week, so here's one from Sam in Leeds, who "
        "writes that the river near his house smells of sewage every summer. Is it safe to swim in it?",
    ),
    (
        "Tomasz",
        "Only after a dry week, honestly. After rain the overflows open and the water carries everything "
        "the drains carry, so it is worth checking the map the water company publishes before you go in.",
    ),
    ("Ruth", "Thank you both so much, and thank you all for listening."),
]
UNMARKED = "River Talk\n\n" + " ".join(text for _, text in RIVER) + "\n"
LABELLED = "".join(
    f"{i}\n00:00:{2 * i:02d},000 --> 00:00:{2 * i + 2:02d},000\n{who}: {text}\n\n"
    for i, (who, text) in enumerate(RIVER, 1)
)
MARKED = "River Talk\n\n" + "\n".join(f">> {text}" for _, text in RIVER) + "\n"
GUESSED = "nothing marks a new speaker"


def _holding(turns: list[SpeakerTurn], words: str) -> SpeakerTurn:
    return next(t for t in turns if words in t.text)


def _whys(t: SpeakerTurn) -> str:
    return " | ".join(why for _, why in t.reasons())


def _doubt(t: SpeakerTurn) -> str:
    part = doubtful_part(t.reasons())
    return part[1] if part else ""


def test_a_host_echo_inside_an_answer_is_flagged_where_it_sits() -> None:
    """The segmenter did not cut at the host's echo: the answer holding it is flagged at the echo."""
    _, turns, _ = segment(UNMARKED)
    answer = _holding(turns, "They're running later")
    assert answer.speaker == "tomasz"
    at, why = doubtful_part(answer.reasons()) or (None, "")
    assert "echoes the sentence before" in why
    assert " ".join(answer.text.split()[at:]).startswith("The seals know where to find the salmon.")


def test_the_floor_given_inside_an_answer_is_flagged() -> None:
    _, turns, _ = segment(UNMARKED)
    answer = _holding(turns, "We plant willows")
    assert "gives the floor" in _whys(answer)


def test_a_host_turn_opening_by_agreeing_or_going_on_is_flagged() -> None:
    """'Yes, the seals.' and 'And now we need a licence …' are the panelist's words the host's turn took."""
    _, turns, _ = segment(UNMARKED)
    assert _holding(turns, "Yes, the seals.").speaker == "host"
    assert _doubt(_holding(turns, "Yes, the seals.")) == HOST_REPLY
    assert _holding(turns, "And now we need a licence").speaker == "host"
    assert _doubt(_holding(turns, "And now we need a licence")) == HOST_GOES_ON


def test_an_answer_after_a_hand_over_to_them_alone_is_firm() -> None:
    _, turns, _ = segment(UNMARKED)
    answer = _holding(turns, "It means the fields dry out")
    assert answer.speaker == "leila" and _doubt(answer) == ""


def test_the_health_report_points_at_the_guessed_turns(tmp_path: Path) -> None:
    out = tmp_path / "river"
    write_draft(build_draft(UNMARKED, "river"), UNMARKED, out)
    doubtful = panel_health(load_panel(out)).doubtful
    starts = [d["first_words"] for d in doubtful if GUESSED in d["why"]]
    assert any(s.startswith("The seals know where") for s in starts)
    assert any(s.startswith("Yes, the seals.") for s in starts)
    assert not any(s.startswith("It means the fields") for s in starts)


def test_labelled_and_marked_transcripts_are_not_flagged_so() -> None:
    for captions in (LABELLED, MARKED):
        _, turns, _ = segment(captions)
        assert len(turns) >= 10
        assert not [t.text[:40] for t in turns if GUESSED in _whys(t)], captions[:30]


def _turn(speaker: str, text: str, why: str) -> SpeakerTurn:
    return SpeakerTurn(speaker, text, why=why)


def test_a_name_not_handed_over_at_the_cut_is_no_firm_ground() -> None:
    """A reply by name ('Exactly, Tomasz.') decided the turn before it, but the host's question before
    that named no one: the cut itself was only guessed."""
    turns = [
        _turn("host", "Is it safe to swim in the river in summer?", "asks a question"),
        _turn(
            "tomasz",
            "Only after a dry week. After rain the overflows open and the water carries everything.",
            "the next speaker answers them by name",
        ),
        _turn(
            "leila",
            "Exactly, Tomasz. And the farms drain into it too, every field along the banks.",
            "the other panelist",
        ),
        _turn("host", "Leila, what does the heat mean on the farm?", "asks a question"),
        _turn("leila", "It means the fields dry out by July.", "the host asked them"),
        _turn("host", "Leila and Tomasz, one for both of you. What next?", "asks a question"),
        _turn("tomasz", "Willows along every bank, I think.", "the host asked them"),
    ]
    flagged = flag_unmarked(turns, ["tomasz", "leila"], _mentions)
    assert _doubt(flagged[1]) == NAME_NOT_AT_CUT
    assert _doubt(flagged[4]) == ""  # "Leila, …?" just before: a hand-over to her alone
    assert _doubt(flagged[6]) == NAME_NOT_AT_CUT  # two named: which one answers was guessed


def test_a_run_of_bare_reactions_inside_an_answer_is_flagged() -> None:
    text = (
        "We load it with eight hundred pots and feed it wood for five days and five nights. Five days. "
        "That's, wow. And then a week to cool down before we can open it."
    )
    (t,) = flag_unmarked([_turn("tomasz", text, "the host asked them")], ["tomasz"], _mentions)
    assert any("bare reactions" in why and text.split()[at] == "Five" for at, why in t.reasons())


def _mentions(text: str) -> list[str]:
    return [p for p in ("tomasz", "leila") if p in text.lower()]


def test_a_question_put_on_inside_an_answer_is_flagged() -> None:
    text = (
        "We moved the nets to the north wall in the spring. And is that better for the boats or worse "
        "for them, because the swell comes round. It is better, mostly, the swell is lower there."
    )
    (t,) = flag_unmarked([_turn("tomasz", text, "the host asked them")], ["tomasz"], _mentions)
    assert any("asks a question" in why and text.split()[at] == "And" for at, why in t.reasons())


def test_a_host_turn_opening_with_a_view_of_its_own_is_flagged() -> None:
    sents = ["I'd mend the nets first, because they are cheap.", "Thank you both very much."]
    assert _host_reply(sents, _mentions) == (0, HOST_OPINION)
    assert _host_reply(["I'd like to ask about the nets?", "Tomasz?"], _mentions) is None
