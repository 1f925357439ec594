"""Answering a question in the app: the pipeline's turn (:class:`panelbot.conversation.pipeline.Session`: read
against the conversation so far, declined in the host's words or answered through the backend, recorded)
rendered as it forms -- a model's text or the offline quotes (a failed generation falls back to the quotes); Esc
cancels the worker rendering it, Ctrl+R answers the last question again with the same quotes."""

from __future__ import annotations

import asyncio

from rich.text import Text
from textual import work

from panelbot.answer.compose import decline_text
from panelbot.answer.events import Message
from panelbot.answer.present import STOPPED, present
from panelbot.conversation.pipeline import (
    Declined,
    Discussed,
    NotSaved,
    Recorded,
    Session,
    SpeakerDone,
    TextDelta,
    TurnEvent,
)
from panelbot.conversation.session import ConversationLog
from panelbot.conversation.turns import Resolution
from panelbot.retrieval.results import RouteResult
from panelbot.text import question_too_long
from panelbot.tui.engine import is_offline
from panelbot.tui.mixin import AppMixin
from panelbot.tui.render import safe
from panelbot.tui.widgets.chat import AnswerBlock, ChatLog, shown_text
from panelbot.tui.widgets.followups import FollowUps
from panelbot.tui.widgets.prompt import Prompt
from panelbot.tui.widgets.sources import SourcesList
from panelbot.tui.widgets.suggestions import DeclineChoices


class Answering(AppMixin):
    @property
    def answering(self) -> bool:
        return self._answer_worker is not None and self._answer_worker.is_running

    def ask(
        self,
        question: str,
        target: str | None = None,
        *,
        reading: Resolution | None = None,
        discuss: str | None = None,
    ) -> bool:
        """Route and answer a question (``reading``: already read, as /discuss reads its subject; in
        all-talks mode ``discuss`` is the subject /discuss stages on every talk). False (and the text stays
        in the input) when it can't be asked."""
        too_long = question_too_long(question.strip())
        if too_long:
            self.notify(too_long[0].upper() + too_long[1:] + ".", severity="warning", markup=False)
            return False
        question = safe(question).strip()
        if not question:
            return False
        if self.panel is None or self.router is None:
            self.chat_notice(
                "No panel is loaded. Use /panel NAME (see the command palette for installed panels).",
                "error",
            )
            return False
        if self.answering:
            self.notify(
                "Still answering; press Esc to stop it first.", severity="warning", markup=False
            )
            return False
        if self._narrow and self._panes_shown:
            self._show_panes(False)  # asked from the panes: show the conversation
        prompt = self.query_one(Prompt)
        prompt.remember(question)
        chat = self.query_one(ChatLog)
        for stale in self.query(FollowUps):  # offered for the last answer only
            stale.remove()
        chat.add_user(question)
        target = target or self.target
        if self.all_talks:
            self._answer_all_talks(question, target, discuss=discuss)
            return True
        session = self._session()
        try:  # read against the conversation so far: "tell me more", "what does Olive think?"
            resolution = reading if reading is not None else session.read(question, target)
        except Exception as exc:
            self._save("user", "", question, meta={"target": target}, title=question[:80])
            self.chat_notice(f"Could not route the question: {exc}", "error")
            return True
        route: RouteResult = resolution.route
        if (
            resolution.context is not None and not route.abstained
        ):  # say how the conversation was used
            # (a decline already says it, in the host's words)
            chat.add_notice(
                Text("\u21aa " + safe(route.reason, one_line=True), style="italic"), "context"
            )
        self._last_talks = []  # answered by this talk alone: an all-talks follow-up has nothing to go on with
        if route.abstained:
            self._last_answer = None
            for event in session.ask_now(question, target, reading=resolution):
                if isinstance(event, Declined):
                    self._show_decline(route)
                self._turn_event(session.log, event)
            return True
        self._start(session.log, question)
        if resolution.context is None and route.framing:
            # "who is Dan?", "what is this talk about?": the note ask prints under it (who is introduced,
            # the talk's framing), which holds route.note too
            self.chat_notice(f"({route.reason})", "info")
        elif route.note:  # someone asked never spoke to it: say who answers instead
            self.chat_notice(f"{route.note}.", "info")
        self.last_quotes = list(route.quotes)
        self.query_one(SourcesList).show(self.panel, route.quotes)
        self._last_answer = {
            "question": question,
            "route": route,
            "target": target,
            "resolution": resolution,
            "session": session,
            "blocks": [],
        }
        self._answer_worker = self._stream_answer(session, question, resolution, target)
        return True

    def _session(self) -> Session:
        """The pipeline over this conversation: its turns and what was said (the app's own lists), the
        history it is written to, the router and the backend."""
        assert self.panel is not None
        log = ConversationLog(
            self.store,
            self.conversation_id,
            self.panel.name,
            source="app",
            panel_dir=str(self.panel.path.resolve()),
        )
        log.turns = self.turns  # the same list: a turn recorded is the app's at once
        log.said = [(m.role, m.text) for m in self.history]
        return Session(self.panel, self.router, self.backend, log)

    def _start(self, log: ConversationLog, question: str) -> None:
        """The conversation is started in the history as the question is asked (before its answer)."""
        try:
            self.conversation_id = log.start(question[:80])
        except Exception as exc:  # the turn says it was not saved when it is written
            self.notify(f"Could not save to history: {exc}", severity="error", markup=False)

    def _turn_event(self, log: ConversationLog, event: TurnEvent) -> None:
        """The end of a turn: it is the conversation's now (unless /clear or /panel started another),
        and one line when the history could not keep it (the answer stays shown)."""
        if not isinstance(event, Recorded | NotSaved):
            return
        if self.turns is log.turns:  # still this conversation
            self.conversation_id = log.conversation_id
            self.history = [Message(role, text) for role, text in log.said]
        if isinstance(event, NotSaved):
            self.chat_notice(f"Could not save to history: {event.why}", "error")

    def _show_decline(self, route: RouteResult) -> None:
        assert self.panel is not None
        host = self.panel.host
        speaker = host.id if host else "panel"
        label = host.name if host else "The panel"
        chat = self.query_one(ChatLog)
        # small talk ("hi", "thanks!") gets a friendly reply, not a decline
        block = chat.add_answer(
            self.panel, speaker, label=label, kind="reply" if route.small_talk else "decline"
        )
        block.finish(decline_text(self.panel, route, suggest=False))
        if route.suggestions:  # the questions to try, selectable
            chat.mount(DeclineChoices(route.suggestions[:3], classes="decline-choices"))
            chat.call_after_refresh(chat.scroll_end, animate=False)
        # a specific the talk never gave: the closest thing it did say can be opened from the sources pane
        self.query_one(SourcesList).show(
            self.panel,
            route.nearby,
            "Sources: nearby"
            if route.nearby
            else "Sources: none"
            if route.small_talk
            else "Sources: none (declined)",
        )
        self.last_quotes = list(route.nearby)

    @work(exclusive=True, group="answer", exit_on_error=False)
    async def _stream_answer(
        self, session: Session, question: str, resolution: Resolution, target: str
    ) -> None:
        """Render the pipeline's turn as it forms; Esc cancels this worker (the turn is kept as far as
        it got: what was finished counts as shown, the rest is marked stopped)."""
        assert self.panel is not None
        chat = self.query_one(ChatLog)
        route = resolution.route
        blocks: dict[str, AnswerBlock] = {}
        done: set[str] = set()
        tail = ""
        last = (
            self._last_answer if self._last_answer and self._last_answer["route"] is route else None
        )
        try:
            async for event in session.ask(question, target, reading=resolution):
                if isinstance(event, TextDelta | SpeakerDone):
                    block = blocks.get(event.speaker)
                    if block is None:
                        block = blocks[event.speaker] = chat.add_answer(
                            self.panel, event.speaker, quotes=route.quotes_for(event.speaker)
                        )
                        if last is not None:
                            last["blocks"].append(block)
                if isinstance(event, Discussed):
                    # a discussion: the host's lines, the subject now and the points after the turns
                    # unwrapped: the chat pane wraps them to its own width
                    self._host_lines(last, event.reply.head(self.panel, None))
                    tail = event.reply.tail(self.panel, None)
                elif isinstance(event, TextDelta):
                    block.append(event.text)
                    chat.scroll_end(animate=False)
                elif isinstance(event, SpeakerDone):
                    quotes = event.quotes or block.quotes
                    name = self.panel.display_name(event.speaker)
                    shown = present(
                        name,
                        [sq.quote for sq in quotes],
                        verdict=event.verdict,
                        grounded=event.grounded,
                        error=event.error,
                    )
                    text, status = shown_text(event.text, shown, name)
                    block.finish(text, quotes, status)
                    done.add(event.speaker)
                else:
                    if isinstance(event, Recorded | NotSaved):
                        self._host_lines(last, tail)
                    self._turn_event(session.log, event)
            if self.turns is session.log.turns:
                await self._show_followups_soon()
        except asyncio.CancelledError:
            for speaker, block in blocks.items():
                if speaker not in done:
                    block.mark(STOPPED)
            if self.turns is session.log.turns:  # stopped with Esc, not by /clear or /panel
                self.history = session.history
                prompt = self.query_one(Prompt)
                if not prompt.text.strip():
                    prompt.set_text(question)
                self.notify("Stopped. The question is back in the input.", markup=False)
            raise
        except Exception as exc:  # backend down, bad response: a message, never a traceback
            message = safe(str(exc) or type(exc).__name__, one_line=True)
            self.chat_notice(f"The answer failed: {message}", "error")
            if self.turns is session.log.turns:
                self.history = session.history
        finally:
            chat.scroll_end(animate=False)

    def _host_lines(self, last: dict | None, text: str) -> None:
        """A discussion's host lines, taken back with the answer's blocks when it is answered again."""
        shown = self.show_host_lines(text)
        if shown is not None and last is not None:
            last["blocks"].append(shown)

    def action_cancel(self) -> None:
        if self.answering and self._answer_worker is not None:
            self._answer_worker.cancel()

    def _why_nothing_to_regenerate(self) -> str:
        """Why Ctrl+R has no answer to give again, from the last reply in the chat."""
        replies = self.query_one(ChatLog).query(AnswerBlock)
        if not replies:
            return "ask a question first."
        again = "Ctrl+R answers an answered question again."
        kind = replies.last().kind
        if kind == "decline":
            return f"the last question was declined (a decline is the same every time); {again}"
        if kind == "reply":
            return f"the last message was small talk (its reply is the same every time); {again}"
        if self.all_talks or self._last_talks:
            return "an answer across all talks is not given again; ask the question again."
        return "that answer was given before this conversation was opened; ask the question again."

    def action_regenerate(self) -> None:
        """Answer the last question again with the same quotes (a model writes a new answer)."""
        last = self._last_answer
        if self.answering:
            self.notify(
                "Still answering; press Esc to stop it first.", severity="warning", markup=False
            )
            return
        if last is None or self.panel is None:
            self.notify("Nothing to regenerate: " + self._why_nothing_to_regenerate(), markup=False)
            return
        if is_offline(self.backend):
            self.notify(
                "Offline, the same quotes are shown again: a model rewrites them "
                "(PANELBOT_BACKEND=openai; /model says how).",
                markup=False,
            )
        session: Session = last["session"]
        for block in last["blocks"]:
            block.remove()
        for stale in self.query(FollowUps):
            stale.remove()
        # taken back (out of the history too), then answered again with the same quotes
        session.log.forget_last()
        session.regenerated = True
        last.update(blocks=[])
        route = last["route"]
        self.last_quotes = list(route.quotes)
        self.query_one(SourcesList).show(self.panel, route.quotes)
        self._answer_worker = self._stream_answer(
            session, last["question"], last["resolution"], last["target"]
        )
