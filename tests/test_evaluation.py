"""``panelbot eval``: loading labelled question sets and the metrics (panelbot.retrieval.evaluation)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from panelbot.errors import DataError
from panelbot.retrieval.evaluation import evaluate, format_report, load_eval_set
from panelbot.retrieval.router import Router

SMALL = """\
- question: "Which GPU kernels matter most for inference speed?"
  speaker: dan
  quotes: [dan-08]
  kind: keyword
- question: "How do you train a multimodal model from scratch?"
  expected_speaker: olive
  expected_quotes: olive-08
- question: "ask both: what about open source?"
  speaker: both
  text: "open source"
- question: "best pizza in Naples?"
  abstain: true
- question: "how do I make strawberry jam"
  speaker: none
"""


def _write(tmp_path: Path, text: str, name: str = "set.yaml") -> str:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return str(p)


def test_load_eval_set_aliases(tmp_path: Path, shipped_panel) -> None:
    items = load_eval_set(_write(tmp_path, SMALL), shipped_panel)
    assert [sorted(i.speakers) for i in items] == [["dan"], ["olive"], ["dan", "olive"], [], []]
    assert items[0].quotes == ("dan-08",) and items[1].quotes == ("olive-08",)
    assert items[2].text == "open source" and items[0].kind == "keyword"
    assert items[0].line == 1 and items[3].line == 11


def test_evaluate_small_set(tmp_path: Path, shipped_panel, router: Router) -> None:
    rep = evaluate(router, load_eval_set(_write(tmp_path, SMALL), shipped_panel))
    d = rep.to_dict()
    assert (d["items"], d["in_scope"], d["off_topic"]) == (5, 3, 2)
    assert d["speaker_accuracy"] == 100.0
    assert d["recall_at_3"] == 100.0
    assert d["abstention_recall"] == 100.0 and d["abstention_precision"] == 100.0
    assert d["wrongly_abstained"] == 0.0
    assert rep.misses == []


def test_misses_are_reported(tmp_path: Path, shipped_panel, router: Router) -> None:
    wrong = (
        "- question: sparse attention kernels\n  speaker: olive\n  quotes: [olive-01]\n"
        "- question: sparse attention kernels\n  speaker: none\n"
    )
    rep = evaluate(router, load_eval_set(_write(tmp_path, wrong), shipped_panel))
    d = rep.to_dict()
    assert d["speaker_accuracy"] == 0.0 and d["recall_at_3"] == 0.0
    assert d["abstention_recall"] == 0.0 and d["abstention_precision"] is None
    problems = {m["problem"] for m in d["misses"]}
    assert problems == {
        "wrong speaker",
        "expected quote not in top 3",
        "answered an off-topic question",
    }
    text = format_report(rep, verbose=True)
    assert "misses:" in text and "sparse attention kernels" in text


def test_jsonl_sets(tmp_path: Path, shipped_panel) -> None:
    lines = [
        json.dumps({"question": "kv cache", "speaker": "dan"}),
        "",
        json.dumps({"q": "jam", "abstain": True}),
    ]
    items = load_eval_set(_write(tmp_path, "\n".join(lines), "set.jsonl"), shipped_panel)
    assert len(items) == 2 and items[1].speakers == frozenset()
    with pytest.raises(DataError) as info:
        load_eval_set(
            _write(tmp_path, '{"question": "x", "speaker": "dan"}\n{oops\n', "bad.jsonl"),
            shipped_panel,
        )
    assert info.value.line == 2 and "bad.jsonl" in str(info.value)


@pytest.mark.parametrize(
    "text, expect",
    [
        ("[]\n", "non-empty list"),
        ("- speaker: dan\n", "missing 'question'"),
        ("- question: hi\n", "missing 'speaker'"),
        ("- question: hi\n  speaker: carol\n", "unknown speaker"),
        ("- question: hi\n  speaker: dan\n  quotes: [dan-999]\n", "unknown quote id"),
        ("- question: [\n", "invalid YAML"),
    ],
)
def test_bad_eval_sets(tmp_path: Path, shipped_panel, text: str, expect: str) -> None:
    with pytest.raises(DataError) as info:
        load_eval_set(_write(tmp_path, text), shipped_panel)
    assert expect in str(info.value) and "set.yaml" in str(info.value)


def test_missing_eval_file(tmp_path: Path, shipped_panel) -> None:
    with pytest.raises(DataError, match="not found"):
        load_eval_set(str(tmp_path / "none.yaml"), shipped_panel)


def test_shipped_dev_set_is_well_formed(shipped_panel) -> None:
    """The dev set in eval/ covers every kind; its figures are held to floors by eval/suite.yaml
    (tests/test_eval_suite.py), with every other set of every talk."""
    dev = Path(shipped_panel.path).parents[1] / "eval" / "dev.yaml"
    items = load_eval_set(str(dev), shipped_panel)
    assert len(items) >= 60
    kinds = {i.kind for i in items}
    assert {"paraphrase", "keyword", "typo", "addressed", "both", "offtopic"} <= kinds


def test_cli_eval_prints_metrics(run_cli, tmp_path: Path) -> None:
    path = _write(tmp_path, SMALL)
    r = run_cli("eval", path)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    for label in (
        "speaker accuracy",
        "recall@1",
        "recall@3",
        "abstention precision",
        "abstention recall",
    ):
        assert label in out
    assert "100.0%" in out
    r = run_cli("eval", "--json", path)
    d = json.loads(r.stdout)
    assert d["items"] == 5 and "recall_at_1" in d


def test_cli_eval_bad_file_exit_2(run_cli, tmp_path: Path) -> None:
    r = run_cli("eval", _write(tmp_path, "- question: hi\n  speaker: carol\n"))
    assert r.returncode == 2 and "unknown speaker" in r.stderr and "Traceback" not in r.stderr
    r = run_cli("eval", str(tmp_path / "nope.yaml"))
    assert r.returncode == 2 and "not found" in r.stderr


EVAL_DIR = Path(__file__).resolve().parent.parent / "eval"


# the shipped talk's question and conversation sets (the suite file and the framing sets have formats of their
# own, read by tests/test_eval_suite.py and tests/test_framing.py; the discussion's labelled pairs by
# tests/test_discussion.py, its labelled requests by tests/test_discussion_turns.py)
SHIPPED_SETS = [
    p
    for p in [*sorted(EVAL_DIR.glob("*.yaml")), *sorted((EVAL_DIR / "heldout").glob("*.yaml"))]
    if p.name != "suite.yaml"
    and "_panel_" not in p.name
    and not p.name.startswith(("discuss_pairs", "discussion_requests", "framing_"))
]


@pytest.mark.parametrize("path", SHIPPED_SETS, ids=lambda p: p.name)
def test_every_shipped_eval_set_loads_and_names_real_quotes(shipped_panel, path: Path) -> None:
    from panelbot.conversation.evaluation import is_conversation_set, load_conversations
    from panelbot.retrieval.evaluation import read_eval_file

    raw = read_eval_file(str(path))
    if is_conversation_set(raw):
        items = [t for c in load_conversations(str(path), shipped_panel, raw) for t in c.turns]
    else:
        items = load_eval_set(str(path), shipped_panel)
    assert items
    for it in items:
        assert all(shipped_panel.quote(q) is not None for q in it.quotes), (path.name, it.question)
