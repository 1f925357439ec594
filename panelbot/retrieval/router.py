"""Question -> who answers, which quotes, with scores and a short reason.

Retrieval (``panelbot.retrieval.index``) is BM25 over fielded quote documents: the quote's words, its curated keywords and
topics, the questions it answers in a user's words (``asks``), and the host question and turn it answers. On
top of plain BM25:

* vocabulary (``panelbot.retrieval.vocabulary``): the panel's own ``vocabulary:`` and general synonym groups map variants
  to one term ("reinforcement learning" -> "rl", "KB cache" -> "kv cache") in quotes and questions alike;
* typo tolerance: a word that is neither a panel word nor real English is corrected to the panel word within
  one edit (two for words of 9+ letters; a swap of neighbouring letters counts as one; same first letter);
* adjacent-word pairs are terms too, so "sparse attention" outranks "sparse" and "attention" apart.

* verbatim word runs: the question's own word pairs said as such in a quote ("day zero") add to its score.

Routing scores every quote by how likely it answers the question (``panelbot.retrieval.relevance``: a fitted
model of the lexical score above and the question's closeness in meaning to the quote's rows). Who answers:
whoever is asked -- by name in the question ("Dan, ...", "@olive", "ask both"), ``target`` (the CLI's
``--to``, the app's selector) -- unless they never spoke to the subject: then the one who did answers instead
(or, asked of both, only the one who did), and the result's ``note`` says so. Otherwise the panelist with the
most relevant quote; both only when the second's is nearly as relevant.

Scope (answer or abstain) is decided separately from the match scores, which on a small bank always find
*something*: the question must carry evidence that it is about the panel's subject (see ``ScopeJudge``),
with panel words used in another sense discounted. A question asking for a specific the talk never gave (a
price, a context length: ``panelbot/data/specifics.txt``) is declined with what was said nearby. Suggestions
offered with a decline are curated ``asks`` checked to be answered by their own quote.

``Router`` is the facade; each decision lives in its own module: what a question says in the panel's terms
(``panelbot.retrieval.query``), whether it is in scope (``panelbot.retrieval.scope``), who answers with which
quotes (``panelbot.retrieval.speaker_choice``), the questions offered (``panelbot.retrieval.suggestions``);
how well each quote matches and why (``panelbot.retrieval.scoring``); what each quote says, cached, is
``panelbot.retrieval.quote_words``. The router builds them for a panel and puts the steps of a route together.
"""

from __future__ import annotations

import dataclasses
import heapq
import math
from collections.abc import Callable, Sequence
from pathlib import Path

from panelbot.config import RetrievalSettings
from panelbot.panel import Panel, Quote
from panelbot.retrieval.encoder import shipped_model
from panelbot.retrieval.facets import Facet, specific_facets
from panelbot.retrieval.framing import Framing, FramingReader
from panelbot.retrieval.index import QuoteIndex
from panelbot.retrieval.lexicon import (
    common_stems,
)
from panelbot.retrieval.meaning import QuoteMeanings
from panelbot.retrieval.query import Query, QueryReader
from panelbot.retrieval.quote_words import QuoteWords
from panelbot.retrieval.results import RouteResult, ScoredQuote
from panelbot.retrieval.scope import PERSONAL_FACTOR, ScopeJudge
from panelbot.retrieval.scoring import QuoteScorer
from panelbot.retrieval.speaker_choice import ORG_BONUS, SpeakerChoice
from panelbot.retrieval.suggestions import Suggestions
from panelbot.retrieval.tuning import ScopeSignals, Tuning, tuning
from panelbot.retrieval.vocabulary import Normalizer

FACET_SCAN = 1000  # characters of a question searched for a specific it asks for


def _panel_files_digest(panel: Panel) -> str | None:
    """A hash of the files the panel was read from, when it was read from a directory (else None)."""
    directory = getattr(panel, "path", None)
    if directory is None or not (Path(directory) / "quotes.yaml").is_file():
        return None
    from panelbot.retrieval.cache import panel_hash  # the saved index's own key for the same files

    return panel_hash(Path(directory))


def _curated_terms(panel: Panel, norm: Normalizer, index: QuoteIndex) -> frozenset[str]:
    """The panel's curated subject vocabulary: persona keywords/covers, quote keywords/topics, panel topics,
    vocabulary."""
    curated: set[str] = set(norm.canonical_terms)
    for p in panel.panelists.values():
        for kw in (*p.keywords, *p.covers):
            curated.update(norm.unigrams(norm.normalise(kw)))
    curated.update(index.keyword_terms)
    for t in panel.topics:
        curated.update(norm.unigrams(norm.normalise(t)))
    return frozenset(curated)


class Router:
    """Routes questions to panelists and retrieves their quotes. Build once per panel; queries are cheap."""

    def __init__(
        self,
        panel: Panel,
        settings: RetrievalSettings | None = None,
        *,
        index: QuoteIndex | None = None,
    ) -> None:
        """``index``: a ready index of this panel (e.g. from ``panelbot.retrieval.cache``); else built."""
        self.panel = panel
        self.settings = settings or RetrievalSettings()
        self.index = index if index is not None else QuoteIndex(panel, Normalizer(panel.vocabulary))
        self.norm = self.index.norm
        self._common = common_stems()
        self.reader = QueryReader(panel, self.norm, self.index, self.settings)
        self.lexicon = self.reader.lexicon
        self._name_stems = self.reader.name_stems
        self._org_terms = self.reader.org_terms
        self._org_names = self.reader.org_names
        self.curated = _curated_terms(panel, self.norm, self.index)
        self._meanings: QuoteMeanings | None = None
        self._framing: FramingReader | None = None
        tune = tuning()  # the thresholds that decide by meaning (scripts/fit_tuning.py)
        self.words = QuoteWords(panel, self.index)
        self.scorer = QuoteScorer(panel, self.index, self.words, tune)
        self.offers = Suggestions(
            panel, self.norm, lambda ask: self._route(ask, "auto", suggest=False)
        )
        self.judge = ScopeJudge(
            index=self.index,
            words=self.words,
            curated=self.curated,
            common=self._common,
            panelists=list(panel.panelists),
            settings=self.settings,
            tune=tune,
            meanings=self.meanings,
        )
        self.choice = SpeakerChoice(
            panel=panel,
            settings=self.settings,
            words=self.words,
            tune=tune,
            common=self._common,
            org_terms=self._org_terms,
            org_names=self._org_names,
            why=self.scorer.why,
        )

    @property
    def tune(self) -> Tuning:
        """The thresholds that decide by meaning (``panelbot.retrieval.tuning``); set, they decide scope,
        scores and speakers alike (``scripts/fit_tuning.py`` tries candidates so)."""
        return self.judge.tune

    @tune.setter
    def tune(self, value: Tuning) -> None:
        self.judge.tune = value
        self.scorer.tune = value
        self.choice.tune = value

    # ------------------------------------------------------------------------------------------- parts

    def addressed(self, question: str) -> tuple[list[str], bool]:
        """Panelists named in the question (in order of mention), and whether it asks for both/all."""
        return self.reader.addressed(question)

    def possessive(self, question: str) -> list[str]:
        """The panelists named in the possessive ("Olive's background", "Rafał's view"), in order of mention."""
        return self.reader.possessive(question)

    def without_descriptions(self, question: str) -> str:
        """The question less the words that describe a panelist ("the MiniMax person"): not its subject."""
        return self.reader.without_descriptions(question)

    def corrections(self, question: str) -> dict[str, str]:
        """Misspelt words -> the panel word they most likely mean ("reinforcment" -> "reinforcement")."""
        return self.reader.corrections(question)

    def query_terms(self, question: str) -> Query:
        """Terms (typos corrected, word pairs added); also the content words matched and unmatched."""
        return self.reader.read(question)

    def scope(self, query: Query, addressed: list[str], *, senses: bool = True) -> float:
        """Evidence that the question is about the panel's subject (``ScopeJudge.evidence``)."""
        return self.judge.evidence(query, addressed, senses=senses)

    # ------------------------------------------------------------------------------------------- API

    def search(
        self,
        query: str,
        k: int = 5,
        speakers: set[str] | None = None,
        *,
        explain: bool = True,
    ) -> list[ScoredQuote]:
        """The k best quotes for a query: no routing, no abstention (``explain`` off: no reasons)."""
        return self.scorer.top(self.query_terms(query), k, speakers, explain=explain)

    def meanings(self) -> QuoteMeanings:
        """The bank's rows for meaning (built on first use)."""
        if self._meanings is None:
            panel = self.panel

            def host(qid: str) -> str | None:
                hq = panel.question(qid)
                return hq.text if hq else None

            digest = _panel_files_digest(panel)
            if digest is None:
                self._meanings = QuoteMeanings.build(self.index.quotes, host)
            else:
                self._meanings = QuoteMeanings.for_panel_files(digest, self.index.quotes, host)
        return self._meanings

    def framing_reader(self) -> FramingReader:
        """Reads and answers the first questions a stranger asks (built on first use)."""
        if self._framing is None:
            self._framing = FramingReader(self)
        return self._framing

    def framing(self, question: str) -> Framing | None:
        """The framing question this is (the talk, the panel, one panelist), or None."""
        return self.framing_reader().read(question)

    def scope_signals(self, question: str) -> ScopeSignals:
        """What the scope decision weighs for a question (``panelbot.retrieval.tuning``)."""
        query = self.query_terms(question.strip())
        addressed, both = self.addressed(question)
        return self.judge.signals(question.strip(), query, addressed, both)

    def relevance_inputs(self, question: str) -> tuple[dict[int, float], list[float] | None]:
        """What the relevance model weighs for a question (``scripts/fit_tuning.py`` fits it on these): the
        lexical score of each quote that matches in words, and every quote's similarity in meaning (None
        for a bank too large for the semantic step)."""
        question = question.strip()
        query = self.query_terms(question)
        addressed, both = self.addressed(question)
        self.judge.signals(
            question, query, addressed, both
        )  # reads the question's meaning into query
        return self.scorer.lexical(query), query.sims

    def similarities(self, question: str) -> list[float]:
        """The question's similarity in meaning to each quote of the bank, in index order."""
        meanings = self.meanings()
        return meanings.similarities(shipped_model().embed(question))

    def route(self, question: str, target: str = "auto") -> RouteResult:
        """Decide who answers and with which quotes; abstain when the panel never touched the subject,
        and say so when the question asks for a specific (a price, a context length) the talk never gave."""
        return self._route(question, target, suggest=True)

    def _route(self, question: str, target: str, *, suggest: bool) -> RouteResult:
        question = question.strip()
        framing = self.framing(question)
        if framing is not None:  # "what is this talk about?", "who is Dan?": framing, introductions
            return self.framing_reader().answer(question, framing, (target or "auto").lower())

        def offer() -> list[str]:
            return self.suggestions(question=question) if suggest else []

        query = self.query_terms(question)
        addressed, both = self.addressed(question)
        target = (target or "auto").lower()
        if target not in ("auto", "both") and target not in self.panel.panelists:
            raise ValueError(f"unknown target {target!r}")
        signals = self.judge.signals(question, query, addressed, both)
        in_scope = self.judge.in_scope(signals, query)
        facet = self.asked_facet(question)
        if not in_scope:
            return self._decline(question, query, addressed, both, signals, facet, offer)
        lean = self._organisation_lean(query, facet)
        asked = _Asked(target, addressed, both)
        return self._answer(question, query, asked, lean, signals.evidence, offer)

    def _decline(
        self,
        question: str,
        query: Query,
        addressed: list[str],
        both: bool,
        signals: ScopeSignals,
        facet: Facet | None,
        offer: Callable[[], list[str]],
    ) -> RouteResult:
        """The panel declines a question out of scope: off-topic, or -- when it asks for a specific (a
        price, which GPUs) about the panel's subject -- because the talk never gave it."""
        evidence = signals.evidence
        if facet is not None and query.terms:
            ids = list(self.panel.panelists)
            lenient = self.scope(query, addressed or (ids if both else []), senses=False)
            if query.personal and not addressed:
                lenient *= PERSONAL_FACTOR
            if self.judge.in_scope(dataclasses.replace(signals, evidence=lenient), query):
                near = self.scorer.top(query, 1, None)
                return _never_gave(question, facet, addressed, offer(), evidence, near)
        reason = (
            "off-topic: the question shares nothing with what the panel discussed"
            if not query.matched
            else "off-topic: too little of the question is about what the panel discussed"
        )
        return RouteResult(question, [], True, [], reason, addressed, offer(), evidence)

    def _organisation_lean(self, query: Query, facet: Facet | None) -> str | None:
        """The panelist whose organisation the question names as where its subject happens ("What happens
        when a model goes live on Together?"): the organisation says who, the rest says what -- its name
        would rank its panelist's self-introductions above the answer, so its terms leave ``query.terms``
        (not when it asks for a specific of the organisation: "How many GPUs does Together have?")."""
        owner = [pid for pid, org in self._org_terms.items() if org and org & query.named]
        subject = [
            t
            for t in dict.fromkeys(query.matched)
            if t not in query.named
            and t not in self._name_stems
            and t not in query.neutral
            and (t not in self._common or t in query.phrases or t in query.vocab)
        ]
        if not (len(owner) == 1 and len(subject) >= 2 and facet is None):
            return None
        org = {t for t in query.named}
        query.terms = [t for t in query.terms if not any(part in org for part in t.split("_"))]
        return owner[0]

    def _answer(
        self,
        question: str,
        query: Query,
        asked: _Asked,
        lean: str | None,
        evidence: float,
        offer: Callable[[], list[str]],
    ) -> RouteResult:
        """Who answers a question in scope, with which quotes (or a decline when none matches, or when it
        asks for a specific none of them states)."""
        ids = list(self.panel.panelists)
        scores = self.scorer.relevance(query)
        per = self._candidates(query, scores)
        strength = {
            pid: self.choice.strength(per[pid]) + (ORG_BONUS if pid == lean else 0.0) for pid in ids
        }
        speakers, reason, note = self._speakers(query, asked, per, strength)
        addressed = asked.addressed
        if not speakers:
            return RouteResult(
                question,
                [],
                True,
                [],
                "no quote matches the question",
                addressed,
                offer(),
                evidence,
            )
        k = self.settings.top_k
        quotes: list[ScoredQuote] = []
        each = k if len(speakers) == 1 else max(1, math.ceil(k / len(speakers)))
        for p in speakers:
            quotes += self.choice.answer_quotes(per[p][:each], scores[p], query.terms)
        quotes.sort(key=lambda sq: -sq.score)
        facet = self._unstated(question, [per[p][0] for p in speakers])  # each one's answer proper
        if facet is not None:
            return _never_gave(question, facet, addressed, offer(), evidence, quotes[:1])
        return RouteResult(
            question, speakers, False, quotes, reason, addressed, [], evidence, note=note
        )

    def _candidates(
        self, query: Query, scores: dict[str, dict[int, float]]
    ) -> dict[str, list[ScoredQuote]]:
        """Each panelist's best quotes by relevance, with the reason each was chosen."""
        n = max(self.settings.top_k, 3)
        per: dict[str, list[ScoredQuote]] = {}
        for pid, pid_scores in scores.items():
            best = heapq.nsmallest(n, pid_scores.items(), key=lambda kv: (-kv[1], kv[0]))
            per[pid] = [
                ScoredQuote(
                    self.index.quotes[i], sc, self.scorer.why(self.index.quotes[i], query.terms)
                )
                for i, sc in best
            ]
        return per

    def _speakers(
        self,
        query: Query,
        asked: _Asked,
        per: dict[str, list[ScoredQuote]],
        strength: dict[str, float],
    ) -> tuple[list[str], str, str]:
        """(speakers, reason, note) in the order the answer shows them (``SpeakerChoice.who_answers``)."""
        target, addressed, both = asked.target, asked.addressed, asked.both
        # "What's Together's take on ...?" asks the panelist who speaks for Together, as if by name; so does
        # "What's Olive's background?" ask Olive (the one panelist named in the possessive, when nobody is
        # addressed): a panelist's own background, role or view is theirs to give
        unaddressed = not addressed and not both and target == "auto"
        via_org = unaddressed and query.org_view is not None
        about = (
            query.mentioned[0]
            if unaddressed and len(query.mentioned) == 1 and not via_org
            else None
        )
        named = [query.org_view] if via_org and query.org_view else [about] if about else addressed
        speakers, reason, note = self.choice.who_answers(
            query, target, named, both, per, strength, via_org=via_org, about=about
        )
        speakers = [p for p in speakers if per.get(p)]
        if (
            len(speakers) > 1 and len(addressed) < 2
        ):  # not named in an order of the user's ("Olive and Dan")
            speakers = self.choice.lead_first(query, speakers, per)
        return speakers, reason, note

    @staticmethod
    def asked_facet(question: str) -> Facet | None:
        """The specific the question asks for (a price, a context length...), if any."""
        head = question[
            :FACET_SCAN
        ]  # a question, not a document: bounds the regex work on huge input
        return next((f for f in specific_facets() if f.asked_in(head)), None)

    def _unstated(self, question: str, quotes: list[ScoredQuote]) -> Facet | None:
        """The specific the question asks for when none of these quotes (each speaker's best) states it."""
        facet = self.asked_facet(question)
        if facet is None or any(facet.states.search(sq.quote.text) for sq in quotes):
            return None
        return facet

    def position(self, quote_id: str) -> int | None:
        """A quote's position in the index (``QuoteWords.position``)."""
        return self.words.position(quote_id)

    # ------------------------------------------------------------------ for the conversation layer
    # (``panelbot.conversation.router_view.FollowUpRouter``: what the resolver may use, nothing private)

    def is_name_word(self, word: str) -> bool:
        """The word is a panelist's name or id (accents folded): never corrected as a typo."""
        return self.reader.is_name_word(word)

    def said_together(self, term: str, other: str) -> bool:
        """Some quote (or the host question it answers) says both terms: the talk's own words settle a sense."""
        return self.judge.said_together(term, other)

    def match_reason(self, quote: Quote, terms: Sequence[str]) -> str:
        """Why a quote matches these terms, in the quote's own words (as a route's quotes say)."""
        return self.scorer.why(quote, list(terms))

    def suggestions(self, n: int = 3, question: str = "") -> list[str]:
        """Two or three questions in a user's words that this router answers with the quote they were
        written for, nearest to ``question`` first: offered when declining (``Suggestions.offer``)."""
        return self.offers.offer(n, question)

    def example_questions(self, limit: int = 20) -> list[str]:
        """One question in a user's words per host question of the talk, in the order they were asked,
        each known to be answered by its own quote; at most ``limit`` (``Suggestions.examples``)."""
        return self.offers.examples(limit)


@dataclasses.dataclass(frozen=True)
class _Asked:
    """Whom a question asks: ``target`` ("auto", "both" or a panelist), the panelists named in it, and
    whether it asks both/all."""

    target: str
    addressed: list[str]
    both: bool


def _never_gave(
    question: str,
    facet: Facet,
    addressed: list[str],
    suggestions: list[str],
    evidence: float,
    nearby: list[ScoredQuote],
) -> RouteResult:
    """A decline on the panel's subject: the question asks for a specific the talk never gave."""
    return RouteResult(
        question,
        [],
        True,
        [],
        f"the talk never gave {facet.label}",
        addressed,
        suggestions,
        evidence,
        off_topic=False,
        unstated=facet.label,
        nearby=nearby,
    )
