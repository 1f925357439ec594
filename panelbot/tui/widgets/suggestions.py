"""Questions to ask, selectable: the side pane's suggested questions, and the ones offered with a decline."""

from __future__ import annotations

from textual.content import Content
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from panelbot.panel import Panel
from panelbot.tui.render import safe
from panelbot.tui.widgets.sidepane import TypeThrough


class SuggestionsList(TypeThrough, OptionList):
    """Questions in a user's words that the panel answers (filled once the app's router is ready)."""

    class Ask(Message):
        def __init__(self, question: str) -> None:
            super().__init__()
            self.question = question

    def __init__(self, panel: Panel | None, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.panel = panel
        self.questions: list[str] = []
        self.border_title = "Suggested questions"

    def on_mount(self) -> None:
        self.call_after_refresh(self._fill)

    def _fill(self) -> None:
        from panelbot.tui.engine import suggested_questions

        self.set_questions(suggested_questions(self.panel, getattr(self.app, "router", None)))

    def set_questions(self, questions: list[str]) -> None:
        self.questions = [safe(q, one_line=True) for q in questions]
        self.clear_options()
        for i, q in enumerate(self.questions):
            if i:
                self.add_option(None)  # a separator between questions
            self.add_option(Option(Content(q), id=f"ask-{i}"))
        if self.questions:
            self.highlighted = 0

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option_id and event.option_id.startswith("ask-"):
            self.post_message(self.Ask(self.questions[int(event.option_id[4:])]))


class DeclineChoices(TypeThrough, OptionList):
    """The questions offered with a decline, in the conversation: pick one to ask it (typing goes on in
    the input, and Esc goes back to it, as from a side pane)."""

    def __init__(self, questions: list[str], **kwargs: object) -> None:
        self.questions = [safe(q, one_line=True) for q in questions]
        super().__init__(
            *(Option(Content("Try: " + q), id=f"try-{i}") for i, q in enumerate(self.questions)),
            **kwargs,
        )  # type: ignore[arg-type]

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option_id and event.option_id.startswith("try-"):
            self.post_message(SuggestionsList.Ask(self.questions[int(event.option_id[4:])]))
