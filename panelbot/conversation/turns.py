"""What a conversation is made of, as every front end and the resolver share it: one earlier turn
(``ConversationTurn``), how a new message was read (``Resolution`` and its ``kind``), and the stored history's
messages turned into turns. Plain Python; no retrieval or Textual import at run time."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from panelbot.records import field, record

if TYPE_CHECKING:
    from typing import Any

    from panelbot.retrieval.results import RouteResult

STANDALONE = "standalone"
CONTINUATION = "continuation"
REASON = "reason"
ELABORATION = "elaboration"
OTHER_PANELIST = "other_panelist"
SMALL_TALK = (
    "small_talk"  # a greeting, thanks, "ok cool", a goodbye: a friendly reply, nothing looked up
)
DISCUSSION = (
    "discussion"  # the panel asked to discuss a subject, or a follow-up to a discussion just shown
)
KINDS = (STANDALONE, CONTINUATION, REASON, ELABORATION, OTHER_PANELIST, SMALL_TALK, DISCUSSION)
DISCUSSED = "discussion"  # meta key of a stored question a discussion answered: {"subject": ...}


@record(frozen=True)
class ConversationTurn:
    """One earlier user turn and how it was answered (speakers [] when declined)."""

    question: str
    speakers: list[str] = field(default_factory=list)
    quote_ids: list[str] = field(default_factory=list)
    target: str = "auto"
    discussed: str | None = None  # the subject of the discussion this turn staged or followed up on


@record
class Resolution:
    """How a message was read and answered.

    ``route`` is what ``Router.route`` returns (its reason says how context was used); ``context`` is JSON-ready
    (what was carried over: kind, subject, speaker) or None when the message stood on its own."""

    route: RouteResult
    context: dict[str, Any] | None = None
    kind: str = STANDALONE
    # a discussion to stage, or a follow-up to one (``panelbot.discussion.turn.DiscussionReply``)
    discussion: Any = None
    # the subject a request for a discussion named, as read from the message ("" when it named none;
    # None when the message was not such a request): kept for a decline, which stages no discussion
    requested_subject: str | None = None


def turns_from_messages(messages: Sequence[Any]) -> list[ConversationTurn]:
    """Stored messages (``role``, ``speaker``, ``text``, ``quote_ids``, ``meta``, as the history database
    keeps them) -> the resolver's turns: each user message and the answers that followed it (an answer
    stopped before it was finished is not one: its quotes do not count as shown)."""
    turns: list[ConversationTurn] = []
    question: str | None = None
    target = "auto"
    speakers: list[str] = []
    quote_ids: list[str] = []
    discussed: str | None = None

    def close() -> None:
        if question is not None:
            turns.append(
                ConversationTurn(
                    question, list(dict.fromkeys(speakers)), list(quote_ids), target, discussed
                )
            )

    for m in messages:
        role = getattr(m, "role", "")
        if role == "user":
            close()
            question = str(getattr(m, "text", ""))
            meta = getattr(m, "meta", None) or {}
            target = str(meta.get("target") or "auto") if isinstance(meta, dict) else "auto"
            speakers, quote_ids = [], []
            discussed = _discussed(meta)
            if discussed:  # read later as the discussion's subject, as it was when it was asked
                question = discussed
        elif role == "assistant" and question is not None:
            meta = getattr(m, "meta", None)
            if isinstance(meta, dict) and meta.get("cancelled"):
                continue  # stopped before it was finished (Esc): its quotes were not shown
            speaker = str(getattr(m, "speaker", ""))
            if speaker:
                speakers.append(speaker)
            quote_ids.extend(str(q) for q in (getattr(m, "quote_ids", None) or ()))
    close()
    return turns


def _discussed(meta: Any) -> str | None:
    """The subject of the discussion a stored question was answered with (None: an ordinary turn)."""
    found = meta.get(DISCUSSED) if isinstance(meta, dict) else None
    subject = found.get("subject") if isinstance(found, dict) else None
    return subject if isinstance(subject, str) else None
