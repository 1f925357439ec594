"""What the router returns: plain data, JSON-ready."""

from __future__ import annotations

from typing import TYPE_CHECKING

from panelbot.panel import Quote
from panelbot.records import field, record

if TYPE_CHECKING:
    from typing import Any


@record(frozen=True)
class ScoredQuote:
    """A quote chosen for an answer, with its score and why it was chosen."""

    quote: Quote
    score: float  # 0-100, higher is better
    reason: str = ""  # why it was chosen, e.g. "matched: kv cache, growing; answers q12"

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.quote.id,
            "speaker": self.quote.speaker,
            "text": self.quote.text,
            "score": round(self.score, 1),
            "start": self.quote.start,
            **({"url": self.quote.url} if self.quote.url else {}),
            **({"note": self.quote.note} if self.quote.note else {}),
        }


@record
class RouteResult:
    """How a question was routed: who answers with which quotes, or why the panel declined."""

    question: str
    speakers: list[str]  # answer order; [] when abstained
    abstained: bool
    quotes: list[ScoredQuote]  # best first, across the answering speakers; [] when abstained
    reason: str
    addressed: list[str] = field(default_factory=list)  # speakers named in the question
    suggestions: list[str] = field(
        default_factory=list
    )  # questions to offer, each known to have an answer
    scope: float = 0.0  # in-scope evidence
    off_topic: bool = True  # when abstained: off-topic (True), or on the subject but not answerable
    unstated: str = (
        ""  # when abstained on the subject: the specific the talk never gave ("a price")
    )
    nearby: list[ScoredQuote] = field(default_factory=list)  # ... and the closest thing it did say
    note: str = ""  # who was asked but never spoke to it ("Olive didn't speak to this on the panel; Dan did")
    small_talk: str = (
        ""  # a greeting, thanks, a goodbye ... (abstained: nothing to look up; a friendly reply)
    )
    framing: bool = (
        False  # answered as a framing question ("who is Dan?"): the talk's or an introduction
    )

    def quotes_for(self, speaker: str) -> list[ScoredQuote]:
        return [sq for sq in self.quotes if sq.quote.speaker == speaker]

    def to_dict(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "speakers": list(self.speakers),
            "abstained": self.abstained,
            "quotes": [sq.to_dict() for sq in self.quotes],
            "reason": self.reason,
            **({"kind": "small_talk", "small_talk": self.small_talk} if self.small_talk else {}),
        }
