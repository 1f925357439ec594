"""Captions with no capital letters and no punctuation (old YouTube auto-captions): the names told from how
the talk uses the words, the turns' closing marks, and a draft with the right people (issue 21)."""

from __future__ import annotations

from pathlib import Path

from panelbot.cli.main import main as cli
from panelbot.ingest.captions import RawTurn
from panelbot.ingest.restore import restore, talk_names, unpunctuated
from panelbot.panel import load_panel

# a made-up evening talk, as old auto-captions write it
TALK = [
    "okay good evening everyone i'm sally pennington i run the cookery school upstairs and with me "
    "tonight are beatriz ferreira da costa who ages cheese in a granite cave and henrik østergaard who "
    "is a dairy microbiologist so what actually happens to a cheese when you leave it in a cave",
    "um well it's alive is the short answer the bacteria and the enzymes break the proteins down over "
    "months and that's where nearly all the flavour comes from",
    "thank you henrik beatriz why a cave and not a fridge",
    "because a cave keeps the same temperature all year and the air stays wet everyone calls me bea by "
    "the way a fridge dries everything",
    "does the mould on the rind matter",
    "it does the grey mould is part of the taste my grandmother would be very offended if you cut it off",
    "bea do you ever throw a wheel away",
    "maybe one in a hundred when the rind cracks and even then we grate it for the kitchen",
    "thank you all so much for coming",
]


def turns(texts: list[str]) -> list[RawTurn]:
    return [RawTurn(t, i) for i, t in enumerate(texts)]


def test_captions_with_no_capitals_or_marks_are_told_apart_from_punctuated_ones() -> None:
    assert unpunctuated(turns(TALK))
    assert not unpunctuated(turns([t.capitalize() + "." for t in TALK]))
    assert not unpunctuated(turns(["too short to tell"]))


def test_names_are_the_words_in_the_places_names_take() -> None:
    names = talk_names(TALK)
    assert {"sally", "pennington", "beatriz", "ferreira", "costa", "henrik", "østergaard"} <= set(
        names.words
    )
    # words of the talk that stand where names could, but are words: never capitalised
    assert not {"cheese", "cave", "everyone", "all", "so", "the", "dairy"} & set(names.words)
    # the opener introducing herself is the host; the guests are the people for the rest of ingest
    assert names.told.people == ("Beatriz", "Henrik")
    assert names.told.aliases == {"Bea": "Beatriz"}


def test_a_common_word_needs_two_kinds_of_place() -> None:
    """ "i'm excited" and "i'm sure" are no names; "dan" is one when he is also thanked."""
    alone = talk_names(["i'm excited to be here", "and i'm sure about that", "i'm dan hello"])
    assert alone.words == {}
    both = talk_names(["i'm dan i work on kernels", "thank you dan so what about memory"])
    assert "dan" in both.words


def test_the_turns_get_names_commas_and_closing_marks_with_word_counts_kept() -> None:
    raw = turns(TALK)
    out, told = restore(raw)
    assert [len(t.text.split()) for t in out] == [len(t.text.split()) for t in raw]
    texts = [t.text for t in out]
    assert texts[0].startswith("Okay. Good evening everyone. I'm Sally Pennington. I run")
    assert "Beatriz Ferreira da Costa, who" in texts[0]
    assert texts[0].endswith("in a cave?")
    assert texts[1].endswith("comes from.")  # "that's where …" inside a statement does not ask
    assert texts[2] == "Thank you, Henrik. Beatriz, why a cave and not a fridge?"
    assert texts[4] == "Does the mould on the rind matter?"
    assert texts[6] == "Bea, do you ever throw a wheel away?"
    assert told.people == ("Beatriz", "Henrik")


def test_a_short_form_of_a_name_is_capitalised_but_not_a_common_word() -> None:
    names = talk_names(
        [
            "with me is olusegun adeyemi who runs the rail terminal",
            "please segun is fine so at the port",
            "and the theory is that ed and the team",
        ]
    )
    assert "segun" in names.words
    assert not {"the", "ed", "and"} & set(names.words)


def test_a_lowercase_talk_ingests_with_its_guests(tmp_path: Path, capsys) -> None:  # noqa: ANN001
    src = tmp_path / "cheese.txt"
    src.write_text(" >> ".join(TALK) + "\n", encoding="utf-8")
    assert cli(["ingest", str(src), "--out", str(tmp_path / "cheese")]) == 0
    out = capsys.readouterr()
    # the report names them as the panel does, in full
    assert "panelists: Beatriz Ferreira da Costa, Henrik Østergaard;" in out.out.splitlines()[0]
    panel = load_panel(tmp_path / "cheese")
    assert sorted(panel.panelists) == ["beatriz", "henrik"]
    by_text = {t.text.split()[0].strip(".,?"): t.speaker for t in panel.turns}
    assert by_text["Because"] == "beatriz"  # "Beatriz, why a cave …?"
    assert by_text["Maybe"] == "beatriz"  # "Bea, do you ever …?": the name she goes by
    assert by_text["Okay"] == by_text["Thank"] == "host"
    assert "no capital letters" not in out.err


def test_a_lowercase_talk_with_no_names_still_says_why_in_one_line(tmp_path: Path, capsys) -> None:  # noqa: ANN001
    src = tmp_path / "anon.txt"
    words = "we looked at the data and the numbers kept going up so we changed the plan again "
    src.write_text(words * 20 + ">> " + words * 20 + "\n", encoding="utf-8")
    assert cli(["ingest", str(src), "--out", str(tmp_path / "anon")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "found no panelists" in err[0]
    assert not (tmp_path / "anon").exists()


def test_a_titled_name_its_short_form_and_its_possessive_are_names() -> None:
    """ "and dr bartholomew kowalczyk reid a coastal engineer": a title before a name presents it; "just
    bart please" is his short form; "fionnuala's describing" is her name too."""
    talk = [
        "good evening i'm ewan drummond and my guests are fionnuala doyle who is the harbourmaster and dr "
        "bartholomew kowalczyk reid a coastal engineer from the university",
        "thanks ewan and just bart please the full name takes up most of the evening",
        "fionnuala let's start with you what does a harbourmaster do all day",
        "a bit of everything honestly and that's the thing fionnuala's describing with the drains",
    ]
    out, told = restore(turns(talk))
    assert told.people == ("Fionnuala", "Bartholomew")
    assert told.aliases == {"Bart": "Bartholomew"}
    assert told.opener == "Ewan"
    assert "Dr Bartholomew Kowalczyk Reid" in out[0].text
    assert "Fionnuala's describing" in out[3].text


def test_the_host_who_opened_the_talk_is_no_panelist_when_thanked(tmp_path: Path) -> None:
    src = tmp_path / "harbour.txt"
    talk = [
        "good evening i'm ewan drummond and my guests are fionnuala doyle who is the harbourmaster and dr "
        "bartholomew reid a coastal engineer",
        "thanks ewan and just bart please",
        "fionnuala let's start with you what does a harbourmaster actually do all day",
        "a bit of everything honestly i decide who berths where i collect the dues and i walk the pontoons "
        "at two in the morning when there's a gale coming",
        "bart what have you been measuring out there on the breakwater",
        "we put pressure sensors on the seaward face and counted how often the waves go over the top of "
        "the wall in the big storm two winters ago",
        "thank you both very much",
    ]
    src.write_text(" >> ".join(talk) + "\n", encoding="utf-8")
    assert cli(["ingest", str(src), "--out", str(tmp_path / "harbour")]) == 0
    panel = load_panel(tmp_path / "harbour")
    assert sorted(panel.panelists) == ["bartholomew", "fionnuala"]


def test_a_short_form_said_to_someone_finds_the_full_name_said_before_a_surname() -> None:
    names = talk_names(
        [
            "i'm odile and tonight my guests are here and rosalinda de wekker bakes bread in town",
            "thank you odile",
            "linda what about the flour",
            "the flour is local mostly we mill it ourselves",
        ]
    )
    assert "Rosalinda" in names.told.people
    assert names.told.aliases.get("Linda") == "Rosalinda"


def test_a_sentence_before_a_name_set_off_is_read_again_for_asking() -> None:
    raw = [
        RawTurn("with me is piet de graaf who runs the mill thank you piet", 0),
        RawTurn("it's grants or nothing nine million piet is it worth it if the mill stops", 1),
    ]
    out, _ = restore(raw)
    assert "million. Piet, is it worth it" in out[1].text and out[1].text.endswith("?")
