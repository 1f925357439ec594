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

from panelbot.answer.backends.base import Backend, Message, SpeakerDone, TextDelta
from panelbot.answer.record import answer_record, decline_record
from panelbot.answer.text_view import TextView
from panelbot.conversation.pipeline import Declined, Discussed, Session
from panelbot.conversation.turns import Resolution
from panelbot.panel import Panel
from panelbot.retrieval.results import RouteResult


class _Pieces:
    """A text sink for the text view: collects what it writes so it can be sent as chunks."""

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
    """Iterate :meth:`pieces` for the answer text as it forms; then :attr:`record` holds the whole answer.

    The turn is the pipeline's (:class:`panelbot.conversation.pipeline.Session`) over the conversation the
    request carried (``history``), already read (``route``, ``context``): a server resolves in a worker
    thread, off the event loop, then answers here."""

    def __init__(
        self,
        backend: Backend,
        panel: Panel,
        route: RouteResult,
        question: str,
        history: list[Message] | None = None,
        context: dict[str, Any] | None = None,
        *,
        session: Session | None = None,
    ) -> None:
        self.backend = backend
        self.panel = panel
        self.route = route
        self.question = question
        # the request's conversation (as it read the question), else one of what was said
        self.session = session or Session.from_messages(panel, None, (), history or (), backend)
        self.reading = Resolution(route, context)
        self.record: dict[str, Any] = {}
        self.errors: list[str] = []

    async def pieces(self) -> AsyncIterator[str]:
        panel, route = self.panel, self.route
        sink = _Pieces()
        view = TextView(panel, sink)
        dones: list[SpeakerDone] = []
        declined = False
        tail = ""
        async for event in self.session.ask(self.question, reading=self.reading):
            if isinstance(event, Discussed):  # a discussion: the host's lines around the turns
                tail = event.tail
                if event.head:
                    yield event.head + "\n\n"
            elif isinstance(event, Declined):
                declined = True
                self.record = decline_record(panel, route, event.text)
                yield event.text
            elif isinstance(event, TextDelta):
                view.delta(event)
            elif isinstance(event, SpeakerDone):
                dones.append(event)
                view.done(event)
            text = sink.take()
            if text:
                yield text
        if tail:
            yield "\n" + tail + "\n"
        if not declined:
            self.record = answer_record(panel, route, dones, self.backend.name, self.backend.label)
            self.errors = list(dict.fromkeys(d.error for d in dones if d.error))

    async def text(self) -> str:
        return "".join([p async for p in self.pieces()])
