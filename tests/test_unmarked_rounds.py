"""Unlabelled talks where the host goes round the panel (issue 21 §2): a guest who gives a full name and is
then called by the first name alone stays one panelist; a guest called on by a bare name ("Tobenna?") answers
next however briefly; the floor given to the audience starts the host's turn; a transcript's paragraph that
ends by asking is the host's; a host's turn saying much before it asks is flagged (an answer may run on in
it)."""

from __future__ import annotations

import re
from pathlib import Path

from panelbot.ingest.basis import doubtful_part
from panelbot.ingest.captions import RawTurn
from panelbot.ingest.cues import sentences
from panelbot.ingest.draft import segment
from panelbot.ingest.names import find_intro_names
from panelbot.ingest.speakers import SpeakerTurn, _unnamed_guests
from panelbot.ingest.unmarked import conversation_turns, flag_unmarked, paragraph_cuts

ROUND = (
    "Good evening and welcome to Night Talks. I'm Gwen Tallis, and tonight it's the night sky. I'll let my "
    "guests say who they are. I'm Marit Haugland, I'm an astronomer, and I run the public observatory on the "
    "moor above the town. And I'm Ruth Abernethy, I'm an ecologist, and I study moths and what the lights "
    "do to them at night. Marit, let's start with you. How much darker was the sky fifty years ago? A lot "
    "darker. In a town this size you would see two thousand stars on a clear night, and today from the "
    "square you would be lucky to see two hundred. A quick round now, one number each to remember. Marit? "
    "Eighty percent. Most Europeans cannot see the Milky Way. And Ruth? A third. A third of the insects at a "
    "street light are dead by morning. Let's take a question from the audience. The lady in the green coat, yes. "
    "Thank you. My neighbour hates my garden light. What should I do with it? Put it on a motion sensor and "
    "point it down, and put a warm bulb in it, so it is on for a minute when a fox walks past instead of "
    "all night long. Marit Haugland and Ruth Abernethy, thank you both very much."
)


def _speaker_of(turns: list[SpeakerTurn], words: str) -> str:
    return next(t.speaker for t in turns if t.text.startswith(words))


def test_a_full_name_then_the_first_name_alone_is_one_guest() -> None:
    """'I'm Marit Haugland' and the thanks 'Marit Haugland and …' say the pair twice, but 'Marit?' alone
    says Marit is her given name, Haugland her surname: one panelist, not 'Marit Haugland' and 'Marit'."""
    assert find_intro_names("I'm Marit Haugland, I'm an astronomer.", ROUND) == ["Marit"]
    _, _, names = segment("Night Talks\n\n" + ROUND)
    assert names == ["Marit", "Ruth"]


def test_a_double_given_name_never_said_alone_is_kept() -> None:
    text = "I'm Mary Jane Okafor. Thanks, Mary Jane. Mary Jane, what broke first?"
    assert find_intro_names("I'm Mary Jane Okafor.", text) == ["Mary Jane"]


def test_a_guest_called_on_by_a_bare_name_answers_next_however_briefly() -> None:
    pieces = [p.text for p in conversation_turns(RawTurn(ROUND, 0))]
    assert "A quick round now, one number each to remember. Marit?" in pieces
    assert "Marit, let's start with you. How much darker was the sky fifty years ago?" in pieces
    assert "Marit? Eighty percent." not in " ".join(pieces[:1])
    assert any(p.startswith("Eighty percent.") for p in pieces)
    assert "And Ruth?" in pieces  # the host's call on its own, between two short answers
    assert any(p.startswith("A third.") for p in pieces)
    _, turns, _ = segment("Night Talks\n\n" + ROUND)
    assert _speaker_of(turns, "Eighty percent.") == "marit"
    assert _speaker_of(turns, "A third.") == "ruth"


FLOOR = (
    "Good evening and welcome. I'm Gwen Tallis. With me are Marit Haugland, an astronomer, and Ruth Abernethy, "
    "an ecologist. Ruth, what do street lights do to moths? A street light is a trap. A moth flies to it and "
    "circles until it is exhausted or eaten, and a single lamp on a summer night can hold hundreds of them. "
    "Marit, how many stars could you see in the seventies? About two thousand on a clear night, and today you "
    "would be lucky to see two hundred from the square. Let's take a question from the audience. The lady in "
    "the green coat, yes. Thank you. I've got a security light in my garden that my neighbour hates. What "
    "should I do with it? Put it on a motion sensor and point it down, and put a warm bulb in it, so it is on "
    "for a minute when a fox walks past. Marit Haugland and Ruth Abernethy, thank you both."
)


def test_the_floor_given_starts_the_hosts_turn_not_the_listeners_thanks() -> None:
    pieces = [p.text for p in conversation_turns(RawTurn(FLOOR, 0))]
    assert any(p.startswith("Let's take a question from the audience.") for p in pieces)
    assert any(p.endswith("two hundred from the square.") for p in pieces)


def test_a_paragraph_ending_by_asking_does_not_go_on_the_answer_before() -> None:
    paras = [
        "Hello, and welcome to the show. I'm Sunil. With me are a clockmaker and a curator. Would you like "
        "to introduce yourselves?",
        "Hello. I'm Agnes, and I mend clocks, mostly the tall ones, and a church clock now and then.",
        "And I'm Felix. I'm a curator, I look after three thousand clocks and I may not take any apart.",
        "So let's begin at the workbench, with the clocks that come in after years in a loft or a barn. "
        "When a clock has not run for decades, what is usually wrong with it?",
        "Dirt, almost always. Old oil turns to varnish and picks up dust, and the pivots wear oval.",
        "And the clocks in a museum, do you let them run?",
        "Some of them. A clock that runs wears out, and every repair replaces a little of the original.",
    ]
    text = " ".join(paras)
    breaks, n = [], 0
    for p in paras[:-1]:
        n += len(p.split())
        breaks.append(n)
    cuts = paragraph_cuts(sentences(text), breaks, text)
    starts = [" ".join(sentences(text)[k].split()[:3]) for k in cuts]
    assert "So let's begin" in starts


def test_a_host_turn_saying_much_before_it_asks_is_flagged() -> None:
    lead = (
        "Look at your own outside lights. If you can see the bulb from the street, it is pointing the wrong "
        "way. Leave a corner of the garden dark and a bit untidy. That is where the moths will be."
    )
    turns = [
        SpeakerTurn(
            "host", "Same question to all of you. What can we do tonight?", why="asks a question"
        ),
        SpeakerTurn(
            "marit", "Go outside, turn off every light, and wait twenty minutes.", why="order"
        ),
        SpeakerTurn(
            "host",
            lead + " Last one. Will our grandchildren see the Milky Way?",
            why="asks a question",
        ),
        SpeakerTurn(
            "host",
            "Thirty hours. Marit, how long do your eyes take to adapt?",
            why="asks a question",
        ),
    ]
    flagged = flag_unmarked(turns, ["marit"], lambda text: [])
    part = doubtful_part(flagged[2].reasons())
    assert part is not None and "says much before it asks" in part[1]
    assert doubtful_part(flagged[3].reasons()) is None  # a short lead-in: the host's


ALONG_THE_ROW = (
    "Good evening and welcome to Night Talks. I'm Gwen Tallis, and I'll let the guests say who they are, so "
    "let's go along the row. Thanks, Gwen. I'm Marit Haugland, I'm an astronomer, and I run the public "
    "observatory up on the moor, which is also the middle of the dark sky reserve. Hi. Tobenna Eze. I'm a "
    "lighting engineer with the city council, so I look after forty thousand street lights, which probably "
    "makes me the villain tonight. Marit, let's start with you. How much darker was the sky fifty years ago? "
    "A lot darker. In a town this size you would see two thousand stars on a clear night, and today from the "
    "square you would be lucky to see two hundred. Tobenna, was the new lighting a mistake? Not a mistake, "
    "no. We cut the electricity bill by sixty percent, and the new lamps point down instead of sideways. "
    "Marit Haugland and Tobenna Eze, thank you both very much."
)


def test_a_sentence_that_is_only_a_name_then_own_words_introduces_a_new_speaker() -> None:
    """'Hi. Tobenna Eze. I'm a lighting engineer …' after Marit's introduction starts Tobenna's turn."""
    pieces = [p.text for p in conversation_turns(RawTurn(ALONG_THE_ROW, 0))]
    assert any(p.startswith("Hi. Tobenna Eze.") for p in pieces)
    _, turns, names = segment("Night Talks\n\n" + ALONG_THE_ROW)
    assert names == ["Marit", "Tobenna"]
    assert _speaker_of(turns, "Hi. Tobenna Eze.") == "tobenna"
    assert _speaker_of(turns, "Thanks, Gwen.") == "marit"


CLOCKS = Path(__file__).parent / "fixtures" / "unseen6" / "clock_podcast.txt"


def test_guests_the_host_describes_without_names_then_introduce_themselves_get_those_words() -> (
    None
):
    """'With me are a clockmaker who …, and a historian who … Would you like to introduce yourselves?' and
    then each introduces themselves in that order: what the host said each does is theirs, and tells the
    answers no question names apart (a dev fixture talk: no name after the introductions)."""
    assert _unnamed_guests(
        "With me are a clockmaker who restores longcase clocks in a workshop, and a historian who looks "
        "after the clocks at a museum.",
        None,
    ) == [
        "a clockmaker who restores longcase clocks in a workshop",
        "a historian who looks after the clocks at a museum",
    ]
    assert (
        _unnamed_guests("With me are Agnes, a clockmaker, and Felix.", re.compile("Agnes|Felix"))
        == []
    )
    _, turns, _ = segment(CLOCKS.read_text(encoding="utf-8"))
    assert _speaker_of(turns, "Moving the clock without taking the pendulum off.") == "agnes"
    assert _speaker_of(turns, "Listen. Tick, tock") == "agnes"


LIGHT = Path(__file__).parent / "fixtures" / "unseen6" / "light_panel.srt"


def test_a_short_question_pointing_back_at_the_answer_follows_it_up() -> None:
    """'And the moths?' answered by the ecologist, then 'Is warmer light better for them?': the one who just
    answered answers the follow-up (their field still decides, doubtful), and the engineer's break-in after
    it stays his (a dev fixture talk)."""
    _, turns, _ = segment(LIGHT.read_text(encoding="utf-8"))
    assert _speaker_of(turns, "Warmer is better, yes") == "ruth"
    assert _speaker_of(turns, "Can I come in there?") == "tobenna"
