"""Suggested follow-ups under the last answer (each known to have an answer in the bank): worked out after an
answer (off the event loop on a large bank), shown, replaced, and focused with Ctrl+G. The widget is
``widgets.followups``; the suggestions come from ``panelbot.conversation.followups``."""

from __future__ import annotations

import asyncio

from panelbot.conversation.followups import FollowUp
from panelbot.conversation.turns import ConversationTurn
from panelbot.tui.mixin import AppMixin
from panelbot.tui.widgets.chat import ChatLog
from panelbot.tui.widgets.followups import FollowUps
from panelbot.tui.widgets.suggestions import DeclineChoices

THREAD_ABOVE = 2000  # quotes in the bank above which follow-ups are worked out in a thread


class FollowUpActions(AppMixin):
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
            # answerable as they will be asked: of the panelist(s) the target selector picks
            return suggest_followups(self.router, turns, target=self.target or "auto")
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
        """Ctrl+G: into the last questions offered in the chat -- the follow-ups under an answer, or the
        "Try:" questions under a decline, whichever came last."""
        pickable = [
            w for w in self.query_one(ChatLog).children if isinstance(w, FollowUps | DeclineChoices)
        ]
        if pickable:
            pickable[-1].focus()
        else:
            self.notify("No follow-ups to pick right now.", markup=False)
