"""Questions to offer: two or three a decline suggests, and the talk's example questions.

Each offered question is in a user's words (the curated ``asks``; the host's questions for a panel without
them) and known to be answered by the quote it was written for: it is checked by answering it."""

from __future__ import annotations

import re
import zlib
from collections import defaultdict
from collections.abc import Callable, Sequence

from panelbot.panel import Panel, Quote
from panelbot.retrieval.lexicon import specificity, stopwords
from panelbot.retrieval.results import RouteResult
from panelbot.retrieval.vocabulary import Normalizer
from panelbot.text import LazyPattern, words

NEAR_PREFIX = (
    5  # a suggestion is near a question sharing a word's first this many letters ("racing"/"race")
)
NEAR_PREFIX_WEIGHT = 0.5  # ... counted at this share of a shared word
NEAR_MIN = (
    0.6  # ... and shares at least this much (one word less frequent than the ~165th commonest)
)
SCAN_LIMIT = (
    2000  # quotes looked through for suggested questions (all of a talk's; a sample of a huge bank)
)


class Suggestions:
    """The questions one panel's router offers, each checked by ``answer`` (routing it, offering nothing)."""

    def __init__(
        self, panel: Panel, norm: Normalizer, answer: Callable[[str], RouteResult]
    ) -> None:
        self.panel = panel
        self.norm = norm
        self._answer = answer
        self._suggestion_pool: list[tuple[str, str | None]] | None = None
        self._suggestion_words: list[frozenset[str]] | None = None
        self._verified: dict[str, bool] = {}

    def offer(self, n: int = 3, question: str = "") -> list[str]:
        """Two or three questions in a user's words (the curated ``asks``; the host's questions for a panel
        without them) that this router answers with the quote they were written for: offered when
        declining. The ones nearest to the question's own words come first ("a Redis cache for my site"
        offers the KV cache questions, :meth:`_near`); the rest alternate between panelists, and which ones
        depends on the question, so repeated declines do not repeat the same three."""
        pool = self._pool()
        if not pool:
            return []
        out: list[str] = []
        start = zlib.crc32(question.encode("utf-8", "replace")) % len(pool)
        rotation = [(start + j) % len(pool) for j in range(len(pool))]
        for j in [*self._near(question, pool, rotation), *rotation]:
            ask, qid = pool[j]
            if ask not in out and self._answers(ask, qid):
                out.append(ask)
                if len(out) == n:
                    break
        return out

    def _near(
        self, question: str, pool: list[tuple[str, str | None]], order: list[int]
    ) -> list[int]:
        """The pool's questions that share a word with ``question`` (the same stem, or the same first
        ``NEAR_PREFIX`` letters: "racing"/"race"): a word of its subject (the topics and keywords of the quote
        it is written for) or of its own; each shared word weighs as much as it is specific in English
        (``lexicon.specificity``: "cache" 1, "games" ~0.7, "year" ~0.6), and a question sharing less than
        ``NEAR_MIN`` is not near ("the best pizza" shares only "best"); the nearest first, ties in ``order``.
        Empty when nothing is near -- the offer then rotates as before."""
        if not question.strip():
            return []
        bags = self._suggestion_bags(pool)
        mine: dict[
            str, float
        ] = {}  # the question's terms, each weighing as specific as its word is
        for w in words(question):
            for t in self.norm.terms_of_words([w], pairs=False):
                mine[t] = max(mine.get(t, 0.0), specificity(w))
        mine = {t: s for t, s in mine.items() if s > 0 and t not in stopwords()}
        if not mine:
            return []
        heads: dict[str, float] = {}
        for t, s in mine.items():
            if len(t) >= NEAR_PREFIX:
                heads[t[:NEAR_PREFIX]] = max(heads.get(t[:NEAR_PREFIX], 0.0), s)
        scored = []
        for rank, j in enumerate(order):
            bag = bags[j]
            score = sum(mine[t] for t in bag if t in mine)
            score += NEAR_PREFIX_WEIGHT * sum(
                heads.get(t[:NEAR_PREFIX], 0.0)
                for t in bag
                if t not in mine and len(t) >= NEAR_PREFIX
            )
            if score >= NEAR_MIN:
                scored.append((-score, rank, j))
        scored.sort()
        return [j for _, _, j in scored]

    def _suggestion_bags(self, pool: list[tuple[str, str | None]]) -> list[frozenset[str]]:
        """Each pool question's words with those of its subject (the topics and keywords of the quote it is
        written for), worked out once."""
        if self._suggestion_words is None:
            bags = []
            for ask, qid in pool:
                q = self.panel.quote(qid) if qid else None
                text = " ".join([ask, *(q.topics if q else ()), *(q.keywords if q else ())])
                bags.append(
                    frozenset(
                        t
                        for t in self.norm.terms_of_words(words(text), pairs=False)
                        if t not in stopwords()
                    )
                )
            self._suggestion_words = bags
        return self._suggestion_words

    def examples(self, limit: int = 20) -> list[str]:
        """One question in a user's words per host question of the talk, in the order they were asked, each
        known to be answered by its own quote (the host's question itself when no ``asks`` fit); at most
        ``limit`` (each is checked by answering it)."""
        by_question: dict[str, list[Quote]] = defaultdict(list)
        for q in self._scanned_quotes():
            if q.question is not None:
                by_question[q.question].append(q)
        out: list[str] = []
        for hq in self.panel.questions:
            if len(out) >= limit:
                break
            if not hq.answered_by:
                continue
            found = next(
                (
                    text
                    for q in by_question.get(hq.id, ())
                    for ask in q.asks
                    if 12 <= len(text := _as_question(ask)) <= 70 and self._answers(text, q.id)
                ),
                None,
            )
            if found is None:
                text = _as_question(hq.text)
                found = text if self._answers(text, None) else None
            if found and found not in out:
                out.append(found)
        return out

    def _scanned_quotes(self) -> Sequence[Quote]:
        """The quotes suggestions and examples are drawn from: every quote of a talk; of a bank larger
        than ``SCAN_LIMIT``, an evenly spaced sample of that many (a saved index decodes quotes one by one,
        and offering three questions must not decode 100,000 of them)."""
        quotes = self.panel.quotes
        step = -(-len(quotes) // SCAN_LIMIT)
        if step <= 1:
            return quotes
        return [quotes[i] for i in range(0, len(quotes), step)]

    def _pool(self) -> list[tuple[str, str | None]]:
        """(question, the quote id it must find) candidates, interleaved across panelists."""
        if self._suggestion_pool is None:
            by_speaker: dict[str, list[tuple[str, str | None]]] = defaultdict(list)
            for q in self._scanned_quotes():
                for ask in q.asks:
                    text = _as_question(ask)
                    if 12 <= len(text) <= 70:
                        by_speaker[q.speaker].append((text, q.id))
            if (
                not by_speaker
            ):  # a draft panel: the host's questions, first sentence with a question mark
                for hq in self.panel.questions:
                    if hq.answered_by:
                        text = _as_question(hq.text)
                        if 12 <= len(text) <= 90:
                            by_speaker[hq.answered_by[0]].append((text, None))
            lists = [by_speaker[p] for p in self.panel.panelists if by_speaker.get(p)]
            self._suggestion_pool = [
                lst[i]
                for i in range(max(map(len, lists), default=0))
                for lst in lists
                if i < len(lst)
            ]
        return self._suggestion_pool

    def _answers(self, ask: str, quote_id: str | None) -> bool:
        got = self._verified.get(ask)
        if got is None:
            res = self._answer(ask)
            ids = [sq.quote.id for sq in res.quotes]
            got = not res.abstained and (quote_id is None or quote_id in ids)
            self._verified[ask] = got
        return got


def _as_question(text: str) -> str:
    """A suggestion as a user would type it: one question, capitalised, with its question mark; the host's
    hand-overs ("Maybe Dan if you can go first.") dropped."""
    sentences = re.split(r"(?<=[?.!])\s+", " ".join(text.split()))
    asked = [p for p in sentences if p.endswith("?")]
    text = (asked[0] if asked else sentences[0]).strip()
    if text and text[-1] not in "?.!":
        text += "?" if QUESTION_START.match(text) else "."
    return text[:1].upper() + text[1:]


QUESTION_START = LazyPattern(
    r"(?:what|why|how|who|where|when|which|is|are|do|does|did|can|could|should|would|will)\b",
    re.IGNORECASE,
)
