"""The base of the app's concern mixins (answering, commands, export, ...): the state they share, declared once
with its types (``PanelbotApp.__init__`` gives it its values). To a type checker it is also Textual's ``App``,
and the other concerns' methods are reached through ``__getattr__``; at run time it holds nothing but these
annotations."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textual.app import App
    from textual.worker import Worker

    from panelbot.answer.backends.base import Backend, Message
    from panelbot.config import Config
    from panelbot.conversation.store import ConversationStore
    from panelbot.conversation.turns import ConversationTurn
    from panelbot.panel import Panel
    from panelbot.retrieval.results import ScoredQuote

    _TextualApp = App[int]
else:
    _TextualApp = object


class AppMixin(_TextualApp):
    config: Config
    _startup_notices: list[tuple[str, str]]  # shown in the chat once it is mounted
    _router_factory: Callable[[Panel, Config], Any]
    _fixed_backend: Backend | None  # given by the caller (tests), else chosen per panel
    panel: Panel | None
    router: Any
    backend: Backend | None
    target: str  # who answers: "auto", a panelist id or "both"
    all_talks: bool  # questions go to every installed talk (the palette switches it)
    _library: Any  # every installed talk, opened when all_talks is first switched on
    _talk_turns: dict[str, list[ConversationTurn]]  # all talks: each talk's turns, for follow-ups
    _last_talks: list[str]  # all talks: the talks the last answer came from
    resume: bool | int
    conversation_id: int | None
    history: list[Message]
    turns: list[ConversationTurn]  # what the resolver reads follow-ups against
    _last_answer: (
        dict[str, Any] | None
    )  # the last answered question, to regenerate it with the same quotes
    last_quotes: list[ScoredQuote]
    _answer_worker: Worker[None] | None
    _panes_shown: bool  # wide: side panes visible; narrow: panes replace the chat
    _narrow: bool
    _store: ConversationStore | None
    _store_error: str | None

    if TYPE_CHECKING:

        def __getattr__(self, name: str) -> Any: ...


__all__ = ["AppMixin"]
