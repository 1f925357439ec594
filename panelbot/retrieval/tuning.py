"""The one declared record of the thresholds that decide by meaning: scope, ranking, follow-ups.

The numbers live in ``panelbot/data/tuning.json``, written by ``scripts/fit_tuning.py`` from labelled dev sets
(the file names the sets, the fitted figures and when it was made); nothing else in the code chooses them.
Re-fit after changing the embedding model, the scope features or the dev sets:

    python scripts/fit_tuning.py            # writes panelbot/data/tuning.json and prints the fit report

How each is used:

* ``relevance`` (``panelbot.retrieval.relevance``): how likely a quote answers the question, one logistic
  model of its lexical score and its similarity in meaning (each as it is and relative to the question's best),
  and one of the lexical features alone for a bank too large for the semantic step. Every ranking and choice
  of speaker is on its 0-100 scale: ``spoke_floor`` (a panelist asked spoke to it when their best quote scores
  this much; ``several_floor`` when several were asked), ``both_floor`` and ``both_share`` (a second panelist answers too when their best scores that much
  and that share of the first's), ``keep_floor`` (an answer shows a further quote of the panelist's from this).
* ``scope``: a logistic model of "the talk covered this" on the lexical evidence (``Router.scope``), the best
  similarity to any quote, and how much closer that is than the nearest everyday question on another subject
  (``panelbot.retrieval.meaning``); a question is answered when its probability is at least ``scope.threshold``.
* ``passage_words``: a quote is also read in overlapping passages of this many words
  (``panelbot.retrieval.meaning.passages``), chosen by ``scripts/compare_passages.py``.
* ``followup_floor``: a follow-up that points back ("is that expensive?") is read as off-topic when its own
  margin in meaning (closest quote row less nearest everyday question) is below this.
* ``discussion`` (written by ``scripts/fit_discussion.py`` from ``eval/discuss_pairs.yaml``): two logistic
  models of a pair of quotes (``panelbot.discussion.pairing``): "about the same thing" (paired at
  ``pair_threshold``) and "they say the same" (agreement at ``agree_threshold`` or above, difference at
  ``differ_threshold`` or below, no verdict between).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import cache

from panelbot.retrieval.lexicon import DATA_DIR
from panelbot.retrieval.relevance import RelevanceModel
from panelbot.retrieval.relevance import from_data as relevance_from_data


@dataclass(frozen=True)
class ScopeSignals:
    """What the scope decision weighs for one question."""

    evidence: float  # lexical evidence (``Router.scope``): the panel's own words, weighed
    closest: float  # best similarity in meaning to any quote's rows
    background: float  # best similarity to an everyday question on another subject

    @property
    def margin(self) -> float:
        """How much closer the question is to the panel than to any everyday question on another subject."""
        return self.closest - self.background

    @property
    def nearest_known(self) -> float:
        """How close the question is to anything known: a quote's rows or an everyday question."""
        return max(self.closest, self.background)

    def features(self) -> tuple[float, float, float]:
        return (math.log1p(max(self.evidence, 0.0)), self.closest, self.closest - self.background)


@dataclass(frozen=True)
class ScopeModel:
    """A logistic model of "the talk covered this": bias + weights . (log(1 + evidence), closest,
    closest - background); a question is answered when its probability is at least ``threshold``."""

    bias: float
    lexical: float
    semantic: float
    margin: float
    threshold: float

    def probability(self, signals: ScopeSignals) -> float:
        a, b, c = signals.features()
        z = self.bias + self.lexical * a + self.semantic * b + self.margin * c
        return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, z))))

    def in_scope(self, signals: ScopeSignals) -> bool:
        return self.probability(signals) >= self.threshold


@dataclass(frozen=True)
class Tuning:
    scope: ScopeModel
    relevance: RelevanceModel  # words and meaning
    relevance_lexical: RelevanceModel  # words alone (a bank above meaning.MAX_QUOTES)
    # on the relevance scale (0-100), each fitted: see the module doc
    spoke_floor: float
    several_floor: float
    both_floor: float
    both_share: float
    keep_floor: float
    # a follow-up pointing back whose own scope probability is below this: off-topic
    followup_floor: float = 0.0
    # a message's nearest example in the bank of follow-up messages counts at this similarity or more
    # (``panelbot.conversation.kind_bank``; fitted by scripts/fit_message_kinds.py); 1.0: never
    message_kind_floor: float = 1.0
    # a message's frame is a discussion request when its nearest example is one at this similarity or more
    # (scripts/fit_message_kinds.py: above every ordinary question of the dev sets); 1.0: never
    discussion_floor: float = 1.0
    # a question matching no word of the panel's and no closer than this to anything known (a quote's rows,
    # an everyday question) reads as nothing -- "xyz", "asdf" -- and is declined (scripts/fit_nothing.py);
    # 0.0: never
    nothing_floor: float = 0.0


def from_data(data: dict) -> Tuning:
    scope = data["scope"]
    rel = data["relevance"]
    return Tuning(
        scope=ScopeModel(**{k: float(scope[k]) for k in ScopeModel.__dataclass_fields__}),
        relevance=relevance_from_data(rel["model"]),
        relevance_lexical=relevance_from_data(rel["lexical_model"]),
        spoke_floor=float(rel["spoke_floor"]),
        several_floor=float(rel["several_floor"]),
        both_floor=float(rel["both_floor"]),
        both_share=float(rel["both_share"]),
        keep_floor=float(rel["keep_floor"]),
        followup_floor=float(data.get("followup_floor", 0.0)),
        message_kind_floor=float(data.get("message_kind_floor", 1.0)),
        discussion_floor=float(data.get("discussion_floor", 1.0)),
        nothing_floor=float(data.get("nothing_floor", 0.0)),
    )


@dataclass(frozen=True)
class DiscussionTuning:
    """The fitted models of ``panelbot.discussion.pairing`` (weights in its features' order)."""

    pair_bias: float
    pair_weights: tuple[float, ...]
    pair_threshold: float
    verdict_bias: float
    verdict_weights: tuple[float, ...]
    agree_threshold: float
    differ_threshold: float


def discussion_from_data(data: dict) -> DiscussionTuning:
    d = data["discussion"]
    return DiscussionTuning(
        pair_bias=float(d["pair_bias"]),
        pair_weights=tuple(float(w) for w in d["pair_weights"]),
        pair_threshold=float(d["pair_threshold"]),
        verdict_bias=float(d["verdict_bias"]),
        verdict_weights=tuple(float(w) for w in d["verdict_weights"]),
        agree_threshold=float(d["agree_threshold"]),
        differ_threshold=float(d["differ_threshold"]),
    )


@cache
def _record() -> dict:
    return json.loads((DATA_DIR / "tuning.json").read_text(encoding="utf-8"))


@cache
def discussion_tuning() -> DiscussionTuning:
    """The shipped discussion section (read once per process)."""
    return discussion_from_data(_record())


@cache
def tuning() -> Tuning:
    """The shipped record (read once per process)."""
    return from_data(_record())


# what ingest uses before scripts/fit_attribution.py has written its section: no evidence by meaning, every
# attributed turn as sure as its basis allows (nothing flagged beyond the order/field turns)
_ATTRIBUTION_DEFAULTS: dict = {
    "meaning_scale": 0.0,
    "meaning_floor": 0.0,
    "bias": 0.0,
    "weights": {},
    "flag_below": 0.0,
}


@cache
def passage_words() -> int:
    """The length of the passages a quote's meaning is also read in (``meaning.passages``); 0: none."""
    return int(_record().get("passage_words", 0))


@cache
def attribution_tuning() -> dict:
    """The shipped ``attribution`` section (ingest's evidence by meaning, its per-turn confidence model and
    the health report's flag threshold), read once per process."""
    return {**_ATTRIBUTION_DEFAULTS, **_record().get("attribution", {})}
