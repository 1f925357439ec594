"""The panel's own host questions, selectable to ask."""

from __future__ import annotations

from textual.content import Content
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from panelbot.panel import Panel
from panelbot.tui.render import safe


class SuggestionsList(OptionList):
    class Ask(Message):
        def __init__(self, question: str) -> None:
            super().__init__()
            self.question = question

    def __init__(self, panel: Panel | None, **kwargs: object) -> None:
        options: list[Option | None] = []
        for q in panel.questions if panel else []:
            if options:
                options.append(None)  # a separator between questions
            options.append(Option(Content(safe(q.text, one_line=True)), id=q.id))
        super().__init__(*options, **kwargs)  # type: ignore[arg-type]
        self.panel = panel
        self.border_title = "Suggested questions"

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if self.panel is None or event.option_id is None:
            return
        question = self.panel.question(event.option_id)
        if question is not None:
            self.post_message(self.Ask(safe(question.text, one_line=True)))
