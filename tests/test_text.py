"""Terminal-safety and tokenising helpers (panelbot.text)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from panelbot.text import (
    GuardedPattern,
    fold,
    normalize_for_match,
    split_sentences,
    strip_control,
    words,
)


@pytest.mark.parametrize(
    "raw, clean",
    [
        ("a\x1b[31mred\x1b[0m", "ared"),  # CSI colour
        ("x\x1b[2J\x1b[Hy", "xy"),  # clear screen, cursor home
        ("b\x1b]52;c;SGVsbG8=\x07c", "bc"),  # OSC 52 clipboard write, BEL-terminated
        ("b\x1b]52;c;SGk=\x1b\\c", "bc"),  # OSC 52, ST-terminated
        ("t\x1b]0;evil title\x07u", "tu"),  # OSC window title
        ("p\x1bPq#0;2;0;0;0\x1b\\q", "pq"),  # DCS
        ("d\x9b31me", "de"),  # 8-bit CSI
        ("e\x85f\x90g\x9fh", "efgh"),  # C1 controls
        ("f\u202eg\u202dh\u2066i\u2069j\u200fk", "fghijk"),  # bidi overrides / isolates / marks
        ("x\x00y\x07z\x7f", "xyz"),  # NUL, BEL, DEL
        ("\x1bMup", "up"),  # reverse index (a two-byte escape)
    ],
)
def test_strip_control_removes(raw: str, clean: str) -> None:
    assert strip_control(raw) == clean


@pytest.mark.parametrize("raw", ["\x1bcreset", "\x1b7save\x1b8", "\x1b=pad"])
def test_strip_control_removes_fp_and_fs_escapes_whole(raw: str) -> None:
    assert strip_control(raw) in ("reset", "save", "pad")


def test_strip_control_never_leaves_an_escape() -> None:
    for raw in ("\x1bcreset", "\x1b7save\x1b8", "\x1b=pad", "\x1b", "\x1b[", "\x1b]52;c;", "\x1bP"):
        assert "\x1b" not in strip_control(raw)


def test_strip_control_keeps_newlines_and_tabs() -> None:
    assert strip_control("line one\nline\ttwo\r\nthree\rfour") == "line one\nline\ttwo\nthree\nfour"
    assert strip_control("a\nb\tc\n\nd", keep_newlines=False) == "a b c d"


def test_strip_control_keeps_ordinary_unicode() -> None:
    s = "Café — “quotes” ✓ 中文 emoji 🚀"
    assert strip_control(s) == s


@settings(max_examples=100, deadline=None)
@given(st.text())
def test_strip_control_output_is_terminal_safe(s: str) -> None:
    out = strip_control(s)
    for ch in out:
        o = ord(ch)
        assert ch in "\n\t" or not (o < 0x20 or 0x7F <= o <= 0x9F)
        assert not (0x202A <= o <= 0x202E or 0x2066 <= o <= 0x2069)
    assert strip_control(out) == out  # idempotent
    assert "\n" not in strip_control(s, keep_newlines=False)


def test_words_and_fold() -> None:
    assert words("Don't use M3 2.7 Café!") == ["don't", "use", "m3", "2.7", "cafe"]
    assert words("don\u2019t") == ["don't"]
    assert fold("Café \u201cx\u201d") == 'cafe "x"'
    assert normalize_for_match("  The KV-cache, grows!") == "the kv cache grows"


def test_fold_spells_letters_nfkd_cannot_strip_in_ascii() -> None:
    # letters with no accent to strip ("ł", "ø", "ß", "æ", another script) are spelt as ingest spells ids
    from panelbot.ingest.names import fold_id

    for name in ("Rafał", "Søren", "Łukasz", "Æsa", "Đorđe", "Иван", "Zoë"):
        assert fold(name) == fold_id(name) and fold(name).isascii()
    assert words("Rafał Nowicki, Straße") == ["rafal", "nowicki", "strasse"]
    assert fold("a — “b”") == 'a — "b"'  # symbols and punctuation are kept as they are


def test_split_sentences() -> None:
    assert split_sentences("Hi there. How are you? fine. OK") == [
        "Hi there.",
        "How are you? fine.",
        "OK",
    ]
    assert split_sentences("  ") == []


def test_split_sentences_keeps_closing_quotes() -> None:
    assert split_sentences('He said "go." Then left.') == ['He said "go."', "Then left."]
    assert split_sentences("It works (mostly.) Next one.") == ["It works (mostly.)", "Next one."]


def test_lazy_pattern_compiles_on_first_use_and_acts_as_the_pattern() -> None:
    import re

    from panelbot.text import LazyPattern

    lazy = LazyPattern(r"(k)v\s+cache", re.I)
    assert lazy._compiled is None  # nothing compiled at import / construction
    assert lazy.search("the KV  cache").group(1) == "K"
    assert lazy.compiled is lazy.compiled and lazy.compiled.flags & re.I
    assert lazy.sub("X", "kv cache, Kv cache") == "X, X"
    assert [m.start() for m in lazy.finditer("kv cache kv cache")] == [0, 9]
    assert "cache" in repr(lazy)


# ------------------------------------------------------------------------------- GuardedPattern

_TRICKY = st.sampled_from(
    [
        "i",
        "I",
        "\u0131",
        "\u0130",
        "k",
        "K",
        "\u212a",
        "s",
        "S",
        "\u017f",
        "'",
        "\u2019",
        " ",
        "@",
        "dan",
        "Olive",
        "together",
        "TOGETHER",
        "Ai",
        "é",
        "ß",
    ]
)


@given(
    st.lists(_TRICKY | st.text(max_size=3), max_size=12).map("".join),
    st.sampled_from(["dan", "olive", "together", "kai", "isis", "sam"]),
    st.booleans(),
)
def test_guarded_pattern_finds_what_the_pattern_finds(
    text: str, word: str, ignore_case: bool
) -> None:
    """The guard (one of the literals must be in the text) never hides a match, in any letter case or
    Unicode spelling the regular expression accepts (dotless i, Kelvin sign, long s...)."""
    import re

    flags = re.IGNORECASE if ignore_case else 0
    pattern = rf"(?<![\w@]){re.escape(word)}(?![\w'])|\b{re.escape(word)}['\u2019]s\b"
    plain = re.compile(pattern, flags).search(text)
    guarded = GuardedPattern(pattern, flags, (word,)).search(text)
    assert (plain is None) == (guarded is None)
    if plain is not None:
        assert guarded is not None and plain.span() == guarded.span()


def test_guarded_pattern_compiles_only_when_a_literal_is_there() -> None:
    g = GuardedPattern(r"\bdan\b", 0, ("dan",))
    assert g.search("what does olive think?") is None and g._compiled is None
    assert g.search("and dan?") is not None and g._compiled is not None
    assert GuardedPattern(r"\bjosé\b", 0, ("José",))._literals == ()  # not ASCII: no guard


def test_fill_text_keeps_hyphenated_words_and_urls_whole() -> None:
    from panelbot.text import fill_text

    text = "Ask Olive about post-training and reinforcement learning over 12-hour runs"
    for width in range(20, 80):
        lines = fill_text(text, width, "  ").splitlines()
        assert all(line.startswith("  ") for line in lines)
        assert not any(line.endswith("-") for line in lines), (width, lines)
        assert " ".join(line.strip() for line in lines) == text
    url = "https://www.youtube.com/watch?v=abcdefghijk&t=1234"
    assert url in fill_text(f"watch {url} now", 20).splitlines()


def test_ask_text_output_never_splits_a_hyphenated_word(run_cli) -> None:
    r = run_cli("ask", "--no-log", "hi", env={"COLUMNS": "100"})
    assert r.returncode == 0, r.stderr
    assert "post-training" in r.stdout and "post-\n" not in r.stdout


def test_and_list_reads_as_a_sentence() -> None:
    from panelbot.text import and_list

    assert and_list([]) == "" and and_list(["Dan"]) == "Dan"
    assert and_list(["Dan", "Olive"]) == "Dan and Olive"
    assert and_list(["Ada", "Ben", "Cy", "Di"]) == "Ada, Ben, Cy and Di"


def test_a_count_agrees_with_its_noun() -> None:
    from panelbot.text import count_of

    assert count_of(1, "turn") == "1 turn"
    assert count_of(0, "turn") == "0 turns"
    assert count_of(2, "host question") == "2 host questions"
    assert count_of(1200, "quote") == "1,200 quotes"
    assert count_of(3, "person", "people") == "3 people"


def test_cased_like_takes_an_acronym_from_its_plural() -> None:
    """A lower-case topic ("gpu underutilization") takes the acronym as the quote writes its plural
    ("our GPUs"): "GPU underutilization"; an ordinary capitalised word is left alone."""
    from panelbot.text import cased_like

    assert cased_like("gpu underutilization", "we underutilize our GPUs") == "GPU underutilization"
    assert cased_like("llms and gpus", "LLMs on GPUs") == "LLMs and GPUs"
    assert cased_like("bees", "Bees nest there") == "bees"
