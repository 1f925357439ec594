"""The ``--json`` contract: scores on a 0-100 scale with one decimal, best first; speakers in the order the
question names them; one ASCII object per line."""

from __future__ import annotations

import json

import pytest


def _scores_ok(quotes: list[dict]) -> None:
    scores = [q["score"] for q in quotes]
    assert all(isinstance(s, float) and 0.0 <= s <= 100.0 for s in scores), scores
    assert all(round(s * 10) == pytest.approx(s * 10) for s in scores), scores  # one decimal
    assert scores == sorted(scores, reverse=True), scores  # best first


@pytest.mark.parametrize(
    ("question", "order"),
    [
        ("Olive and Dan, how do your two teams work together on a release?", ["olive", "dan"]),
        ("Dan and Olive, how do your two teams work together on a release?", ["dan", "olive"]),
    ],
)
def test_ask_json_speaker_order_follows_the_question(
    run_cli, question: str, order: list[str]
) -> None:
    r = run_cli("ask", "--json", question)
    assert r.returncode == 0 and r.stdout.isascii() and r.stdout.count("\n") == 1
    d = json.loads(r.stdout)
    assert d["speakers"] == order
    assert {q["speaker"] for q in d["quotes"]} == set(order)
    _scores_ok(d["quotes"])


def test_scores_are_on_a_0_to_100_scale(run_cli) -> None:
    r = run_cli("quote", "--json", "-n", "5", "kv cache")
    hits = json.loads(r.stdout)
    _scores_ok(hits)
    assert hits[0]["score"] > 20  # a strong match on the 0-100 scale (not a 0-1 fraction)
    r = run_cli("ask", "--json", "How do you deal with a KV cache that keeps growing?")
    d = json.loads(r.stdout)
    _scores_ok(d["quotes"])
    assert d["quotes"][0]["score"] > 20
    human = run_cli("quote", "-n", "1", "kv cache").stdout
    assert f"({hits[0]['score']:.0f})" in human  # the same scale in the human listing
