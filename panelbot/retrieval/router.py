"""Question -> who answers, which quotes, with scores and a short reason.

Retrieval (``panelbot.retrieval.index``) is BM25 over fielded quote documents: the quote's words, its curated keywords and
topics, the questions it answers in a user's words (``asks``), and the host question and turn it answers. On
top of plain BM25:

* vocabulary (``panelbot.retrieval.vocabulary``): the panel's own ``vocabulary:`` and general synonym groups map variants
  to one term ("reinforcement learning" -> "rl", "KB cache" -> "kv cache") in quotes and questions alike;
* typo tolerance: a word that is neither a panel word nor real English is corrected to the panel word within
  one edit (two for words of 9+ letters; a swap of neighbouring letters counts as one; same first letter);
* adjacent-word pairs are terms too, so "sparse attention" outranks "sparse" and "attention" apart.

Who answers: a panelist named in the question ("Dan, ...", "@olive", "ask both"), else each panelist's best
quotes plus their stated expertise; both when the second answered the same host question nearly as well.

Scope (answer or abstain) is decided separately from the match scores, which on a small bank always find
*something*: the question must carry evidence that it is about the panel's subject (see ``Router.scope``).
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from rapidfuzz import fuzz, process
from rapidfuzz.distance import OSA

from panelbot.config import RetrievalSettings
from panelbot.panel import Panel, Quote
from panelbot.retrieval.index import QuoteIndex
from panelbot.retrieval.lexicon import common_stems, english_words, stem, stopwords
from panelbot.retrieval.results import RouteResult, ScoredQuote
from panelbot.retrieval.vocabulary import Normalizer
from panelbot.text import fold, words

GENERIC_CAP = 1.5  # everyday words add up to at most this much evidence
EVERYDAY_MIN = 3
MIN_COVERAGE = 0.6  # below this share of panel evidence, the question is mostly about something else

# "How do I fix my router?": a personal how-to, not a question about the panelists' work
PERSONAL_TASK = re.compile(
    r"\b(?:how (?:do|can|should|would) i|should i|can i|do i need|i need to|i want to|my|help me|for me)\b",
    re.IGNORECASE,
)
PERSONAL_FACTOR = 0.6

BOTH_WORDS = re.compile(
    r"\b(?:both(?: of you)?|each of you|you two|all of you|everyone on the panel|the whole panel|"
    r"ask both|both panelists|either of you)\b",
    re.IGNORECASE,
)



@dataclass
class _Query:
    terms: list[str]  # stemmed terms to score with, word pairs ("kv_cach") included
    matched: list[str]  # the question's content terms the panel uses
    unmatched: list[str]  # ... and those it never uses
    phrases: dict[str, float]  # terms from a multi-word vocabulary phrase -> their share of it
    corrected: set[str] = field(default_factory=set)  # terms reached only by correcting a typo


class Router:
    """Routes questions to panelists and retrieves their quotes. Build once per panel; queries are cheap."""

    def __init__(self, panel: Panel, settings: RetrievalSettings | None = None, *,
                 index: QuoteIndex | None = None) -> None:
        """``index``: a ready index of this panel (e.g. from ``panelbot.retrieval.cache``); else built."""
        self.panel = panel
        self.settings = settings or RetrievalSettings()
        self.index = index if index is not None else QuoteIndex(panel, Normalizer(panel.vocabulary))
        self.norm = self.index.norm
        self._common = common_stems()
        # curated subject vocabulary: persona keywords/covers, quote keywords/topics, panel topics, vocabulary
        curated: set[str] = set(self.norm.canonical_terms)
        for p in panel.panelists.values():
            for kw in (*p.keywords, *p.covers):
                curated.update(self.norm.unigrams(self.norm.normalise(kw)))
        curated.update(self.index.keyword_terms)
        for t in panel.topics:
            curated.update(self.norm.unigrams(self.norm.normalise(t)))
        self.curated = frozenset(curated)
        # per-speaker expertise terms
        self.expertise: dict[str, frozenset[str]] = {}
        for pid, p in panel.panelists.items():
            terms: set[str] = set()
            for kw in (*p.keywords, *p.covers):
                terms.update(self.norm.terms(kw))
            self.expertise[pid] = frozenset(terms)
        # every word the panel uses, for correcting typos before vocabulary mapping
        lexicon: Counter[str] = Counter(self.index.lexicon)
        texts: list[str] = [q.text for q in panel.questions]
        texts += [k for p in panel.panelists.values() for k in (*p.keywords, *p.covers)]
        texts += [f"{c} {' '.join(v)}" for c, v in panel.vocabulary.items()] + list(panel.topics)
        for t in texts:
            lexicon.update(w for w in words(t) if len(w) >= 4 and w.isalpha())
        self.lexicon = lexicon
        self._lex_by_initial: dict[str, list[str]] = defaultdict(list)
        for w in lexicon:
            self._lex_by_initial[w[0]].append(w)
        self._name_stems = {stem(fold(p.name)) for p in panel.panelists.values()} | {
            stem(pid) for pid in panel.panelists
        }
        self._name_res = {
            pid: re.compile(
                rf"(?:@{re.escape(pid)}\b|(?<![\w@]){re.escape(fold(p.name))}(?![\w'])"
                rf"|(?<![\w@]){re.escape(pid)}(?![\w']))",
                re.IGNORECASE,
            )
            for pid, p in panel.panelists.items()
        }

    # ------------------------------------------------------------------------------------------- parts

    def addressed(self, question: str) -> tuple[list[str], bool]:
        """Panelists named in the question (in order of mention), and whether it asks for both/all."""
        folded = fold(question)
        hits: list[tuple[int, str]] = []
        for pid, rx in self._name_res.items():
            m = rx.search(folded)
            if m and self._is_address(folded, m):
                hits.append((m.start(), pid))
        hits.sort()
        return [pid for _, pid in hits], bool(BOTH_WORDS.search(question))

    @staticmethod
    def _is_address(folded: str, m: re.Match[str]) -> bool:
        """'Olive, ...', '@olive', 'ask Olive', 'what does Olive think' -- not 'olive oil'."""
        if m.group(0).startswith("@"):
            return True
        after = folded[m.end() : m.end() + 12]
        return not re.match(r"\s+(?:oil|oils|tree|trees|green|garden|branch|pizza|tapenade)\b", after)

    def corrections(self, question: str) -> dict[str, str]:
        """Misspelt words -> the panel word they most likely mean ("reinforcment" -> "reinforcement").

        Only words the panel never uses and that are not real English are corrected, within one edit (two
        for words of 9+ letters, when still ``typo_ratio`` similar), keeping the first letter."""
        sw, known = stopwords(), english_words()
        fixes: dict[str, str] = {}
        for w in set(words(question)):
            if len(w) < 4 or not w.isalpha() or w in self.lexicon or w in sw or w in known:
                continue
            cands = self._lex_by_initial.get(w[0])
            if not cands:
                continue
            max_edits = 1 if len(w) <= 8 else 2
            hits = process.extract(w, cands, scorer=OSA.distance, score_cutoff=max_edits,
                                   limit=5)
            hits = [h for h in hits if h[1] <= 1 or fuzz.ratio(w, h[0]) >= self.settings.typo_ratio]
            if hits:
                best = min(hits, key=lambda h: (h[1], -self.lexicon[h[0]], h[0]))
                fixes[w] = best[0]
        return fixes

    def query_terms(self, question: str) -> _Query:
        """Terms (typos corrected, word pairs added); also the content words matched and unmatched."""
        phrases: dict[str, float] = {}
        fixes = self.corrections(question)
        normalised = self.norm.normalise(question, fixes, phrases)
        corrected = {t for w in fixes.values() for t in self.norm.unigrams(self.norm.normalise(w))}

        uni = [u for u in self.norm.unigrams(normalised) if u not in self._name_stems]
        terms = [u for u in uni if u in self.index.postings]
        matched = list(terms)
        unmatched = [u for u in uni if u not in self.index.postings]
        terms += [f"{a}_{b}" for a, b in zip(uni, uni[1:], strict=False)
                  if a in self.index.postings and b in self.index.postings]
        return _Query(terms, matched, unmatched, phrases, corrected)

    def scope(self, query: _Query, addressed: list[str]) -> float:
        """Evidence that the question is about the panel's subject (see module doc).

        Matched words count by how much they belong to the panel: a vocabulary phrase 1.0; other words
        that are not ordinary English 1.0 when curated, 0.6 otherwise; ordinary English words 0.5 when
        curated, 0.2 otherwise, and together at most GENERIC_CAP (halved when nothing else matched); a
        panelist addressed by name adds 0.6. Words the panel never used dilute it: when they outweigh the matched ones (distinctive
        words 1.0, ordinary 0.3), the evidence shrinks in proportion."""
        specific = 0.0  # panel-specific terms: phrases, and words that are not ordinary English
        generic = 0.0  # ordinary English words the panel also uses ("change", "time", "model")
        phrases, matched, unmatched = query.phrases, query.matched, query.unmatched
        for t in set(matched):
            guess = 0.5 if t in query.corrected and t not in phrases else 1.0  # a typo guess is weaker
            if t in phrases:  # a multi-word term of the panel's or the general vocabulary
                specific += phrases[t]
            elif t not in self._common:
                specific += (1.0 if t in self.curated else 0.6) * guess
            else:
                generic += (0.5 if t in self.curated else 0.2) * guess
        evidence = specific + min(generic, GENERIC_CAP)
        n_generic = sum(1 for t in set(matched) if t in self._common and t not in phrases)
        if not specific and not addressed and n_generic < EVERYDAY_MIN:
            evidence *= 0.5  # only a couple of everyday words matched
        if addressed:
            evidence += 0.6
        against = sum(0.0 if t.isdigit() else 0.3 if t in self._common else 1.0 for t in set(unmatched))
        if evidence and against:
            coverage = evidence / (evidence + against)
            if coverage < MIN_COVERAGE:
                evidence *= (coverage / MIN_COVERAGE) ** 2
        return evidence

    # ------------------------------------------------------------------------------------------- API

    def search(self, query: str, k: int = 5, speakers: set[str] | None = None) -> list[ScoredQuote]:
        """The k best quotes for a query: no routing, no abstention."""
        return self._top(self.query_terms(query).terms, k, speakers)

    def _top(self, terms: list[str], k: int, speakers: set[str] | None) -> list[ScoredQuote]:
        scores = self.index.score(terms, speakers)
        if not scores:
            return []
        top = self.index.max_score(terms) or 1.0
        ranked = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:k]
        out = []
        for i, s in ranked:
            q = self.index.quotes[i]
            out.append(ScoredQuote(q, min(100.0, 100.0 * s / top), self._why(q, terms)))
        return out

    def _why(self, q: Quote, terms: list[str]) -> str:
        """Why a quote was chosen, in the quote's own words: 'says "KV cache", "growing"; keywords:
        memory; answers q15 (With concurrent requests...)'."""
        wanted = {t for t in terms if "_" not in t}
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
        keywords = [k for k in (*q.topics, *q.keywords)
                    if set(self.norm.unigrams(self.norm.normalise(k))) & wanted
                    and not any(k.lower() in s.lower() or s.lower() in k.lower() for s in said)]
        parts = []
        if said:
            parts.append("says " + ", ".join(f"\u201c{w}\u201d" for w in said[:4]))
        if keywords:
            parts.append("about " + ", ".join(dict.fromkeys(keywords[:3])))
        hq = self.panel.question(q.question)
        if hq:
            parts.append(f"answers {hq.id}")
        return "; ".join(parts) or "closest available"

    def route(self, question: str, target: str = "auto") -> RouteResult:
        """Decide who answers and with which quotes; abstain when the panel never touched the subject."""
        question = question.strip()
        ids = list(self.panel.panelists)
        k = self.settings.top_k
        query = self.query_terms(question)
        terms, matched = query.terms, query.matched
        addressed, both = self.addressed(question)
        target = (target or "auto").lower()
        if target not in ("auto", "both") and target not in ids:
            raise ValueError(f"unknown target {target!r}")
        evidence = self.scope(query, addressed or (ids if both else []))
        if PERSONAL_TASK.search(question) and not addressed:
            evidence *= PERSONAL_FACTOR
        in_scope = evidence >= self.settings.scope_floor and bool(terms)
        if not in_scope:
            return RouteResult(
                question=question,
                speakers=[],
                abstained=True,
                quotes=[],
                reason="off-topic: the question shares nothing with what the panel discussed"
                if not matched
                else "off-topic: too little of the question is about what the panel discussed",
                addressed=addressed,
                suggestions=self.suggestions(),
                scope=evidence,
            )
        # per-speaker retrieval
        per: dict[str, list[ScoredQuote]] = {
            pid: self._top(terms, max(k, 3), {pid}) for pid in ids
        }
        strength = {pid: self._strength(pid, per[pid], terms) for pid in ids}
        ranked = sorted(ids, key=lambda p: -strength[p])
        if target == "both" or (target == "auto" and (both or len(addressed) > 1)):
            speakers = [p for p in ranked if per[p]] if not addressed or both else addressed
            reason = "asked of both panelists" if target == "both" or both else "addressed by name"
        elif target != "auto":
            speakers, reason = [target], f"asked of {self.panel.display_name(target)} (target)"
        elif addressed:
            speakers = addressed[:1]
            reason = f"addressed to {self.panel.display_name(addressed[0])} by name"
        else:
            first = ranked[0]
            speakers = [first]
            reason = f"{self.panel.display_name(first)}'s subject and best-matching quotes"
            if len(ranked) > 1:
                second = ranked[1]
                s1 = per[first][0].score if per[first] else 0.0
                s2 = per[second][0].score if per[second] else 0.0
                if s1 > 0 and s2 >= self.settings.both_ratio * s1 and (
                    self._both_spoke(per, first, second) or self._both_spoke(per, second, first)
                ):
                    speakers.append(second)
                    reason = "both panelists spoke to this"
        silent = [p for p in speakers if not per.get(p)]
        speakers = [p for p in speakers if per.get(p)]
        if silent and not speakers:
            # the one asked never spoke to this; whoever did answers, and the reason says so -- unless
            # the user picked that panelist explicitly (--to / the selector): then say so and stop
            others = [p for p in ranked if per[p] and p not in silent]
            names = " and ".join(self.panel.display_name(p) for p in silent)
            if others and target != "auto":
                who = " and ".join(self.panel.display_name(p) for p in others)
                return RouteResult(question, [], True, [],
                                   f"{names} didn't speak to this on the panel ({who} did)",
                                   addressed, self.suggestions(), evidence, off_topic=False)
            if others:
                speakers = others[:1]
                reason = (f"{names} didn't speak to this on the panel; "
                          f"{self.panel.display_name(speakers[0])} did")
        if not speakers:
            return RouteResult(question, [], True, [], "no quote matches the question",
                               addressed, self.suggestions(), evidence)
        if len(speakers) == 1:
            quotes = per[speakers[0]][:k]
        else:
            each = max(1, math.ceil(k / len(speakers)))
            quotes = [sq for p in speakers for sq in per[p][:each]]
            quotes.sort(key=lambda sq: -sq.score)
        # drop quotes that only share a stray word: absolute floor, and far below the best one
        best = max(sq.score for sq in quotes)
        floor = max(self.settings.min_quote_score, 0.3 * best)
        kept = [sq for sq in quotes if sq.score >= floor] or quotes[:1]
        return RouteResult(question, speakers, False, kept, reason, addressed, [], evidence)

    def _strength(self, pid: str, quotes: list[ScoredQuote], terms: list[str]) -> float:
        """How well a panelist fits: their best quotes plus their stated expertise."""
        if not quotes:
            return 0.0
        s = quotes[0].score + 0.3 * (quotes[1].score if len(quotes) > 1 else 0.0)
        exp = self.expertise.get(pid, frozenset())
        bonus = sum(5.0 for t in terms if t in exp)
        return s + min(bonus, 20.0)

    def _both_spoke(self, per: dict[str, list[ScoredQuote]], a: str, b: str) -> bool:
        """The second panelist answered the same host question as the first's best quote, and that
        answer matches nearly as well (the both-panelists questions of the talk, e.g. open source)."""
        top = per[a][0]
        if top.quote.question is None:
            return False
        return any(
            sq.quote.question == top.quote.question
            and sq.score >= self.settings.both_ratio * top.score
            for sq in per[b][:3]
        )

    def suggestions(self, n: int = 3) -> list[str]:
        """Topics and a few of the host's questions to offer when abstaining."""
        topics = list(self.panel.topics[:6])
        qs = [q.text for q in self.panel.questions if q.answered_by]
        step = max(1, len(qs) // n) if qs else 1
        picks = qs[2::step][:n] if len(qs) > 2 else qs[:n]
        return topics + picks
