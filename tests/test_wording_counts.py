"""Counts read as English (issue 19, "Also": "1 turns"): a count of one takes the singular noun and verb, and
no report falls back on "turn(s)"."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from panelbot.cli.main import main as cli

# a count of one before a plural noun: "1 turns", "1 quotes", "1 sentences"
ONE_PLURAL = re.compile(
    r"(?<![\d.,/])\b1 (turns|quotes|words|sentences|talks|sets|subjects|files)\b"
)


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = cli(list(argv))
    got = capsys.readouterr()
    return code, got.out + got.err


def test_check_counts_agree(isolated_env, capsys) -> None:
    """The shipped panel's check has one turn of 'unknown' and one doubtful turn: said so, not '(s)'."""
    code, text = _run(capsys, "check", "minimax-m3")
    assert code == 0
    assert "(s)" not in text
    assert "1 doubtful turn (" in text
    assert "0 quotes not found in their turn" in text
    assert not ONE_PLURAL.search(text), ONE_PLURAL.search(text)


def test_a_decline_across_one_talk_does_not_say_1_talks(isolated_env, capsys) -> None:
    code, text = _run(capsys, "ask", "--all", "--json", "--no-log", "best pizza in Naples?")
    assert code == 0
    reason = json.loads(text)["reason"]
    assert reason.startswith("off-topic") and "1 talks" not in reason


def test_a_short_text_says_how_little_it_holds(isolated_env, capsys, tmp_path: Path) -> None:
    src = tmp_path / "short.txt"
    src.write_text("Title\n\nHello there my friend >> hi.\n", encoding="utf-8")
    code, text = _run(capsys, "ingest", str(src), "--out", str(tmp_path / "out"))
    assert code == 2
    assert "too little speech for a talk (5 words, 1 sentence)" in text


def test_one_eval_set_in_a_suite_is_one_set() -> None:
    from panelbot.retrieval.suite import SetResult, format_suite

    assert format_suite([SetResult("t", "f.yaml", {})]).splitlines()[-1] == "1 set, 0 below a floor"
