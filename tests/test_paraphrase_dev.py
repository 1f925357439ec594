"""eval/paraphrase_dev.yaml keeps its rule: no content word shared with its gold quotes' text or asks."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "check_paraphrase.py"
SET = ROOT / "eval" / "paraphrase_dev.yaml"


def _checker():
    spec = importlib.util.spec_from_file_location("check_paraphrase", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_set_passes_and_covers_every_quote():
    checker = _checker()
    assert checker.check_file(SET) == []
    items = yaml.safe_load(SET.read_text(encoding="utf-8"))
    assert len(items) == 60
    gold = {quote_id for item in items for quote_id in item["quotes"]}
    assert gold == set(checker.load_quotes())


def _item(question: str, speaker: str, quote_id: str, kind: str = "paraphrase") -> dict:
    return {"question": question, "speaker": speaker, "quotes": [quote_id], "kind": kind}


def test_a_violating_item_is_flagged():
    checker = _checker()
    quotes = checker.load_quotes()
    # "caching" and "live" share their stems with dan-23's text ("cache", "live in industry").
    shared = _item("Where does the caching layer live?", "dan", "dan-23")
    wrong_speaker = _item("Any chance of a platformer?", "dan", "olive-06")
    unknown = _item("Any chance of a platformer?", "olive", "olive-99")
    violations = checker.check_items([shared, wrong_speaker, unknown], quotes)
    assert any("#1" in line and "shares cach, live" in line for line in violations)
    assert any("#2" in line and "spoken by olive" in line for line in violations)
    assert any("#3" in line and "unknown quote id olive-99" in line for line in violations)
    # Items of other kinds are not held to the rule.
    assert checker.check_items([dict(shared, kind="keyword")], quotes) == []


def test_too_many_named_questions_are_flagged():
    checker = _checker()
    quotes = checker.load_quotes()
    named = _item("Olive, any chance of a platformer?", "olive", "olive-06")
    assert checker.check_items([named] * checker.MAX_NAMED, quotes) == []
    too_many = checker.check_items([named] * (checker.MAX_NAMED + 1), quotes)
    assert any("name a panelist" in line for line in too_many)
