"""Caption formats (panelbot.ingest.formats): WebVTT (YouTube rolling, word timings), SRT, json3, plain text;
timing kept through de-duplication; Unicode names; malformed input; the CLI ingest -> check -> ask path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from panelbot.ingest.captions import split_turns
from panelbot.ingest.draft import build_draft, segment
from panelbot.ingest.formats import detect_format, parse_captions
from panelbot.ingest.speakers import fold_id, identify_speakers
from panelbot.panel.model import format_time, link_at

PROPS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# who really said each turn of accents_panel_clean.txt ("Mhm." dropped, the answer around it merged)
ACCENTS_TRUTH = [
    "host",
    "jose",
    "host",
    "anais",
    "host",
    "bjorn",
    "host",
    "jose",
    "host",
    "anais",
    "host",
    "bjorn",
    "anais",
    "host",
    "jose",
    "anais",
    "host",
]
FORMATS = ["vtt", "srt", "json3"]


@pytest.fixture(scope="module")
def clean_words(fixtures_dir: Path) -> list[str]:
    return (fixtures_dir / "accents_panel_clean.txt").read_text(encoding="utf-8").split()


@pytest.mark.parametrize("fmt", FORMATS)
def test_format_is_detected_from_content(fixtures_dir: Path, fmt: str) -> None:
    text = (fixtures_dir / f"accents_panel.{fmt}").read_text(encoding="utf-8")
    assert detect_format(text) == fmt
    assert (
        detect_format((fixtures_dir / "storage_panel_captions.txt").read_text(encoding="utf-8"))
        == "text"
    )


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_dedupes_to_the_clean_words(
    fixtures_dir: Path, fmt: str, clean_words: list[str]
) -> None:
    caps = parse_captions((fixtures_dir / f"accents_panel.{fmt}").read_text(encoding="utf-8"))
    turns = split_turns(caps.words)
    got = " ".join(t.text for t in turns).split()
    assert got == [w for w in clean_words if w != ">>"]
    assert caps.warnings == []


@pytest.mark.parametrize("fmt", FORMATS)
def test_timing_survives_dedup_word_for_word(
    fixtures_dir: Path, fmt: str, clean_words: list[str]
) -> None:
    # the fixtures speak one word every 0.4 s: the k-th spoken word must start at 0.4 k after de-duplication
    caps = parse_captions((fixtures_dir / f"accents_panel.{fmt}").read_text(encoding="utf-8"))
    spoken = [w for w in clean_words]
    times = [a for t in split_turns(caps.words) for a, _ in t.times]
    positions = [i for i, w in enumerate(spoken) if w != ">>"]
    assert len(times) == len(positions)
    # word timings (VTT, json3) are exact; SRT cues are spread evenly over their words, which the fixture's
    # ">>" marks (counted as a word when it was made, taking no time here) shift by less than one word
    tolerance = 0.5 if fmt == "srt" else 0.01
    for k, (t, pos) in enumerate(zip(times, positions, strict=True)):
        assert t == pytest.approx(pos * 0.4, abs=tolerance), (k, fmt)


@pytest.mark.parametrize("fmt", FORMATS)
def test_unicode_names_and_attribution_in_every_format(fixtures_dir: Path, fmt: str) -> None:
    title, turns, names = segment(
        (fixtures_dir / f"accents_panel.{fmt}").read_text(encoding="utf-8")
    )
    assert names == ["José", "Anaïs", "Björn"]
    got = [t.speaker for t in turns]
    assert len(got) == len(ACCENTS_TRUTH)
    wrong = [
        (i, g, w)
        for i, (g, w) in enumerate(zip(got, ACCENTS_TRUTH, strict=True))
        if g not in (w, "unknown")
    ]
    assert wrong == []
    assert sum(g == "unknown" for g in got) <= 1  # the push-back, addressed to no one
    assert all(t.start is not None and t.end is not None and t.start <= t.end for t in turns)


def test_draft_quotes_carry_times_and_links(fixtures_dir: Path) -> None:
    d = build_draft(
        (fixtures_dir / "accents_panel.vtt").read_text(encoding="utf-8"),
        "phones",
        url="https://www.youtube.com/watch?v=abc123",
    )
    ids = [p["id"] for p in d.panel["panelists"]]
    assert ids == ["jose", "anais", "bjorn"]
    assert [p["name"] for p in d.panel["panelists"]] == [
        "José Ramírez",
        "Anaïs",
        "Björn",
    ]  # the name he gave
    jose = d.panel["panelists"][0]
    assert jose["organisation"] == "Pocketflow" and "compiler team" in jose["role"].lower()
    assert d.panel["source_url"].endswith("abc123")
    for q in d.quotes:
        assert 0 <= q["start"] <= q["end"], q["id"]
        turn = d.turns[q["turn"]]
        assert turn.start <= q["start"] <= q["end"] <= turn.end + 0.01
    quant = next(q for q in d.quotes if "eight bits" in q["text"])
    # "On most vision models ..." is word 83 of the talk: 0.4 s a word
    assert quant["start"] == pytest.approx(44.4, abs=0.01)


@pytest.mark.parametrize(
    "name, pid",
    [
        ("José", "jose"),
        ("Anaïs", "anais"),
        ("Björn", "bjorn"),
        ("D'Andre", "dandre"),
        ("Mary Jane", "mary-jane"),
        ("Łukasz", "lukasz"),
        ("李明", "li-ming"),
    ],
)
def test_fold_id(name: str, pid: str) -> None:
    assert fold_id(name).replace("-", "") == pid.replace("-", "")


def test_two_word_first_names_and_apostrophes() -> None:
    raw = split_turns(
        "Welcome. Mary Jane, can you start? >> Sure, I'm Mary Jane Okafor and I run data at Kite. >> "
        "Thanks Mary Jane. And D'Andre? >> Hi, I'm D'Andre, I lead search at Orbit. >> "
        "D'Andre, what broke first? >> The index broke first, every time."
    )
    turns, names = identify_speakers(raw)
    assert names == ["Mary Jane", "D'Andre"]
    assert [t.speaker for t in turns] == ["host", "mary-jane", "host", "dandre", "host", "dandre"]


def test_links() -> None:
    assert link_at("https://youtu.be/ID", 754.9) == "https://youtu.be/ID?t=754s"
    assert (
        link_at("https://www.youtube.com/watch?v=ID&t=3s", 60)
        == "https://www.youtube.com/watch?v=ID&t=60s"
    )
    assert link_at("https://example.org/talk.mp4", 12) == "https://example.org/talk.mp4#t=12"
    assert format_time(754) == "12:34" and format_time(3723) == "1:02:03"


# ----------------------------------------------------------------------------------------------- malformed


def test_broken_timings_are_repaired_with_warnings() -> None:
    text = (
        "WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nhello there\n\nbroken --> timing\nsecond line\n\n"
        "00:00:05.000 --> 00:00:04.000\nthird <x>line</x>\n"
    )
    caps = parse_captions(text)
    assert [w.text for w in caps.words] == ["hello", "there", "second", "line", "third", "line"]
    assert len(caps.warnings) == 3
    starts = [w.start for w in caps.words]
    assert starts == sorted(starts)


@pytest.mark.parametrize(
    "content, message",
    [
        (b"", "empty"),
        (b"\x00\x01\x02" * 50, "binary"),
        (b"\x89PNG\r\n\x1a\n" + b"\x00" * 40, "binary"),
        (b"WEBVTT\n\n", "no caption text"),
    ],
)
def test_cli_rejects_unusable_files_in_one_line(
    run_cli, tmp_path: Path, content: bytes, message: str
) -> None:
    f = tmp_path / "bad.vtt"
    f.write_bytes(content)
    r = run_cli("ingest", str(f), "--out", str(tmp_path / "out"))
    assert r.returncode == 2 and message in r.stderr
    assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1


_cue_piece = st.one_of(
    st.sampled_from(
        [
            "WEBVTT",
            "\n\n",
            "00:00:01.000 --> 00:00:02.000",
            "1",
            "00:00:01,000 --> 00:00:0",
            "<00:00:01.500><c> word</c>",
            "<v Ann>",
            ">>",
            "&amp;",
            "{\\an8}",
            "NOTE x",
            "-->",
            '{"events": [{"tStartMs": 5, "segs": [{"utf8": "hi"}]}]}',
            "- ",
            "I'm José.",
            "\x00",
        ]
    ),
    st.text(max_size=15),
)


@PROPS
@given(st.lists(_cue_piece, max_size=60), st.sampled_from(["", "WEBVTT\n\n", '{"events": ']))
def test_parsers_and_attribution_never_crash(pieces: list[str], prefix: str) -> None:
    caps = parse_captions(prefix + "\n".join(pieces))
    assert caps.format in ("vtt", "srt", "json3", "text")
    starts = [w.start for w in caps.words if w.start is not None]
    turns = split_turns(caps.words)
    identify_speakers(turns, caps.title)
    if caps.format in ("vtt", "srt"):
        assert starts == sorted(starts)


@PROPS
@given(
    st.recursive(
        st.none() | st.integers() | st.text(max_size=8),
        lambda c: (
            st.lists(c, max_size=4)
            | st.dictionaries(
                st.sampled_from(["events", "segs", "utf8", "tStartMs", "tOffsetMs", "dDurationMs"]),
                c,
                max_size=4,
            )
        ),
        max_leaves=20,
    )
)
def test_json3_never_crashes_on_odd_json(data: object) -> None:
    parse_captions('{"events": []}'[:0] + json.dumps({"events": data}))


# ----------------------------------------------------------------------------------------------- CLI


def test_cli_ingest_check_ask_with_times_and_links(
    run_cli, tmp_path: Path, fixtures_dir: Path
) -> None:
    work = tmp_path / "proj"
    work.mkdir()
    r = run_cli(
        "ingest",
        str(fixtures_dir / "accents_panel.vtt"),
        "--out",
        "persona_data/phones",
        "--url",
        "https://youtu.be/XYZ",
        cwd=work,
    )
    assert r.returncode == 0, r.stderr
    assert "José" in r.stdout and "Health of phones" in r.stdout and "self-test" in r.stdout
    r = run_cli("check", "persona_data/phones", "--json", cwd=work)
    assert r.returncode == 0, r.stderr
    h = json.loads(r.stdout)
    assert [s["id"] for s in h["speakers"]] == ["jose", "anais", "bjorn"]
    assert h["mismatched_quotes"] == [] and h["timed_quotes"] == h["quotes"]
    assert h["self_test"]["questions"] >= 4
    r = run_cli(
        "ask",
        "--panel",
        "phones",
        "--json",
        "How do you train a model without seeing the data?",
        cwd=work,
    )
    assert r.returncode == 0, r.stderr
    ans = json.loads(r.stdout)
    assert ans["speakers"] == ["anais"]
    top = ans["quotes"][0]
    assert top["start"] is not None and top["url"] == f"https://youtu.be/XYZ?t={int(top['start'])}s"
    r = run_cli("quote", "--panel", "phones", "battery life", cwd=work)
    assert r.returncode == 0 and "https://youtu.be/XYZ?t=" in r.stdout
    r = run_cli(
        "ingest",
        str(fixtures_dir / "accents_panel.srt"),
        "--out",
        "persona_data/x",
        "--url",
        "nope",
        cwd=work,
    )
    assert r.returncode == 2 and "--url" in r.stderr


def test_check_reports_the_shipped_panel(run_cli, shipped_panel) -> None:
    r = run_cli("check", str(shipped_panel.path), "--json")
    assert r.returncode == 0, r.stderr
    h = json.loads(r.stdout)
    # the curated quotes fix caption mishearings and stutters their turns still carry: check names them
    assert all(q.startswith(("dan-", "olive-")) for q in h["mismatched_quotes"])
    assert {s["id"] for s in h["speakers"]} == {"dan", "olive"}
    assert h["unknown_turns"] == 1 and h["self_test"]["routed_share"] >= 0.85


# ----------------------------------------------------------------------------------------------- all fixtures


def _truth(fixtures_dir: Path) -> dict[str, list[str]]:
    import yaml

    return yaml.safe_load((fixtures_dir / "truth.yaml").read_text(encoding="utf-8"))


def _score(turns: list, truth: list[str]) -> tuple[int, int, int]:
    """(panelist raw turns, right, wrong) over the raw turns each attributed turn is made of."""
    n = right = wrong = 0
    for t in turns:
        for i in t.sources:
            want = truth[i]
            if want == "host":
                wrong += t.speaker not in ("host", "unknown")
            elif want != "-":
                n += 1
                right += t.speaker == want
                wrong += t.speaker not in (want, "unknown")
    return n, right, wrong


# Written after the rules, to see how they do on talks they were not shaped on (see README): in one the host
# presents both guests and most questions are addressed to no one; in the other a closing round's answers
# read like each other's fields. Kept here so a change that helps or hurts shows.
# The ocean, bread and transit talks were written later still (first contact 15/17, 0/13 and 10/18); each keeps
# one wrong answer (a '>>' splitting an answer between two sentences, or a follow-on the field misreads).
HARD = {
    "host_intro_captions.txt": (9, 0),
    "energy_panel_captions.txt": (16, 0),  # (at least right, at most wrong)
    "ocean_panel_captions.txt": (15, 1),
    "bread_panel.vtt": (12, 1),
    "transit_panel_captions.txt": (17, 1),
    # written after every rule, scored once (13 of 15), now 14 with one wrong
    "health_panel.srt": (14, 1),
    # written by a new hand without reading the rules, first contact 13 of 68 (see the README); the wrong
    # ones are answers to questions put to no one, decided by fields in common words
    "volcano_interview.vtt": (14, 0),
    "museum_panel.srt": (11, 6),
    # a round the field settles, not the seating order, since it prefers another assignment (rounds.py,
    # _ROUND_FIELD_PREFERRED): here the field is wrong on two answers of its last round, both flagged; on the
    # dev dirs of scripts/fixture_talks.py the same rule gets six more right
    "games_panel_captions.txt": (9, 2),
    # with the evidence by meaning of how each guest was presented (scripts/fit_attribution.py) wages gets one
    # more right and two of its 'unknown' become wrong guesses (flagged by the health report); lake two more right
    "wages_panel.vtt": (8, 5),
    "lake_talk.srt": (6, 3),
    # written after all of that, first contact 7 of 11 (the host who runs the summit taken for a panelist)
    "coffee_panel.json3": (9, 1),
}


def test_fixtures_never_name_a_wrong_panelist_and_leave_few_unknown(fixtures_dir: Path) -> None:
    answers = right = 0
    for name, truth in _truth(fixtures_dir).items():
        _, turns, _ = segment((fixtures_dir / name).read_text(encoding="utf-8"))
        n, r, w = _score(turns, truth)
        if name in HARD:
            least_right, most_wrong = HARD[name]
            assert r >= least_right and w <= most_wrong, name
            continue
        assert w == 0, name
        answers += n
        right += r
    assert right >= 0.95 * answers


def test_a_talk_where_the_host_presents_the_guests(fixtures_dir: Path) -> None:
    title, turns, names = segment(
        (fixtures_dir / "host_intro_captions.txt").read_text(encoding="utf-8")
    )
    assert names == [
        "Léa",
        "Tomasz",
    ]  # from "Joining me are Léa Fontaine, … and Tomasz Wiśniewski, …"
    by_raw = {i: t.speaker for t in turns for i in t.sources}
    assert (
        by_raw[1] == "lea" and by_raw[3] == "lea"
    )  # "Léa, let me start with you." and "And how fast …?"


def test_four_panelists_with_a_chinese_name_an_alias_and_a_two_word_first_name(
    fixtures_dir: Path,
) -> None:
    d = build_draft((fixtures_dir / "four_panel.srt").read_text(encoding="utf-8"), "climate")
    people = {p["id"]: p for p in d.panel["panelists"]}
    assert list(people) == ["mary-jane", "wangfang", "siobhan", "dandre"]
    assert [p["name"] for p in people.values()] == [
        "Mary Jane Okafor",
        "王芳",
        "Siobhán O'Neill",
        "D'Andre",
    ]
    assert people["siobhan"]["organisation"] == "European Forecast Centre"
    # captions with no title: what the host says the panel is on, not the folder's name or the people
    assert d.panel["title"] == "Climate models and the computers that run them"
    # "Wang Fang, what would you change ..." is addressed to 王芳 by her other name
    q = next(q for q in d.questions if "hardware" in q["text"])
    assert q["asked_to"] == ["wangfang"] and q["answered_by"] == ["wangfang"]


def test_title_loses_the_caption_artefacts() -> None:
    from panelbot.ingest.draft import clean_title

    assert (
        clean_title("Agents at Scale: Inside X — Olive Song", ["Dan", "Olive"])
        == "Agents at Scale: Inside X"
    )
    assert clean_title("My Talk (auto-generated) - YouTube", []) == "My Talk"
    assert clean_title("Björn on Boats — Björn Ek", ["Björn"]) == "Björn on Boats"


@pytest.mark.parametrize(
    "name", ["accents_panel.vtt", "four_panel_captions.txt", "three_panel_captions.txt"]
)
def test_draft_turns_carry_their_quotes_verbatim(
    fixtures_dir: Path, name: str, shipped_captions: str
) -> None:
    for text in ((fixtures_dir / name).read_text(encoding="utf-8"), shipped_captions):
        d = build_draft(text, "x")
        for q in d.quotes:
            assert q["text"] in d.turns[q["turn"]].text, q["id"]


def test_align_turn_keeps_neighbouring_quotes_apart() -> None:
    from panelbot.ingest.align import align_turn

    turn = "So the the cache is um big. And it it grows. And that is is fine."
    quotes = ["So the cache is big.", "And it grows.", "And that is fine."]
    out = align_turn(turn, quotes)
    assert out == "So the cache is big. And it grows. And that is fine."
    assert (
        align_turn("nothing alike here", ["Completely different words entirely."])
        == "nothing alike here"
    )


def test_title_from_a_yt_dlp_file_name() -> None:
    from panelbot.ingest.draft import title_from_filename

    assert title_from_filename("Agents at Scale [dQw4w9WgXcQ].en.vtt") == "Agents at Scale"
    assert title_from_filename("/x/My Great Talk.en-US.srt") == "My Great Talk"
    assert title_from_filename("talk.srt") == ""


# ----------------------------------------------------------------------------------------------- labels


def test_srt_with_speaker_labels_names_everyone(tmp_path: Path) -> None:
    srt = (
        "1\n00:00:01,000 --> 00:00:04,000\nMODERATOR: Welcome. Let's start with storage. What breaks first?\n\n"
        "2\n00:00:04,500 --> 00:00:09,000\nPRIYA: Disks fail all the time, so we replicate every volume.\n\n"
        "3\n00:00:09,500 --> 00:00:12,000\nMARCUS: For robots it is the grasping policy, not the hardware.\n\n"
        "4\n00:00:12,500 --> 00:00:15,000\nMODERATOR: Marcus, how do you test that?\n\n"
        "5\n00:00:15,500 --> 00:00:19,000\nMARCUS: In simulation first, then on a warehouse floor.\n"
    )
    _, turns, names = segment(srt)
    assert names == ["Priya", "Marcus"]
    assert [t.speaker for t in turns] == ["host", "priya", "marcus", "host", "marcus"]
    assert turns[1].text.startswith("Disks") and turns[1].start == pytest.approx(4.5)
    assert all(t.why == "labelled in the captions" for t in turns)


def test_vtt_voice_spans_and_anonymous_speakers_named_by_their_introductions() -> None:
    vtt = (
        "WEBVTT\n\n00:00.000 --> 00:03.000\n<v Speaker 1>So who are you both and what do you work on?\n\n"
        "00:03.000 --> 00:06.000\n<v Speaker 2>Hi, I'm Zoë and I build compilers for phones.\n\n"
        "00:06.000 --> 00:09.000\n<v Speaker 3>And I'm Kwame, I run the data platform at Osei Labs.\n\n"
        "00:09.000 --> 00:12.000\n<v Speaker 1>Zoë, what is hard about compilers?\n\n"
        "00:12.000 --> 00:15.000\n<v Speaker 2>Register allocation, every single time.\n"
    )
    _, turns, names = segment(vtt)
    assert names == ["Zoë", "Kwame"]
    assert [t.speaker for t in turns] == ["host", "zoe", "kwame", "host", "zoe"]


def test_a_stray_colon_is_not_a_speaker_label() -> None:
    _, turns, _ = segment(
        "Talk\n\nWelcome. Note: the slides are online. >> Hi, I'm Ann. >> And I'm Bob."
    )
    assert [t.speaker for t in turns] == ["host", "ann", "bob"] or all(
        t.why != "labelled in the captions" for t in turns
    )


_NAMES = [
    "José",
    "Anaïs",
    "Björn",
    "D'Andre",
    "王芳",
    "Łukasz",
    "Mary Jane",
    "Zoë",
    "Дмитрий",
    "Host",
    "Ann-Marie",
]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(
            st.sampled_from(_NAMES),
            st.sampled_from(["I'm {}.", "{} here.", "{}, what do you think?", "my name is {}."]),
            st.text(max_size=30),
        ),
        min_size=1,
        max_size=10,
    )
)
def test_any_draft_with_unicode_names_writes_a_panel_that_loads(tmp_path_factory, parts) -> None:
    from panelbot.errors import DataError
    from panelbot.ingest.draft import write_draft
    from panelbot.panel import load_panel

    text = "T\n\n" + " >> ".join(
        f"{tpl.format(n)} {extra} We build caches and train models on data."
        for n, tpl, extra in parts
    )
    try:
        d = build_draft(text, "x")
    except DataError:
        return
    out = tmp_path_factory.mktemp("p") / "p"
    write_draft(d, text, out)
    panel = load_panel(out)
    assert set(panel.panelists) == {p["id"] for p in d.panel["panelists"]}


def test_a_one_guest_interview_gives_every_answer_to_the_guest() -> None:
    turns, names = identify_speakers(
        split_turns(
            "Welcome to the show. Tell us who you are? >> Hi, I'm Ravi and I build bridges. >> What is hard about "
            "bridges? >> Wind, mostly. Long spans twist in the wind. >> How do you test that? >> In a wind tunnel."
        )
    )
    assert names == ["Ravi"]
    assert [t.speaker for t in turns] == ["host", "ravi", "host", "ravi", "host", "ravi"]


def test_guests_presented_in_other_words_and_a_hyphenated_first_name(fixtures_dir: Path) -> None:
    _, _, names = segment((fixtures_dir / "bread_panel.vtt").read_text(encoding="utf-8"))
    assert names == [
        "Zoë",
        "Rafał",
    ]  # "With me are Zoë Achterberg, who runs …, and Rafał Nowicki, a …"
    d = build_draft(
        (fixtures_dir / "transit_panel_captions.txt").read_text(encoding="utf-8"), "transit"
    )
    # "Íñigo Etxeberria, I'm a data scientist" names himself without "I'm Íñigo"
    assert [p["id"] for p in d.panel["panelists"]] == ["jean-luc", "ngozi", "inigo", "hannah"]


def test_a_presented_guest_gets_role_and_bio_from_the_hosts_words(fixtures_dir: Path) -> None:
    d = build_draft((fixtures_dir / "bread_panel.vtt").read_text(encoding="utf-8"), "bread")
    people = {p["id"]: p for p in d.panel["panelists"]}
    assert people["rafal"]["role"] == "Plant breeder and miller"
    assert "sourdough bakery" in people["zoe"]["bio"]
    assert (
        "nowicki" not in people["rafal"]["keywords"]
    )  # a surname is who he is, not what he talks about
    # the host's question says what its answer is about, in a word the answer never uses
    first = next(q for q in d.quotes if q["question"] == "q01")
    assert "sourdough" in first["keywords"]
    farm = build_draft(
        (fixtures_dir / "host_intro_captions.txt").read_text(encoding="utf-8"), "farm"
    )
    tomasz = next(p for p in farm.panel["panelists"] if p["id"] == "tomasz")
    assert (tomasz["role"], tomasz["organisation"]) == ("Economist", "Baltic Farm Institute")


def test_roles_from_professions_and_without_the_city(fixtures_dir: Path) -> None:
    d = build_draft(
        (fixtures_dir / "ocean_panel_captions.txt").read_text(encoding="utf-8"), "ocean"
    )
    people = {p["id"]: p for p in d.panel["panelists"]}
    # "I'm a coral reef ecologist at the Instituto do Mar in Lisbon", "I'm a fisheries economist, so …"
    assert (people["ana-lucia"]["role"], people["ana-lucia"]["organisation"]) == (
        "Coral reef ecologist",
        "Instituto do Mar",
    )
    assert people["soren"]["role"] == "Fisheries economist"
    d = build_draft((fixtures_dir / "bread_panel.vtt").read_text(encoding="utf-8"), "bread")
    assert (
        next(p for p in d.panel["panelists"] if p["id"] == "zoe")["role"]
        == "Runs a cooperative sourdough bakery"
    )
