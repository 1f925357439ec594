"""All talks at once (the palette's "Ask: all talks"): open every installed talk, route a question across them,
and show each answering talk's panelists in their own words, labelled with the talk. A follow-up ("tell me
more") goes on with the talk the last answer came from, read by the conversation resolver against that talk's
turns as in single-talk mode; after an answer from several talks it says which talks to pick from."""

from __future__ import annotations

from typing import Any

from rich.text import Text

from panelbot.conversation.pipeline import (
    ALL_TALKS_LABEL,
    Declined,
    NotSaved,
    Recorded,
    Resolved,
    TalkAnswered,
    TalkDiscussed,
    TalksDiscussed,
    TalksSession,
    talk_answer_label,
    talk_status,
)
from panelbot.conversation.store import NARRATOR_LABEL
from panelbot.panel import Panel
from panelbot.tui import engine
from panelbot.tui.mixin import AppMixin
from panelbot.tui.render import safe
from panelbot.tui.widgets.chat import ChatLog, decline_choices
from panelbot.tui.widgets.sources import SourcesList
from panelbot.tui.widgets.suggestions import DeclineChoices

__all__ = ["AllTalks", "talk_answer_label"]


class AllTalks(AppMixin):
    def set_all_talks(self, on: bool) -> None:
        """Send questions to every installed talk (True) or to this panel only (False)."""
        if on and self._library is None:
            try:
                self._library, notes = engine.open_library(self.config)
            except Exception as exc:
                self.chat_notice(
                    f"Cannot open the other talks: {safe(str(exc), one_line=True)}", "error"
                )
                return
            for note in notes:
                self.chat_notice(note, "info")
        self.all_talks = on
        n = len(self._library.routers) if on else 1
        if not on:
            self.notify("Questions now go to this talk only.", markup=False)
        elif n == 1:
            self.notify("Questions now go to all talks (1 is installed).", markup=False)
        else:
            self.notify(f"Questions now go to all {n} talks.", markup=False)
        self._refresh_header()

    def all_talks_title(self) -> str:
        """The header's title in all-talks mode."""
        names = [p.name for p in self._library.panels] if self._library is not None else []
        return f"All talks ({len(names)}): " + ", ".join(names)

    def talk_panel(self, name: str) -> Panel | None:
        """An installed talk by name (the loaded panel, or one of the talks opened for all-talks mode)."""
        if self.panel is not None and self.panel.name == name:
            return self.panel
        router = self._talk_router(name)
        return router.panel if router is not None else None  # type: ignore[no-any-return]

    def panel_named(self, name: str) -> Panel | None:
        """An installed talk by name, loaded when it is not open (a conversation held in all-talks mode
        reopened); None when it cannot be loaded."""
        found = self.talk_panel(name)
        if found is not None:
            return found
        from panelbot.panel import load_panel

        try:
            return load_panel(name)
        except Exception:
            return None

    def _restore_talk_turns(self, messages: list[Any]) -> None:
        """A reopened conversation held (partly) in all-talks mode: each talk's turns, and the talks the
        last answer came from, so a follow-up goes on with them."""
        talks = TalksSession(self._library) if self._library is not None else TalksSession(None)
        talks.restore(messages)
        self._talk_turns, self._last_talks = talks.talk_turns, talks.last_talks

    def _talk_router(self, name: str) -> Any:
        """The router of an installed talk opened for all-talks mode, by name; None when it is not open."""
        return TalksSession(self._library).router(name) if self._library is not None else None

    def _answer_all_talks(
        self, question: str, target: str = "auto", *, discuss: str | None = None
    ) -> None:
        """The pipeline's turn across every talk (a follow-up goes on with the last answer's talk), shown:
        each answering talk's panelists in their own words, labelled with the talk; a discussion (typed,
        or /discuss: ``discuss`` is its subject) staged on each talk whose panel spoke to it."""
        talks = TalksSession(self._library, self._session().log)
        talks.talk_turns, talks.last_talks = self._talk_turns, self._last_talks
        self._start(talks.log, question)
        answered: list[TalkAnswered | TalkDiscussed] = []
        events = talks.discuss(discuss, question) if discuss else talks.ask(question, target)
        try:
            for event in events:
                if isinstance(event, TalksDiscussed):
                    self.query_one(ChatLog).add_notice(
                        Text("\u21aa " + safe(event.reason, one_line=True), style="italic"),
                        "context",
                    )
                elif isinstance(event, TalkDiscussed):
                    answered.append(event)
                    self._show_talk_discussion(event)
                elif isinstance(event, Resolved) and not event.route.abstained:
                    self.query_one(ChatLog).add_notice(
                        Text("\u21aa " + safe(event.route.reason, one_line=True), style="italic"),
                        "context",
                    )
                elif isinstance(event, TalkAnswered):
                    answered.append(event)
                    self._show_talk_answer(event)
                elif isinstance(event, Declined):
                    self._show_talks_decline(event)
                elif isinstance(event, Recorded | NotSaved):
                    self._turn_event(talks.log, event)
        except Exception as exc:
            self.chat_notice(f"Could not route the question: {exc}", "error")
            return
        self._last_talks = talks.last_talks
        if answered:
            best = answered[0]
            route = best.route if isinstance(best, TalkAnswered) else best.resolution.route
            self.last_quotes = list(route.quotes)
            self.query_one(SourcesList).show(
                best.panel, route.quotes, f"Sources: {safe(best.panel.name, one_line=True)}"
            )
        self.query_one(ChatLog).scroll_end(animate=False)

    def _show_talk_discussion(self, event: TalkDiscussed) -> None:
        """One talk's discussion: its host's lines (the talk named) around its panelists' turns, each
        labelled with the talk, as plain text (the chat pane wraps it)."""
        chat = self.query_one(ChatLog)
        panel, route = event.panel, event.resolution.route
        reply = event.discussed.reply
        head = reply.head(panel, None)
        if head:
            self.show_host_lines(f"{panel.title} [{panel.name}]\n{head}")
        for done in event.dones:
            quotes = done.quotes or route.quotes_for(done.speaker)
            label = talk_answer_label(panel, done.speaker)
            block = chat.add_answer(panel, done.speaker, quotes=quotes, label=label)
            block.finish(done.text, quotes, talk_status(panel.name))
        self.show_host_lines(reply.tail(panel, None))

    def _show_talk_answer(self, event: TalkAnswered) -> None:
        chat = self.query_one(ChatLog)
        panel, route = event.panel, event.route
        for speaker in route.speakers:
            quotes = route.quotes_for(speaker)
            label = talk_answer_label(panel, speaker)
            block = chat.add_answer(panel, speaker, quotes=quotes, label=label)
            block.finish(event.texts[speaker], quotes, talk_status(panel.name))

    def _offer(self, chat: ChatLog, questions: list[str]) -> None:
        """A decline's questions to try, selectable under it."""
        if questions:
            chat.mount(DeclineChoices(questions[:3], classes="decline-choices"))
            chat.call_after_refresh(chat.scroll_end, animate=False)

    def _show_talks_decline(self, event: Declined) -> None:
        """A decline (or a reply to small talk): for every talk at once, or from the talk followed up."""
        chat = self.query_one(ChatLog)
        kind = "reply" if event.small_talk else "decline"
        panel = event.panel
        # its "Try:" questions offered to pick (Ctrl+G reaches them), as in single-talk mode and resumed
        route = event.route
        offered = {"suggestions": list(route.suggestions)} if route and route.suggestions else {}
        text, choices = decline_choices(event.text, offered)
        if panel is None:
            block = chat.add_answer(self.panel, "panel", label=ALL_TALKS_LABEL, kind=kind)
            block.finish(text)
            self._offer(chat, choices)
            if event.meta.get("across"):  # no talk got into the question
                self.query_one(SourcesList).show(self.panel, [], "Sources: none (declined)")
                self.last_quotes = []
            return
        label = f"{NARRATOR_LABEL} \u00b7 {panel.title}"  # the app's own voice for that talk
        block = chat.add_answer(panel, event.speaker, label=label, kind=kind)
        block.finish(text, [], talk_status(panel.name))
        self._offer(chat, choices)
        nearby = event.route.nearby if event.route is not None else []
        self.query_one(SourcesList).show(
            panel, nearby, "Sources: nearby" if nearby else "Sources: none (declined)"
        )
        self.last_quotes = list(nearby)
