"""Property tests over every output path: no control character, escape sequence, bidi or invisible format
character, Unicode line separator or lone surrogate reaches a terminal or a file; JSON is ASCII, one object
per line, and round-trips; the API key never survives in any case, escaping or fragment."""

from __future__ import annotations

import io
import json
import unicodedata
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from panelbot import redact
from panelbot.answer.backends.base import SpeakerDone, TextDelta
from panelbot.answer.compose import format_route
from panelbot.cli.common import print_json, read_questions
from panelbot.conversation.export import ExportMessage, conversation_markdown
from panelbot.panel import Panel, Persona, Quote
from panelbot.redact import MIN_FRAGMENT, Redactor, StreamRedactor
from panelbot.retrieval.results import RouteResult, ScoredQuote
from panelbot.text import strip_control


@pytest.fixture(autouse=True)
def _no_registered_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keys other tests registered in this process would redact their fragments from the generated text
    (a three-letter key anywhere in it, say), and the round trips here would fail by the order tests ran in."""
    monkeypatch.setattr(redact, "_REGISTERED", {})


PROPS = settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)

# One sample of every dangerous class, and whole escape sequences.
CLASSES = {
    "C0": [chr(c) for c in range(0x20) if chr(c) not in "\n\t"],
    "DEL+C1": [chr(c) for c in range(0x7F, 0xA0)],
    "bidi": [
        "\u202a",
        "\u202b",
        "\u202c",
        "\u202d",
        "\u202e",
        "\u2066",
        "\u2067",
        "\u2068",
        "\u2069",
        "\u200e",
        "\u200f",
        "\u061c",
    ],
    "invisible": [
        "\u200b",
        "\u200c",
        "\u200d",
        "\u2060",
        "\ufeff",
        "\u00ad",
        "\u180e",
        "\U000e0041",
        "\U000e0001",
        "\u2061",
    ],
    "separators": ["\u2028", "\u2029", "\u0085"],
    "surrogates": ["\udc9b", "\udcff", "\ud800"],
}
SEQUENCES = [
    "\x1b[2J",
    "\x1b[31m",
    "\x1b]52;c;ZXZpbA==\x07",
    "\x1b]0;title\x1b\\",
    "\x1bP+q\x1b\\",
    "\x9b31m",
    "\x1b(0",
    "\x1bc",
    "\x1b[?1049h",
    "\x1b]8;;http://x\x07link\x1b]8;;\x07",
]
DANGEROUS = st.sampled_from([c for cs in CLASSES.values() for c in cs] + SEQUENCES)
hostile = st.lists(
    st.one_of(
        DANGEROUS,
        st.text(st.characters(blacklist_categories=("Cs",)), max_size=8),
        st.sampled_from(["[dan-1]", "\u201c", "\n", " ", "grounded"]),
    ),
    max_size=30,
).map("".join)


def is_dangerous(ch: str) -> bool:
    if ch in "\n\t":
        return False
    return unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Zl", "Zp")


def assert_clean(text: str) -> None:
    bad = [f"U+{ord(c):04X}" for c in text if is_dangerous(c)]
    assert not bad, bad


@PROPS
@given(hostile)
def test_strip_control_leaves_nothing_dangerous_and_is_idempotent(text: str) -> None:
    once = strip_control(text)
    assert_clean(once)
    assert strip_control(once) == once
    flat = strip_control(text, keep_newlines=False)
    assert_clean(flat) and "\n" not in flat and "\t" not in flat


def test_every_class_is_covered() -> None:
    for name, chars in CLASSES.items():
        for c in chars:
            assert strip_control(f"a{c}\n") in ("a\n", "a\n\n"), (name, hex(ord(c)))


@PROPS
@given(
    st.recursive(
        st.one_of(hostile, st.integers(), st.floats(allow_nan=False), st.booleans(), st.none()),
        lambda kids: st.one_of(
            st.lists(kids, max_size=3), st.dictionaries(hostile, kids, max_size=3)
        ),
        max_leaves=10,
    )
)
def test_json_output_is_ascii_one_line_and_round_trips(obj: object) -> None:
    out = io.StringIO()
    print_json(obj, out)
    raw = out.getvalue()
    assert raw.isascii() and raw.endswith("\n") and raw.count("\n") == 1
    # what JSON itself keeps: two lone surrogates that happen to form a pair read back as one character
    assert json.loads(raw) == json.loads(json.dumps(obj))


@PROPS
@given(st.lists(hostile, min_size=1, max_size=5))
def test_questions_from_stdin_or_arguments_are_clean(lines: list[str]) -> None:
    data = "\n".join(lines).encode("utf-8", "surrogatepass")
    stdin = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8")
    try:
        for q in read_questions(["-"], stdin):
            assert_clean(q) and "\n" not in q
    except Exception as exc:  # only a stdin with no question on it is refused
        assert "no question on stdin" in str(exc)
    try:
        for q in read_questions(lines, io.StringIO()):
            assert_clean(q) and "\n" not in q
    except Exception as exc:  # only the empty question is refused
        assert "empty" in str(exc)


def hostile_panel(name: str, title: str, text: str) -> Panel:
    dan = Persona("dan", name or "Dan", role=title, organisation=title)
    return Panel(
        name="p",
        title=title,
        path=Path("."),
        status="curated",
        host=Persona("host", name),
        panelists={"dan": dan},
        quotes=[Quote("dan-1", "dan", text or "x")],
    )


@PROPS
@given(hostile, hostile, hostile)
def test_the_quote_listing_is_clean(name: str, title: str, text: str) -> None:
    panel = hostile_panel(name, title, text)
    route = RouteResult("q", ["dan"], False, [ScoredQuote(panel.quotes[0], 50.0)], title)
    assert_clean(format_route(panel, route, width=80))


@PROPS
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["user", "assistant", "decline", "error", "search"]), hostile, hostile
        ),
        max_size=5,
    ),
    hostile,
)
def test_the_markdown_export_is_clean(messages: list[tuple[str, str, str]], title: str) -> None:
    msgs = [ExportMessage(role, who, text, ["dan-1", title]) for role, who, text in messages]
    md = conversation_markdown(title, title, msgs, quote_lookup=lambda q: (title, title))
    assert_clean(md)


@PROPS
@given(st.lists(hostile, min_size=1, max_size=6), hostile, st.booleans())
def test_the_streamed_cli_answer_is_clean_and_unspoofable(
    pieces: list[str], error: str, failed: bool
) -> None:
    from panelbot.answer.text_view import TextView

    panel = hostile_panel("Dan", "VP", "The KV cache grows.")
    out = io.StringIO()
    view = TextView(panel, out)
    for p in pieces:
        view.delta(TextDelta("dan", p))
    quotes = [ScoredQuote(panel.quotes[0], 50.0)]
    view.done(
        SpeakerDone(
            "dan",
            "".join(pieces),
            quotes,
            error=strip_control(error) if failed else None,
            grounded=None if failed else False,
            unsupported_sentences=[strip_control(error)],
        )
    )
    text = out.getvalue()
    assert_clean(text)
    heading, *rest = text.split("\n")
    assert heading == "Dan (VP, VP):"
    # the model's words never start a line: every line at column 0 is panelbot's own
    for line in rest:
        if line.strip() and not line.startswith("  "):
            assert line.startswith(
                (
                    "[the model failed:",
                    "[NOT grounded",
                    "[cites nothing",
                    "[... and",
                    "Dan's own words:",
                )
            ), line


def test_error_lines_in_the_cli_are_clean(tmp_path: Path, isolated_env, capsys) -> None:  # noqa: ANN001
    from panelbot.cli.main import main

    bad = tmp_path / "c\x1b]52;c;ZXZpbA==\x07\u202e.yaml"
    assert main(["ask", "--config", str(bad), "kv"]) == 2
    err = capsys.readouterr().err
    assert_clean(err) and err.count("\n") == 1 and "config file not found" in err


def test_history_listing_is_clean(isolated_env, capsys) -> None:  # noqa: ANN001
    from panelbot import paths
    from panelbot.cli.main import main
    from panelbot.conversation.store import ConversationStore

    with ConversationStore(paths.history_db_path()) as store:
        store.new_conversation("p\x1b[2J", "t\u202eitle\x9b31m\u2028x")
    assert main(["history"]) == 0
    assert_clean(capsys.readouterr().out)
    assert main(["history", "--json"]) == 0
    out = capsys.readouterr().out
    assert out.isascii() and out.count("\n") == 1


# ------------------------------------------------------------------------------------------ the key

keys = st.text(st.characters(min_codepoint=33, max_codepoint=126), min_size=8, max_size=60)


def fragments(key: str) -> list[str]:
    return [key[i : i + MIN_FRAGMENT].lower() for i in range(len(key) - MIN_FRAGMENT + 1)]


def no_fragment(key: str, text: str) -> bool:
    low = text.lower()
    return not any(f in low for f in fragments(key))


@st.composite
def text_with_key(draw: st.DrawFn) -> tuple[str, str]:
    key = draw(keys)
    start = draw(st.integers(0, len(key) - MIN_FRAGMENT))
    end = draw(st.integers(start + MIN_FRAGMENT, len(key)))
    piece = key[start:end]
    form = draw(
        st.sampled_from([piece, piece.upper(), piece.lower(), repr(key)[1:-1], json.dumps(key)])
    )
    before = draw(st.text(max_size=20))
    after = draw(st.text(max_size=20))
    return key, f"{before}{form}{after}"


@PROPS
@given(text_with_key())
def test_every_form_and_fragment_of_the_key_is_redacted(case: tuple[str, str]) -> None:
    key, text = case
    assert no_fragment(key, Redactor(key).redact(text))


@PROPS
@given(text_with_key(), st.lists(st.integers(1, 12), max_size=20))
def test_streamed_redaction_catches_a_key_split_across_pieces(
    case: tuple[str, str], cuts: list[int]
) -> None:
    key, text = case
    s = StreamRedactor(Redactor(key))
    out, pos = [], 0
    for n in cuts:
        out.append(s.feed(text[pos : pos + n]))
        pos += n
    out.append(s.feed(text[pos:]))
    out.append(s.flush())
    assert no_fragment(key, "".join(out))


@PROPS
@given(
    keys,
    st.text(st.characters(blacklist_categories=("Cs",)), max_size=80),
    st.lists(st.integers(1, 9), max_size=10),
)
def test_streamed_redaction_changes_nothing_else(key: str, text: str, cuts: list[int]) -> None:
    r = Redactor(key)
    if r.spans(text):
        return
    s = StreamRedactor(r)
    out, pos = [], 0
    for n in cuts:
        out.append(s.feed(text[pos : pos + n]))
        pos += n
    out.append(s.feed(text[pos:]))
    out.append(s.flush())
    assert "".join(out) == text


def test_short_keys_only_match_whole_and_tiny_keys_are_not_secret() -> None:
    assert Redactor("abcd").redact("xabcdx ABCD abc") == "x***x *** abc"
    assert Redactor("x").redact("xxx") == "xxx"
    assert Redactor("").redact("anything") == "anything"
