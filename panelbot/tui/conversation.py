"""The app's conversation actions: resume or open a saved conversation, the follow-ups under the last answer,
regenerate (the same quotes), the conversation browser. A mixin of ``PanelbotApp`` so the app module stays
about layout and input; the pieces it shows live in ``widgets.followups`` and ``screens.conversations``."""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING

from panelbot.answer.backends.base import Message
from panelbot.conversation.followups import FollowUp
from panelbot.conversation.resolve import ConversationTurn, turns_from_messages
from panelbot.errors import PanelbotError
from panelbot.tui.render import plain
from panelbot.tui.widgets.chat import ChatLog
from panelbot.tui.widgets.followups import FollowUps
from panelbot.tui.widgets.prompt import Prompt
from panelbot.tui.widgets.sources import SourcesList

if TYPE_CHECKING:
    from panelbot.tui.app import PanelbotApp

    _Base = PanelbotApp
else:
    _Base = object


THREAD_ABOVE = 2000  # quotes in the bank above which follow-ups are worked out in a thread


class ConversationActions(_Base):
    def _resume(self, conv_id: int | None) -> None:
        """``panelbot --resume [ID]``: the given conversation, or the most recent one."""
        store = self.store
        try:
            cid = conv_id if conv_id is not None else (store.last_conversation_id() if store else None)
            opened = store is not None and cid is not None and self.open_conversation(cid)
        except PanelbotError as exc:  # a damaged history database: say so and carry on
            self.chat_notice(f"Cannot resume the conversation: {exc}", "error")
            opened, conv_id = False, None
        if not opened:
            what = f"conversation {conv_id}" if conv_id is not None else "earlier conversation"
            self.chat_notice(f"No {what} to resume; starting a new one.", "info")
            if self.panel is not None:
                self._welcome()

    def open_conversation(self, cid: int) -> bool:
        """Show a saved conversation (the app's or the shell's) and continue it; False if it is gone."""
        store = self.store
        summary = store.conversation(cid) if store else None
        if store is None or summary is None:
            return False
        switched = self.panel is None or summary.panel != self.panel.name
        if switched and not self._load_panel(summary.panel):
            return False
        if self.panel is None:
            return False
        if switched:  # the panes show the conversation's panel
            self.call_later(self._rebuild_sidebar)
        self.action_cancel()
        messages = store.messages(cid)
        self.conversation_id = cid
        self.turns = turns_from_messages(messages)
        self.history = [Message("user" if m.role == "user" else m.speaker, m.text) for m in messages
                        if m.role in ("user", "assistant", "decline")]
        self._last_answer = None
        chat = self.query_one(ChatLog)
        chat.remove_children()
        chat.add_notice(plain(f"Resumed: {summary.title}"), "info")
        self.last_quotes = chat.replay(self.panel, messages)
        prompt = self.query_one(Prompt)
        for m in messages:
            if m.role == "user":
                prompt.remember(m.text)
        self.query_one(SourcesList).show(self.panel, self.last_quotes)
        self._refresh_header()
        self._show_followups()
        return True

    # ------------------------------------------------------------------------------------------ follow-ups

    def _show_followups(self) -> None:
        """Two or three follow-ups under the last answer, each with an answer in the bank."""
        self._mount_followups(self._followups_now())

    async def _show_followups_soon(self) -> None:
        """The same after an answer; on a large bank (where it takes ~0.1-0.2 s) worked out off the event loop
        so the app stays live, on a small one at once (a few ms)."""
        if self.panel is None or len(self.panel.quotes) <= THREAD_ABOVE:
            self._show_followups()
            return
        turns = list(self.turns)
        ups = await asyncio.to_thread(self._followups_now, turns)
        if turns == self.turns:  # nothing was asked meanwhile
            self._mount_followups(ups)

    def _followups_now(self, turns: list[ConversationTurn] | None = None) -> list[FollowUp]:
        from panelbot.conversation.followups import suggest_followups

        turns = self.turns if turns is None else turns
        if self.router is None or not turns:
            return []
        try:
            return suggest_followups(self.router, turns)
        except Exception:
            return []

    def _mount_followups(self, ups: list[FollowUp]) -> None:
        for stale in self.query(FollowUps):
            stale.remove()
        if ups:
            chat = self.query_one(ChatLog)
            chat.mount(FollowUps(ups))
            chat.call_after_refresh(chat.scroll_end, animate=False)

    def action_followups(self) -> None:
        found = self.query(FollowUps)
        if found:
            found.last().focus()
        else:
            self.notify("No follow-ups to pick right now.", markup=False)

    def action_regenerate(self) -> None:
        """Answer the last question again with the same quotes (a model writes a new answer)."""
        last = self._last_answer
        if self.answering:
            self.notify("Still answering; press Esc to stop it first.", severity="warning", markup=False)
            return
        if last is None or self.panel is None:
            self.notify("Nothing to regenerate: ask a question first (a decline is not regenerated).",
                        markup=False)
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
        self.last_quotes = list(route.quotes)
        self.query_one(SourcesList).show(self.panel, route.quotes)
        self._answer_worker = self._stream_answer(last["question"], route, last["target"], list(last["history"]))

    def _cmd_regenerate(self, arg: str) -> None:
        self.action_regenerate()

    def _cmd_history(self, arg: str) -> None:
        self.action_conversations()

    def action_conversations(self) -> None:
        from panelbot.tui.screens.conversations import ConversationsScreen

        store = self.store
        if store is None:
            self.notify("History is off, so there are no saved conversations.", markup=False)
            return

        def deleted(cid: int) -> None:
            if cid == self.conversation_id:  # the open one is gone: what follows starts a new one
                self.conversation_id = None

        def chosen(cid: int | None) -> None:
            if cid is not None and cid != self.conversation_id and not self.open_conversation(cid):
                self.chat_notice(f"Conversation {cid} is no longer there.", "error")

        self.push_screen(ConversationsScreen(store, self.conversation_id, deleted), chosen)
