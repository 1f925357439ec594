"""What each quote of the index says, in the terms the router compares: its own words' terms, the terms of
the host question it answers, its verbatim text, its ``asks``' terms, and the quotes holding a term. Worked
out on first use and kept (bounded), so that a question costs only the quotes it looks at."""

from __future__ import annotations

from panelbot.panel import Panel
from panelbot.retrieval.index import QuoteIndex
from panelbot.retrieval.query import ASK_CUES
from panelbot.text import normalize_for_match, words


class QuoteWords:
    """Per-quote terms of one panel's index, cached."""

    def __init__(self, panel: Panel, index: QuoteIndex) -> None:
        self.panel = panel
        self.index = index
        self.norm = index.norm
        self._docsets: dict[str, frozenset[int]] = {}
        self._pos: dict[str, int] | None = None  # quote id -> position, made only when needed
        self._quote_terms: dict[int, frozenset[str]] = {}
        self._surface_cache: dict[int, str] = {}
        self._host_cache: dict[str, frozenset[str]] = {}
        self._asks_cache: dict[int, list[frozenset[str]]] = {}

    def docs(self, term: str) -> frozenset[int]:
        """The quotes whose index entry holds ``term`` (any field); cached per term."""
        got = self._docsets.get(term)
        if got is None:
            plist = self.index.postings.get(term)
            got = frozenset(plist[0]) if plist else frozenset()
            if len(self._docsets) > 512:
                self._docsets.clear()
            self._docsets[term] = got
        return got

    def host_terms(self, i: int) -> frozenset[str]:
        """The terms of the host question quote i answers (the talk's own words too), cached per question."""
        qid = self.index.quotes[i].question
        if qid is None:
            return frozenset()
        got = self._host_cache.get(qid)
        if got is None:
            hq = self.panel.question(qid)
            got = frozenset(self.norm.unigrams(self.norm.normalise(hq.text))) if hq else frozenset()
            if len(self._host_cache) > 8192:
                self._host_cache.clear()
            self._host_cache[qid] = got
        return got

    def text_terms(self, i: int) -> frozenset[str]:
        """The terms quote i says in its own words (not its curated fields)."""
        got = self._quote_terms.get(i)
        if got is None:
            got = frozenset(self.norm.unigrams(self.norm.normalise(self.index.quotes[i].text)))
            if len(self._quote_terms) > 8192:
                self._quote_terms.clear()
            self._quote_terms[i] = got
        return got

    def ask_terms(self, i: int) -> list[frozenset[str]]:
        """The terms (and ``ASK_CUES``) of each of quote i's ``asks``."""
        got = self._asks_cache.get(i)
        if got is None:
            got = [
                frozenset(self.norm.unigrams(self.norm.normalise(a)))
                | {f"?{w}" for w in words(a) if w in ASK_CUES}
                for a in self.index.quotes[i].asks
            ]
            if len(self._asks_cache) > 8192:
                self._asks_cache.clear()
            self._asks_cache[i] = got
        return got

    def surface_text(self, i: int) -> str:
        """Quote i's text as verbatim word runs are looked up in it (padded with spaces)."""
        got = self._surface_cache.get(i)
        if got is None:
            got = f" {normalize_for_match(self.index.quotes[i].text)} "
            if len(self._surface_cache) > 8192:
                self._surface_cache.clear()
            self._surface_cache[i] = got
        return got

    def position(self, quote_id: str) -> int | None:
        """A quote's position in the index. A saved index decodes quotes one by one and knows where each
        one it handed out is; only otherwise are all quotes' ids read (once), which for a large saved bank
        would decode every quote (seconds at 100,000)."""
        finder = getattr(self.index.quotes, "position", None)
        if finder is not None:
            i = finder(quote_id)
            if i is not None:
                return i
        if self._pos is None:
            self._pos = {q.id: i for i, q in enumerate(self.index.quotes)}
        return self._pos.get(quote_id)
