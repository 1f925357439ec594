"""The scope signals by meaning with hubness taken off (``panelbot.retrieval.meaning.contrast``) and the scope
model that weighs them (``panelbot.retrieval.tuning.ScopeModel``)."""

from __future__ import annotations

import numpy as np

from panelbot.retrieval.encoder import shipped_model
from panelbot.retrieval.meaning import (
    QuoteMeanings,
    _background_hubness,
    background_questions,
    background_similarity,
    contrast,
)
from panelbot.retrieval.semantic import VectorTable
from panelbot.retrieval.tuning import ScopeSignals, _scope_model, tuning

ROWS = [
    "We serve the model on GPUs and write our own attention kernels to make inference fast.",
    "Reinforcement learning taught the agent to finish long coding tasks.",
    "How do you make serving faster?",
]


def _bank() -> QuoteMeanings:
    model = shipped_model()
    return QuoteMeanings(VectorTable(model.embed_many(ROWS), model.dims), [0, 1, 1], 2)


def test_contrast_reads_the_best_quote_and_the_nearest_everyday_question() -> None:
    bank = _bank()
    vector = shipped_model().embed("How do you make GPU inference faster?")
    got = contrast(vector, bank, 10)
    assert got.sims == bank.similarities(vector)
    assert got.closest == max(got.sims)
    assert abs(got.background - background_similarity(vector)) < 1e-6
    assert got.closer_everyday == 0  # nothing everyday is nearer than the serving quote
    assert got.local_margin > 0


def test_an_everyday_question_is_closer_to_the_background_with_hubness_taken_off() -> None:
    everyday = background_questions()[0]  # a question of the bank itself: its own nearest
    got = contrast(shipped_model().embed(everyday), _bank(), 10)
    assert got.closer_everyday >= 1
    assert got.local_margin < 0


def test_hubness_is_the_mean_of_the_nearest_others() -> None:
    hub = _background_hubness(3)
    assert hub.shape == (len(background_questions()),)
    assert np.all(hub < 1.0)  # a question itself is left out
    bank = _bank()
    assert bank.hubness(3).shape == (len(ROWS),)
    assert bank.hubness(3) is bank.hubness(3)  # computed once


def test_the_scope_model_weighs_five_features_and_reads_an_older_record() -> None:
    signals = ScopeSignals(1.0, 0.5, 0.3, 0.2, 2)
    assert len(signals.features()) == 5
    old = _scope_model(
        {"bias": 0.0, "lexical": 1.0, "semantic": 0.0, "margin": 0.0, "threshold": 0.5}
    )
    assert (old.local_margin, old.closer_everyday, old.neighbours) == (0.0, 0.0, 10)
    assert old.in_scope(signals)  # log(2) > 0
    assert tuning().scope.neighbours >= 1
