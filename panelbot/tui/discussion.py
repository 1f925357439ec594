"""The panel as a panel in the app: ``/discuss SUBJECT`` (a moderated discussion in the chat), ``/discuss``
with no subject or the palette's "Discuss: map" (a screen of the subjects both panelists spoke to, Enter
discusses one), and follow-ups to the discussion just shown ("why do they disagree?", "Olive, respond to
that"). The work is ``panelbot.discussion``'s (plain Python, run in a worker thread); this module shows it, as
plain text, never markup."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from panelbot.conversation.turns import ConversationTurn
from panelbot.discussion.render import MAP_WORDS, discussion_text
from panelbot.discussion.stage import Discussion, MapEntry
from panelbot.panel import Panel
from panelbot.retrieval.results import ScoredQuote
from panelbot.text import and_list, count_of
from panelbot.tui.mixin import AppMixin
from panelbot.tui.render import plain, safe
from panelbot.tui.widgets.sources import SourcesList

UNWRAPPED = 10_000  # the chat wraps the text itself


class DiscussionMapScreen(ModalScreen["MapEntry | None"]):
    """The subjects both panelists spoke to, one line each (verdict and ids); Enter discusses one."""

    BINDINGS = [Binding("escape,q", "dismiss_none", "Close")]
    DEFAULT_CSS = """
    DiscussionMapScreen { align: center middle; }
    #discuss-map-box { width: 90%; height: 85%; background: $surface; }
    #discuss-map { height: 1fr; border: round $accent; }
    #discuss-map-status { height: auto; color: $text-muted; padding: 0 1; }
    """

    def __init__(self, panel: Panel, compute: Any) -> None:
        super().__init__()
        self.panel = panel
        self._compute = compute  # () -> list[MapEntry], run in a worker thread
        self.entries: list[MapEntry] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="discuss-map-box"):
            yield Static(plain("Measuring where their quotes meet\u2026"), id="discuss-map-status")
            lst = OptionList(id="discuss-map")
            lst.border_title = Content("Subjects both spoke to")
            lst.border_subtitle = "Enter discuss \u00b7 Esc close"
            yield lst

    def on_mount(self) -> None:
        self.run_worker(self._load, thread=True, group="discussion-map", exclusive=True)

    def _load(self) -> None:
        entries = self._compute()
        self.app.call_from_thread(self.show_entries, entries)

    def show_entries(self, entries: list[MapEntry]) -> None:
        self.entries = list(entries)
        lst = self.query_one(OptionList)
        lst.clear_options()
        status = self.query_one("#discuss-map-status", Static)
        if not entries:
            status.update(plain("No subject is measured to have been spoken to by two panelists."))
            return
        names = and_list([self.panel.display_name(p) for p in self.panel.panelists])
        status.update(plain(f"{count_of(len(entries), 'subject')} {names} both spoke to"))
        for i, e in enumerate(entries, 1):
            line = Text(f"{i}. ", style="bold")
            line.append(safe(e.subject, one_line=True))
            line.append(f"  {MAP_WORDS.get(e.verdict, e.verdict)}", style="italic")
            ids = "; ".join(" + ".join(p.ids) for p in e.points)
            line.append(f"  [{safe(ids, one_line=True)}]", style="dim")
            lst.add_option(Option(line))
        lst.highlighted = 0
        lst.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if 0 <= event.option_index < len(self.entries):
            self.dismiss(self.entries[event.option_index])

    def action_dismiss_none(self) -> None:
        self.dismiss(None)


class DiscussionActions(AppMixin):
    _discussion: Discussion | None = None
    _discussion_tools: tuple[Panel, Any, Any] | None = (
        None  # (panel, router, pairing) for that panel
    )

    def _tools(self) -> tuple[Any, Any]:
        """A real router and pairing for the loaded panel (the app's router may be any object)."""
        from panelbot.discussion.pairing import Pairing
        from panelbot.retrieval.router import Router

        panel = self.panel
        assert panel is not None
        if self._discussion_tools is None or self._discussion_tools[0] is not panel:
            router = self.router if isinstance(self.router, Router) else None
            router = router or Router(panel, self.config.retrieval)
            self._discussion_tools = (panel, router, Pairing(router))
        return self._discussion_tools[1], self._discussion_tools[2]

    def _cmd_discuss(self, arg: str) -> None:
        if self.panel is None:
            self.chat_notice("No panel is loaded.", "error")
            return
        if not arg.strip():
            self.action_discussion_map()
            return
        self.chat_notice(plain(f"/discuss {arg.strip()}", one_line=True), "search")
        self.run_worker(
            lambda: self._discuss_in_thread(arg.strip()),
            thread=True,
            group="discussion",
            exclusive=True,
        )

    def _discuss_in_thread(self, subject: str) -> None:
        from panelbot.discussion.stage import discuss

        router, pairing = self._tools()
        d = discuss(router, subject, pairing)
        self.call_from_thread(self.show_discussion, d)

    def show_discussion(self, d: Discussion) -> None:
        """The discussion in the chat (plain text), its quotes in the sources pane, and a turn the
        resolver reads later follow-ups against (the subject, both speakers, every quote shown)."""
        panel = self.panel
        if panel is None:
            return
        self._discussion = d
        text = discussion_text(panel, d, UNWRAPPED)
        self.chat_notice(plain(text), "decline" if d.declined else "search")
        if d.declined:
            return
        quotes = [ScoredQuote(q, 100.0, "discussion") for t in d.turns for q in t.quotes]
        self.last_quotes = quotes
        self.query_one(SourcesList).show(
            panel, quotes, f"Discuss: {safe(d.subject, one_line=True)[:24]}"
        )
        self.turns.append(ConversationTurn(d.subject, d.speakers, d.quote_ids(), "both"))
        # the subject as the user's message: what a resumed conversation's follow-ups are read against
        self._save("user", "", d.subject, [], {"target": "both", "discuss": True})
        self._save("assistant", "", text, d.quote_ids(), {"discussion": d.to_dict()["points"]})

    def action_discussion_map(self) -> None:
        if self.panel is None:
            self.chat_notice("No panel is loaded.", "error")
            return
        from panelbot.discussion.stage import discussion_map

        router, pairing = self._tools()
        screen = DiscussionMapScreen(self.panel, lambda: discussion_map(router, pairing))
        self.push_screen(screen, callback=self._map_chosen)

    def _map_chosen(self, entry: MapEntry | None) -> None:
        if entry is None:
            return
        from panelbot.discussion.stage import entry_discussion

        router, _ = self._tools()
        self.show_discussion(entry_discussion(router, entry))

    def discussion_followup(self, text: str) -> bool:
        """A follow-up to the discussion just shown, answered here (True), or not one (False)."""
        from panelbot.discussion.followups import read_followup

        if self.panel is None or self._discussion is None:
            return False
        got = read_followup(self.panel, self._discussion, text)
        if got is None:
            return False
        self.chat_notice(plain(text, one_line=True), "search")
        self.chat_notice(plain(got.text), "search")
        ids = [q.id for q in got.quotes]
        self._save("user", "", text, [], {})
        self._save("assistant", got.speaker, got.text, ids, {"discussion_followup": got.kind})
        return True
