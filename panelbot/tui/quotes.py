"""Reading the quote bank: search it (/quote) into the chat and the sources pane, and open one quote in the
context of its talk (/source, a picked source)."""

from __future__ import annotations

from rich.text import Text

from panelbot.panel import Panel
from panelbot.retrieval.results import ScoredQuote
from panelbot.tui.mixin import AppMixin
from panelbot.tui.render import safe
from panelbot.tui.widgets.sources import SourcesList


class QuoteActions(AppMixin):
    def search_quotes(self, query: str) -> None:
        """The five best matches for ``query``, with ids, in the chat and in the sources pane (and saved)."""
        if self.router is None:
            self.chat_notice("No panel is loaded.", "error")
            return
        try:
            hits: list[ScoredQuote] = self.router.search(query, k=5)
        except Exception as exc:
            self.chat_notice(f"Search failed: {exc}", "error")
            return
        text = Text("Quotes matching ", style="bold")
        text.append(safe(query, one_line=True), style="bold italic")
        if not hits:
            text.append(": none.", style="bold")
        for sq in hits:
            name = self.panel.display_name(sq.quote.speaker) if self.panel else sq.quote.speaker
            text.append("\n[" + safe(sq.quote.id, one_line=True) + "] ", style="bold")
            text.append(safe(name, one_line=True) + ": ")
            text.append("\u201c" + safe(sq.quote.text, one_line=True) + "\u201d")
            if sq.quote.note:
                from panelbot.answer.compose import note_line

                text.append(" " + safe(note_line(sq.quote.id, sq.quote.note), one_line=True))
        self.chat_notice(text, "search")
        self.last_quotes = hits
        self.query_one(SourcesList).show(
            self.panel, hits, f"Search: {safe(query, one_line=True)[:30]}"
        )
        self._save(
            "search",
            "",
            text.plain,
            [sq.quote.id for sq in hits],
            {"query": query},
            # a conversation begun with it is titled by what was typed, not by the results
            title=f"/quote {query}"[:80],
        )

    def open_source(self, quote_id: str, panel: Panel | None = None) -> None:
        """Show a quote in context; ``panel``: its talk when not this one (sources from all talks). In
        all-talks mode an id is looked for in the talks the last answer came from first (ids repeat across
        talks), then in this panel and the other talks."""
        if panel is None:
            found = [p for p in self._talks_to_search() if p.quote(quote_id) is not None]
            panel = found[0] if found else None
        if panel is None or panel.quote(quote_id) is None:
            where = "any installed talk" if self.all_talks else "this panel"
            self.chat_notice(f"No quote with id {quote_id!r} in {where}.", "error")
            return
        from panelbot.tui.screens.context import ContextScreen

        self.push_screen(ContextScreen(panel, quote_id))

    def _talks_to_search(self) -> list[Panel]:
        """Where /source looks for an id: this panel, or in all-talks mode the last answer's talks first."""
        if not self.all_talks or self._library is None:
            return [self.panel] if self.panel is not None else []
        order = [p for name in self._last_talks if (p := self.talk_panel(name)) is not None]
        order += [self.panel] if self.panel is not None else []
        order += list(self._library.panels)
        return list({id(p): p for p in order}.values())
