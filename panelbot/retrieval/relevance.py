"""How likely a quote is to answer a question: one calibrated score from its words and its meaning.

The router's lexical score (BM25 over the quote's fields, normalised by its upper bound, with the bonuses for
verbatim word pairs and for a curated ``ask`` that says the question) and the question's similarity in meaning
to the quote's rows are put through one logistic model fitted on labelled questions
(``scripts/fit_tuning.py``): the probability that the quote is one a reader would give as an answer. Both
signals count twice, as they are and relative to the question's best (how far a quote is below the best match
says as much as its own value: a question in words the talk never used has low lexical scores everywhere).

Being a probability, the score means the same on any panel and for any phrasing, so the decisions built on it
-- which panelist answers, whether a second one spoke to it too, whether one who was asked spoke to it at all
-- are thresholds on it, fitted on the same data (``panelbot.retrieval.tuning``), not ratios of raw scores.
A bank too large for the semantic step uses a model fitted on the lexical features alone.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

LEXICAL_FEATURES = ("lexical", "lexical share of the best")
FEATURES = (*LEXICAL_FEATURES, "similarity", "similarity below the best")


def features(
    lexical: float, best_lexical: float, sim: float | None = None, best_sim: float = 0.0
) -> tuple[float, ...]:
    """One quote's features for a question (see the module doc); without ``sim``, the lexical ones only."""
    lex = (lexical / 100.0, lexical / best_lexical if best_lexical > 0.0 else 0.0)
    return lex if sim is None else (*lex, sim, sim - best_sim)


@dataclass(frozen=True)
class RelevanceModel:
    """A logistic model over :func:`features`: ``bias + weights . features``."""

    bias: float
    weights: tuple[float, ...]

    def probability(self, feats: Sequence[float]) -> float:
        z = self.bias + sum(w * x for w, x in zip(self.weights, feats, strict=True))
        return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, z))))

    def scores(
        self, lexical: Mapping[int, float], sims: Sequence[float] | None
    ) -> dict[int, float]:
        """0-100 scores (100 x the probability) of every quote the question matched in words, or, with
        ``sims``, of every quote of the bank."""
        best_lex = max(lexical.values(), default=0.0)
        if sims is None:
            return {i: 100.0 * self.probability(features(s, best_lex)) for i, s in lexical.items()}
        best_sim = max(sims, default=0.0)
        return {
            i: 100.0 * self.probability(features(lexical.get(i, 0.0), best_lex, sim, best_sim))
            for i, sim in enumerate(sims)
        }


def from_data(data: Mapping[str, object]) -> RelevanceModel:
    weights = data["weights"]
    if not isinstance(weights, Sequence):
        raise ValueError("relevance weights must be a list")
    return RelevanceModel(float(data["bias"]), tuple(float(w) for w in weights))  # type: ignore[arg-type]
