"""In-process checks for what only subprocess tests covered before (so mutation testing sees them): the
$PANELBOT_CONFIG and --config rules, the question limit's boundary, one-line rendering of multi-line panel
text, highlighting at the very start, SSE state after finish, UTC timestamps in history."""

from __future__ import annotations

import os
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest

from panelbot.answer.llm.sse import SSELimitError, SSEParser
from panelbot.config import load_config
from panelbot.conversation.store import ConversationStore
from panelbot.errors import ConfigError
from panelbot.panel import Panel, Persona, Quote
from panelbot.retrieval.results import ScoredQuote
from panelbot.text import MAX_QUESTION_CHARS, question_too_long
from panelbot.tui.render import highlight_quote, persona_card, source_option


def test_panelbot_config_rules_in_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    missing = tmp_path / "missing.yaml"
    monkeypatch.setenv("PANELBOT_CONFIG", str(missing))
    with pytest.raises(ConfigError) as info:
        load_config(environ={})
    assert (
        str(info.value)
        == f"{missing}: $PANELBOT_CONFIG names a config file that is not a readable file"
    )
    monkeypatch.setenv("PANELBOT_CONFIG", str(tmp_path))
    with pytest.raises(ConfigError) as info:
        load_config(environ={})
    assert (
        str(info.value) == f"{tmp_path}: $PANELBOT_CONFIG names a config file that is a directory"
    )
    monkeypatch.setenv("PANELBOT_CONFIG", os.devnull)
    assert load_config(environ={}).sources[-1] != os.devnull
    good = tmp_path / "user.yaml"
    good.write_text("retrieval:\n  top_k: 7\n")
    monkeypatch.setenv("PANELBOT_CONFIG", str(good))
    cfg = load_config(environ={})
    assert cfg.retrieval.top_k == 7 and cfg.sources[-1] == str(good)
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path, environ={})
    assert str(info.value) == f"{tmp_path}: is a directory, not a config file"
    with pytest.raises(ConfigError) as info:
        load_config(missing, environ={})
    assert str(info.value) == f"{missing}: config file not found"
    with pytest.raises(ConfigError) as info:
        load_config(environ={"PANELBOT_API_KEY": "a b c"})
    assert str(info.value).startswith("the API key from $PANELBOT_API_KEY holds")
    monkeypatch.setenv("PANELBOT_API_KEY", "from-os-environ-1")
    assert load_config().backend.api_key == "from-os-environ-1"  # environ defaults to os.environ
    assert load_config(environ={}).backend.api_key == ""


def test_the_question_limit_boundary() -> None:
    assert question_too_long("x" * MAX_QUESTION_CHARS) is None
    assert question_too_long("x" * (MAX_QUESTION_CHARS + 1)) == (
        f"the question is {MAX_QUESTION_CHARS + 1:,} characters long; the limit is {MAX_QUESTION_CHARS:,}: "
        "shorten it"
    )


def _panel() -> Panel:
    dan = Persona(
        "dan", "Dan\nSmith", role="VP\nKernels", organisation="Together\nAI", colour="#123456"
    )
    return Panel(
        name="p",
        title="T",
        path=Path("."),
        status="curated",
        host=Persona("host", "H"),
        panelists={"dan": dan},
        quotes=[Quote("dan-01", "dan", "line one\nline two")],
    )


def test_panel_text_is_one_line_in_cards_and_options() -> None:
    p = _panel()
    card = persona_card(p, p.panelists["dan"])
    assert card.plain == "\u25cf Dan Smith\n  VP Kernels\n  Together AI"
    assert [(card.plain[s.start : s.end], str(s.style)) for s in card.spans] == [
        ("\u25cf ", "#123456"),
        ("Dan Smith", "bold #123456"),
        ("\n  Together AI", "italic"),
    ]
    t = source_option(p, ScoredQuote(Quote("dan\n01", "dan", "line one\nline two"), 5.0))
    assert t.plain == "dan 01  Dan Smith  match 5/100\n\u201cline one line two\u201d"
    assert ("Dan Smith", "#123456") in [(t.plain[s.start : s.end], str(s.style)) for s in t.spans]


def test_highlight_at_the_very_start_and_the_first_occurrence() -> None:
    t = highlight_quote("abc then abc", "abc")
    assert [(s.start, s.end) for s in t.spans] == [(0, 3)]


def test_sse_state_after_finish_and_the_exact_event_cap() -> None:
    p = SSEParser()
    assert p.feed("data: a\r") == []
    assert [e.data for e in p.finish()] == ["a"]
    assert [e.data for e in p.feed("\ndata: b\n\n")] == [
        "b"
    ]  # a \n after finish starts a fresh line
    p = SSEParser()  # \r, an empty read, then \n: still one line break, not two
    assert (
        p.feed("data: x\r") == []
        and p.feed("") == []
        and p.feed("\ndata: y\r\n\r\n")[0].data == "x\ny"
    )
    p = SSEParser(max_event=8)
    assert [e.data for e in p.feed("data: abc\ndata: abc\n\n")] == [
        "abc\nabc"
    ]  # 4 + 4 = 8: allowed
    assert [e.data for e in p.feed("data: abcdefg\n\n")] == [
        "abcdefg"
    ]  # the count restarts per event
    with pytest.raises(SSELimitError):
        p.feed("data: abcd\ndata: abcd\n")  # 5 + 5 > 8
    p = SSEParser(max_line=5)
    assert p.feed("data:") == [] and p.finish() == []
    assert p.feed("abcde") == []  # the unterminated line was dropped by finish: its length too
    with pytest.raises(SSELimitError):
        p.feed("f")


@pytest.fixture
def far_timezone(monkeypatch: pytest.MonkeyPatch):  # noqa: ANN201
    monkeypatch.setenv("TZ", "Pacific/Kiritimati")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def test_history_timestamps_are_utc(tmp_path: Path, far_timezone) -> None:  # noqa: ANN001
    with ConversationStore(tmp_path / "h.sqlite3") as store:
        before = datetime.now(timezone.utc).replace(microsecond=0)
        cid = store.new_conversation("p", "t")
        after = datetime.now(timezone.utc)
        started = datetime.fromisoformat(store.list_conversations()[0].started_at)
        assert started.utcoffset() == timezone.utc.utcoffset(None) and before <= started <= after
        assert store.schema_version() == 3 and cid == 1
