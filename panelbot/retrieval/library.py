"""Every installed panel at once: "who said X, in any talk?".

Each talk keeps its own router, so scope and abstention stay per talk: a talk answers only when the
question is about its subject by that talk's own evidence, and a question no talk touched is declined.

Scores are made comparable across talks. Within a talk a score is normalised against the query terms *that
talk* knows, so a talk sharing one word of a five-word question can score 100 while the talk that shares
four scores 12 (its bound counts their word pairs too). Across talks a quote therefore scores
``100 * coverage * score / best score in its talk``: how much of the question its talk speaks to
(``coverage``: the share of the question's content words the talk uses, everyday English words counting
0.3, numbers nothing, as in the router's scope), times how the quote ranks within its talk. Every talk that
would answer the question asked alone answers it here, ranked by its scope evidence (a talk is never left
out because another talk spoke to the question more).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from panelbot.config import RetrievalSettings
from panelbot.errors import PanelbotError
from panelbot.panel import Panel
from panelbot.retrieval.lexicon import common_stems
from panelbot.retrieval.results import RouteResult, ScoredQuote
from panelbot.retrieval.router import Router


class LibraryQuote:
    """A quote found in one talk of the library."""

    def __init__(self, panel: Panel, scored: ScoredQuote) -> None:
        self.panel, self.scored = panel, scored

    @property
    def score(self) -> float:
        return self.scored.score

    def to_dict(self) -> dict[str, Any]:
        return {**self.scored.to_dict(), "panel": self.panel.name}


class TalkAnswer:
    """One talk's part of an answer: its panel and its own route result."""

    def __init__(self, panel: Panel, result: RouteResult) -> None:
        self.panel, self.result = panel, result


class LibraryAnswer:
    """The answer across talks: the talks that answer (best first), or a decline when none does."""

    def __init__(
        self,
        question: str,
        talks: list[TalkAnswer],
        reason: str,
        suggestions: list[str] | None = None,
    ) -> None:
        self.question, self.talks, self.reason = question, talks, reason
        self.suggestions = suggestions or []

    @property
    def abstained(self) -> bool:
        return not self.talks

    def quotes(self) -> list[LibraryQuote]:
        return [LibraryQuote(t.panel, sq) for t in self.talks for sq in t.result.quotes]

    def to_dict(self) -> dict[str, Any]:
        """``ask --json``'s object, plus ``panels`` (answering talks in order), ``panel`` on each quote and
        ``answers`` (each talk's speakers and reason)."""
        d: dict[str, Any] = {
            "question": self.question,
            "speakers": [s for t in self.talks for s in t.result.speakers],
            "abstained": self.abstained,
            "panels": [t.panel.name for t in self.talks],
            "quotes": [q.to_dict() for q in self.quotes()],
            "reason": self.reason,
            "answers": [
                {
                    "panel": t.panel.name,
                    "title": t.panel.title,
                    "speakers": t.result.speakers,
                    "reason": t.result.reason,
                }
                for t in self.talks
            ],
        }
        if self.abstained:
            d["suggestions"] = self.suggestions
        return d


class Library:
    """Routers for several panels, searched and routed together."""

    def __init__(self, routers: Iterable[Router]) -> None:
        self.routers = list(routers)

    @classmethod
    def open(
        cls, settings: RetrievalSettings | None = None, directories: Iterable[Path] | None = None
    ) -> tuple[Library, list[str]]:
        """Every installed panel (or the given directories), each from its saved index when current.
        Also returns one-line notes: rebuilt indexes, and panels skipped because they do not load."""
        from panelbot.panel.loader import panel_dirs
        from panelbot.retrieval.cache import open_indexed

        notes: list[str] = []
        routers = []
        for d in directories if directories is not None else panel_dirs():
            try:
                opened = open_indexed(d)
            except PanelbotError as exc:
                notes.append(f"skipped panel {d.name!r}: {exc}")
                continue
            if opened.note:
                notes.append(opened.note)
            routers.append(Router(opened.panel, settings, index=opened.index))
        return cls(routers), notes

    @property
    def panels(self) -> list[Panel]:
        return [r.panel for r in self.routers]

    @staticmethod
    def coverage(router: Router, text: str) -> float:
        """The weighted share of the text's content words this talk uses (typos corrected as the router
        does; everyday English words weigh 0.3, numbers nothing)."""
        common = common_stems()

        def weight(terms: list[str]) -> float:
            return sum(0.0 if t.isdigit() else 0.3 if t in common else 1.0 for t in set(terms))

        q = router.query_terms(text)
        matched, total = weight(q.matched), weight(q.matched) + weight(q.unmatched)
        return matched / total if total else 0.0

    def search(self, query: str, k: int = 5) -> list[LibraryQuote]:
        """The k best quotes across talks (no routing, no abstention), scores comparable across talks."""
        hits: list[LibraryQuote] = []
        for r in self.routers:
            share = self.coverage(r, query)
            found = r.search(query, k) if share else []
            if not found:
                continue
            best = found[0].score or 1.0
            for sq in found:
                score = min(100.0, 100.0 * share * (sq.score / best))  # (100 * s) / s can pass 100
                hits.append(LibraryQuote(r.panel, ScoredQuote(sq.quote, score, sq.reason)))
        hits.sort(key=lambda h: (-h.score, h.panel.name, h.scored.quote.id))
        return hits[:k]

    def route(self, question: str, target: str = "auto") -> LibraryAnswer:
        """Each talk routes the question itself; the talks that keep it answer (best evidence first).
        ``target``: auto or both (panelist ids differ from talk to talk)."""
        if target not in ("auto", "both"):
            raise ValueError(f"across talks the target is auto or both, not {target!r}")
        results = [(r, r.route(question, target)) for r in self.routers]
        kept = [(r, res) for r, res in results if not res.abstained]
        if not kept:
            return LibraryAnswer(question, [], self._decline_reason(results), self.suggestions())
        kept.sort(key=lambda rr: (-rr[1].scope, rr[0].panel.name))
        talks = [TalkAnswer(r.panel, res) for r, res in kept]
        names = ", ".join(t.panel.name for t in talks)
        reason = (
            f"{len(talks)} talks spoke to this ({names})"
            if len(talks) > 1
            else f"from the talk {talks[0].panel.name!r}"
        )
        return LibraryAnswer(question, talks, reason)

    def _decline_reason(self, results: list[tuple[Router, RouteResult]]) -> str:
        if not results:
            return "no panels are installed"
        if any(not res.off_topic for _, res in results):
            return "the panelist asked for did not speak to this in any talk"
        if len(results) == 1:
            return "off-topic: the talk did not touch this"
        return f"off-topic: none of the {len(results)} talks touched this"

    def suggestions(self, per_talk: int = 2) -> list[str]:
        """A couple of topics from each talk, to offer when declining."""
        out: list[str] = []
        for r in self.routers:
            out += [f"{t} ({r.panel.name})" for t in r.panel.topics[:per_talk]]
        return out
