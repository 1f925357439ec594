"""``panelbot eval`` on conversations (panelbot.conversation.evaluation) and the resolver's quality on the
dev set (a regression guard; held-out conversations verify the real number)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from panelbot.conversation.evaluation import (
    evaluate_conversations,
    format_conversation_report,
    load_conversations,
)
from panelbot.errors import DataError

REPO = Path(__file__).resolve().parents[1]
DEV = REPO / "eval" / "conversations_dev.yaml"

SMALL = """\
- conversation: kv
  turns:
    - {question: "How do you deal with a KV cache that keeps growing?", speaker: dan, quotes: [dan-22, dan-23]}
    - {question: "tell me more", speaker: dan, kind: continuation}
    - {question: "what does Olive think?", speaker: none, kind: other}
    - {question: "unrelated: best pizza in Naples?", speaker: none, kind: off-topic}
"""


def _write(tmp_path: Path, text: str) -> str:
    p = tmp_path / "c.yaml"
    p.write_text(text, encoding="utf-8")
    return str(p)


def test_small_set(tmp_path: Path, shipped_panel, router) -> None:
    convs = load_conversations(_write(tmp_path, SMALL), shipped_panel)
    assert [t.kind for t in convs[0].turns] == ["single", "continuation", "other", "offtopic"]
    rep = evaluate_conversations(router, convs)
    d = rep.to_dict()
    assert (d["conversations"], d["turns"], d["offtopic_answered"]) == (1, 4, 0)
    assert d["follow_ups"] == {"ok": 2, "total": 2} and d["turn_accuracy"] == 100.0
    # asked on their own, the two follow-ups are declined as off-topic
    assert d["by_kind"]["continuation"]["alone"] == 0.0
    assert "follow-up accuracy" in format_conversation_report(rep)


@pytest.mark.parametrize(
    "text, message",
    [
        ("- conversation: x\n  turns: []\n", "non-empty list of 'turns'"),
        ("- turns:\n    - {question: hi, speaker: dan, kind: sideways}\n", "kind must be one of"),
        ("- turns:\n    - {question: hi, speaker: nobody}\n", "unknown speaker"),
        ("- turns:\n    - {speaker: dan}\n", "missing 'question'"),
    ],
)
def test_bad_files_name_the_problem(tmp_path: Path, shipped_panel, text: str, message: str) -> None:
    with pytest.raises(DataError, match=message):
        load_conversations(_write(tmp_path, text), shipped_panel)


def test_dev_set_quality(shipped_panel, router) -> None:
    convs = load_conversations(str(DEV), shipped_panel)
    assert len(convs) >= 30 and sum(len(c.turns) for c in convs) >= 80
    kinds = {t.kind for c in convs for t in c.turns}
    assert kinds == {
        "single",
        "continuation",
        "reason",
        "elaboration",
        "other",
        "switch",
        "offtopic",
    }
    d = evaluate_conversations(router, convs).to_dict()
    # the figures themselves are held to floors by eval/suite.yaml; context must matter this much (the gap
    # was 30+ points before the scope by meaning answered more follow-ups asked on their own)
    assert d["follow_up_accuracy"] > d["follow_up_accuracy_alone"] + 20


def test_cli_reads_a_conversation_file(run_cli) -> None:
    r = run_cli("eval", str(DEV), "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["conversations"] >= 30 and "by_kind" in d
    r = run_cli("eval", str(DEV), "-v")
    assert r.returncode == 0 and "follow-up accuracy" in r.stdout


SOCIAL = """\
- conversation: greet
  turns:
    - {question: "hello!", speaker: none, kind: smalltalk}
    - {question: "How do you deal with a KV cache that keeps growing?", speaker: dan, quotes: [dan-22, dan-23], kind: single}
    - {question: "thanks a lot", speaker: none, kind: small-talk}
    - {question: "ok", speaker: none, kind: offtopic}
- conversation: near
  turns:
    - {question: "How do I empty my browser cache?", speaker: none, kind: offtopic, suggest: [dan-22, dan-23, dan-24, dan-13]}
    - {question: "Who won the football last night?", speaker: none, kind: offtopic, suggest: olive-06}
"""


def test_small_talk_and_near_suggestions_are_scored(tmp_path: Path, shipped_panel, router) -> None:
    convs = load_conversations(_write(tmp_path, SOCIAL), shipped_panel)
    assert [t.kind for t in convs[0].turns] == ["smalltalk", "single", "smalltalk", "offtopic"]
    rep = evaluate_conversations(router, convs)
    d = rep.to_dict()
    assert d["by_kind"]["smalltalk"] == {"ok": 2, "total": 2, "accuracy": 100.0, "alone": 100.0}
    # "ok" is small talk: a turn expected to be declined as off-topic but read as small talk is a miss
    assert [(m["question"], m["problem"]) for m in d["misses"]] == [
        ("ok", "read as small talk"),
        ("Who won the football last night?", "no offered question is near what was asked"),
    ]
    assert d["suggestions_near"] == {"ok": 1, "total": 2} and d["offtopic_answered"] == 0
    assert "suggestions near      1/2" in format_conversation_report(rep)


def test_unknown_suggest_ids_are_refused(tmp_path: Path, shipped_panel) -> None:
    text = '- turns:\n    - {question: "pizza?", speaker: none, kind: offtopic, suggest: [nobody-99]}\n'
    with pytest.raises(DataError, match="nobody-99"):
        load_conversations(_write(tmp_path, text), shipped_panel)


def test_a_one_turn_report_says_one_turn(tmp_path: Path, shipped_panel, router) -> None:
    text = '- turns:\n    - {question: "Who won the football last night?", speaker: none, kind: offtopic}\n'
    rep = evaluate_conversations(router, load_conversations(_write(tmp_path, text), shipped_panel))
    assert "conversations: 1 (1 turn)" in format_conversation_report(rep)
