"""Rolling-caption de-duplication, turn splitting and quote cleaning (panelbot.ingest.captions)."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from panelbot.ingest.captions import (
    SPEAKER_MARK,
    clean_quote_text,
    dedupe_text,
    dedupe_words,
    read_captions,
    split_turns,
)

PROPS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _back_to_back_repeats(words: list[str], min_len: int = 3, max_len: int = 40) -> list[list[str]]:
    found = []
    for k in range(min_len, max_len + 1):
        for i in range(len(words) - 2 * k + 1):
            if words[i : i + k] == words[i + k : i + 2 * k]:
                found.append(words[i : i + 2 * k])
    return found


# ----------------------------------------------------------------------------------------------- shipped captions


@pytest.fixture(scope="module")
def shipped_body(shipped_captions: str) -> list[str]:
    title, body = read_captions(shipped_captions)
    assert title.startswith("Agents at Scale")
    return body.split()


@pytest.fixture(scope="module")
def shipped_deduped(shipped_body: list[str]) -> list[str]:
    return dedupe_words(shipped_body)


def test_shipped_raw_captions_are_about_11900_words(shipped_body: list[str]) -> None:
    assert 11_500 <= len(shipped_body) <= 12_300


def test_shipped_dedupe_brings_it_to_about_4000_words(shipped_deduped: list[str]) -> None:
    assert 3_900 <= len(shipped_deduped) <= 4_100


def test_shipped_dedupe_leaves_no_repeated_phrase(shipped_deduped: list[str]) -> None:
    assert _back_to_back_repeats(shipped_deduped) == []


def test_shipped_dedupe_loses_no_word(shipped_body: list[str], shipped_deduped: list[str]) -> None:
    assert set(shipped_body) - set(shipped_deduped) == set()
    # and the words keep their order: the output is a subsequence of the input
    it = iter(shipped_body)
    assert all(w in it for w in shipped_deduped)


def test_shipped_dedupe_keeps_known_sentences(shipped_deduped: list[str]) -> None:
    text = " ".join(shipped_deduped)
    assert "I'm Dan. I'm the VP of Kernels Together AI." in text
    assert "I'm Olive and I am the research lead of RL at MiniMax" in text
    # each of these opened a caption line that the captions repeat three times
    assert text.count("This is a discussion that I'm particularly excited about") == 1


def test_shipped_dedupe_is_idempotent(shipped_deduped: list[str]) -> None:
    assert dedupe_words(shipped_deduped) == shipped_deduped


def test_shipped_split_keeps_every_speaker_mark_boundary(shipped_captions: str) -> None:
    _, body = read_captions(shipped_captions)
    turns = split_turns(body)
    assert 30 <= len(turns) <= 60
    assert [t.index for t in turns] == list(range(len(turns)))
    assert all(SPEAKER_MARK not in t.text and t.text.strip() for t in turns)
    assert turns[1].text.split()[:5] == ["Uh", "hey", "everyone.", "I'm", "Dan."]


# ----------------------------------------------------------------------------------------------- fixture panel


def test_fixture_rolling_captions_dedupe_to_the_clean_transcript(fixtures_dir) -> None:
    raw = (fixtures_dir / "storage_panel_captions.txt").read_text(encoding="utf-8")
    clean = (fixtures_dir / "clean_storage_panel.txt").read_text(encoding="utf-8")
    title, body = read_captions(raw)
    assert title == "The Future of Storage and Robots \u2014 Priya Raman"
    assert len(body.split()) > 2.5 * len(clean.split())
    assert dedupe_words(body.split()) == clean.split()


def test_fixture_turns_match_the_speaker_marks(fixtures_dir) -> None:
    raw = (fixtures_dir / "storage_panel_captions.txt").read_text(encoding="utf-8")
    clean = (fixtures_dir / "clean_storage_panel.txt").read_text(encoding="utf-8")
    expected = [" ".join(part.split()) for part in clean.split(SPEAKER_MARK) if part.strip()]
    assert [t.text for t in split_turns(read_captions(raw)[1])] == expected


# ----------------------------------------------------------------------------------------------- units


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("a b c a b c a b c d", "a b c d"),
        ("one two three four one two three four five", "one two three four five"),
        ("x y x y x y z", "x y z"),  # a two-word phrase three times is an artefact
        ("no no no no", "no"),
        ("a really really good b", "a really really good b"),  # spoken twice: kept
        ("I think I think so", "I think I think so"),  # a two-word phrase twice: kept
        ("", ""),
    ],
)
def test_dedupe_units(raw: str, expected: str) -> None:
    assert dedupe_text(raw) == expected


def test_split_turns_at_marks() -> None:
    turns = split_turns("hello there >> hi >>>> ok >> >> bye")
    assert [t.text for t in turns] == ["hello there", "hi", "ok", "bye"]
    assert [t.index for t in turns] == [0, 1, 2, 3]
    assert [t.text for t in split_turns("a>>b")] == ["a", "b"]
    assert split_turns("") == [] and split_turns(">> >> >>") == []


def test_split_turns_dedupes_across_marks() -> None:
    turns = split_turns(
        "so go first. >> Hi I'm Ann. so go first. >> Hi I'm Ann. so go first. >> Hi I'm Ann. I work"
    )
    assert [t.text for t in turns] == ["so go first.", "Hi I'm Ann. I work"]


def test_read_captions_title_and_body() -> None:
    assert read_captions("Title line\n\nbody >> x") == ("Title line", "body >> x")
    assert read_captions("\ufeffT\r\n\r\nb") == ("T", "b")
    # a first line with a speaker mark is body, not a title
    assert read_captions(">> no title\n\nbody") == ("", ">> no title\n\nbody")
    assert read_captions("just one line") == ("", "just one line")


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("the the model is fast.", "The model is fast."),
        (
            "you just you just go and you keep you keep doing it.",
            "You just go and you keep doing it.",
        ),
        ("um so we, uh, ship it.", "So we, ship it."),
        ("Yes. Yes. We do.", "Yes. Yes. We do."),  # a repeat across a sentence end is speech
        ("we we're big believers", "We we're big believers"),
        ("uh", ""),
        ("", ""),
        # a listener's back-channel caught inside the answer is not the speaker's
        (
            "we measure it from satellites. Mm-hm. So the odds go up.",
            "We measure it from satellites. So the odds go up.",
        ),
        ("I said mm-hm to him.", "I said mm-hm to him."),
        ("the hmm-hmm thing", "The hmm-hmm thing"),  # a filler inside a word is part of it
    ],
)
def test_clean_quote_text(raw: str, expected: str) -> None:
    assert clean_quote_text(raw) == expected


def test_clean_quote_text_keeps_words_that_contain_fillers() -> None:
    # "um"/"uh" inside words are not fillers
    assert clean_quote_text("the umbrella and the uhlan") == "The umbrella and the uhlan"


# ----------------------------------------------------------------------------------------------- properties

_word = st.one_of(
    st.sampled_from(["the", "model", ">>", "Dan", "I'm", "um", "kv", "cache", "?", ".", "a", "b"]),
    st.text(min_size=1, max_size=8).filter(lambda s: s.split() == [s]),
)


@PROPS
@given(st.lists(_word, max_size=300))
def test_dedupe_never_grows_keeps_order_and_every_distinct_word(words: list[str]) -> None:
    out = dedupe_words(words)
    assert len(out) <= len(words)
    assert set(out) == set(words)
    it = iter(words)
    assert all(w in it for w in out)


@PROPS
@given(
    st.lists(st.sampled_from("abcdefghijklmnop"), min_size=3, max_size=12, unique=True),
    st.integers(2, 3),
)
def test_dedupe_collapses_a_rolled_phrase(phrase: list[str], times: int) -> None:
    # a caption line (3+ distinct words) shown two or three times comes out once
    out = dedupe_words(["start", *phrase * times, "end"])
    assert out == ["start", *phrase, "end"]


@PROPS
@given(st.text(max_size=2000))
def test_dedupe_and_split_never_crash_on_arbitrary_text(text: str) -> None:
    d = dedupe_text(text)
    assert len(d.split()) <= len(text.split())
    turns = split_turns(text)
    assert all(t.text and SPEAKER_MARK not in t.text for t in turns)
    assert [t.index for t in turns] == list(range(len(turns)))
    read_captions(text)
    clean_quote_text(text)


@PROPS
@given(
    st.lists(
        st.sampled_from([">>", ">", ">>>", "a", "b", "a>>b", "\x1b[2J", "\x00", "\u202e"]),
        max_size=200,
    )
)
def test_split_turns_on_marker_soup(parts: list[str]) -> None:
    turns = split_turns(" ".join(parts))
    assert all(not re.fullmatch(r"\s*", t.text) for t in turns)


@PROPS
@given(
    st.lists(
        st.sampled_from(["we", "train", "the", "model", "kv", "cache", "fast", "."]), max_size=120
    )
)
def test_dedupe_idempotent_on_its_own_output(words: list[str]) -> None:
    once = dedupe_words(words)
    assert dedupe_words(once) == once
