"""The shapes of what ``panelbot mcp``'s tools return, as typed dicts: the MCP SDK publishes each as the tool's
``outputSchema`` and checks every result against it before it is sent."""

from __future__ import annotations

from typing_extensions import NotRequired, TypedDict


class Who(TypedDict):
    id: str
    name: str


class QuoteHit(TypedDict):
    """A quote as ask_panel and search_quotes give it."""

    id: str
    speaker: str
    speaker_name: str
    text: str
    host_question: str | None  # what the host had asked
    resource: str  # panel://<panel>/quotes/<id>
    score: NotRequired[float]  # 0-100


class Followup(TypedDict):
    question: str
    kind: str
    answered_by: list[str]


class Context(TypedDict):
    """What a follow-up carried over from the conversation."""

    kind: str
    subject: str
    question: str
    speaker: str | None
    previous_speakers: list[str]
    turn: int


class AskResult(TypedDict):
    panel: str
    question: str
    answered_by: list[Who]
    abstained: bool
    reason: str
    quotes: list[QuoteHit]
    context: Context | None
    conversation_id: str  # pass it back (ask_panel's conversation_id) to continue this conversation
    suggested_followups: NotRequired[list[Followup]]
    kind: NotRequired[str]  # "small_talk"
    small_talk: NotRequired[str]  # greeting, thanks, ...
    decline: NotRequired[str]
    suggested_topics: NotRequired[list[str]]
    suggested_questions: NotRequired[list[str]]


class SearchResult(TypedDict):
    result: list[QuoteHit]
    next_cursor: str | None  # pass it back as 'cursor' for the next page; null on the last


class HostQuestion(TypedDict):
    id: str
    text: str


class QuoteDetail(TypedDict):
    id: str
    speaker: str
    speaker_name: str
    text: str
    panel: str
    topics: list[str]
    host_question: HostQuestion | None
    whole_answer: str | None
    resource: str


class Panelist(TypedDict):
    id: str
    name: str
    role: str
    organisation: str
    covers: list[str]
    bio: str
    quotes: int
    resource: str


class PanelListing(TypedDict):
    name: str
    title: str
    default: bool
    panelists: list[Panelist]
    quotes: int
    topics: list[str]
    to: list[str]


class PanelList(TypedDict):
    result: list[PanelListing]


__all__ = [
    "AskResult",
    "Context",
    "Followup",
    "HostQuestion",
    "PanelList",
    "PanelListing",
    "Panelist",
    "QuoteDetail",
    "QuoteHit",
    "SearchResult",
    "Who",
]
