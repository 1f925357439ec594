"""A punctuated transcript that marks no speaker at all (plain Whisper TXT/SRT/VTT: no '>>', no labels) is
cut where it reads as a conversation, and a monologue is still refused (issue 21, "honest attribution when
speakers are not marked")."""

from __future__ import annotations

from pathlib import Path

from panelbot.ingest.basis import doubtful_part
from panelbot.ingest.captions import RawTurn
from panelbot.ingest.draft import build_draft, parse, segment, write_draft
from panelbot.ingest.health import panel_health
from panelbot.ingest.sniff import not_captions
from panelbot.ingest.unmarked import conversation_turns, exchanges, reads_as_conversation
from panelbot.panel import load_panel

HARBOUR = (
    "Harbour Talks: Fish on the Move\n\n"
    "Good evening and welcome to Harbour Talks. I'm Nadia Brooks, and tonight we're talking about the sea. "
    "With me are Tomasz Nowicki, who is a marine biologist at the university, and Leila Haddad, who runs a "
    "fishing cooperative on the coast. Tomasz, let's start with you. What is actually happening to the "
    "fish in the bay? They're moving north, mostly. The water in the bay is about two degrees warmer than "
    "it was thirty years ago, and the species that like cold water follow it. We see sardines now where we "
    "used to see herring, and the cod have almost gone from the shallow banks. Sardines instead of "
    "herring. That's quite a change. Leila, what does that mean on the boats? It means longer trips and "
    "more fuel. My boats go twice as far as they did when I started, and the catch is smaller, so the "
    "margins are very thin now. Some of the younger crews have already sold up. Fascinating. So is there "
    "anything a cooperative can do about it? We share the boats and the cold store, so nobody has to buy "
    "everything alone, and we sell straight to the restaurants in town instead of through the auction, "
    "which gets us a better price for a smaller catch. We have time for one question from the audience. "
    "Yes, at the front. Hi, thanks. Should we still be eating cod at all? Only from the northern stocks, "
    "honestly. The ones from the bay are in real trouble, and the label on the packet should tell you "
    "where the fish was caught, so it is worth reading before you buy. Thank you both so much, and thank "
    "you all for coming.\n"
)

# where each speaker starts, in order: the host's turn begins at its short lead-in ("Sardines instead of
# herring. That's quite a change."), the floor given to the audience is the host's, the closing thanks too
STARTS = [
    "Good evening",
    "They're moving north",
    "Sardines instead of herring.",
    "It means longer trips",
    "Fascinating.",
    "We share the boats",
    "We have time for one question",
    "Only from the northern stocks",
    "Thank you both",
]

LECTURE = (
    "Bridges\n\n"
    "Today I want to walk you through how a suspension bridge carries its load. The deck hangs from "
    "vertical cables, and those hang from the two main cables that run over the towers. The main cables "
    "are anchored into huge blocks of concrete at each end, and that is where the whole weight finally "
    "goes into the ground. Why do some bridges sway? Mostly because the wind sets the deck moving at its "
    "own natural rhythm, and every gust adds a little more to the swing until the engineers damp it out. "
    "Modern decks are shaped like aircraft wings so that the air flows smoothly past them, and dampers "
    "inside the deck soak up what movement is left. That is why the bridges we build today feel so calm "
    "even in a storm.\n"
)


def _one_turn(text: str) -> RawTurn:
    return RawTurn(" ".join(text.split()), 0)


def _body(captions: str) -> str:
    return captions.split("\n\n", 1)[1]


def test_an_unmarked_conversation_is_cut_where_the_speakers_change() -> None:
    pieces = conversation_turns(_one_turn(_body(HARBOUR)))
    assert [p.text for p in pieces][0].startswith(STARTS[0])
    assert len(pieces) == len(STARTS)
    for piece, start in zip(pieces, STARTS, strict=True):
        assert piece.text.startswith(start), (start, piece.text[:60])
    assert [p.index for p in pieces] == list(range(len(pieces)))  # each its own raw turn
    assert " ".join(p.text for p in pieces) == " ".join(_body(HARBOUR).split())  # no word lost


def test_the_cut_turns_are_attributed_as_marked_captions_are() -> None:
    _, turns, names = segment(HARBOUR)
    assert names == ["Tomasz", "Leila"]
    by_start = {start: next(t for t in turns if start in t.text) for start in STARTS}
    assert by_start["They're moving north"].speaker == "tomasz"  # asked by name
    assert by_start["It means longer trips"].speaker == "leila"
    for start in ("Good evening", "Sardines instead of herring.", "Fascinating.", "Thank you both"):
        assert by_start[start].speaker == "host", start
    assert by_start["We have time for one question"].speaker == "host"  # the floor and its question


def test_a_turn_resting_only_on_order_or_field_is_flagged(tmp_path: Path) -> None:
    """The audience's question names no one: whoever answers it is taken from order or field, never
    as firm, and the health report points at it."""
    _, turns, _ = segment(HARBOUR)
    answer = next(t for t in turns if t.text.startswith("Only from the northern stocks"))
    assert answer.speaker == "unknown" or doubtful_part(answer.reasons()) is not None
    out = tmp_path / "harbour"
    write_draft(build_draft(HARBOUR, "harbour"), HARBOUR, out)
    doubtful = panel_health(load_panel(out)).doubtful
    assert any(d["first_words"].startswith("Only from the northern stocks") for d in doubtful)


def test_an_unmarked_conversation_is_accepted_and_a_monologue_refused() -> None:
    assert reads_as_conversation(_body(HARBOUR))
    assert not_captions(parse(HARBOUR), HARBOUR) is None
    # one question answered at length is a lecture's rhetorical question, not a conversation
    assert exchanges(_body(LECTURE)) == 1
    assert conversation_turns(_one_turn(_body(LECTURE))) == [_one_turn(_body(LECTURE))]
    why = not_captions(parse(LECTURE), LECTURE)
    assert why is not None and why.startswith("no change of speaker anywhere")
    assert "\n" not in why


def test_a_panelist_asking_to_break_in_is_no_host_question() -> None:
    text = (
        "Welcome, everyone. I'm Ruth, and with me are Kofi Mensah, who designs batteries, and Mirela "
        "Popescu, who recycles them. Kofi, why do batteries wear out? The electrodes crack a little on "
        "every charge, until after a few thousand cycles the cell holds much less than it did when new. "
        "Can I add something on that? In the plant most of the packs we get failed in the electronics, "
        "not in the cells, so a lot of them could have been repaired instead of shredded. Mirela, what "
        "happens to a pack when it reaches you? We take it apart by hand, sort the cells, and the ones "
        "that still hold their charge go into storage units for houses instead of the furnace."
    )
    pieces = [p.text for p in conversation_turns(_one_turn(text))]
    assert any(p.startswith("Can I add something on that?") for p in pieces)
    assert not any(
        p.startswith("In the plant") for p in pieces
    )  # the break-in's own words follow it
    assert any(p.startswith("Mirela, what happens") for p in pieces)
    assert any(p.startswith("We take it apart") for p in pieces)


def test_self_introductions_after_the_hosts_own_are_new_speakers() -> None:
    text = (
        "Morning, all. I'm Deborah Lane, I chair the transport committee, and I've asked the panel to "
        "introduce themselves, so let's go down the line. Hi, morning. I'm Arjun Mehta, I plan bus routes "
        "for the city, so I'm the person who decides where your bus goes and how often it comes. Hello. "
        "I'm Greta Lindqvist, I drive trams, and I have done for about fifteen years now, mostly on the "
        "night lines. Arjun, why are the buses always late? Traffic, mostly, and the roadworks that nobody "
        "tells us about until the morning they start, so the timetable is wrong before the day begins. "
        "Greta, is it the same on the trams? Less so, because we have our own track, but the crossings "
        "are the problem, every car that blocks a junction holds up a whole tram full of people."
    )
    pieces = [p.text for p in conversation_turns(_one_turn(text))]
    assert pieces[0].startswith("Morning, all.") and "I'm Deborah Lane" in pieces[0]
    assert pieces[1].startswith("Hi, morning. I'm Arjun")  # the greeting goes with the introduction
    assert pieces[2].startswith("Hello. I'm Greta")
    assert pieces[3].startswith("Arjun, why are the buses")


def test_ingest_takes_an_unmarked_conversation_and_refuses_a_monologue(
    run_cli, tmp_path: Path
) -> None:
    talk = tmp_path / "harbour.txt"
    talk.write_text(HARBOUR, encoding="utf-8")
    done = run_cli("ingest", str(talk), "--out", str(tmp_path / "harbour"))
    assert done.returncode == 0, done.stderr
    assert "mark no change of speaker" in done.stderr
    lecture = tmp_path / "bridges.txt"
    lecture.write_text(LECTURE, encoding="utf-8")
    refused = run_cli("ingest", str(lecture), "--out", str(tmp_path / "bridges"))
    assert refused.returncode != 0
    errors = [ln for ln in refused.stderr.splitlines() if "error" in ln]
    assert len(errors) == 1 and "no change of speaker anywhere" in errors[0]


def test_someone_from_the_audience_introducing_themselves_is_no_panelist() -> None:
    audience = HARBOUR.replace(
        "Hi, thanks. Should we", "Hi, I'm Sam, I teach at the primary school. Should we"
    )
    _, turns, names = segment(audience)
    assert names == ["Tomasz", "Leila"]
    asking = next(t for t in turns if "I'm Sam" in t.text)
    assert asking.speaker == "host" and asking.text.startswith("We have time")


MILL = (
    "The Mill Hour\n\n"
    "Hello and welcome to The Mill Hour. I'm Petra Lund. This week my guests are Oskar Brandt, who restores "
    "water mills in the north, and Ines Varga, a baker who mills her own flour. Welcome to you both.\n\n"
    "Oskar, let's start with the wheel. How does an old mill actually turn grain into flour?\n\n"
    "The river turns the wheel, the wheel turns a shaft, and the shaft turns the upper stone over the lower "
    "one. The grain goes in through the middle and comes out at the edge as flour, warm and a bit damp.\n\n"
    "The hard part is the dressing. Every few weeks the grooves in the stones have to be cut again by hand, "
    "or the flour comes out coarse and the stones heat up.\n\n"
    "Cut by hand. That's amazing.\n\n"
    "And it takes a whole day for one pair of stones, with a hammer and a chisel and a lot of patience.\n\n"
    "Ines, does the flour from a stone mill bake differently?\n\n"
    "It does, very much. Stone-ground flour keeps the germ, so the dough drinks more water and the bread "
    "tastes of the grain, but it goes off faster, so I mill only what I bake that week.\n\n"
    "I'd add that the germ is the reason. Roller mills take it out because it spoils, and with it goes "
    "most of the flavour people remember from old bread.\n\n"
    "The germ, then. Oskar and Ines, thank you both so much. That's it for this week.\n"
)


def test_a_transcript_laid_out_in_paragraphs_is_cut_at_its_paragraphs() -> None:
    """Each paragraph is a turn, unless it goes on the answer before it (a long statement after a long
    statement, opening with nothing of the host's or of someone taking the floor)."""
    _, turns, _ = segment(MILL)
    starts = [t.text.split(".")[0] for t in turns]
    assert (
        "The hard part is the dressing" not in starts
    )  # the answer going on in a second paragraph
    assert "Cut by hand" in starts and "I'd add that the germ is the reason" in starts
    by_start = {t.text.split(".")[0]: t.speaker for t in turns}
    assert by_start["Cut by hand"] == "host"
    assert (
        by_start[
            "And it takes a whole day for one pair of stones, with a hammer and a chisel and a lot of patience"
        ]
        == "oskar"
    )
    assert by_start["I'd add that the germ is the reason"] == "oskar"


def test_paragraphs_that_are_not_turns_are_not_cut_at() -> None:
    """Paragraphs that fall where the talk does not change speaker leave the cuts to its sentences."""
    answer = "It is a long answer about the river and the stones and the flour we make. "
    text = ("So what is it? " + answer * 2 + "And why is that? " + answer * 2) * 2
    words = text.split()
    mid = [k for k, w in enumerate(words) if w == "river"]  # paragraphs start inside the answers
    turns = conversation_turns(RawTurn(text, 0, breaks=tuple(mid)))
    assert [t.text.split()[:2] for t in turns][:3] == [["So", "what"], ["It", "is"], ["And", "why"]]


QUARRY = (
    "Good evening, and welcome to Valley Talks. My name is Hanne Olsen, I run the valley museum. And "
    "tonight I'm joined by Pierre-Jean Moreau-Vidal, a geologist, "
    "and by Ilse Brandvold, who farms the valley. Thank you, Hanne. Everybody calls me PJ, so please do. "
    "PJ, let's start with the rock. How old is this valley? About two million years, and the river is still "
    "cutting it deeper every spring, a few millimetres a year, which adds up over the centuries. Ilse, what "
    "does that mean for the fields down there? Thin soil, mostly, and stones that come up every winter, so "
    "we clear them by hand before we plough in March. And Ilse, if I can add, the stones are the "
    "limestone working its way up through the frost, the same rock we see in the cliffs, and it will go "
    "on doing that for as long as there is frost. Exactly, PJ. That's why we lime so little. Thank you "
    "both very much."
)


def test_a_guest_thanking_the_host_by_name_and_breaking_in_after_a_name_are_cut() -> None:
    _, turns, names = segment(QUARRY)
    assert names[:2] == ["Pierre-Jean", "Ilse"]
    by_start = {" ".join(t.text.split()[:3]): t.speaker for t in turns}
    assert by_start["Thank you, Hanne."] == "pierre-jean"  # "Everybody calls me PJ"
    assert by_start["PJ, let's start"] == "host"
    assert by_start["And Ilse, if"] == "pierre-jean"


def test_agreeing_with_another_by_name_breaks_in() -> None:
    from panelbot.ingest.unmarked import _breaks_in

    assert _breaks_in("No, I'd agree with Adaeze there actually.")
    assert _breaks_in("And Ursula, if I can add, the timing changes too.")
    assert not _breaks_in("I'd say the soil matters most.")


def test_a_blank_line_after_every_sentence_is_not_read_as_turns() -> None:
    """Whisper text with a blank line after each segment: cut by its sentences, as with no blank lines."""
    import re

    body = MILL.split("\n\n", 1)[1]
    sents = [x for x in re.split(r"(?<=[.?!])\s+", body) if x.strip()]
    one_a_line = segment("The Mill Hour\n\n" + "\n\n".join(sents))[1]
    flat = segment("The Mill Hour\n\n" + " ".join(sents))[1]
    assert len(flat) > 3
    assert [t.text for t in one_a_line] == [t.text for t in flat]
