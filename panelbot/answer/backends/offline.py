"""The offline backend: each answering panelist's verbatim quotes, no network, no key."""

from __future__ import annotations

from collections.abc import AsyncIterator

from panelbot.answer.backends.base import AnswerEvent, AnswerRequest, SpeakerDone, TextDelta
from panelbot.answer.compose import quotes_text
from panelbot.config import Config
from panelbot.panel import Panel

__all__ = ["OfflineBackend", "quotes_text"]


class OfflineBackend:
    name = "offline"

    def __init__(self, config: Config | None = None, panel: Panel | None = None) -> None:
        self.config = config
        self.panel = panel

    @property
    def label(self) -> str:
        return "offline quotes"

    async def answer(self, request: AnswerRequest) -> AsyncIterator[AnswerEvent]:
        route = request.route
        if route.abstained:
            return
        for speaker in route.speakers:
            quotes = route.quotes_for(speaker)
            if not quotes:  # never an empty section
                continue
            text = quotes_text(quotes)
            yield TextDelta(speaker, text)
            yield SpeakerDone(speaker, text, quotes)

    async def aclose(self) -> None:
        return None
