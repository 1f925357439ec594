"""The quotes behind the current answer: ids, scores and why they were chosen."""

from __future__ import annotations

from textual.content import Content
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from panelbot.panel import Panel
from panelbot.retrieval.results import ScoredQuote
from panelbot.tui.render import source_option
from panelbot.tui.widgets.sidepane import TypeThrough

NONE_YET = "The quotes behind an answer show here."


class SourcesList(TypeThrough, OptionList):
    class Chosen(Message):
        def __init__(self, quote_id: str) -> None:
            super().__init__()
            self.quote_id = quote_id

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.panel: Panel | None = None
        self.quotes: list[ScoredQuote] = []
        self.border_title = "Sources"

    def show(
        self,
        panel: Panel | None,
        quotes: list[ScoredQuote],
        title: str = "Sources",
        *,
        empty: str = "No quotes behind this answer.",
    ) -> None:
        self.panel = panel
        self.quotes = list(quotes)
        self.border_title = Content(title)
        self.clear_options()
        if not quotes:
            self.add_option(Option(Content(empty), disabled=True))
            return
        for i, sq in enumerate(quotes):
            if i:
                self.add_option(None)  # separator
            self.add_option(Option(source_option(panel, sq), id=f"src-{i}"))
        self.highlighted = 0

    def show_none_yet(self, panel: Panel | None) -> None:
        """Before any answer: where its quotes will be (not "no quotes behind this answer")."""
        self.show(panel, [], empty=NONE_YET)

    def highlighted_quote(self) -> ScoredQuote | None:
        if self.highlighted is None:
            return None
        option = self.get_option_at_index(self.highlighted)
        if option.id is None or not option.id.startswith("src-"):
            return None
        return self.quotes[int(option.id[4:])]

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option_id and event.option_id.startswith("src-"):
            self.post_message(self.Chosen(self.quotes[int(event.option_id[4:])].quote.id))
