"""A message that asks nothing ("xyz", "asdf") is declined, on the shipped panel, on an uncurated draft and in
the middle of a conversation; the floor that decides it is fitted by its script and is the only one."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from panelbot.conversation.pipeline import Resolved, Session
from panelbot.conversation.session import ConversationLog
from panelbot.retrieval.tuning import ScopeSignals, tuning

ROOT = Path(__file__).resolve().parent.parent
SHARES_NOTHING = "off-topic: the question shares nothing with what the panel discussed"


@pytest.mark.parametrize("junk", ["xyz", "asdf", "foo bar baz", "lorem ipsum"])
def test_a_message_that_asks_nothing_is_declined(router, junk):
    route = router.route(junk)
    assert route.abstained and not route.quotes
    assert route.reason == SHARES_NOTHING
    assert route.suggestions  # the decline still offers questions the panel answers


def test_bare_keywords_of_the_panel_are_still_answered(router):
    for keywords in ("KV cache", "open weights", "sparse attention"):
        assert not router.route(keywords).abstained, keywords


def test_an_uncurated_draft_declines_it_too(bread_router):
    assert bread_router.route("xyz").abstained
    assert not bread_router.route("Is sourdough better for your digestion?").abstained


def test_mid_conversation_it_is_declined_not_read_as_a_follow_up(shipped_panel, router, tmp_path):
    log = ConversationLog.open(tmp_path / "history.sqlite3", shipped_panel.name)
    session = Session(shipped_panel, router, None, log)
    list(session.ask_now("How do you deal with a KV cache that keeps growing?"))
    resolved = [e for e in session.ask_now("xyz") if isinstance(e, Resolved)]
    assert resolved and resolved[0].route.abstained


def test_the_floor_needs_both_no_panel_word_and_nothing_near():
    floor = tuning().nothing_floor
    assert 0.0 < floor < 1.0
    near_nothing = ScopeSignals(evidence=0.0, closest=floor - 0.05, background=floor - 0.1)
    near_an_everyday_question = ScopeSignals(evidence=0.0, closest=0.2, background=floor + 0.2)
    assert near_nothing.nearest_known < floor <= near_an_everyday_question.nearest_known


def test_the_floor_is_in_the_tuning_record_with_the_script_that_fitted_it():
    record = json.loads((ROOT / "panelbot" / "data" / "tuning.json").read_text(encoding="utf-8"))
    assert record["nothing_fit"]["fitted_by"] == "scripts/fit_nothing.py"
    assert not any("heldout" in f for f in record["nothing_fit"]["question_sets"])
    assert tuning().nothing_floor == record["nothing_floor"]


def test_the_fitting_script_refuses_held_out_sets():
    out = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "fit_nothing.py")]
        + ["--junk", "eval/heldout/questions_junk.yaml", "--dry-run"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 2 and "held-out" in out.stderr


def test_the_fit_places_the_floor_between_the_junk_and_the_lowest_real_question():
    sys.path.insert(0, str(ROOT / "scripts"))
    from fit_nothing import choose_floor

    assert choose_floor([0.40, 0.35], [0.20, 0.30, 0.38]) == pytest.approx(0.325)
    assert choose_floor([0.30], [0.31, 0.5]) == 0.0  # no junk below the lowest question: never
