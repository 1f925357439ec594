"""Which panelist(s) answer a question, and with which of their quotes.

Whoever is asked -- by name in the question ("Dan, ...", "@olive", "ask both"), or ``target`` (the CLI's
``--to``, the app's selector) -- unless they never spoke to the subject: then the one who did answers instead
(or, asked of both, only the one who did), and the note says so. Otherwise the panelist whose best quotes,
stated expertise and organisation fit best; both only when the second really answered it too."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable

from panelbot.config import RetrievalSettings
from panelbot.panel import Panel, Quote
from panelbot.retrieval.index import QuoteIndex
from panelbot.retrieval.query import Query
from panelbot.retrieval.quote_words import QuoteWords
from panelbot.retrieval.results import ScoredQuote
from panelbot.text import LazyPattern, and_list

# a quote that cannot stand alone: it continues the sentence before it
DANGLING = LazyPattern(
    r"^\s*(?:but|and|or|because|which|also|then|so that|that's why)\b", re.IGNORECASE
)
# a named panelist "spoke to" a question when their best quote reaches this share of the best overall
SPOKE_RATIO = 0.3
# the organisation a panelist speaks for: questions about it (or its product) lean to them
ORG_BONUS = 15.0
# a second panelist joins only when their own words cover this share of what the first's cover
BOTH_COVERAGE = 0.8
BOTH_SAID_RATIO = 0.7
BOTH_ALL_RATIO = (
    0.35  # ... when they say it in their own words, their best may score a little lower
)
BOTH_MIN = 20.0  # ... and only on a real match: weak scores on both sides are not two answers
# a quote shown after the answer's best must reach this share of its score (or continue a kept quote)
WEAK_SHARE = 0.45
UNSAID_SHARE = 0.5  # ... or this share when the quote says none of the question's words itself
# each of the question's terms in a panelist's stated expertise adds this to their fit, up to the cap: a
# tie-breaker, not a verdict (a question on coding agents' serving is Dan's though "agents" is Olive's word)
EXPERTISE_TERM, EXPERTISE_CAP = 5.0, 10.0


@dataclasses.dataclass(eq=False, repr=False)
class SpeakerChoice:
    """Chooses who answers among one panel's panelists, and the quotes each answers with."""

    panel: Panel
    settings: RetrievalSettings
    words: QuoteWords
    common: frozenset[str]  # everyday stems (``lexicon.common_stems``)
    expertise: dict[str, frozenset[str]]  # each panelist's stated expertise, as terms
    org_terms: dict[str, frozenset[str]]  # each panelist's organisation's terms ("ai" aside)
    org_names: dict[str, frozenset[str]]  # ... and all its terms
    why: Callable[[Quote, list[str]], str]  # why a quote matched these terms, in its own words

    @property
    def index(self) -> QuoteIndex:
        return self.words.index

    def who_answers(
        self,
        query: Query,
        target: str,
        addressed: list[str],
        both: bool,
        per: dict[str, list[ScoredQuote]],
        strength: dict[str, float],
        *,
        via_org: bool = False,
        about: str | None = None,
    ) -> tuple[list[str], str, str]:
        """(speakers, reason, note): whoever was asked (by name, ``target``) unless they never spoke to it
        -- then the one who did, and ``note`` says so -- else the best fit, and a second who answered too."""
        ids = list(self.panel.panelists)
        ranked = sorted(ids, key=lambda p: -strength[p])
        explicit, how = self._asked(target, addressed, both, ranked, via_org=via_org, about=about)
        if not explicit:
            first = ranked[0]
            if len(ranked) > 1 and self._both_answered(query, per, first, ranked[1]):
                return [first, ranked[1]], "both panelists spoke to this", ""
            return [first], f"{self.panel.display_name(first)} spoke to this most on the panel", ""
        spoke = self._spoke(query, per, explicit)
        return self._among_asked(explicit, how, ranked, spoke, per, via_org=via_org)

    def _asked(
        self,
        target: str,
        addressed: list[str],
        both: bool,
        ranked: list[str],
        *,
        via_org: bool,
        about: str | None,
    ) -> tuple[list[str], str]:
        """Who was asked (by name, --to or the selector; [] = auto, the best fit answers), and how."""
        explicit: list[str] = []
        how = ""
        if target == "both" or (target == "auto" and (both or len(addressed) > 1)):
            if (
                len(addressed) > 1
            ):  # named in the question: in the order named ("Olive and Dan, ...")
                explicit = addressed + [
                    p for p in ranked if p not in addressed and (target == "both" or both)
                ]
            else:
                explicit = list(ranked)
            how = "asked of both panelists" if target == "both" or both else "addressed by name"
        elif target != "auto":
            explicit, how = [target], f"asked of {self.panel.display_name(target)} (target)"
        elif addressed:
            explicit, how = addressed[:1], self._how_addressed(addressed[0], via_org, about)
        return explicit, how

    def _how_addressed(self, pid: str, via_org: bool, about: str | None) -> str:
        """Why the one panelist asked answers: named, their organisation's view asked, or asked about."""
        if via_org:
            org = self.panel.panelists[pid].organisation
            return f"asked for {org}'s view: {self.panel.display_name(pid)} speaks for it"
        if about:
            name = self.panel.display_name(about)
            return f"asked about {name} ({name}'s own work or view): {name} answers"
        return f"addressed to {self.panel.display_name(pid)} by name"

    def _spoke(
        self, query: Query, per: dict[str, list[ScoredQuote]], explicit: list[str]
    ) -> dict[str, bool]:
        """Which panelists spoke to the question: their best quote reaches SPOKE_RATIO of the best overall
        (and the quote floor); asked of several about one's organisation, that one, and another only when
        their answer matches better than theirs does."""
        ids = list(self.panel.panelists)
        best_any = max((per[p][0].score for p in ids if per[p]), default=0.0)
        floor = max(self.settings.min_quote_score, SPOKE_RATIO * best_any)
        spoke = {p: bool(per[p]) and per[p][0].score >= floor for p in ids}
        org_subject = self.org_subject(query)
        if len(explicit) > 1 and org_subject in explicit and per[org_subject]:
            # asked of both about one panelist's organisation: theirs to say, not a pun on its name --
            # unless another's answer matches the question better than theirs does
            lead = per[org_subject][0].score
            spoke = {p: p == org_subject or (spoke[p] and per[p][0].score > lead) for p in ids}
        return spoke

    def _among_asked(
        self,
        explicit: list[str],
        how: str,
        ranked: list[str],
        spoke: dict[str, bool],
        per: dict[str, list[ScoredQuote]],
        *,
        via_org: bool,
    ) -> tuple[list[str], str, str]:
        """(speakers, reason, note) when someone was asked: those asked who spoke to it (a note names the
        ones who did not), else the one who did instead, else the one asked with what they have."""
        speakers = [p for p in explicit if spoke[p]]
        silent = [p for p in explicit if not spoke[p]]
        names = and_list([self.panel.display_name(p) for p in silent])
        if speakers and silent:
            note = f"{names} didn't speak to this on the panel"
            return speakers, f"{how}; {note}", note
        if speakers:
            return speakers, how, ""
        others = [p for p in ranked if spoke[p] and p not in explicit]
        if (
            others and via_org
        ):  # nobody was named: the one who spoke to it answers, with no hand-over note
            return (
                others[:1],
                f"{self.panel.display_name(others[0])} spoke to this most on the panel",
                "",
            )
        if others:  # hand over to the one who did speak to it, and say so
            note = f"{names} didn't speak to this on the panel; {self.panel.display_name(others[0])} did"
            return others[:1], note, note
        return (
            [p for p in explicit if per[p]][:1],
            how,
            "",
        )  # nobody really did: the one asked, what they have

    def _both_answered(
        self, query: Query, per: dict[str, list[ScoredQuote]], a: str, b: str
    ) -> bool:
        """The second panelist joins only when they really answered it too: their best quote scores nearly
        as well (``both_ratio``) and answers the same host question as the first's best, or it scores at
        least BOTH_SAID_RATIO as well and says, in their own words, most of what the first's best says of
        the question (sharing a distinctive part of it)."""
        if not per[a] or not per[b]:
            return False
        top_a, top_b = per[a][0], per[b][0]
        if top_b.score < BOTH_MIN:
            return False
        if top_b.score < BOTH_SAID_RATIO * top_a.score:
            # however much longer or shorter the quotes, both saying every word of the question that either
            # says (at least three) is two answers
            said_a, said_b = self._said(query, top_a.quote), self._said(query, top_b.quote)
            terms_a = {t for t in said_a if " " not in t}
            terms_b = {t for t in said_b if " " not in t}
            return (
                top_b.score >= BOTH_ALL_RATIO * top_a.score
                and len(terms_a) >= 3
                and terms_a == terms_b
                and (set(query.matched) - query.neutral) <= terms_a
            )
        if top_b.score >= self.settings.both_ratio * top_a.score and (
            self._both_spoke(per, a, b) or self._both_spoke(per, b, a)
        ):
            return True
        said_a, said_b = self._said(query, top_a.quote), self._said(query, top_b.quote)
        orgs = set().union(*self.org_terms.values()) if self.org_terms else set()
        shared = said_a & said_b
        distinctive = {
            t
            for t in shared
            if (" " in t or t not in self.common or t in query.phrases) and t not in orgs
        }
        return len(shared) >= 2 and bool(distinctive) and len(said_b) >= BOTH_COVERAGE * len(said_a)

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

    def strength(self, pid: str, quotes: list[ScoredQuote], query: Query) -> float:
        """How well a panelist fits: their best quotes, their stated expertise, and their organisation
        when that is what the question is about (it or its product: "What is M3?", not "Does quantization
        matter for M3?")."""
        if not quotes:
            return 0.0
        s = quotes[0].score + 0.3 * (quotes[1].score if len(quotes) > 1 else 0.0)
        exp = self.expertise.get(pid, frozenset())
        bonus = sum(
            EXPERTISE_TERM * (0.5 if t in self.common else 1.0) for t in query.terms if t in exp
        )
        s += min(bonus, EXPERTISE_CAP)
        if self.org_subject(query) == pid:
            s += ORG_BONUS  # the organisation (or its product) is what the question is about
        return s

    def org_subject(self, query: Query) -> str | None:
        """The panelist whose organisation (or its product: "M3" -> minimax) is all the question is about
        ("What is MiniMax?", "Together AI"; not "Does quantization matter for M3?")."""
        about = set(query.matched)
        subject = {t for t in about if t not in self.common or t in query.phrases}
        hits = [pid for pid, org in self.org_terms.items() if org and org <= about]
        if len(hits) == 1 and subject <= self.org_names[hits[0]]:
            return hits[0]
        return None

    def lead_first(
        self, query: Query, speakers: list[str], per: dict[str, list[ScoredQuote]]
    ) -> list[str]:
        """Two panelists answering, in the order the answer shows them: first the one whose organisation
        (or its product: "M3" -> minimax) the question names, when it names one panelist's only; else the
        one whose best quote matches the question best (ties keep the order of fit)."""
        about = set(query.matched) | query.named
        owners = [p for p in speakers if self.org_terms.get(p) and self.org_terms[p] & about]
        if len(owners) == 1:
            return owners + [p for p in speakers if p != owners[0]]
        return sorted(speakers, key=lambda p: -(per[p][0].score if per.get(p) else 0.0))

    def answer_quotes(
        self,
        top: list[ScoredQuote],
        scores: dict[int, float],
        terms: list[str],
        query: Query | None = None,
    ) -> list[ScoredQuote]:
        """One panelist's quotes for an answer: the best, the others that score at least WEAK_SHARE of it
        or continue a kept quote, and the sentence before a kept quote that cannot stand alone ("But ...",
        "And ...") when that one matches the question too. A quote kept on its score alone that says none of
        the question's words itself (matched only through its topics, keywords or the host's question) must
        score at least UNSAID_SHARE of the best: "the secret to good post-training" is answered by the quote
        about the data, not also by ones merely labelled "post-training"."""
        if not top:
            return []
        best = top[0].score
        floor = max(self.settings.min_quote_score, 0.3 * best)
        kept = [top[0]]
        for sq in top[1:]:
            if (
                sq.score >= max(floor, WEAK_SHARE * best)
                and (
                    sq.score >= UNSAID_SHARE * best or query is None or self._said(query, sq.quote)
                )
                or (sq.score >= floor and any(self._adjacent(q.quote, sq.quote) for q in kept))
            ):
                kept.append(sq)
        ids = {sq.quote.id for sq in kept}
        for sq in list(kept):
            if not DANGLING.match(sq.quote.text):
                continue
            i = self.words.position(sq.quote.id)
            prev = self.index.quotes[i - 1] if i else None
            lead = scores.get(i - 1, 0.0) if i else 0.0
            if (
                prev is not None
                and prev.id not in ids
                and self._adjacent(prev, sq.quote)
                and lead >= self.settings.min_quote_score
            ):
                kept.append(
                    ScoredQuote(prev, lead, self.why(prev, terms) + "; leads in to " + sq.quote.id)
                )
                ids.add(prev.id)
        return kept

    def _said(self, query: Query, quote: Quote) -> set[str]:
        """The question's terms and verbatim word pairs that a quote says in its own words."""
        i = self.words.position(quote.id)
        if i is None:
            raise KeyError(quote.id)
        said = (set(query.matched) - query.neutral) & self.words.text_terms(i)
        text = self.words.surface_text(i)
        return said | {pair for pair in query.surface if f" {pair} " in text}

    @staticmethod
    def _adjacent(a: Quote, b: Quote) -> bool:
        """Quote a ends where quote b starts, in the same turn."""
        if a.turn is None or a.turn != b.turn or not a.sentences or not b.sentences:
            return False
        return a.sentences[1] == b.sentences[0] or b.sentences[1] == a.sentences[0]
