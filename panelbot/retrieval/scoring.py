"""How well each quote matches a question (0-100), and why it was chosen, in the quote's own words.

The lexical score is BM25 over fielded quote documents (``panelbot.retrieval.index``), normalised by its upper
bound, plus the question's verbatim word pairs a quote says ("day zero") and how much of the question one of
its ``asks`` says. Routing scores every quote by the relevance model (``panelbot.retrieval.relevance``) on that
and the question's closeness in meaning to the quote; ``search`` is the lexical score alone."""

from __future__ import annotations

import heapq

from panelbot.panel import Panel, Quote
from panelbot.retrieval.index import QuoteIndex
from panelbot.retrieval.query import Query
from panelbot.retrieval.quote_words import QuoteWords
from panelbot.retrieval.results import ScoredQuote
from panelbot.retrieval.tuning import Tuning
from panelbot.text import cased_like, words

# words said verbatim together in a quote ("day zero", "catch up") add this to its 0-100 score, at most twice
SURFACE_PAIR_BONUS = 15.0
RERANK_SURFACE = 60  # best candidates checked for the question's verbatim word pairs
# a quote one of whose ``asks`` (questions in a user's words it answers) says the whole question gains up to
# this much: the paraphrase a curator foresaw outranks a quote that matches its words scattered across fields
ASK_WEIGHT = 40.0
# ... counting also the words that say what kind of answer is wanted (``query.ASK_CUES``), each weighing as
# one ordinary term
CUE_WEIGHT = 1.0


class QuoteScorer:
    """Scores one panel's quotes against questions and says why a quote matched."""

    def __init__(
        self, panel: Panel, index: QuoteIndex, quote_words: QuoteWords, tune: Tuning
    ) -> None:
        self.panel = panel
        self.index = index
        self.norm = index.norm
        self.words = quote_words
        self.tune = tune  # the thresholds that decide by meaning (the router's, kept in step)

    def scores(self, query: Query, speakers: set[str] | None) -> dict[int, float]:
        """0-100 lexical scores: BM25 normalised by its upper bound, plus SURFACE_PAIR_BONUS for each of the
        question's word pairs the quote says verbatim ("day zero", "catch up"), at most two."""
        terms = query.terms
        raw = self.index.score(terms, speakers) if terms else {}
        top = self.index.max_score(terms) or 1.0 if terms else 1.0
        scores = {i: 100.0 * s / top for i, s in raw.items()}
        if query.surface:
            for i in heapq.nlargest(RERANK_SURFACE, scores, key=scores.__getitem__):
                hits = self._surface_hits(query, i)
                if hits:
                    scores[i] += SURFACE_PAIR_BONUS * min(hits, 2)
        return {i: min(100.0, s) for i, s in scores.items()}

    def lexical(self, query: Query) -> dict[int, float]:
        """Every matching quote's lexical score (:meth:`scores`) with the ``asks`` bonus for the best."""
        scores = self.scores(query, None)
        best = heapq.nsmallest(RERANK_SURFACE, scores.items(), key=lambda kv: (-kv[1], kv[0]))
        scores.update(self.ask_matches(query, best))
        return scores

    def relevance(self, query: Query) -> dict[str, dict[int, float]]:
        """Each panelist's quotes (quote index -> 0-100) by the relevance model: the lexical score and, when
        the query carries them (``query.sims``), the similarities in meaning -- then every quote is scored."""
        t = self.tune
        lexical = self.lexical(query)
        speaker_of = self.index.speaker_of
        out: dict[str, dict[int, float]] = {pid: {} for pid in self.panel.panelists}
        if query.sims is not None:
            fused = t.relevance.scores(lexical, query.sims)
        else:
            # a bank too large for meaning (up to 100,000 quotes): the lexical model is monotone in the
            # lexical score, so only each panelist's best few can lead -- score those, not every match
            mine: dict[str, list[tuple[int, float]]] = {}
            for i, sc in lexical.items():
                mine.setdefault(speaker_of[i], []).append((i, sc))
            keep = {
                i
                for got in mine.values()
                for i, _ in heapq.nsmallest(RERANK_SURFACE, got, key=lambda kv: (-kv[1], kv[0]))
            }
            fused = t.relevance_lexical.scores({i: lexical[i] for i in keep}, None)
        for i, sc in fused.items():
            out.setdefault(speaker_of[i], {})[i] = sc
        return out

    def ask_matches(self, query: Query, best: list[tuple[int, float]]) -> list[tuple[int, float]]:
        """The best candidates (quote, score) with how much of the question (by idf, and its ASK_CUES) one of
        their ``asks`` says added, best first: a quote written to answer that very question outranks one
        matching its words across fields. (Only the best can gain, so only they can rise to the top.)"""
        wanted = {t: self.index.idf.get(t, 0.0) for t in dict.fromkeys(query.matched)}
        wanted.update({c: CUE_WEIGHT for c in query.cues})
        total = sum(wanted.values())
        if not total or not ASK_WEIGHT:
            return best
        out = []
        for i, sc in best:
            said = max(
                (sum(w for t, w in wanted.items() if t in a) for a in self.words.ask_terms(i)),
                default=0.0,
            )
            out.append((i, min(100.0, sc + ASK_WEIGHT * said / total)))
        return sorted(out, key=lambda kv: (-kv[1], kv[0]))

    def _surface_hits(self, query: Query, i: int) -> int:
        """How many of the question's word runs ("day zero", "open weight models") quote i says verbatim;
        overlapping pairs of one run count once."""
        said = self.words.surface_text(i)
        hits, prev_end = 0, ""
        for pair in query.surface:
            if f" {pair} " in said:
                first = pair.split(" ", 1)[0]
                if first != prev_end:
                    hits += 1
                prev_end = pair.rsplit(" ", 1)[-1]
            else:
                prev_end = ""
        return hits

    def top(
        self, query: Query, k: int, speakers: set[str] | None, *, explain: bool = True
    ) -> list[ScoredQuote]:
        """The k best quotes (of ``speakers``, or all), best first, each with why it was chosen (unless
        ``explain`` is off: a measurement that needs only scores and ranks, where saying why costs the most)."""
        scores = self.scores(query, speakers)
        ranked = heapq.nsmallest(k, scores.items(), key=lambda kv: (-kv[1], kv[0]))
        quotes = self.index.quotes
        return [
            ScoredQuote(quotes[i], s, self.why(quotes[i], query.terms) if explain else "")
            for i, s in ranked
        ]

    def _said_words(self, q: Quote, wanted: set[str]) -> list[str]:
        """The words (a matched pair as one phrase: "kv cache") of a quote's text that say wanted terms."""
        said: list[str] = []
        toks = words(q.text)
        for i, w in enumerate(toks):
            term = self.norm.unigrams(self.norm.normalise(w))
            if term and term[0] in wanted:
                phrase = w
                if i + 1 < len(toks):  # show a matched pair as one phrase ("kv cache")
                    nxt = self.norm.unigrams(self.norm.normalise(toks[i + 1]))
                    if nxt and nxt[0] in wanted:
                        phrase = f"{w} {toks[i + 1]}"
                if not any(phrase in s or s in phrase for s in said):
                    said.append(phrase)
        return said

    def why(self, q: Quote, terms: list[str]) -> str:
        """Why a quote was chosen, in the quote's own words: 'says "KV cache", "growing"; about memory;
        answers the host's "With concurrent requests that are 500 thousand…"'."""
        wanted = {t for t in terms if "_" not in t}
        said = self._said_words(q, wanted)
        keywords = [
            k
            for k in (*q.topics, *q.keywords)
            if set(self.norm.unigrams(self.norm.normalise(k))) & wanted
            and not any(k.lower() in s.lower() or s.lower() in k.lower() for s in said)
        ]
        parts = []
        if said:
            parts.append(
                "says " + ", ".join(f"\u201c{cased_like(w, q.text)}\u201d" for w in said[:4])
            )
        hq = self.panel.question(q.question)
        if (
            keywords
        ):  # as the quote or its host question writes them ("KV cache", not the stored "kv cache")
            parts.append(
                "about "
                + ", ".join(
                    dict.fromkeys(
                        cased_like(k, q.text, hq.text if hq else "") for k in keywords[:3]
                    )
                )
            )
        if hq:
            text = " ".join(hq.text.split())
            short = text if len(text) <= 60 else text[:59].rsplit(" ", 1)[0] + "\u2026"
            parts.append(f"answers the host's \u201c{short}\u201d")
        return "; ".join(parts) or "closest available"
