"""The conversation browser (Ctrl+O, /history, the palette): every saved conversation -- the app's and the
shell's -- newest first; type to search questions and answers (SQLite FTS5); Enter opens, F2 renames, Delete
deletes (after asking). Dismisses with the id to open, or None."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from panelbot.conversation.store import (
    ConversationStore,
    ConversationSummary,
    listed_titles,
    short_time,
)
from panelbot.text import count_of
from panelbot.tui.render import safe


class RenameScreen(ModalScreen[str | None]):
    """Ask for a new title (Enter saves, Esc cancels)."""

    DEFAULT_CSS = """
    RenameScreen { align: center middle; }
    #rename-body { width: 70; height: auto; border: round $accent; background: $surface; padding: 1 2; }
    """
    BINDINGS: ClassVar[list[Binding]] = [Binding("escape", "cancel", "Cancel")]  # type: ignore[assignment]

    def __init__(self, title: str) -> None:
        super().__init__()
        self.current = title

    def compose(self) -> ComposeResult:
        with Vertical(id="rename-body"):
            yield Static(Content("New title (Enter to save, Esc to cancel):"))
            yield Input(value=self.current, id="rename-input")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        self.dismiss(None)


class ConversationsScreen(ModalScreen[int | None]):
    DEFAULT_CSS = """
    ConversationsScreen { align: center middle; }
    #conversations-body {
        width: 90%; max-width: 120; height: 90%;
        border: round $accent; background: $surface; padding: 0 1;
    }
    #conversations-search { margin: 1 0 0 0; }
    #conversations-list { height: 1fr; border: none; }
    #conversations-keys { color: $text-muted; height: auto; }
    """
    BINDINGS: ClassVar[list[Binding]] = [  # type: ignore[assignment]
        Binding("escape", "close", "Close"),
        Binding("f2", "rename", "Rename", priority=True),
        Binding("ctrl+d", "delete", "Delete", priority=True),
        Binding(
            "delete", "delete", "Delete", show=False
        ),  # in the list (the search box keeps its Delete)
        Binding("down", "move(1)", show=False),
        Binding("up", "move(-1)", show=False),
    ]

    def __init__(
        self,
        store: ConversationStore,
        current: int | None = None,
        on_deleted: Callable[[int], object] | None = None,
    ) -> None:
        super().__init__()
        self.store = store
        self.current = current
        self.on_deleted = on_deleted
        self.shown: list[ConversationSummary] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="conversations-body") as body:
            body.border_title = "Conversations"
            body.border_subtitle = "Esc to close"
            yield Input(placeholder="Search questions and answers\u2026", id="conversations-search")
            yield OptionList(id="conversations-list")
            yield Static(
                Content(
                    "Type to search \u00b7 Up/Down choose \u00b7 Enter open \u00b7 F2 rename \u00b7 "
                    "Ctrl+D delete \u00b7 Esc close"
                ),
                id="conversations-keys",
            )

    def on_mount(self) -> None:
        self.refresh_list("")
        self.query_one(Input).focus()

    # ---------------------------------------------------------------------------------------- listing

    def refresh_list(self, query: str) -> None:
        query = query.strip()
        snippets: dict[int, str] = {}
        try:
            summaries = self.store.list_conversations()
            titles = listed_titles(summaries)  # told apart over them all, found or not
            if query:
                order: list[int] = []
                for hit in self.store.search(query, limit=200):
                    if hit.conversation_id not in snippets:
                        snippets[hit.conversation_id] = hit.snippet
                        order.append(hit.conversation_id)
                by_id = {s.id: s for s in summaries}
                summaries = [by_id[i] for i in order if i in by_id]
        except Exception as exc:  # a damaged database: say so in the list, never crash
            self.notify(f"History: {exc}", severity="error", markup=False)
            summaries, titles = [], {}
        self.shown = summaries
        listing = self.query_one("#conversations-list", OptionList)
        listing.clear_options()
        for s in summaries:
            head = titles.get(s.id, s.title)
            if s.id == self.current:
                head += "  (open now)"
            line = Content(safe(head, one_line=True)).stylize("bold")
            detail = (
                f"\n  #{s.id} \u00b7 {count_of(s.message_count, 'message')} \u00b7 "
                f"{short_time(s.updated_at)}"
            )
            detail += f" \u00b7 {s.panel} \u00b7 {'shell' if s.source == 'cli' else 'app'}"
            if s.id in snippets:
                detail += "\n  " + snippets[s.id].strip()
            listing.add_option(Option(line + Content(safe(detail)), id=str(s.id)))
        if not summaries:
            listing.add_option(
                Option(
                    Content("No conversations match." if query else "No saved conversations yet."),
                    disabled=True,
                )
            )
        else:
            listing.highlighted = 0

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "conversations-search":
            self.refresh_list(event.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "conversations-search":
            event.stop()
            summary = self._selected()
            if summary is not None:
                self.dismiss(summary.id)

    def _selected(self) -> ConversationSummary | None:
        listing = self.query_one("#conversations-list", OptionList)
        index = listing.highlighted
        if index is None or not 0 <= index < len(self.shown):
            return None
        return self.shown[index]

    # ---------------------------------------------------------------------------------------- actions

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option_id is not None:
            self.dismiss(int(event.option_id))

    def action_move(self, step: int) -> None:
        """Up/Down from the search box move the highlight in the list."""
        listing = self.query_one("#conversations-list", OptionList)
        if not listing.option_count:
            return
        if step > 0:
            listing.action_cursor_down()
        else:
            listing.action_cursor_up()

    def action_close(self) -> None:
        self.dismiss(None)

    def action_rename(self) -> None:
        summary = self._selected()
        if summary is None:
            return

        def renamed(title: str | None) -> None:
            if title:
                try:
                    self.store.rename_conversation(summary.id, title)
                except Exception as exc:
                    self.notify(f"Could not rename: {exc}", severity="error", markup=False)
                self.refresh_list(self.query_one(Input).value)

        self.app.push_screen(RenameScreen(summary.title), renamed)

    def action_delete(self) -> None:
        from panelbot.tui.screens.confirm import ConfirmScreen

        summary = self._selected()
        if summary is None:
            return

        def answered(yes: bool | None) -> None:
            if not yes:
                return
            try:
                self.store.delete_conversation(summary.id)
            except Exception as exc:
                self.notify(f"Could not delete: {exc}", severity="error", markup=False)
                return
            if self.on_deleted is not None:
                self.on_deleted(summary.id)
            if summary.id == self.current:
                self.current = None
            self.refresh_list(self.query_one(Input).value)

        title = safe(summary.title, one_line=True)
        self.app.push_screen(
            ConfirmScreen(
                f"Delete \u201c{title}\u201d ({count_of(summary.message_count, 'message')})?"
            ),
            answered,
        )
