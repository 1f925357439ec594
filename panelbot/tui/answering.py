"""Answering a question: route it (read against the conversation so far), then decline in the host's words or
stream the answer: the worker that consumes the backend's events (a model's text, or the offline quotes; a failed
generation falls back to the quotes), Esc to cancel it, Ctrl+R to regenerate with the same quotes."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from rich.text import Text
from textual import work

from panelbot.answer.backends.base import AnswerRequest, Message, SpeakerDone, TextDelta
from panelbot.answer.compose import decline_text
from panelbot.answer.present import STOPPED, answer_meta, present
from panelbot.conversation.resolve import resolve
from panelbot.conversation.turns import ConversationTurn
from panelbot.records import replace
from panelbot.retrieval.results import RouteResult
from panelbot.text import question_too_long
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

    def ask(self, question: str, target: str | None = None) -> bool:
        """Route and answer a question. False (and the text stays in the input) when it can't be asked."""
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
            self._save("user", "", question, meta={"target": target}, title=question[:80])
            self._answer_all_talks(question, target)
            return True
        try:  # read against the conversation so far: "tell me more", "what does Olive think?"
            resolution = resolve(self.router, self.turns, question, target)
        except Exception as exc:
            self._save("user", "", question, meta={"target": target}, title=question[:80])
            self.chat_notice(f"Could not route the question: {exc}", "error")
            return True
        route: RouteResult = resolution.route
        meta: dict[str, Any] = {"target": target}
        if resolution.context is not None:
            meta["context"] = resolution.context
        self._save("user", "", question, meta=meta, title=question[:80])
        if (
            resolution.context is not None and not route.abstained
        ):  # say how the conversation was used
            # (a decline already says it, in the host's words)
            chat.add_notice(
                Text("\u21aa " + safe(route.reason, one_line=True), style="italic"), "context"
            )
        self._last_talks = []  # answered by this talk alone: an all-talks follow-up has nothing to go on with
        turn = ConversationTurn(
            question, list(route.speakers), [sq.quote.id for sq in route.quotes], target
        )
        self.turns.append(turn)
        self.history.append(Message("user", question))
        if route.abstained:
            self._last_answer = None
            self._show_decline(route)
            return True
        if route.note:  # someone asked never spoke to it: say who answers instead
            self.chat_notice(f"{route.note}.", "info")
        self.last_quotes = list(route.quotes)
        self.query_one(SourcesList).show(self.panel, route.quotes)
        self._last_answer = {
            "question": question,
            "route": route,
            "target": target,
            "history": list(self.history[:-1]),
            "blocks": [],
            "message_ids": [],
            "turn": turn,  # what the resolver counts as shown: a stopped answer's quotes come out
        }
        self._answer_worker = self._stream_answer(question, route, target, list(self.history[:-1]))
        return True

    def _show_decline(self, route: RouteResult) -> None:
        assert self.panel is not None
        text = decline_text(self.panel, route)
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
        self._save(
            "decline",
            speaker,
            text,
            meta={
                "reason": route.reason,
                **({"small_talk": route.small_talk} if route.small_talk else {}),
            },
        )
        self.history.append(Message(speaker, text))

    @work(exclusive=True, group="answer", exit_on_error=False)
    async def _stream_answer(
        self, question: str, route: RouteResult, target: str, history: list[Message]
    ) -> None:
        """Consume the backend's events; Esc cancels this worker."""
        assert self.panel is not None and self.backend is not None
        chat = self.query_one(ChatLog)
        blocks: dict[str, AnswerBlock] = {}
        done: set[str] = set()
        conv_id = (
            self.conversation_id
        )  # /clear or /panel may start another while this one winds down
        request = AnswerRequest(question, self.panel, route, history)
        last = (
            self._last_answer if self._last_answer and self._last_answer["route"] is route else None
        )
        try:
            async for event in self.backend.answer(request):
                block = blocks.get(event.speaker)
                if block is None:
                    block = blocks[event.speaker] = chat.add_answer(
                        self.panel, event.speaker, quotes=route.quotes_for(event.speaker)
                    )
                    if last is not None:
                        last["blocks"].append(block)
                if isinstance(event, TextDelta):
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
                    ids = [sq.quote.id for sq in block.quotes]
                    meta: dict[str, Any] = {
                        "target": target,
                        **answer_meta(
                            verdict=event.verdict, grounded=event.grounded, error=event.error
                        ),
                    }
                    if last is not None and last.get("regenerated"):
                        meta["regenerated"] = True
                    # the answer's own words are kept; its verdict and quotes are shown from meta
                    mid = self._save(
                        "assistant", event.speaker, event.text, ids, meta, conv_id=conv_id
                    )
                    if last is not None and mid is not None:
                        last["message_ids"].append(mid)
                    self.history.append(Message(event.speaker, event.text))
            if conv_id == self.conversation_id:
                await self._show_followups_soon()
        except asyncio.CancelledError:
            if last is not None and last.get("turn") is not None:
                self._retell_turn(last, _unfinished_forgotten(last["turn"], route, done))
            for speaker, block in blocks.items():
                if speaker not in done:
                    block.mark(STOPPED)
                    if block.text:
                        self._save(
                            "assistant",
                            speaker,
                            block.text,
                            [sq.quote.id for sq in block.quotes],
                            {"cancelled": True},
                            conv_id=conv_id,
                        )
            if conv_id == self.conversation_id:  # stopped with Esc, not by /clear or /panel
                prompt = self.query_one(Prompt)
                if not prompt.text.strip():
                    prompt.set_text(question)
                self.notify("Stopped. The question is back in the input.", markup=False)
            raise
        except Exception as exc:  # backend down, bad response: a message, never a traceback
            message = safe(str(exc) or type(exc).__name__, one_line=True)
            self.chat_notice(f"The answer failed: {message}", "error")
            self._save("error", "", message, conv_id=conv_id)
        finally:
            chat.scroll_end(animate=False)

    def _retell_turn(self, last: dict[str, Any], turn: ConversationTurn) -> None:
        """The last answer's turn, as the resolver is to count it, in place of the one recorded."""
        old = last.get("turn")
        self.turns = [turn if t is old else t for t in self.turns]
        last["turn"] = turn

    def action_cancel(self) -> None:
        if self.answering and self._answer_worker is not None:
            self._answer_worker.cancel()

    def action_regenerate(self) -> None:
        """Answer the last question again with the same quotes (a model writes a new answer)."""
        last = self._last_answer
        if self.answering:
            self.notify(
                "Still answering; press Esc to stop it first.", severity="warning", markup=False
            )
            return
        if last is None or self.panel is None:
            self.notify(
                "Nothing to regenerate: ask a question first (a decline is not regenerated).",
                markup=False,
            )
            return
        for block in last["blocks"]:
            block.remove()
        for stale in self.query(FollowUps):
            stale.remove()
        if last["message_ids"] and self.store is not None:
            with contextlib.suppress(Exception):
                self.store.delete_messages(last["message_ids"])
        self.history = [*last["history"], Message("user", last["question"])]
        last.update(blocks=[], message_ids=[], regenerated=True)
        route = last["route"]
        turn = last.get("turn")
        if turn is not None:  # answered again with the same quotes: they all count as shown again
            self._retell_turn(
                last, replace(turn, speakers=list(route.speakers), quote_ids=_ids(route))
            )
        self.last_quotes = list(route.quotes)
        self.query_one(SourcesList).show(self.panel, route.quotes)
        self._answer_worker = self._stream_answer(
            last["question"], route, last["target"], list(last["history"])
        )


def _ids(route: RouteResult) -> list[str]:
    return [sq.quote.id for sq in route.quotes]


def _unfinished_forgotten(
    turn: ConversationTurn, route: RouteResult, done: set[str]
) -> ConversationTurn:
    """The turn of an answer stopped before every panelist finished: the quotes of those who did not
    finish were not shown, so a follow-up ("tell me more") or the same question again may give them."""
    unfinished = [s for s in route.speakers if s not in done]
    gone = {sq.quote.id for s in unfinished for sq in route.quotes_for(s)}
    return replace(
        turn,
        speakers=[s for s in turn.speakers if s not in unfinished],
        quote_ids=[q for q in turn.quote_ids if q not in gone],
    )
