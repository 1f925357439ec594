"""The backend interface every answerer implements.

A backend takes an :class:`AnswerRequest` (the question, the routed quotes, the conversation so far) and yields
events as the answer forms: :class:`TextDelta` pieces of one speaker's answer, then a :class:`SpeakerDone`
for that speaker (with citations and grounding when the backend generates text). The offline backend yields
each speaker's verbatim quotes as one delta; a generative backend streams tokens. The TUI and CLI consume the
same events, so both paths look and behave the same.

Third-party backends register an entry point in the ``panelbot.backends`` group pointing at a class
``Cls(config: panelbot.config.Config, panel: panelbot.panel.Panel)``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from panelbot.panel import Panel
from panelbot.retrieval.results import RouteResult, ScoredQuote


@dataclass(frozen=True)
class Message:
    """One earlier message of the conversation: role 'user' or a speaker id."""

    role: str
    text: str


@dataclass
class AnswerRequest:
    question: str
    panel: Panel
    route: RouteResult
    history: list[Message] = field(default_factory=list)


@dataclass(frozen=True)
class TextDelta:
    speaker: str
    text: str


@dataclass(frozen=True)
class Citation:
    id: str
    valid: bool

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "valid": self.valid}


@dataclass
class SpeakerDone:
    """One speaker finished. ``text`` is their whole answer (already sanitised)."""

    speaker: str
    text: str
    quotes: list[ScoredQuote]
    citations: list[Citation] = field(default_factory=list)
    grounded: bool | None = None  # None: verbatim quotes, nothing to verify
    error: str | None = None  # set when generation failed and the quotes are the fallback
    unsupported_sentences: list[str] = field(default_factory=list)


AnswerEvent = TextDelta | SpeakerDone


class BackendError(Exception):
    """Generation failed; the message is one clear line naming the URL and the cause (never the key)."""


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
