"""Scope: whether a question is about the panel's subject, so answered, or declined.

The match scores on a small bank always find *something*; scope is decided apart from them, on evidence
that the question is about the panel's subject (``ScopeJudge.evidence``), with panel words used in another
sense discounted, and on its closeness in meaning to the quotes (``panelbot.retrieval.tuning``)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from panelbot.config import RetrievalSettings
from panelbot.retrieval.encoder import shipped_model
from panelbot.retrieval.index import QuoteIndex
from panelbot.retrieval.meaning import MAX_QUOTES, QuoteMeanings, background_similarity
from panelbot.retrieval.query import Query
from panelbot.retrieval.quote_words import QuoteWords
from panelbot.retrieval.tuning import ScopeSignals, Tuning
from panelbot.retrieval.vocabulary import Normalizer

GENERIC_CAP = 1.5  # everyday words add up to at most this much evidence
EVERYDAY_MIN = 3
MIN_COVERAGE = (
    0.6  # below this share of panel evidence, the question is mostly about something else
)
PERSONAL_FACTOR = 0.6  # a personal how-to's evidence counts this much (``query.PERSONAL_TASK``)
# a matched word that no other word of the question is ever said with ("flush the DNS *cache*") is probably
# meant in another sense: it counts this much
OTHER_SENSE = 0.35
COOCCUR_SCAN = (
    200  # quotes holding both terms checked for saying both in their own words (bounds the cost)
)


@dataclasses.dataclass(eq=False, repr=False)
class ScopeJudge:
    """Decides whether a question is about one panel's subject."""

    index: QuoteIndex
    words: QuoteWords
    curated: frozenset[str]  # the panel's curated subject vocabulary
    common: frozenset[str]  # everyday stems (``lexicon.common_stems``)
    panelists: list[str]  # the panel's ids: a question asking both addresses them all
    settings: RetrievalSettings
    tune: Tuning  # the thresholds that decide by meaning
    meanings: Callable[[], QuoteMeanings]  # the bank's rows for meaning (built on first use)
    _together: dict[tuple[str, str], bool] = dataclasses.field(default_factory=dict, init=False)
    _near_common: dict[str, bool] = dataclasses.field(default_factory=dict, init=False)
    _common_sorted: list[str] | None = dataclasses.field(default=None, init=False)

    @property
    def norm(self) -> Normalizer:
        return self.index.norm

    def evidence(self, query: Query, addressed: list[str], *, senses: bool = True) -> float:
        """Evidence that the question is about the panel's subject (see module doc).

        Matched words count by how much they belong to the panel: a vocabulary phrase 1.0, a word of the
        panel's own vocabulary 1.0; other words that are not ordinary English 1.0 when curated, 0.6
        otherwise; ordinary English words 0.5 when curated, 0.2 otherwise, and together at most GENERIC_CAP
        (halved when nothing else matched); a panelist addressed by name adds 0.6. A single word that no
        other word of the question is ever said with in the talk is probably meant in another sense ("flush
        the DNS cache") and counts OTHER_SENSE of that; a run of unknown-to-English panel words ("Las
        Vegas") is one name. Words the panel never used dilute the evidence: when they outweigh the matched
        ones (distinctive words 1.0, ordinary 0.3, model names and numbers 0), it shrinks in proportion."""
        addressed = addressed or query.mentioned
        other_sense = set() if addressed or not senses else self._other_sense(query)
        if query.named and other_sense:
            other_sense = self._unvouched(query, other_sense)
        specific, generic = self._matched_evidence(query, other_sense)
        evidence = specific + min(generic, GENERIC_CAP)
        n_generic = sum(
            1 for t in set(query.matched) if t in self.common and t not in query.phrases
        )
        if not specific and not addressed and n_generic < EVERYDAY_MIN:
            evidence *= 0.5  # only a couple of everyday words matched
        if addressed:
            evidence += 0.6
        against = sum(
            0.0 if t.isdigit() or t in query.neutral else 0.3 if self._everyday(t) else 1.0
            for t in set(query.unmatched)
        )
        if evidence and against:
            coverage = evidence / (evidence + against)
            if coverage < MIN_COVERAGE:
                evidence *= (coverage / MIN_COVERAGE) ** 2
        return evidence

    def _unvouched(self, query: Query, other_sense: set[str]) -> set[str]:
        """An organisation named as such ("at Together") is itself when the question's other words are what
        its quotes are about (in any field): then neither it nor they are meant in another sense."""
        vouched = {
            t
            for t in other_sense - query.named
            if not any(query.unit.get(t, t) == query.unit.get(u, u) for u in query.named)
            and any(self.words.docs(t) & self.words.docs(u) for u in query.named)
        }
        if not vouched:
            return other_sense
        return {
            t
            for t in other_sense - vouched
            if not any(query.unit.get(t, t) == query.unit.get(u, u) for u in query.named)
        }

    def _matched_evidence(self, query: Query, other_sense: set[str]) -> tuple[float, float]:
        """(specific, generic): the evidence of panel-specific terms (phrases, words that are not ordinary
        English) and of ordinary English words the panel also uses ("change", "time", "model")."""
        specific = 0.0
        generic = 0.0
        phrases, runs = query.phrases, query.runs
        for t in set(query.matched):
            guess = (
                0.5 if t in query.corrected and t not in phrases else 1.0
            )  # a typo guess is weaker
            sense = OTHER_SENSE if t in other_sense else 1.0
            if t in phrases:  # a multi-word term of the panel's or the general vocabulary
                specific += phrases[t]
            elif t in query.named and sense == 1.0:
                specific += (
                    1.0  # an organisation named as such ("Together's mission") names the panel
                )
            elif t in query.vocab:
                specific += query.vocab[t] * sense
            elif t not in self.common:
                specific += (1.0 if t in self.curated else 0.6) * guess * sense / runs.get(t, 1)
            else:
                generic += (0.5 if t in self.curated else 0.2) * guess * sense
        return specific, generic

    def _everyday(self, term: str) -> bool:
        """An everyday word, or one edit from one (a misspelling: "handel" for handle), of six letters or
        more: it weighs as little against the panel's words as an everyday word does."""
        if term in self.common:
            return True
        if len(term) < 6 or not term.isalpha():
            return False
        got = self._near_common.get(term)
        if got is None:
            from rapidfuzz import process  # only for a question's unknown, unusual words
            from rapidfuzz.distance import OSA

            got = (
                process.extractOne(term, self._common_list(), scorer=OSA.distance, score_cutoff=1)
                is not None
            )
            if len(self._near_common) > 4096:
                self._near_common.clear()
            self._near_common[term] = got
        return got

    def _common_list(self) -> list[str]:
        if self._common_sorted is None:
            self._common_sorted = sorted(t for t in self.common if len(t) >= 4)
        return self._common_sorted

    def said_together(self, t: str, u: str) -> bool:
        """Some quote says both terms in its own words (not only in curated fields), or the host question it
        answers does: the talk's own words settle the sense ("context" and "memory" of the KV cache)."""
        key = (t, u) if t < u else (u, t)
        got = self._together.get(key)
        if got is None:
            both = self.words.docs(t) & self.words.docs(u)
            got = any(
                (t in (tt := self.words.text_terms(i)) and u in tt)
                or (t in (ht := self.words.host_terms(i)) and u in ht)
                for i in sorted(both)[:COOCCUR_SCAN]
            )
            if len(self._together) > 8192:
                self._together.clear()
            self._together[key] = got
        return got

    def _other_sense(self, query: Query) -> set[str]:
        """Matched single words that none of the question's other matched words is ever said with in one
        quote, in a question that also has words the panel never used: "cache" in "flush the DNS cache on
        my laptop". Phrases are never ambiguous, and a multi-word term of the panel's own vocabulary settles
        the sense of the whole question."""
        if any(t in self.norm.canonical_terms for t in query.phrases):
            return (
                set()
            )  # a multi-word term of the panel's own vocabulary ("KV cache") anchors the sense
        content = [
            t for t in dict.fromkeys(query.seq) if t not in query.neutral and not t.isdigit()
        ]
        matched = [t for t in content if t in self.index.postings]
        if len(content) < 2 or not matched or (len(matched) == len(content) and not query.personal):
            return (
                set()
            )  # every word is the panel's: nothing says another sense is meant (unless it asks
            # about the user's own case: "cache the photos on my blog" is not the panel's cache)
        supporters = matched
        runs = query.runs
        out = set()
        for t in matched:
            if t in query.phrases:
                continue
            if not any(
                u != t
                and query.unit.get(u, u) != query.unit.get(t, t)
                and not (runs.get(t) and runs.get(u) and self._same_run(query, t, u))
                and self.said_together(t, u)
                for u in supporters
            ):
                out.add(t)
        return out

    @staticmethod
    def _same_run(query: Query, a: str, b: str) -> bool:
        seq = query.seq
        return any({seq[i], seq[i + 1]} == {a, b} for i in range(len(seq) - 1))

    def signals(
        self, question: str, query: Query, addressed: list[str], both: bool
    ) -> ScopeSignals:
        """What the scope decision weighs for a question read as ``query``; sets ``query.sims`` (the
        question's similarity in meaning to each quote) unless the bank is too large for meaning."""
        evidence = self.evidence(query, addressed or (list(self.panelists) if both else []))
        if query.personal and not addressed:
            evidence *= PERSONAL_FACTOR
        if len(self.index.quotes) > MAX_QUOTES:  # lexical only (see meaning.MAX_QUOTES)
            return ScopeSignals(evidence, 0.0, 0.0)
        vector = shipped_model().embed(question)
        query.sims = self.meanings().similarities(vector)
        return ScopeSignals(evidence, max(query.sims, default=0.0), background_similarity(vector))

    def in_scope(self, signals: ScopeSignals, query: Query) -> bool:
        """The scope decision: the fitted model on words and meaning; on a bank too large for the semantic
        step, the lexical floor (``retrieval.scope_floor``)."""
        if query.sims is None:
            return bool(query.terms) and signals.evidence >= self.settings.scope_floor
        # a question with no word the model or the panel knows ("", "?") has no meaning to weigh, and one
        # with no word of the panel's that is near nothing known ("xyz", "asdf") reads as nothing: the
        # scope model, fitted on real questions, would weigh it where it never saw one
        if not (query.terms or query.seq):
            return False
        if not query.matched and signals.nearest_known < self.tune.nothing_floor:
            return False
        return self.tune.scope.in_scope(signals)
