"""How sure ingest is of each turn's speaker, from the evidence it had (``SpeakerTurn.confidence``).

What a turn's speaker rests on (:mod:`panelbot.ingest.basis`: a label, a name, the text, or only its order or
field), how far the field evidence leads, and whether the turn's meaning agrees with how its speaker was
presented (:mod:`panelbot.ingest.presented`) -- the whole turn, and its weakest part: a turn whose second half
sounds like another panelist may hold two people's words where the captions missed a ``>>``. The features are
combined by a logistic model fitted on the development talks (``scripts/fit_attribution.py``, weights and the
flag threshold in ``panelbot/data/tuning.json``, section ``attribution``): the confidence is the fitted
chance the speaker is right. The health report flags every turn under the fitted threshold, besides every turn
that rests only on order or field.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from panelbot.ingest.basis import attribution_basis, doubtful_part
from panelbot.ingest.cues import sentences
from panelbot.ingest.names import HOST, UNKNOWN

if TYPE_CHECKING:
    from panelbot.ingest.presented import Presented
    from panelbot.ingest.speakers import SpeakerTurn

FEATURES = (
    "firm",  # every part rests on a label, a name, a hand-over or the text
    "order",  # the weakest part rests on where the turn sits
    "field",  # the weakest part rests on the field evidence
    "lead",  # how far the speaker's field evidence leads the next panelist's (log scale)
    "meaning",  # the whole turn: similarity to the speaker's presentation minus the closest other's
    "weakest",  # the same for the turn's least like-them opening or ending (two people's words in one turn)
    "host",  # the host's turn (no presentation to compare with)
)
TAIL_WORDS = 15  # a part this long is compared on its own


def features(t: SpeakerTurn, ids: list[str], presented: Presented | None) -> dict[str, float]:
    """The evidence of one turn, as numbers (see ``FEATURES``)."""
    part = doubtful_part(t.reasons())
    basis = attribution_basis(part[1]) if part else "firm"
    f = dict.fromkeys(FEATURES, 0.0)
    f["firm"] = float(part is None)
    f["order"] = float(basis == "order")
    f["field"] = float(basis in ("field", "model"))
    f["host"] = float(t.speaker == HOST)
    if t.speaker in t.field_scores:
        other = max((v for p, v in t.field_scores.items() if p != t.speaker), default=0.0)
        f["lead"] = math.log1p(max(t.field_scores[t.speaker], 0.0)) - math.log1p(max(other, 0.0))
    if presented is not None and t.speaker in ids and t.why != "introduces themselves":
        # (an introduction is what the speaker's presentation is made of: no evidence about itself)
        whole = presented.margin(t.text, t.speaker, ids)
        pieces = [presented.margin(h, t.speaker, ids) for h in _pieces(t.text)]
        known = [m for m in [whole, *pieces] if m is not None]
        f["meaning"] = whole or 0.0
        f["weakest"] = min(known, default=0.0)
    return f


def _pieces(text: str) -> list[str]:
    """Each opening and each ending of the turn cut at a sentence, when both sides are long enough to judge
    (where a missed ``>>`` would put another speaker's words)."""
    sents = sentences(text)
    out = []
    for k in range(1, len(sents)):
        head, tail = " ".join(sents[:k]), " ".join(sents[k:])
        if len(head.split()) >= TAIL_WORDS and len(tail.split()) >= TAIL_WORDS:
            out += [head, tail]
    return out


def confidence(f: dict[str, float], weights: dict[str, float], bias: float) -> float:
    """The fitted chance the speaker is right: a logistic model of the features."""
    z = bias + sum(weights.get(k, 0.0) * v for k, v in f.items())
    return 1.0 / (1.0 + math.exp(-max(min(z, 30.0), -30.0)))


def set_confidences(turns: list[SpeakerTurn], ids: list[str], presented: Presented | None) -> None:
    """Give every turn its confidence (0 for an ``unknown`` one, 1 for one a label or a hand decided)."""
    from panelbot.retrieval.tuning import attribution_tuning

    tune = attribution_tuning()
    for t in turns:
        if t.speaker == UNKNOWN:
            t.confidence = 0.0
            continue
        if attribution_basis(t.why) in ("label", "hand") and not t.parts:
            t.confidence = 1.0
            continue
        f = features(t, ids, presented)
        t.confidence = round(confidence(f, tune["weights"], tune["bias"]), 4)
        if presented is not None and f["weakest"] < 0:
            t.sounds_like = presented.closest_other(
                _weakest_piece(t, ids, presented), t.speaker, ids
            )


def _weakest_piece(t: SpeakerTurn, ids: list[str], presented: Presented) -> str:
    """The turn, or the opening or ending of it, least like its speaker's presentation."""
    texts = [t.text, *_pieces(t.text)]
    margins = [presented.margin(x, t.speaker, ids) for x in texts]
    known = [(m, x) for m, x in zip(margins, texts, strict=True) if m is not None]
    return min(known)[1] if known else t.text
