"""A quote in context: the host's question and the panelist's whole answer, the quote highlighted."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from panelbot.panel import Panel
from panelbot.tui.render import highlight_quote, plain, safe, speaker_colour


class ContextScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q", "dismiss", "Close"), Binding("o", "open_link", "Open video")]

    def __init__(self, panel: Panel, quote_id: str) -> None:
        super().__init__()
        self.panel = panel
        self.quote_id = quote_id

    def compose(self) -> ComposeResult:
        question, turn, quote = self.panel.context(self.quote_id)
        with VerticalScroll(id="context-body") as body:
            body.border_title = Content(f"Source {safe(self.quote_id, one_line=True)}")
            body.border_subtitle = "Esc close \u00b7 Ctrl+Y copy quote"
            if quote is None:
                yield Static(plain(f"No quote with id {self.quote_id}"))
                return
            host = self.panel.host.name if self.panel.host else "Host"
            if question is not None:
                q = Text(safe(host, one_line=True) + ": ", style="bold")
                q.append(safe(question.text))
                yield Static(q, classes="context-question")
            colour = speaker_colour(self.panel, quote.speaker)
            yield Static(
                Text(
                    safe(self.panel.display_name(quote.speaker), one_line=True),
                    style=f"bold {colour}",
                )
            )
            if turn is not None:
                yield Static(highlight_quote(turn.text, quote.text), classes="context-turn")
            else:
                yield Static(highlight_quote(quote.text, quote.text), classes="context-turn")
            if quote.note:
                from panelbot.answer.compose import note_line

                yield Static(plain(note_line(quote.id, quote.note)), classes="context-time")
            if quote.start is not None:
                from panelbot.panel.model import format_time

                at = Text(f"Said at {format_time(quote.start)}", style="dim")
                if quote.url:
                    at.append("  " + safe(quote.url, one_line=True) + "  (o opens it)", style="dim")
                    body.border_subtitle = (
                        "Esc close \u00b7 o open video \u00b7 Ctrl+Y copy quote and link"
                    )
                yield Static(at, classes="context-time")

    def copy_payload(self) -> tuple[str, str] | None:
        """What the copy key copies while this screen is open: the quote."""
        quote = self.panel.quote(self.quote_id)
        if quote is None:
            return None
        return (quote.text + (f"\n{quote.url}" if quote.url else ""), f"quote {quote.id}")

    def action_open_link(self) -> None:
        """Open the video at the quote's moment (the terminal or the system's browser does it)."""
        quote = self.panel.quote(self.quote_id)
        if quote is not None and quote.url:
            self.app.open_url(quote.url)
        else:
            self.notify("This quote has no link to its video.", markup=False)
