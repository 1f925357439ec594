"""What the conversation layer needs from a router: a declared, public interface (``Router`` provides it).

The resolver reads messages and answers follow-ups through these parts only -- never the router's private
members -- so a stand-in router for a test, or a router over another kind of index, says what it must offer.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from panelbot.panel import Panel, Quote
    from panelbot.retrieval.results import RouteResult


class FollowUpRouter(Protocol):
    """The router as the conversation layer uses it (see ``panelbot.retrieval.router.Router``)."""

    panel: Panel
    settings: Any  # top_k, min_quote_score, scope_floor
    index: Any  # the quote index: quotes, score(), max_score(), postings, speaker_of, answering()
    norm: Any  # the panel's term normaliser: terms(), unigrams(), normalise(), canonical_terms
    lexicon: Any  # every word the panel uses (a Counter)
    curated: frozenset[str]  # the panel's curated subject terms
    tune: Any  # the fitted tuning record (``panelbot.retrieval.tuning.Tuning``)

    def query_terms(self, question: str) -> Any: ...

    def scope(self, query: Any, addressed: list[str], *, senses: bool = True) -> float: ...

    def scope_signals(self, question: str) -> Any: ...

    def addressed(self, question: str) -> tuple[list[str], bool]: ...

    def possessive(self, question: str) -> list[str]: ...

    def without_descriptions(self, question: str) -> str: ...

    def route(self, question: str, target: str = "auto") -> RouteResult: ...

    def suggestions(self, n: int = 3, question: str = "") -> list[str]: ...

    def example_questions(self, limit: int = 20) -> list[str]: ...

    def framing(self, question: str) -> Any: ...

    def framing_reader(self) -> Any: ...  # its introductions(): each panelist's introduction quote

    def position(self, quote_id: str) -> int | None: ...

    def is_name_word(self, word: str) -> bool: ...

    def said_together(self, term: str, other: str) -> bool: ...

    def match_reason(self, quote: Quote, terms: Sequence[str]) -> str: ...
