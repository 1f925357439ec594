"""The panelbot terminal app: ask the panel, see who answers in whose words, dig into the sources.

``PanelbotApp`` composes the screen and wires the widgets' messages to the app's concerns, one mixin each:

- ``answering``     ask, decline, the streaming worker, Esc cancel, Ctrl+R regenerate
- ``all_talks``     questions to every installed talk at once
- ``conversation``  the history store, saving, /clear, resume, open, the browser (Ctrl+O)
- ``followups``     suggested follow-ups under the last answer (Ctrl+G)
- ``commands``      the slash commands (parsed in ``engine``)
- ``panels``        loading and switching panels, header, welcome, who answers (the target)
- ``quotes``        /quote search and a quote in context (/source, a picked source)
- ``export``        Ctrl+E, /export: the conversation as Markdown
- ``clipboard``     Ctrl+Y copy
- ``layout``        wide and narrow layout, Ctrl+B (and the Resize handler)
- ``keys``          the key bindings, F1 help, the theme toggle

All of them stand on ``mixin.AppMixin``, which declares the state they share (given its values here).

Textual finds ``on_*`` handlers and ``action_*`` methods on any of them; the widgets' messages are handled
here, below, each handing over to its concern.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable
from typing import Any, ClassVar

from rich.text import Text
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer, Static

from panelbot.answer.backends.base import Backend
from panelbot.config import Config
from panelbot.conversation.store import ConversationStore
from panelbot.panel import Panel
from panelbot.tui import engine
from panelbot.tui.all_talks import AllTalks
from panelbot.tui.answering import Answering
from panelbot.tui.clipboard import Clipboard
from panelbot.tui.commands import SlashCommands
from panelbot.tui.conversation import ConversationActions
from panelbot.tui.discussion import DiscussionActions
from panelbot.tui.export import ExportActions
from panelbot.tui.followups import FollowUpActions
from panelbot.tui.keys import BINDINGS, KeyActions
from panelbot.tui.layout import NARROW_WIDTH, PaneLayout
from panelbot.tui.panels import PanelSwitching
from panelbot.tui.quotes import QuoteActions
from panelbot.tui.widgets.chat import AnswerBlock, ChatLog
from panelbot.tui.widgets.followups import FollowUps
from panelbot.tui.widgets.panelists import PanelistsPane
from panelbot.tui.widgets.prompt import Prompt
from panelbot.tui.widgets.sidepane import ToInput
from panelbot.tui.widgets.sources import SourcesList
from panelbot.tui.widgets.suggestions import SuggestionsList

__all__ = ["NARROW_WIDTH", "PanelbotApp"]


def _palette_provider() -> type:
    from panelbot.tui.palette import PanelbotCommands

    return PanelbotCommands


class PanelbotApp(
    Answering,
    AllTalks,
    ConversationActions,
    FollowUpActions,
    SlashCommands,
    DiscussionActions,
    PanelSwitching,
    QuoteActions,
    ExportActions,
    Clipboard,
    PaneLayout,
    KeyActions,
    App[int],
):
    CSS_PATH = "app.tcss"
    TITLE = "panelbot"
    COMMANDS = App.COMMANDS | {_palette_provider}
    ENABLE_COMMAND_PALETTE = True
    BINDINGS: ClassVar[list[Binding]] = BINDINGS  # type: ignore[assignment]

    def __init__(
        self,
        config: Config | None = None,
        panel_name: str | None = None,
        resume: bool | int = False,
        *,
        config_error: str | None = None,
        store: ConversationStore | None = None,
        backend: Backend | None = None,
        router_factory: Callable[[Panel, Config], Any] | None = None,
    ) -> None:
        super().__init__()
        # the state the concerns share (declared, with its types, in mixin.AppMixin)
        self.config = config or Config()
        self._startup_notices = []
        if config_error:
            self._startup_notices.append(
                (f"Config problem: {config_error} (using the defaults)", "error")
            )
        for warning in self.config.warnings:
            self._startup_notices.append((warning, "warning"))
        self._router_factory = router_factory or engine.make_router
        self._fixed_backend = backend
        self.panel = None
        self.router = None
        self.backend = None
        self.target = "auto"
        self.all_talks = False
        self._library = None
        self._talk_turns = {}
        self._last_talks = []
        self.resume = resume
        self.conversation_id = None
        self.history = []
        self.turns = []
        self._last_answer = None
        self.last_quotes = []
        self._answer_worker = None
        self._panes_shown = True
        self._narrow = False
        self._store = store
        self._store_error = None
        self._load_panel(panel_name or self.config.panel, initial=True)
        try:
            self.set_keymap(dict(self.config.tui.keys))
        except Exception as exc:  # a key string Textual can't use: keep the defaults
            self._startup_notices.append((f"tui.keys: {exc}", "warning"))

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        from panelbot.tui.palette import system_commands

        return system_commands(super().get_system_commands(screen))

    def compose(self) -> ComposeResult:
        yield Static(self._header_text(), id="header")
        with Horizontal(id="body"):
            with Vertical(id="sidebar"):
                yield PanelistsPane(self.panel, self.target, id="panelists")
                yield SuggestionsList(self.panel, id="suggestions")
            with Vertical(id="main"):
                yield ChatLog(id="chat")
                keys = self.config.tui.keys
                yield Prompt(
                    engine.key_label(keys.get("send", "enter")),
                    engine.key_label(keys.get("newline", "ctrl+j")),
                    id="prompt",
                )
            yield SourcesList(id="sources")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        theme = self.config.tui.theme
        if theme in self.available_themes:
            self.theme = theme
        else:
            self._startup_notices.append(
                (f"unknown theme {theme!r}; using textual-dark", "warning")
            )
        self._apply_layout(self.size.width)
        self.query_one(SourcesList).show_none_yet(self.panel)
        for text, kind in self._startup_notices:
            self.chat_notice(text, kind)
        self._startup_notices.clear()
        if self.resume:
            self._resume(None if self.resume is True else int(self.resume))
        elif self.panel is not None and not self.query(AnswerBlock):
            self._welcome()
        self.query_one(Prompt).focus()
        if not self.resume:  # after the first frame: Up recalls questions from earlier sessions too
            self.call_after_refresh(self._load_question_history)

    async def on_unmount(self) -> None:
        if self.backend is not None:
            with contextlib.suppress(Exception):
                await self.backend.aclose()
        if self._store is not None:
            self._store.close()

    def chat_notice(self, text: str | Text, kind: str = "info") -> None:
        try:
            chat = self.query_one(ChatLog)
        except Exception:  # not mounted yet
            self._startup_notices.append((text if isinstance(text, str) else text.plain, kind))
            return
        chat.add_notice(text, kind)

    # ------------------------------------------------------------------------------------------ widgets' messages

    def on_prompt_submitted(self, event: Prompt.Submitted) -> None:
        text = event.text
        if engine.parse_command(text) is not None:
            event.prompt.remember(text)
            event.prompt.clear()
            self.run_command_line(text)
            return
        if self.ask(text):
            event.prompt.clear()

    def on_suggestions_list_ask(self, event: SuggestionsList.Ask) -> None:
        self.ask(event.question)
        self.query_one(Prompt).focus()

    def on_follow_ups_ask(self, event: FollowUps.Ask) -> None:
        if self.ask(event.question):
            self.query_one(Prompt).focus()

    def on_panelists_pane_target_changed(self, event: PanelistsPane.TargetChanged) -> None:
        self.target = event.target

    def on_to_input(self, event: ToInput) -> None:
        """A key typed in a side pane goes to the question input (and Esc there returns to it)."""
        if self._narrow and self._panes_shown:
            self._show_panes(False)
        prompt = self.query_one(Prompt)
        prompt.focus()
        if event.text:
            prompt.insert(event.text)

    def on_sources_list_chosen(self, event: SourcesList.Chosen) -> None:
        self.open_source(event.quote_id, self.query_one(SourcesList).panel)

    def on_answer_block_picked(self, event: AnswerBlock.Picked) -> None:
        block = event.block
        if block.quotes:
            self.last_quotes = block.quotes
            self.query_one(SourcesList).show(self.panel, block.quotes, f"Sources: {block.label}")
