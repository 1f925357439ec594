"""Speaker attribution without audio (panelbot.ingest.speakers), on the shipped captions and a made-up panel."""

from __future__ import annotations

import re

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from panelbot.ingest.captions import RawTurn, read_captions, split_turns
from panelbot.ingest.draft import segment
from panelbot.ingest.speakers import (
    HOST,
    UNKNOWN,
    find_intro_names,
    identify_speakers,
    is_backchannel,
    looks_like_question,
)
from panelbot.text import words

PROPS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.fixture(scope="module")
def shipped(shipped_captions: str):
    return segment(shipped_captions)


@pytest.fixture(scope="module")
def storage(fixtures_dir):
    return segment((fixtures_dir / "storage_panel_captions.txt").read_text(encoding="utf-8"))


# ----------------------------------------------------------------------------------------------- shipped panel


def test_shipped_names_both_panelists_from_their_introductions(shipped) -> None:
    _, turns, names = shipped
    assert names == ["Dan", "Olive"]
    intro = {t.speaker: t for t in turns if t.why == "introduces themselves"}
    assert "I'm Dan" in intro["dan"].text
    assert "I'm Olive" in intro["olive"].text


def test_shipped_speaker_ids_are_lowercase_names_host_or_unknown(shipped) -> None:
    _, turns, _ = shipped
    assert {t.speaker for t in turns} <= {"dan", "olive", HOST, UNKNOWN}
    assert turns[0].speaker == HOST  # the opening is the host's
    assert turns[-1].speaker == HOST  # and so is "Thank you Dan. Thank you Olive."
    assert sum(t.speaker == HOST for t in turns) >= 12


def test_shipped_turns_alternate_no_two_neighbours_by_same_known_speaker(shipped) -> None:
    _, turns, _ = shipped
    for a, b in zip(turns, turns[1:], strict=False):
        assert not (a.speaker == b.speaker and a.speaker != UNKNOWN), (a.text[:60], b.text[:60])


def test_shipped_backchannels_do_not_become_turns(shipped) -> None:
    _, turns, _ = shipped
    assert not any(is_backchannel(t.text) for t in turns)


def _best_match(text: str, curated: list[dict]) -> dict:
    mine = set(words(text))
    return max(curated, key=lambda c: len(mine & set(words(c["text"]))) / (len(mine | set(words(c["text"]))) or 1))


def test_shipped_handover_answers_are_right(shipped, shipped_panel) -> None:
    """Turns attributed from firm evidence agree with the hand-curated turns.yaml."""
    _, turns, _ = shipped
    curated = [{"speaker": t.speaker, "text": t.text} for t in shipped_panel.turns]
    firm = [t for t in turns if t.speaker not in (UNKNOWN,) and not t.why.startswith("sounds like")]
    assert len(firm) >= 20
    wrong = [(t.speaker, t.why, t.text[:70]) for t in firm if _best_match(t.text, curated)["speaker"] != t.speaker]
    assert wrong == []


@pytest.mark.xfail(
    strict=True,
    reason="KNOWN LIMIT: the 'sounds like their earlier answers' fallback still gives one of Olive's "
    "answers (the data/problem-definition answer about training models to write kernels, whose words are "
    "Dan's subject) to Dan on the shipped captions; the other two earlier misattributions are now "
    "'unknown'. Without audio, content alone cannot settle it",
)
def test_shipped_no_turn_is_given_to_the_wrong_panelist(shipped, shipped_panel) -> None:
    _, turns, _ = shipped
    curated = [{"speaker": t.speaker, "text": t.text} for t in shipped_panel.turns]
    wrong = [
        (t.speaker, t.why, t.text[:70])
        for t in turns
        if t.speaker != UNKNOWN and _best_match(t.text, curated)["speaker"] != t.speaker
    ]
    assert wrong == []


KNOWN_MISATTRIBUTED = 1  # the one named in the xfail above


def test_shipped_misattributions_do_not_grow(shipped, shipped_panel) -> None:
    """The xfail above passes however many turns go wrong; this one counts them."""
    _, turns, _ = shipped
    curated = [{"speaker": t.speaker, "text": t.text} for t in shipped_panel.turns]
    wrong = [(t.speaker, t.text[:70]) for t in turns
             if t.speaker != UNKNOWN and _best_match(t.text, curated)["speaker"] != t.speaker]
    assert len(wrong) <= KNOWN_MISATTRIBUTED, wrong
    assert all(speaker == "dan" for speaker, _ in wrong), wrong  # an answer of Olive's given to Dan


def test_shipped_turns_yaml_is_consistent_with_names(shipped_panel) -> None:
    # the curated file the tests above compare against uses the same ids
    raw = yaml.safe_load((shipped_panel.path / "turns.yaml").read_text(encoding="utf-8"))
    assert {t["speaker"] for t in raw} <= {"dan", "olive", HOST, UNKNOWN}


# ----------------------------------------------------------------------------------------------- made-up panel


def test_other_panel_is_attributed_without_knowing_its_names(storage) -> None:
    _, turns, names = storage
    assert names == ["Priya", "Marcus"]
    got = [(t.speaker, t.text.split()[0]) for t in turns]
    assert got == [
        (HOST, "Welcome"),
        ("priya", "Hi"),
        (HOST, "Great."),
        ("marcus", "Thanks."),
        (HOST, "Awesome."),
        ("priya", "Replication"),
        (HOST, "That"),
        ("marcus", "The"),
        (HOST, "Ha."),
        ("priya", "For"),
        ("marcus", "For"),
        (HOST, "Thank"),
    ]


def test_other_panel_interjection_does_not_split_an_answer(storage) -> None:
    _, turns, _ = storage
    marcus = [t for t in turns if t.speaker == "marcus"]
    sim = next(t for t in marcus if "simulation and reality" in t.text)
    assert "tape on cardboard boxes" in sim.text  # merged across the "Mhm." interjection
    assert "Mhm" not in sim.text
    assert len(sim.sources) == 2


def test_other_panel_handover_sets_addressed(storage) -> None:
    _, turns, _ = storage
    q = next(t for t in turns if "replication lag" in t.text and t.speaker == HOST)
    assert q.is_question and q.addressed == ["priya"]


# ----------------------------------------------------------------------------------------------- units


@pytest.mark.parametrize(
    "text, names",
    [
        ("Hey everyone. I'm Dan. I'm the VP of Kernels.", ["Dan"]),
        ("Hi, my name is Zora and I build compilers.", ["Zora"]),
        ("I'm Excited to be here.", []),  # a capitalised adjective is not a name
        ("I'm not sure. I'm the lead.", []),
        ("Nothing to see here.", []),
    ],
)
def test_find_intro_names(text: str, names: list[str]) -> None:
    assert find_intro_names(text) == names


@pytest.mark.parametrize(
    "text, expected",
    [
        ("So how do you evaluate these runs?", True),
        ("Maybe Dan if you can go first.", True),
        ("I wanted to throw that over to you, Olive", True),
        ("It is fast, right?", False),  # a tag question
        ("We shipped it last week.", False),
        ("", False),
    ],
)
def test_looks_like_question(text: str, expected: bool) -> None:
    assert looks_like_question(text) is expected


@pytest.mark.parametrize("text", ["Yeah.", "Mhm. Mhm.", "[laughter]", "Yeah, like go ahead.", "", "Okay okay."])
def test_backchannel(text: str) -> None:
    assert is_backchannel(text)


@pytest.mark.parametrize("text", ["Yeah, we train on video.", "No, the cache is sharded by prefix."])
def test_not_backchannel(text: str) -> None:
    assert not is_backchannel(text)


def test_without_any_names_everything_is_host_or_unknown() -> None:
    raw = split_turns("What do you think about storage? >> We replicate three times. >> And why? >> Disks fail.")
    turns, names = identify_speakers(raw)
    assert names == []
    assert {t.speaker for t in turns} <= {HOST, UNKNOWN}
    assert [t.speaker for t in turns if not t.is_question] == [UNKNOWN, UNKNOWN]


def test_an_unsettled_answer_is_unknown_not_a_guess() -> None:
    # two named panelists, a question to nobody in particular, one answer: nothing says whose
    raw = split_turns(
        "Welcome. >> Hi, I'm Ana, I work on compilers. >> And I'm Ben, I work on databases. >> "
        "So what is new this year? >> Mostly we rewrote the scheduler."
    )
    turns, names = identify_speakers(raw)
    assert names == ["Ana", "Ben"]
    assert turns[-1].text.startswith("Mostly") and turns[-1].speaker == UNKNOWN


# ----------------------------------------------------------------------------------------------- properties

_piece = st.one_of(
    st.sampled_from([">>", "I'm Dan.", "Olive,", "over to you", "?", "Yeah.", "[laughter]", "Thank you Ann.",
                     "my name is Bo", "can you", ".", "\x1b[31m", "\u202e", "\x00"]),
    st.text(max_size=12),
)


@PROPS
@given(st.lists(_piece, max_size=120), st.text(max_size=80))
def test_identify_speakers_never_crashes(pieces: list[str], title: str) -> None:
    turns, names = identify_speakers(split_turns(" ".join(pieces)), title)
    ids = {n.lower() for n in names}
    for t in turns:
        assert t.speaker in ids | {HOST, UNKNOWN}
        assert t.speaker == t.speaker.lower()
        assert set(t.to_dict()) == {"speaker", "text"}


@PROPS
@given(st.lists(st.text(max_size=40), max_size=30))
def test_identify_speakers_on_arbitrary_raw_turns(texts: list[str]) -> None:
    raw = [RawTurn(t, i) for i, t in enumerate(texts)]
    turns, _ = identify_speakers(raw)
    assert len(turns) <= len(raw)
    assert all(re.fullmatch(r"[a-z]+", t.speaker) for t in turns)


# ----------------------------------------------------------------------------------------------- a 3-person panel

# who really said each turn of tests/fixtures/three_panel_clean.txt, in order ('Yeah.' dropped, merged)
THREE_PANEL_TRUTH = [
    "host", "sarah", "host", "miguel", "host", "priti", "host", "sarah", "host", "miguel", "host", "priti",
    "sarah", "priti", "host", "priti", "miguel", "host", "sarah", "host",
]


def test_three_panelists_never_a_wrong_name(fixtures_dir) -> None:
    raw_text = (fixtures_dir / "three_panel_captions.txt").read_text(encoding="utf-8")
    title, body = read_captions(raw_text)
    turns, names = identify_speakers(split_turns(body), title)
    assert names == ["Sarah", "Miguel", "Priti"]
    got = [t.speaker for t in turns]
    assert len(got) == len(THREE_PANEL_TRUTH)
    wrong = [(i, g, w) for i, (g, w) in enumerate(zip(got, THREE_PANEL_TRUTH, strict=True))
             if g not in (w, UNKNOWN)]
    assert wrong == []
    # the host's turns and every introduced or handed-over answer are named, not left unknown
    named = sum(g == w for g, w in zip(got, THREE_PANEL_TRUTH, strict=True))
    assert named >= len(got) - 4
    # the pushback is not 'the only panelist left': after the one asked has answered, it's a back-and-forth
    assert got[13] in ("priti", UNKNOWN)
