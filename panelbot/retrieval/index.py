"""The inverted index over a panel's quote bank: BM25 with field weights, compact postings, word pairs."""

from __future__ import annotations

import math
from array import array
from collections import Counter, defaultdict

from panelbot.panel import Panel, Quote
from panelbot.retrieval.vocabulary import Normalizer
from panelbot.text import words

# field weights: the quote's own words, its curated keywords/topics, the host question it answers, the host's
# whole turn around that question, and the questions in a user's words it answers (``asks``)
W_TEXT, W_KEYWORDS, W_QUESTION, W_HOST_TURN, W_ASKS = 1.0, 1.6, 0.7, 0.3, 0.8
K1, B = 1.2, 0.6
BIGRAM_BOOST = 1.5
RERANK = 60  # candidates whose own text is checked for the question's word pairs


class QuoteIndex:
    """An inverted index over the quote bank (BM25F-style field weights).

    Postings are kept as compact arrays (quote indices and weighted term frequencies) so that a bank of
    100,000 quotes stays within a few hundred MB.
    """

    def __init__(self, panel: Panel, normalizer: Normalizer) -> None:
        self.panel = panel
        self.norm = normalizer
        self.quotes: list[Quote] = panel.quotes
        lengths: list[float] = []
        self.lexicon: Counter[str] = Counter()  # surface words, for typo correction
        self.keyword_terms: set[str] = set()  # unigrams of curated keywords/topics
        # a host question's terms: its text, plus (weaker) the host's whole turn around it
        qterms: dict[str, Counter[str]] = {}
        for hq in panel.questions:
            c: Counter[str] = Counter({t: W_QUESTION for t in normalizer.terms(hq.text)})
            turn = panel.turn(hq.turn)
            if turn is not None and turn.speaker != "unknown":
                for t in set(normalizer.terms(turn.text)):
                    c[t] = max(c[t], W_HOST_TURN)
            qterms[hq.id] = c
        kw_cache: dict[str, list[str]] = {}
        postings: dict[str, tuple[list[int], list[float]]] = {}
        for i, q in enumerate(self.quotes):
            surface = words(q.text)
            self.lexicon.update(surface)  # counted as we go: holding all tokens costs ~300 MB at 100k
            tf: Counter[str] = Counter(normalizer.terms_of_words(surface, pairs=False))
            for kw in (*q.keywords, *q.topics):
                kt = kw_cache.get(kw)
                if kt is None:
                    kt = kw_cache[kw] = normalizer.terms(kw)
                    self.lexicon.update(words(kw))
                    self.keyword_terms.update(t for t in kt if "_" not in t)
                for t in kt:
                    tf[t] += W_KEYWORDS
            if q.question in qterms:
                tf.update(qterms[q.question])
            if q.asks:
                ask_terms: Counter[str] = Counter()
                for a in q.asks:
                    for t in set(normalizer.terms(a)):
                        ask_terms[t] = min(ask_terms[t] + W_ASKS, 2 * W_ASKS)
                tf.update(ask_terms)
            lengths.append(sum(tf.values()))
            for t, w in tf.items():
                entry = postings.get(t)
                if entry is None:
                    postings[t] = ([i], [w])
                else:
                    entry[0].append(i)
                    entry[1].append(w)
        self.postings: dict[str, tuple[array, array]] = {
            t: (array("i", d), array("f", w)) for t, (d, w) in postings.items()
        }
        del postings
        self.n = len(self.quotes)
        self.avg_len = (sum(lengths) / self.n) if self.n else 1.0
        self.norm_len = array("f", (K1 * (1 - B + B * ln / self.avg_len) for ln in lengths))
        self.idf = {
            t: math.log(1 + (self.n - len(p[0]) + 0.5) / (len(p[0]) + 0.5))
            for t, p in self.postings.items()
        }
        self.speaker_of = [q.speaker for q in self.quotes]
        for w in [w for w in self.lexicon if len(w) < 4 or not w.isalpha()]:
            del self.lexicon[w]
        self._pairs_cache: dict[int, frozenset[str]] = {}

    def score(self, terms: list[str], allowed: set[str] | None = None) -> dict[int, float]:
        """BM25 scores of quotes (indices) for weighted terms; optionally only some speakers'.

        Word pairs are indexed from keywords, topics and host questions; pairs in a quote's own text are
        checked only for the best candidates (cheap, and keeps a 100k-quote index small)."""
        scores: dict[int, float] = defaultdict(float)
        norm_len, speaker_of = self.norm_len, self.speaker_of
        pairs: list[str] = []
        for term in terms:
            if "_" in term:
                pairs.append(term)
            plist = self.postings.get(term)
            if not plist:
                continue
            idf = self.idf[term] * (BIGRAM_BOOST if "_" in term else 1.0)
            scale = idf * (K1 + 1)
            for i, tf in zip(*plist, strict=False):
                if allowed is not None and speaker_of[i] not in allowed:
                    continue
                scores[i] += scale * tf / (tf + norm_len[i])
        if pairs and scores:
            best = sorted(scores, key=scores.__getitem__, reverse=True)[:RERANK]
            for i in best:
                text_pairs = self._text_pairs(i)
                for term in pairs:
                    if term in text_pairs:
                        idf = self.pair_idf(term) * BIGRAM_BOOST
                        scores[i] += idf * (K1 + 1) * W_TEXT / (W_TEXT + norm_len[i])
        return scores

    def _text_pairs(self, i: int) -> frozenset[str]:
        cached = self._pairs_cache.get(i)
        if cached is None:
            terms = self.norm.terms(self.quotes[i].text)
            cached = frozenset(t for t in terms if "_" in t)
            if len(self._pairs_cache) > 4096:
                self._pairs_cache.clear()
            self._pairs_cache[i] = cached
        return cached

    def pair_idf(self, token: str) -> float:
        if token in self.idf:
            return self.idf[token]
        a, _, b = token.partition("_")
        return (self.idf.get(a, 0.0) + self.idf.get(b, 0.0)) / 2

    def max_score(self, terms: list[str]) -> float:
        """An upper bound for normalising scores to 0-100: every term matched well."""
        total = 0.0
        for term in terms:
            if "_" in term:
                total += 2 * self.pair_idf(term) * BIGRAM_BOOST * (K1 + 1)  # index + text
            elif term in self.idf:
                total += self.idf[term] * (K1 + 1)
        return total
