"""The documented import path for plugin authors (docs/generative-answers.md, "Your own backend"):
``from panelbot.backends.base import Backend, SpeakerDone, TextDelta``. The definitions live in
:mod:`panelbot.answer.backends.base` and :mod:`panelbot.answer.events`; this module only re-exports
them so plugins written against it keep working."""

from panelbot.answer.backends.base import (
    AnswerEvent,
    AnswerRequest,
    Backend,
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
