"""One answer for a server: the same event flow as ``panelbot ask --llm`` (the configured backend's
``TextDelta``/``SpeakerDone`` events, verified when generated), rendered as the text the CLI prints, plus the
record ``ask --llm --json`` prints.

With the offline backend the text is each answering panelist's heading and verbatim quotes with their ids;
with a generative one it is the panelist's words with ``[quote-id]`` citations and the verdict line
(``[grounded: cites …]``, or ``[NOT grounded: …]`` followed by the panelist's own words).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from panelbot.answer.backends.base import AnswerRequest, Backend, Message, SpeakerDone, TextDelta
from panelbot.answer.compose import decline_text
from panelbot.answer.record import answer_record, decline_record
from panelbot.cli.llm import _TextView
from panelbot.panel import Panel
from panelbot.retrieval.results import RouteResult


class _Pieces:
    """A text sink for the CLI's view: collects what it writes so it can be sent as chunks."""

    def __init__(self) -> None:
        self._parts: list[str] = []

    def write(self, text: str) -> int:
        self._parts.append(text)
        return len(text)

    def flush(self) -> None:
        return None

    def take(self) -> str:
        text = "".join(self._parts)
        self._parts.clear()
        return text


class AnswerRun:
    """Iterate :meth:`pieces` for the answer text as it forms; then :attr:`record` holds the whole answer."""

    def __init__(
        self,
        backend: Backend,
        panel: Panel,
        route: RouteResult,
        question: str,
        history: list[Message] | None = None,
    ) -> None:
        self.backend = backend
        self.panel = panel
        self.route = route
        self.question = question
        self.history = list(history or [])
        self.record: dict[str, Any] = {}
        self.errors: list[str] = []

    async def pieces(self) -> AsyncIterator[str]:
        panel, route = self.panel, self.route
        if route.abstained:
            self.record = decline_record(panel, route)
            yield decline_text(panel, route)
            return
        sink = _Pieces()
        view = _TextView(panel, sink)
        dones: list[SpeakerDone] = []
        async for event in self.backend.answer(
            AnswerRequest(self.question, panel, route, self.history)
        ):
            if isinstance(event, TextDelta):
                view.delta(event)
            else:
                dones.append(event)
                view.done(event)
            text = sink.take()
            if text:
                yield text
        self.record = answer_record(panel, route, dones, self.backend.name, self.backend.label)
        self.errors = list(dict.fromkeys(d.error for d in dones if d.error))

    async def text(self) -> str:
        return "".join([p async for p in self.pieces()])
