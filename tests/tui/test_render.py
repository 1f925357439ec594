"""Markup-safe rendering (panelbot.tui.render): exact text, exact styles, no markup, no escapes."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text

from panelbot.panel import Panel, Persona, Quote
from panelbot.retrieval.results import ScoredQuote
from panelbot.tui.render import (
    FALLBACK_COLOURS,
    answer_body,
    highlight_quote,
    persona_card,
    plain,
    safe,
    source_option,
    speaker_colour,
)

MARKUP = "[bold]x[/bold] [link=https://e.example]y[/link]"


def _panel(colour: str = "") -> Panel:
    dan = Persona(
        "dan",
        "Dan\x1b[31m " + MARKUP,
        role="VP\nKernels",
        organisation="Together\x07AI",
        colour=colour,
    )
    olive = Persona("olive", "Olive", colour="not a colour")
    return Panel(
        name="p",
        title="T",
        path=Path("."),
        status="curated",
        host=Persona("host", "H"),
        panelists={"dan": dan, "olive": olive},
        quotes=[Quote("dan-01", "dan", "Memory\x1b]52;c;eA==\x07 is " + MARKUP + " " + "w" * 200)],
    )


def _styled(text: Text) -> list[tuple[str, str]]:
    return [(text.plain[s.start : s.end], str(s.style)) for s in text.spans]


def test_safe_and_plain_keep_markup_literal_and_drop_escapes() -> None:
    assert safe("a\x1b[2Jb\nc") == "ab\nc"
    assert safe("a\x1b[2Jb\nc", one_line=True) == "ab c"
    assert safe(12) == "12"
    t = plain(MARKUP + "\x07\n", "bold")
    assert t.plain == MARKUP + "\n" and str(t.style) == "bold" and t.spans == []
    assert plain("a\nb", one_line=True).plain == "a b"


def test_highlight_quote_exact_then_flexible_whitespace_then_none() -> None:
    t = highlight_quote("Before. The cache grows. After [bold].", "The cache grows.")
    assert t.plain == "Before. The cache grows. After [bold]."
    assert _styled(t) == [("The cache grows.", "bold reverse")]
    t = highlight_quote("Before. The  cache\ngrows fast.", "  The cache grows ")
    assert _styled(t) == [("The  cache\ngrows", "bold reverse")]
    t = highlight_quote("Nothing alike here.", "The cache grows")
    assert t.plain == "Nothing alike here." and t.spans == []
    t = highlight_quote("Some text.", "   ")
    assert t.spans == []
    t = highlight_quote("x \x1b[31mred\x1b[0m y", "red")
    assert t.plain == "x red y" and _styled(t) == [("red", "bold reverse")]
    t = highlight_quote("a.b a b", "a b")  # the needle is literal text, never a pattern
    assert _styled(t) == [("a b", "bold reverse")] and t.spans[0].start == 4


def test_speaker_colour_valid_invalid_and_fallbacks() -> None:
    assert speaker_colour(_panel("#123456"), "dan") == "#123456"
    p = _panel()
    assert speaker_colour(p, "dan") == FALLBACK_COLOURS[0]
    assert (
        speaker_colour(p, "olive") == FALLBACK_COLOURS[1]
    )  # an invalid colour falls back by position
    assert speaker_colour(p, "someone") == FALLBACK_COLOURS[2]
    assert speaker_colour(None, "dan") == FALLBACK_COLOURS[0]


def test_persona_card_is_plain_text_with_styles() -> None:
    p = _panel("#123456")
    card = persona_card(p, p.panelists["dan"])
    assert card.plain == "\u25cf Dan " + MARKUP + "\n  VP Kernels\n  TogetherAI"
    assert _styled(card) == [
        ("\u25cf ", "#123456"),
        ("Dan " + MARKUP, "bold #123456"),
        ("\n  TogetherAI", "italic"),
    ]
    bare = persona_card(p, p.panelists["olive"])
    assert bare.plain == "\u25cf Olive"


def test_answer_body_picks_out_ids_only() -> None:
    t = answer_body("It grows [dan-01]. Not [Bold] or [x y]. " + MARKUP)
    assert t.plain == "It grows [dan-01]. Not [Bold] or [x y]. " + MARKUP
    assert [s for s, _ in _styled(t)] == [
        "[dan-01]",
        "[bold]",
    ]  # ids look like [a-z0-9][a-z0-9_.-]*
    assert all(style == "bold underline" for _, style in _styled(t))


def test_source_option_layout() -> None:
    p = _panel("#123456")
    q = p.quotes[0]
    t = source_option(p, ScoredQuote(q, 42.4, "matched:\x1b[1m kv\ncache"), width=40)
    lines = t.plain.split("\n")
    assert lines[0] == "dan-01  Dan " + MARKUP + "  match 42/100"
    assert lines[1] == "matched: kv cache"
    assert lines[2] == "\u201c" + ("Memory is " + MARKUP + " " + "w" * 200)[:39] + "\u2026\u201d"
    assert ("dan-01", "bold") in _styled(t) and ("  match 42/100", "dim") in _styled(t)
    assert ("\nmatched: kv cache", "dim italic") in _styled(t)
    t = source_option(None, ScoredQuote(q, 0.0), width=500)
    assert t.plain.split("\n")[0] == "dan-01  dan" and len(t.plain.split("\n")) == 2
    assert t.plain.endswith("w\u201d")
    exact = source_option(p, ScoredQuote(Quote("a-1", "dan", "x" * 10), 1.0), width=10)
    assert exact.plain.endswith("\u201c" + "x" * 10 + "\u201d")
