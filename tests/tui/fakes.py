"""Stand-ins for tests: a keyword router over any panel, and backends that stream slowly or fail."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from panelbot.answer.backends.base import (
    AnswerEvent,
    AnswerRequest,
    BackendError,
    SpeakerDone,
    TextDelta,
)
from panelbot.config import RetrievalSettings
from panelbot.panel import Panel
from panelbot.retrieval.results import RouteResult, ScoredQuote
from panelbot.retrieval.router import Router
from panelbot.text import words

STOP = {
    "the",
    "a",
    "an",
    "how",
    "do",
    "you",
    "what",
    "is",
    "are",
    "with",
    "to",
    "of",
    "and",
    "make",
}


class KeywordRouter(Router):
    """Scores quotes by shared words: the real router (the conversation layer reads messages with it)
    with its routing replaced, enough to drive the UI without depending on retrieval quality."""

    def __init__(self, panel: Panel, settings: object = None) -> None:
        super().__init__(panel, RetrievalSettings())

    def search(self, query: str, k: int = 5, speakers: object = None) -> list[ScoredQuote]:
        q = set(words(query)) - STOP
        scored = []
        for quote in self.panel.quotes:
            shared = q & set(words(quote.text))
            if shared:
                scored.append(
                    ScoredQuote(quote, 20.0 * len(shared), "matched: " + ", ".join(sorted(shared)))
                )
        scored.sort(key=lambda sq: -sq.score)
        return scored[:k]

    def route(self, question: str, target: str = "auto") -> RouteResult:
        hits = self.search(question, k=10)
        if target not in ("auto", "both"):
            hits = [h for h in hits if h.quote.speaker == target] or [
                ScoredQuote(q, 10.0, "asked directly") for q in self.panel.quotes_by(target)[:1]
            ]
        if not hits:
            return RouteResult(
                question, [], True, [], "out of scope", suggestions=list(self.panel.topics)
            )
        speakers: list[str] = []
        for h in hits:
            if h.quote.speaker not in speakers:
                speakers.append(h.quote.speaker)
        if target == "auto":
            speakers = speakers[:1]
        if target == "both":
            speakers = list(self.panel.panelists)
            for sp in speakers:
                if not any(h.quote.speaker == sp for h in hits):
                    hits.append(ScoredQuote(self.panel.quotes_by(sp)[0], 5.0, "asked directly"))
        quotes = [h for h in hits if h.quote.speaker in speakers][:3]
        return RouteResult(question, speakers, False, quotes, "keyword match")


class SlowBackend:
    """Streams a few tokens then waits until released (for testing Esc)."""

    name = "slow"

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.started = asyncio.Event()

    @property
    def label(self) -> str:
        return "test-model-7b"

    async def answer(self, request: AnswerRequest) -> AsyncIterator[AnswerEvent]:
        speaker = request.route.speakers[0]
        for token in ("Memory ", "is ", "the [bold]game[/bold] "):
            yield TextDelta(speaker, token)
        self.started.set()
        await self.release.wait()
        yield TextDelta(speaker, "done.")
        yield SpeakerDone(
            speaker, "Memory is the [bold]game[/bold] done.", request.route.quotes_for(speaker)
        )

    async def aclose(self) -> None:
        return None


class DownBackend:
    name = "down"

    @property
    def label(self) -> str:
        return "down-model"

    async def answer(self, request: AnswerRequest) -> AsyncIterator[AnswerEvent]:
        raise BackendError("http://127.0.0.1:9/v1: connection refused [/]")
        yield  # pragma: no cover

    async def aclose(self) -> None:
        return None


class PinnedRouter:
    """Deterministic routing over any panel, for snapshots: they test the screen, not retrieval quality.

    A question mentioning a word picks that panelist's first three quotes containing it (fixed scores and
    reasons); 'pizza' abstains. So tuning the real router never changes a snapshot.
    """

    def __init__(self, panel: Panel, settings: object = None) -> None:
        self.panel = panel

    def search(self, query: str, k: int = 5) -> list[ScoredQuote]:
        return self.route(query).quotes[:k]

    def example_questions(self) -> list[str]:
        """The first curated ``asks`` of each quote that has them (the host's questions otherwise)."""
        asks = [q.asks[0] for q in self.panel.quotes if q.asks]
        return asks[:8] or [q.text for q in self.panel.questions]

    def route(self, question: str, target: str = "auto") -> RouteResult:
        if "pizza" in question.lower():
            suggestions = self.example_questions()[:3]
            return RouteResult(question, [], True, [], "out of scope", suggestions=suggestions)
        key = (
            "cache" if "cache" in question.lower() else min(set(words(question)) - STOP or {""})
        )  # min: the same word on every run
        hits = [q for q in self.panel.quotes if key in q.text.lower()][:3] or self.panel.quotes[:1]
        speaker = hits[0].speaker
        hits = [q for q in hits if q.speaker == speaker]
        quotes = [ScoredQuote(q, 80.0 - 15 * i, f"mentions '{key}'") for i, q in enumerate(hits)]
        return RouteResult(question, [speaker], False, quotes, "pinned")
