"""The relevance model: one calibrated score from a quote's words and meaning (panelbot.retrieval.relevance)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from panelbot.retrieval.relevance import FEATURES, LEXICAL_FEATURES, RelevanceModel, features
from panelbot.retrieval.router import Router
from panelbot.retrieval.tuning import tuning

RECORD = Path(__file__).resolve().parent.parent / "panelbot" / "data" / "tuning.json"
unit = st.floats(min_value=0.0, max_value=1.0)
score = st.floats(min_value=0.0, max_value=100.0)


def test_the_shipped_record_holds_fitted_models_and_thresholds() -> None:
    record = json.loads(RECORD.read_text(encoding="utf-8"))
    assert record["fitted_by"] == "scripts/fit_tuning.py"
    rel = record["relevance"]
    assert len(rel["model"]["weights"]) == len(FEATURES)
    assert len(rel["lexical_model"]["weights"]) == len(LEXICAL_FEATURES)
    t = tuning()
    assert t.relevance is not None and t.relevance_lexical is not None
    assert 0.0 <= t.spoke_floor <= 100.0 and 0.0 <= t.keep_floor <= 100.0
    assert 0.0 < t.both_share <= 1.0


@given(lex=score, best=score, sim=unit, best_sim=unit, more=st.floats(0.1, 20.0))
def test_more_words_or_more_meaning_never_lowers_a_quotes_score(
    lex: float, best: float, sim: float, best_sim: float, more: float
) -> None:
    """The fitted weights are positive: a quote saying more of the question, or meaning more what it means,
    scores at least as well (the rest equal)."""
    model = tuning().relevance
    assert model is not None
    best = max(best, lex + more)
    best_sim = max(best_sim, min(1.0, sim + 0.05))
    base = model.probability(features(lex, best, sim, best_sim))
    assert model.probability(features(lex + more, best, sim, best_sim)) >= base
    assert model.probability(features(lex, best, min(best_sim, sim + 0.05), best_sim)) >= base


def test_the_lexical_model_is_monotone_in_the_lexical_score() -> None:
    """A bank too large for meaning scores only each panelist's best lexical matches, which is right only
    while more lexical score never lowers the probability."""
    model = tuning().relevance_lexical
    assert model is not None and all(w > 0.0 for w in model.weights)


def test_scores_cover_every_quote_with_meaning_and_only_word_matches_without() -> None:
    model = RelevanceModel(-3.0, (1.0, 3.0, 2.0, 8.0))
    lexical = {0: 80.0, 2: 20.0}
    with_meaning = model.scores(lexical, [0.5, 0.7, 0.1])
    assert set(with_meaning) == {0, 1, 2}
    assert all(0.0 < s < 100.0 for s in with_meaning.values())
    words_only = RelevanceModel(-5.0, (0.6, 5.7)).scores(lexical, None)
    assert set(words_only) == {0, 2} and words_only[0] > words_only[2]


def test_a_quote_close_in_meaning_outranks_one_sharing_a_word() -> None:
    """No word of the question in the first quote, one in the second: meaning decides."""
    model = tuning().relevance
    assert model is not None
    got = model.scores({1: 30.0}, [0.75, 0.2])
    assert got[0] > got[1]


@pytest.mark.parametrize(
    "question, speaker, quote",
    [
        # questions from a new user's first session, in words of their own
        ("why would a lab give its best model away for nothing?", "olive", "olive-02"),
        ("how do they stop the model from cheating on its tests?", "olive", "olive-13"),
    ],
)
def test_a_question_in_other_words_finds_its_answer(
    router: Router, question: str, speaker: str, quote: str
) -> None:
    res = router.route(question)
    assert res.speakers[:1] == [speaker]
    assert quote in [sq.quote.id for sq in res.quotes[:3]]


def test_a_bank_too_large_for_meaning_routes_on_words_alone(
    router: Router, monkeypatch: pytest.MonkeyPatch
) -> None:
    import panelbot.retrieval.scope as scope_mod

    monkeypatch.setattr(scope_mod, "MAX_QUOTES", 10)
    res = router.route("How do you handle the KV cache when serving long contexts?")
    assert router.relevance_inputs("How do you handle the KV cache?")[1] is None  # no meaning read
    assert res.speakers == ["dan"]
    assert all(0.0 <= sq.score <= 100.0 for sq in res.quotes)
