"""The panel as a panel in the app: ``/discuss SUBJECT`` (a moderated discussion in the chat, a turn of the
conversation like any question: "discuss open weights" typed as a question is one too), ``/discuss`` with no
subject or the palette's "Discuss: map" (a screen of the subjects both panelists spoke to, Enter discusses
one). Follow-ups to the discussion just shown ("why do they disagree?", "Olive, respond to that") are read
by the resolver. The work is ``panelbot.discussion``'s (plain Python, run in a worker thread); this module
shows it, as plain text, never markup."""

from __future__ import annotations

import re
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.css.styles import RulesMap
from textual.screen import ModalScreen
from textual.strip import Strip
from textual.style import Style
from textual.visual import RenderOptions, Visual
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from panelbot.discussion.render import MAP_WORDS
from panelbot.discussion.stage import MapEntry
from panelbot.panel import Panel
from panelbot.text import and_list, count_of, fill_text
from panelbot.tui.mixin import AppMixin
from panelbot.tui.render import plain, safe

_BULLET = re.compile(r"\s*(?:- )?")


class HangingLines(Visual):
    """Plain lines wrapped to the width they are drawn at, a bullet's continuation lines under its text
    (after "- "), not at the edge; ``plain`` is the text as given (one line per point). Never markup."""

    def __init__(self, text: str) -> None:
        self.plain = safe(text)

    def _wrapped(self, width: int) -> Content:
        out: list[str] = []
        for line in self.plain.splitlines():
            lead = _BULLET.match(line)
            prefix = lead.group(0) if lead else ""
            body = line[len(prefix) :]
            hang = " " * len(prefix)
            out.append(fill_text(body, max(width, len(prefix) + 8), prefix, hang) or prefix)
        return Content("\n".join(out))

    def render_strips(
        self, width: int, height: int | None, style: Style, options: RenderOptions
    ) -> list[Strip]:
        return self._wrapped(width).render_strips(width, height, style, options)

    def get_optimal_width(self, rules: RulesMap, container_width: int) -> int:
        return Content(self.plain).get_optimal_width(rules, container_width)

    def get_height(self, rules: RulesMap, width: int) -> int:
        return self._wrapped(width).get_height(rules, width)


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
            line.append(safe(e.name, one_line=True))
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
    """/discuss and the map stage a discussion as a turn of the conversation: the pipeline's (read here as
    a discussion of what was asked, answered and recorded as every turn is); the follow-ups to it ("why do
    they disagree?", "Olive, respond to that") are the resolver's, typed as any question."""

    _discussion_router: tuple[Panel, Any] | None = None  # (panel, a real router for it)

    def _real_router(self) -> Any:
        """A real router for the loaded panel (the app's own when it is one: the follow-ups are read by it)."""
        from panelbot.retrieval.router import Router

        panel = self.panel
        assert panel is not None
        if isinstance(self.router, Router):
            return self.router
        if self._discussion_router is None or self._discussion_router[0] is not panel:
            self._discussion_router = (panel, Router(panel, self.config.retrieval))
        return self._discussion_router[1]

    def _cmd_discuss(self, arg: str) -> None:
        if self.panel is None:
            self.chat_notice("No panel is loaded.", "error")
            return
        if not arg.strip():
            self.action_discussion_map()
            return
        subject = arg.strip()
        if self.all_talks:  # staged on every talk whose panel spoke to it
            self.ask(f"/discuss {subject}", "both", discuss=subject)
            return
        self.run_worker(
            lambda: self._discuss_in_thread(subject),
            thread=True,
            group="discussion",
            exclusive=True,
        )

    def _discuss_in_thread(self, subject: str) -> None:
        from panelbot.discussion.turn import staged

        question = f"/discuss {subject}"
        reading = staged(self._real_router(), subject, question)
        self.call_from_thread(self.ask, question, "both", reading=reading)

    def show_host_lines(self, text: str) -> Any:
        """The host's lines of a discussion (the subject framed; where their quotes meet), plain text: the
        notice shown (None when there is nothing to say), which answering again (Ctrl+R) takes back."""
        from panelbot.tui.widgets.chat import ChatLog

        if not text.strip():
            return None
        return self.query_one(ChatLog).add_host_lines(text)

    def action_discussion_map(self) -> None:
        if self.panel is None:
            self.chat_notice("No panel is loaded.", "error")
            return
        from panelbot.discussion.stage import discussion_map
        from panelbot.discussion.turn import pairing_of

        router = self._real_router()
        screen = DiscussionMapScreen(self.panel, lambda: discussion_map(router, pairing_of(router)))
        self.push_screen(screen, callback=self._map_chosen)

    def _map_chosen(self, entry: MapEntry | None) -> None:
        if entry is None:
            return
        from panelbot.discussion.stage import entry_discussion
        from panelbot.discussion.turn import reading_of

        question = f"/discuss {entry.subject}"
        d = entry_discussion(self._real_router(), entry)
        self.ask(question, "both", reading=reading_of(d, question))
