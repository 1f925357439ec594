"""Who a turn sounds like, by meaning: each panelist as they were presented (their own introduction, what the
host said they do) against the turn's words, with the shipped sentence encoder
(:mod:`panelbot.retrieval.encoder`).

Guests the host presents and who never introduce themselves ("With me are Dr. Ana Ruiz, a marine biologist …,
and Tom Berg, who fishes for cod …") share few exact words with their answers ("the reefs are bleaching" for
the biologist); what the sentences mean still matches. The evidence is relative: how far the turn's
similarity to the closest panelist's presentation leads the next one's (beyond a fitted floor), so a turn that
sounds like nobody in particular gives no one evidence.

When the encoder cannot be loaded the evidence is empty (the lexical field decides as before).
"""

from __future__ import annotations

import re

from panelbot.text import words

MIN_WORDS = 4  # a presentation this short says nothing by meaning
# nor a turn this short ("Mostly we rewrote the scheduler."): a guess, not evidence
MIN_TURN_WORDS = 12


class Presented:
    """The panelists' presentations, embedded once; :meth:`scores` and :meth:`margin` for a turn's text."""

    def __init__(
        self, texts: dict[str, str], scale: float | None = None, floor: float | None = None
    ) -> None:
        from panelbot.retrieval.tuning import attribution_tuning

        tune = attribution_tuning()
        self.scale = float(tune["meaning_scale"]) if scale is None else scale
        self.floor = float(tune["meaning_floor"]) if floor is None else floor
        self.texts = {p: t for p, t in texts.items() if len(words(t)) >= MIN_WORDS}
        self._vectors: dict[str, object] | None = None
        self._failed = False

    def _load(self) -> dict[str, object]:
        if self._vectors is None:
            self._vectors = {}
            if self.texts and not self._failed:
                try:
                    from panelbot.retrieval.encoder import shipped_model

                    model = shipped_model()
                    vecs = model.embed_many(list(self.texts.values()))
                    self._vectors = dict(zip(self.texts, vecs, strict=True))
                except Exception:  # noqa: BLE001 - no model: no evidence by meaning, never a failed ingest
                    self._failed = True
        return self._vectors

    def similarities(self, text: str, candidates: list[str]) -> dict[str, float]:
        """Cosine similarity of ``text`` to each candidate's presentation (only candidates presented)."""
        vectors = self._load()
        have = [p for p in candidates if p in vectors]
        if len(have) < 2 or len(words(text)) < MIN_TURN_WORDS:
            return {}
        import numpy

        from panelbot.retrieval.encoder import shipped_model

        v = numpy.asarray(shipped_model().embed(text), dtype=numpy.float32)
        return {p: float(v @ numpy.asarray(vectors[p], dtype=numpy.float32)) for p in have}

    def scores(self, text: str, candidates: list[str]) -> dict[str, float]:
        """Evidence for the candidate the text is closest to in meaning: ``scale`` times how far its
        similarity leads the next candidate's, beyond ``floor`` (fitted: a small lead is noise); 0 for the
        others and for all when meaning cannot say."""
        out = {p: 0.0 for p in candidates}
        sims = self.similarities(text, candidates) if self.scale else {}
        if len(sims) < 2:
            return out
        ranked = sorted(sims, key=lambda p: sims[p], reverse=True)
        lead = sims[ranked[0]] - sims[ranked[1]]
        out[ranked[0]] = self.scale * max(lead - self.floor, 0.0)
        return out

    def closest_other(self, text: str, speaker: str, candidates: list[str]) -> str:
        """The candidate other than ``speaker`` whose presentation the text is closest to ("" if none)."""
        sims = {p: v for p, v in self.similarities(text, candidates).items() if p != speaker}
        return max(sims, key=lambda p: sims[p]) if sims else ""

    def margin(self, text: str, speaker: str, candidates: list[str]) -> float | None:
        """How much closer the text is to ``speaker``'s presentation than to the closest other candidate's
        (negative: it sounds like someone else); None when meaning cannot say."""
        sims = self.similarities(text, candidates)
        if speaker not in sims or len(sims) < 2:
            return None
        return sims[speaker] - max(v for p, v in sims.items() if p != speaker)


def without_names(text: str, name_re: re.Pattern[str] | None) -> str:
    """The text with the panelists' names taken out (a name says who, not what about)."""
    return name_re.sub(" ", text) if name_re else text
