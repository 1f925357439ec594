"""Wide and narrow layout: the side panes beside the chat from NARROW_WIDTH columns, below it folded away with
Ctrl+B flipping between them and the chat (the keyboard follows)."""

from __future__ import annotations

from textual import events

from panelbot.tui.mixin import AppMixin
from panelbot.tui.widgets.prompt import Prompt
from panelbot.tui.widgets.suggestions import SuggestionsList

NARROW_WIDTH = (
    110  # below this the side panes collapse; the toggle key flips between chat and panes
)


class PaneLayout(AppMixin):
    def on_resize(self, event: events.Resize) -> None:
        # the event's size: self.size still holds the previous one while the App handles its Resize
        self._apply_layout(event.size.width)

    def _apply_layout(self, width: int) -> None:
        narrow = width < NARROW_WIDTH
        if narrow != self._narrow:
            self._narrow = narrow
            self._panes_shown = not narrow
        body = self.query_one("#body")
        body.set_class(narrow, "-narrow")
        body.set_class(self._panes_shown, "-panes")

    def action_toggle_sidebar(self) -> None:
        self._show_panes(not self._panes_shown)

    def _show_panes(self, show: bool) -> None:
        self._panes_shown = show
        self.query_one("#body").set_class(show, "-panes")
        if self._narrow and not show:
            self.query_one(Prompt).focus()
        elif self._narrow:  # the chat is hidden: put the keyboard in the panes
            targets = self.query("#target")
            (targets.first() if targets else self.query_one(SuggestionsList)).focus()
