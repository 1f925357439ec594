"""All talks at once (the palette's "Ask: all talks"): open every installed talk, route a question across them,
and show each answering talk's panelists in their own words, labelled with the talk. A follow-up ("tell me
more") goes on with the talk the last answer came from, read by the conversation resolver against that talk's
turns as in single-talk mode; after an answer from several talks it says which talks to pick from."""

from __future__ import annotations

from typing import Any

from rich.text import Text

from panelbot.answer.backends.base import Message
from panelbot.answer.backends.offline import quotes_text
from panelbot.answer.compose import decline_text, talks_decline_text, talks_small_talk_text
from panelbot.conversation.resolve import resolve
from panelbot.conversation.turns import STANDALONE, ConversationTurn
from panelbot.panel import Panel
from panelbot.retrieval.results import RouteResult
from panelbot.tui import engine
from panelbot.tui.mixin import AppMixin
from panelbot.tui.render import safe
from panelbot.tui.widgets.chat import ALL_TALKS_LABEL, ChatLog, talk_status
from panelbot.tui.widgets.sources import SourcesList


def talk_answer_label(panel: Panel, speaker: str) -> str:
    """How an answer from one of the talks is labelled: the panelist and the talk's title."""
    return f"{panel.display_name(speaker)} \u00b7 {panel.title}"


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
        """A reopened conversation held (partly) in all-talks mode: each talk's turns (a question and that
        talk's answers to it), and the talks the last answer came from, so a follow-up goes on with them."""
        from panelbot.conversation.turns import turns_from_messages

        exchanges: list[
            tuple[Any, list[Any]]
        ] = []  # each question and the answers that followed it
        for m in messages:
            if m.role == "user":
                exchanges.append((m, []))
            elif m.role == "assistant" and exchanges:
                exchanges[-1][1].append(m)
        self._talk_turns, self._last_talks = {}, []
        for question, answers in exchanges:
            talks = list(
                dict.fromkeys(
                    str(a.meta["panel"])
                    for a in answers
                    if a.meta.get("all_talks") and isinstance(a.meta.get("panel"), str)
                )
            )
            for name in talks:
                mine = [a for a in answers if a.meta.get("panel") == name]
                self._talk_turns.setdefault(name, []).extend(turns_from_messages([question, *mine]))
            if answers:
                self._last_talks = talks

    def _talk_router(self, name: str) -> Any:
        """The router of an installed talk opened for all-talks mode, by name; None when it is not open."""
        for router in self._library.routers if self._library is not None else []:
            if router.panel.name == name:
                return router
        return None

    def _answer_all_talks(self, question: str, target: str = "auto") -> None:
        """A follow-up goes on with the last answer's talk; anything else is routed across every talk, and
        each answering talk's panelists reply in their own words."""
        if self._all_talks_followup(question, target) or self._all_talks_small_talk(question):
            return
        chat = self.query_one(ChatLog)
        try:
            answer = self._library.route(question, target if target in ("auto", "both") else "auto")
        except Exception as exc:
            self.chat_notice(f"Could not route the question: {exc}", "error")
            return
        self.history.append(Message("user", question))
        if answer.abstained:
            text = talks_decline_text(answer.suggestions)
            block = chat.add_answer(self.panel, "panel", label=ALL_TALKS_LABEL, kind="decline")
            block.finish(text)
            self.query_one(SourcesList).show(self.panel, [], "Sources: none (declined)")
            self.last_quotes = []
            self._save(
                "decline",
                "panel",
                text,
                meta={"reason": answer.reason, "all_talks": True, "label": ALL_TALKS_LABEL},
            )
            self.history.append(Message("panel", text))
            return
        self._show_talk_answers(question, [(t.panel, t.result) for t in answer.talks], target)

    def _all_talks_small_talk(self, question: str) -> bool:
        """'hi', 'thanks!' (not following up an answer): a friendly reply naming the talks and what they
        covered, instead of a decline. False for anything else."""
        from panelbot.conversation.smalltalk import panel_names, reason, small_talk

        panels = [r.panel for r in self._library.routers] if self._library is not None else []
        kind = small_talk(question, panel_names(*panels))
        if not kind or self._library is None:
            return False
        text = talks_small_talk_text(panels, kind, self._library.suggestions())
        self.history.append(Message("user", question))
        block = self.query_one(ChatLog).add_answer(
            self.panel, "panel", label=ALL_TALKS_LABEL, kind="reply"
        )
        block.finish(text)
        self._save(
            "decline",
            "panel",
            text,
            meta={
                "reason": reason(kind),
                "small_talk": kind,
                "all_talks": True,
                "label": ALL_TALKS_LABEL,
            },
        )
        self.history.append(Message("panel", text))
        return True

    def _show_talk_answers(
        self, question: str, talks: list[tuple[Panel, RouteResult]], target: str
    ) -> None:
        chat = self.query_one(ChatLog)
        for panel, result in talks:
            for speaker in result.speakers:
                quotes = result.quotes_for(speaker)
                label = talk_answer_label(panel, speaker)
                block = chat.add_answer(panel, speaker, quotes=quotes, label=label)
                block.finish(quotes_text(quotes), quotes, talk_status(panel.name))
                self._save(
                    "assistant",
                    speaker,
                    block.text,
                    [sq.quote.id for sq in quotes],
                    {
                        "panel": panel.name,
                        "all_talks": True,
                        "label": label,
                        "status": talk_status(panel.name),
                    },
                )
                self.history.append(Message(speaker, block.text))
            self._talk_turns.setdefault(panel.name, []).append(
                ConversationTurn(
                    question, list(result.speakers), [sq.quote.id for sq in result.quotes], target
                )
            )
        self._last_talks = [panel.name for panel, _ in talks]
        best, result = talks[0]
        self.last_quotes = list(result.quotes)
        self.query_one(SourcesList).show(
            best, result.quotes, f"Sources: {safe(best.name, one_line=True)}"
        )
        chat.scroll_end(animate=False)

    def _all_talks_followup(self, question: str, target: str) -> bool:
        """True when ``question`` follows up the last answer and was handled here: answered (or declined)
        from the talk that answer came from, or -- when it mixed talks -- told which talks to pick from."""
        readings = []
        for name in self._last_talks:
            router = self._talk_router(name)
            if router is None:
                continue
            talk_target = (
                target if target in ("auto", "both") or target in router.panel.panelists else "auto"
            )
            try:
                resolution = resolve(router, self._talk_turns.get(name, []), question, talk_target)
            except Exception:
                continue
            if resolution.kind != STANDALONE:
                readings.append((router.panel, resolution, talk_target))
        if not readings:
            return False
        chat = self.query_one(ChatLog)
        if len(self._last_talks) > 1:
            names = ", ".join(self._last_talks)
            text = (
                f"The last answer came from {len(self._last_talks)} talks ({names}), so it is not clear "
                f"which one to go on with. Pick one: ask the question again naming its subject, or "
                f"switch to it (Ctrl+P \u2192 Panel: {self._last_talks[0]}) and ask there."
            )
            block = chat.add_answer(self.panel, "panel", label=ALL_TALKS_LABEL, kind="decline")
            block.finish(text)
            self._save(
                "decline",
                "panel",
                text,
                meta={
                    "reason": "follow-up after an answer from several talks",
                    "all_talks": True,
                    "label": ALL_TALKS_LABEL,
                },
            )
            self.history += [Message("user", question), Message("panel", text)]
            return True
        panel, resolution, talk_target = readings[0]
        route = resolution.route
        self.history.append(Message("user", question))
        if not route.abstained:
            chat.add_notice(
                Text("\u21aa " + safe(route.reason, one_line=True), style="italic"), "context"
            )
            self._show_talk_answers(question, [(panel, route)], talk_target)
            return True
        host = panel.host
        speaker = host.id if host else "panel"
        label = f"{host.name if host else 'The panel'} \u00b7 {panel.title}"
        text = decline_text(panel, route)
        block = chat.add_answer(
            panel, speaker, label=label, kind="reply" if route.small_talk else "decline"
        )
        block.finish(text, [], talk_status(panel.name))
        self.query_one(SourcesList).show(
            panel, route.nearby, "Sources: nearby" if route.nearby else "Sources: none (declined)"
        )
        self.last_quotes = list(route.nearby)
        social = (
            {"small_talk": route.small_talk} if route.small_talk else {}
        )  # a reply to "hi", not a decline
        self._save(
            "decline",
            speaker,
            text,
            meta={
                "reason": route.reason,
                "all_talks": True,
                **social,
                "panel": panel.name,
                "label": label,
                "status": talk_status(panel.name),
            },
        )
        self.history.append(Message(speaker, text))
        self._talk_turns.setdefault(panel.name, []).append(
            ConversationTurn(question, [], [], talk_target)
        )
        return True
