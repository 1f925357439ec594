"""The backend interface every answerer implements.

A backend takes an :class:`AnswerRequest` (the question, the routed quotes, the conversation so far) and yields
events as the answer forms: :class:`TextDelta` pieces of one speaker's answer, then a :class:`SpeakerDone`
for that speaker (with citations and grounding when the backend generates text). The offline backend yields
each speaker's verbatim quotes as one delta; a generative backend streams tokens. The TUI and CLI consume the
same events, so both paths look and behave the same.

Third-party backends register an entry point in the ``panelbot.backends`` group pointing at a class
``Cls(config: panelbot.config.Config, panel: panelbot.panel.Panel)``. The event types live in
:mod:`panelbot.answer.events` and are re-exported here; ``panelbot.backends.base`` is the documented import path.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Protocol, runtime_checkable

from panelbot.answer.events import (
    AnswerEvent,
    AnswerRequest,
    BackendError,
    Citation,
    Message,
    SpeakerDone,
    TextDelta,
)

__all__ = [
    "AnswerEvent",
    "AnswerRequest",
    "Backend",
    "BackendError",
    "Citation",
    "Message",
    "SpeakerDone",
    "TextDelta",
]


@runtime_checkable
class Backend(Protocol):
    name: str

    @property
    def label(self) -> str:
        """Short text for headers: 'offline quotes' or the model name."""
        ...

    def answer(self, request: AnswerRequest) -> AsyncIterator[AnswerEvent]:
        """Yield TextDelta and SpeakerDone events, one SpeakerDone per answering speaker, in order."""
        ...

    async def aclose(self) -> None: ...
