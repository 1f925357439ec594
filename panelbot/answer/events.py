"""What an answer is made of as it forms, shared by every backend and front end: the request (question, routed
quotes, conversation so far), the events a backend yields (:class:`TextDelta` pieces, one :class:`SpeakerDone`
per answering speaker), citations, and :class:`BackendError`. Plain data: no HTTP, no UI."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from panelbot.panel import Panel
from panelbot.retrieval.results import RouteResult, ScoredQuote

if TYPE_CHECKING:
    from panelbot.answer.verdict import Verdict


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
    unsupported_sentences: list[str] = field(default_factory=list)  # counted, not supported
    verdict: Verdict | None = None  # a generated answer's checked sentences and grade


AnswerEvent = TextDelta | SpeakerDone


class BackendError(Exception):
    """Generation failed; the message is one clear line naming the URL and the cause (never the key)."""
