"""What the side panes (and the questions offered in the chat, reached with Ctrl+G) share: the keyboard
never gets stuck in them.

Typing a character while a side pane has the focus puts it in the question input (and moves the focus there),
and Esc goes back to the input. The pane keeps its own keys (arrows, Enter, Space, Tab).
"""

from __future__ import annotations

from textual import events
from textual.message import Message


class ToInput(Message):
    """Move the focus to the question input, optionally typing ``text`` there."""

    def __init__(self, text: str = "") -> None:
        super().__init__()
        self.text = text


class TypeThrough:
    """Mixin for side-pane widgets (put it first among the bases)."""

    def on_key(self, event: events.Key) -> None:
        if event.key == "escape" or (
            event.is_printable and event.character and event.character != " "
        ):
            event.stop()
            event.prevent_default()
            text = "" if event.key == "escape" else event.character or ""
            self.post_message(ToInput(text))  # type: ignore[attr-defined]
