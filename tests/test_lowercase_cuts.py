"""Lowercase auto-captions get the sentence-level cuts punctuated unmarked text gets (issue 21): sentences
restored inside a turn, a missed '>>' cut where the talk reads as a conversation, captions with no '>>' at
all segmented instead of refused, and every such cut that no name, hand-over or label backs doubtful in the
health report."""

from __future__ import annotations

import re
from pathlib import Path

from panelbot.ingest.basis import doubtful_part
from panelbot.ingest.captions import RawTurn
from panelbot.ingest.clauses import sentence_starts
from panelbot.ingest.draft import build_draft, parse, segment, write_draft
from panelbot.ingest.health import panel_health
from panelbot.ingest.restore import restore
from panelbot.ingest.sniff import not_captions
from panelbot.ingest.unmarked import SENTENCE_CUT, cut_inside
from panelbot.panel import load_panel
from tests.test_unmarked import HARBOUR

_PUNCT = re.compile(r"[^\w\s'>]|(?<!\w)'|'(?!\w)")


def lowered(text: str) -> str:
    """As old auto-captions write it: lowercase, no punctuation but apostrophes (and '>>')."""
    return " ".join(_PUNCT.sub(" ", text.lower()).split())


def _starts(text: str) -> list[str]:
    toks = text.split()
    return [" ".join(toks[i : i + 2]) for i in sentence_starts(toks)]


def test_a_sentence_starts_at_a_subject_or_a_question_after_a_word_that_can_end_one() -> None:
    assert _starts(
        "crystals not salt i did not know that but why a cave why not a fridge in a shed"
    ) == [
        "i did",
        "but why",
        "why not",
    ]
    # "think" takes the clause after it; "a" ends nothing; an embedded question goes on its sentence
    assert _starts("people think it's salt it's actually an amino acid") == ["it's actually"]
    assert _starts("i spend most of my time measuring how hot the flats get") == []
    # a lone yes closes its own short sentence; a panelist breaking in opens one
    assert _starts("mostly yes the rind is a whole community and can i say the grey mould") == [
        "the rind",
        "and can",
    ]


def test_restore_closes_each_sentence_inside_a_turn() -> None:
    out, _ = restore(
        [RawTurn(lowered("Crystals, not salt. I did not know that. But why a cave?"), 0)]
    )
    assert out[0].text == "Crystals not salt. I did not know that. But why a cave?"


# a made-up talk as old auto-captions: the '>>' before the host's remark and question is missed
TALK = [
    "good evening and welcome i'm nadia brooks and with me are tomasz nowicki who is a marine biologist "
    "and leila haddad who runs a fishing cooperative tomasz let's start with you what is happening to "
    "the fish in the bay",
    "they're moving north mostly the water in the bay is about two degrees warmer than it was thirty "
    "years ago and the species that like cold water follow it we see sardines now where we used to see "
    "herring wow i did not know that leila what does that mean on the boats it means longer trips and "
    "more fuel my boats go twice as far as they did when i started and the catch is smaller so the "
    "margins are very thin now and some of the younger crews have already sold up",
    "so is there anything a cooperative can do about it",
    "we share the boats and the cold store so nobody has to buy everything alone and we sell straight "
    "to the restaurants in town instead of through the auction",
    "thank you both so much and thank you all for coming",
]


def test_a_missed_mark_is_cut_where_the_host_asks_and_the_answer_starts() -> None:
    raw, _ = restore([RawTurn(t, i) for i, t in enumerate(TALK)])
    pieces, cuts = cut_inside(raw)
    texts = [p.text for p in pieces]
    assert any(t.startswith("It means longer trips") for t in texts)
    host = next(t for t in texts if "Leila, what does that mean" in t)
    assert "herring" not in host.split("Leila")[0] or host.startswith("Wow")
    assert " ".join(texts) == " ".join(t.text for t in raw)  # no word lost
    assert [p.index for p in pieces] == list(range(len(pieces)))
    assert cuts and all(0 < c < len(pieces) for c in cuts)
    _, turns, _ = segment(" >> ".join(TALK))
    answer = next(t for t in turns if t.text.startswith("It means longer trips"))
    assert answer.speaker == "leila"  # the host asked her by name: firm, not flagged as a cut
    assert doubtful_part(answer.reasons()) is None


def test_a_cut_resting_on_no_name_is_doubtful_in_the_health_report(tmp_path: Path) -> None:
    captions = " >> ".join(TALK)
    _, turns, _ = segment(captions)
    cut = [t for t in turns if (0, SENTENCE_CUT) in t.parts]
    assert cut, [t.text[:40] for t in turns]
    out = tmp_path / "fish"
    write_draft(build_draft(captions, "fish"), captions, out)
    doubtful = panel_health(load_panel(out)).doubtful
    for t in cut:
        assert any(t.text.startswith(d["first_words"].split(" …")[0][:20]) for d in doubtful)


def test_lowercase_captions_with_no_mark_at_all_are_segmented_not_refused(tmp_path: Path) -> None:
    title, body = HARBOUR.split("\n\n", 1)
    captions = f"{title}\n\n{lowered(body)}\n"
    assert not_captions(parse(captions), captions) is None
    _, turns, names = segment(captions)
    assert names == ["Tomasz", "Leila"]
    assert len(turns) >= 5
    by_start = {t.text.split()[0]: t for t in turns}
    assert by_start["They're"].speaker == "tomasz"  # "Tomasz, let's start with you. What is …?"
    assert by_start["It"].speaker == "leila"  # "Leila, what does that mean on the boats?"
    # every turn after the first rests on a cut no '>>' marks: doubtful unless a name backs it
    for t in turns[1:]:
        assert doubtful_part(t.reasons()) is not None or t.why.startswith(
            ("the host asked them", "introduces themselves", "names every panelist")
        ), (t.why, t.text[:40])


def test_an_answer_opens_inside_a_sentence_that_asked() -> None:
    """ "is that a good thing or a bad thing | both really": a question asked, then the answer's first word."""
    assert _starts("and is that cheaper or dearer both really the wood costs more") == [
        "both really"
    ]
    assert _starts("what does a miller do all day um a bit of everything") == ["um a"]
    assert _starts("the mill does well no matter the river") == []  # no question opened it


def test_restore_asks_only_where_a_verb_opens_a_question() -> None:
    out, _ = restore([RawTurn("but i'd do it in stages starting where the roof leaks", 0)])
    assert out[0].text.endswith("leaks.")
    out, _ = restore([RawTurn("so do you grind it every day", 0)])
    assert out[0].text.endswith("day?")


def test_restore_starts_a_sentence_at_thanks_by_name() -> None:
    raw = [
        RawTurn(
            "i'm odile and my guests are piet who mills grain and rosa who bakes bread thanks odile and "
            "hello everyone",
            0,
        ),
        RawTurn("thank you odile piet what do you mill", 1),
    ]
    out, _ = restore(raw)
    assert "bakes bread. Thanks" in out[0].text


def test_a_question_opens_at_do_before_a_determiner() -> None:
    assert _starts("with a stone floor does the room actually matter") == ["does the"]
    assert _starts("it is what you do the most of all day") == []


def test_and_who_with_a_verb_asks() -> None:
    assert _starts("the rock is the cheapest and who pays for that") == ["and who"]
    assert _starts("the man who pays for that is my uncle") == []
    out, _ = restore([RawTurn("and who pays for that", 0)])
    assert out[0].text.endswith("that?")


def test_a_greeting_starts_a_sentence() -> None:
    assert _starts("we have time for the lady at the front hi thanks my question is short") == [
        "hi thanks"
    ]
    assert _starts("please say hi to them from me") == []
