"""The loaded panel: loading it (its router and backend), switching to another (/panel, the palette), the
header and welcome for it, the side panes rebuilt for it, and who in it answers (the target)."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from panelbot.errors import PanelbotError
from panelbot.panel import PanelInfo
from panelbot.text import and_list
from panelbot.tui import engine
from panelbot.tui.mixin import AppMixin
from panelbot.tui.render import safe
from panelbot.tui.widgets.chat import ChatLog
from panelbot.tui.widgets.panelists import PanelistsPane
from panelbot.tui.widgets.sources import SourcesList
from panelbot.tui.widgets.suggestions import SuggestionsList


class PanelSwitching(AppMixin):
    def _load_panel(self, name: str, *, initial: bool = False) -> bool:
        from panelbot.panel import load_panel

        note = None
        try:
            if self._router_factory is engine.make_router:  # the real router: from the saved index
                panel, router, note = engine.open_panel(name, self.config)
            else:
                panel = load_panel(name)
                router = self._router_factory(panel, self.config)
        except PanelbotError as exc:
            message = f"Cannot load panel {name!r}: {exc}"
            if initial:
                self._startup_notices.append(
                    (message + "  Use /panel NAME to pick another.", "error")
                )
            else:
                self.chat_notice(message, "error")
            return False
        except Exception as exc:  # anything else from loading: a message, never a traceback
            message = f"Cannot load panel {name!r}: {type(exc).__name__}: {exc}"
            if initial:
                self._startup_notices.append((message, "error"))
            else:
                self.chat_notice(message, "error")
            return False
        self.panel, self.router = panel, router
        if note:
            if initial:
                self._startup_notices.append((note, "info"))
            else:
                self.chat_notice(note, "info")
        if self._fixed_backend is not None:
            self.backend = self._fixed_backend
        else:
            self.backend, warning = engine.make_backend(self.config, panel)
            if warning and initial:
                self._startup_notices.append((warning, "warning"))
            elif warning:
                self.chat_notice(warning, "warning")
        self.target = "auto"
        return True

    def installed_panels(self) -> list[PanelInfo]:
        from panelbot.panel import list_panels

        try:
            return list_panels()
        except Exception:
            return []

    def switch_panel(self, name: str) -> None:
        """/panel NAME: load it and start a new conversation with it (the old one stays in history). The panel
        already loaded is left as it is (its conversation too), with a word saying so."""
        if self.panel is not None and name.strip() == self.panel.name:
            self.notify(
                f"{safe(self.panel.name, one_line=True)} is already the panel.", markup=False
            )
            return
        if self.answering:
            self.action_cancel()
        if not self._load_panel(name):
            return
        kept = self.conversation_id is not None  # saved: it stays in history
        self._forget_conversation()
        self.call_later(self._rebuild_for_panel, kept)

    async def _rebuild_for_panel(self, kept: bool = False) -> None:
        await self.query_one(ChatLog).remove_children()
        await self._rebuild_sidebar()
        self.query_one(SourcesList).show_none_yet(self.panel)
        self._refresh_header()
        if kept:
            self.chat_notice("New conversation started; the last one is kept in history.", "info")
        self._welcome()

    async def _rebuild_sidebar(self) -> None:
        sidebar = self.query_one("#sidebar")
        await sidebar.remove_children()
        await sidebar.mount_all(
            [
                PanelistsPane(self.panel, self.target, id="panelists"),
                SuggestionsList(self.panel, id="suggestions"),
            ]
        )

    def _header_text(self) -> Table:
        """Panel title (cut with an ellipsis when narrow) on the left, the answer mode on the right."""
        grid = Table.grid(expand=True, padding=(0, 1))
        grid.add_column(ratio=1, no_wrap=True, overflow="ellipsis")
        grid.add_column(justify="right", no_wrap=True)
        title = safe(self.panel.title, one_line=True) if self.panel else "panelbot: no panel"
        if self.all_talks:
            title = safe(self.all_talks_title(), one_line=True)
        mode = self.backend.label if self.backend else "offline quotes"
        grid.add_row(Text(title, style="bold"), Text(safe(mode, one_line=True), style="italic"))
        return grid

    def _refresh_header(self) -> None:
        self.query_one("#header", Static).update(self._header_text())

    def _welcome(self) -> None:
        assert self.panel is not None
        names = and_list([safe(p.name, one_line=True) for p in self.panel.panelists.values()])
        text = Text()
        text.append(f"Ask {names} anything about the talk.\n", style="bold")
        offline = self.backend is None or engine.is_offline(self.backend)
        text.append(
            "Answers are their own words, with quote ids. Pick a source to read it in context; "
            + (
                "F1 for keys, commands and turning a model on."
                if offline
                else "F1 for keys and commands."
            )
        )
        self.chat_notice(text, "welcome")

    def set_target(self, target: str) -> None:
        self.target = target
        self.query_one(PanelistsPane).select(target)
