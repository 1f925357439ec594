"""Suggested follow-ups under the latest answer: two or three questions that are guaranteed to have an answer
(``panelbot.conversation.followups``), picked with the mouse or the keyboard (Enter)."""

from __future__ import annotations

from textual.content import Content
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from panelbot.conversation.followups import FollowUp
from panelbot.tui.render import safe
from panelbot.tui.widgets.sidepane import TypeThrough


class FollowUps(TypeThrough, OptionList):  # typing goes on in the input, Esc goes back to it
    DEFAULT_CSS = """
    FollowUps {
        height: auto;
        max-height: 5;
        margin: 0 0 0 2;
        padding: 0;
        border: none;
        background: transparent;
        color: $text-muted;
    }
    FollowUps:focus {
        border: none;
        color: $foreground;
    }
    FollowUps > .option-list--option-highlighted {
        text-style: none;
    }
    FollowUps:focus > .option-list--option-highlighted {
        text-style: bold;
    }
    """

    class Ask(Message):
        def __init__(self, question: str) -> None:
            super().__init__()
            self.question = question

    def __init__(self, followups: list[FollowUp], **kwargs: object) -> None:
        self.followups = list(followups)
        options = [
            Option(Content("\u21b3 " + safe(f.text, one_line=True)), id=str(i))
            for i, f in enumerate(self.followups)
        ]
        super().__init__(*options, **kwargs)  # type: ignore[arg-type]
        self._placed = False
        self.tooltip = "Follow-ups that have an answer: click, or Enter (Ctrl+G to get here)"

    def on_resize(self) -> None:
        """Once laid out (its height known), make sure it is in view under the answer."""
        if not self._placed and self.size.height:
            self._placed = True
            self.scroll_visible(animate=False)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option_id is None:
            return
        self.post_message(self.Ask(self.followups[int(event.option_id)].text))
