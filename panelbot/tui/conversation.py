"""The conversation and its history: the store (opened on first use), saving each message as it happens, the
questions of earlier sessions for Up, starting a new conversation (/clear), resuming or opening a saved one, and
the conversation browser (Ctrl+O, /history; the screen is ``screens.conversations``)."""

from __future__ import annotations

from typing import Any

from panelbot.answer.backends.base import Message
from panelbot.conversation.session import PANEL_DIR, panel_dir_of, panel_to_open
from panelbot.conversation.store import ConversationStore
from panelbot.conversation.turns import turns_from_messages
from panelbot.errors import PanelbotError
from panelbot.tui.mixin import AppMixin
from panelbot.tui.render import plain
from panelbot.tui.widgets.chat import ChatLog
from panelbot.tui.widgets.prompt import Prompt
from panelbot.tui.widgets.sources import SourcesList


class ConversationActions(AppMixin):
    @property
    def store(self) -> ConversationStore | None:
        if self._store is None and self._store_error is None:
            from panelbot import paths

            try:
                self._store = ConversationStore(paths.history_db_path())
            except PanelbotError as exc:
                self._store_error = str(exc)
                self.chat_notice(f"History is off: {exc}", "error")
        return self._store

    def _save(
        self,
        role: str,
        speaker: str,
        text: str,
        quote_ids: list[str] | None = None,
        meta: dict[str, Any] | None = None,
        *,
        title: str = "",
        conv_id: int | None = None,
    ) -> int | None:
        """Commit one message now (to ``conv_id``, else the current conversation, started on demand)."""
        store = self.store
        if store is None or self.panel is None:
            return None
        try:
            if conv_id is None:
                if self.conversation_id is None:
                    self.conversation_id = store.new_conversation(
                        self.panel.name, title or text[:80]
                    )
                    if role == "user":  # so the shell's -c and the app reopen a panel given by path
                        meta = {**(meta or {}), PANEL_DIR: str(self.panel.path.resolve())}
                conv_id = self.conversation_id
            return store.add_message(conv_id, role, speaker, text, quote_ids or [], meta or {})
        except Exception as exc:
            self.chat_notice(f"Could not save to history: {exc}", "error")
            return None

    def _load_question_history(self) -> None:
        from panelbot import paths

        if self._store is None and not paths.history_db_path().exists():
            return  # nothing asked yet: don't create the database just to read it
        store = self.store
        if store is None:
            return
        prompt = self.query_one(Prompt)
        try:
            earlier = store.recent_questions(
                exclude=self.conversation_id
            )  # this session's are there
        except Exception:
            return
        prompt.question_history[:0] = earlier

    def _forget_conversation(self) -> None:
        """What follows starts a new conversation (the last one stays in the store)."""
        self.conversation_id = None
        self.history = []
        self.turns = []
        self._talk_turns, self._last_talks = {}, []
        self._last_answer = None
        self.last_quotes = []

    def new_conversation(self) -> None:
        """/clear: stop any answer and start afresh on the same panel."""
        self.action_cancel()
        kept = self.conversation_id is not None  # saved: it stays in history (as /panel says it)
        self._forget_conversation()
        chat = self.query_one(ChatLog)
        chat.remove_children()
        chat.add_notice(
            "New conversation started; the last one is kept in history."
            if kept
            else "New conversation started.",
            "info",
        )
        self.query_one(SourcesList).show_none_yet(self.panel)

    def _resume(self, conv_id: int | None) -> None:
        """``panelbot --resume [ID]``: the given conversation, or the most recent one."""
        store = self.store
        try:
            cid = (
                conv_id
                if conv_id is not None
                else (store.last_conversation_id() if store else None)
            )
            opened = store is not None and cid is not None and self.open_conversation(cid)
            # there, but its panel could not be loaded (that was said): not "no conversation"
            there = (
                not opened
                and store is not None
                and cid is not None
                and store.conversation(cid) is not None
            )
        except PanelbotError as exc:  # a damaged history database: say so and carry on
            self.chat_notice(f"Cannot resume the conversation: {exc}", "error")
            opened, there, conv_id = False, False, None
        if not opened:
            what = f"conversation {conv_id}" if conv_id is not None else "earlier conversation"
            self.chat_notice(
                "Starting a new conversation."
                if there
                else f"No {what} to resume; starting a new one.",
                "info",
            )
            if self.panel is not None:
                self._welcome()

    def open_conversation(self, cid: int) -> bool:
        """Show a saved conversation (the app's or the shell's) and continue it; False if it is gone."""
        store = self.store
        summary = store.conversation(cid) if store else None
        if store is None or summary is None:
            return False
        switched = self.panel is None or summary.panel != self.panel.name
        if switched and not self._load_panel(
            panel_to_open(summary.panel, panel_dir_of(store.messages(cid)))
        ):
            return False
        if self.panel is None:
            return False
        if switched:  # the panes show the conversation's panel
            self.call_later(self._rebuild_sidebar)
        self.action_cancel()
        messages = store.messages(cid)
        self.conversation_id = cid
        self.turns = turns_from_messages(messages)
        self._restore_talk_turns(messages)
        self.history = [  # what the model is told was said: not an answer stopped half way
            Message("user" if m.role == "user" else m.speaker, m.text)
            for m in messages
            if m.role in ("user", "assistant", "decline") and not m.meta.get("cancelled")
        ]
        self._last_answer = None
        chat = self.query_one(ChatLog)
        chat.remove_children()
        chat.add_notice(plain(f"Resumed: {summary.title}"), "info")
        self.last_quotes = chat.replay(self.panel, messages, self.panel_named)
        prompt = self.query_one(Prompt)
        for m in messages:
            if m.role == "user":
                prompt.remember(m.text)
        self.query_one(SourcesList).show(self.panel, self.last_quotes)
        self._refresh_header()
        self._show_followups()
        return True

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
            if cid is None or cid == self.conversation_id or self.open_conversation(cid):
                return
            if store.conversation(cid) is None:  # else its panel could not be loaded: that was said
                self.chat_notice(f"Conversation {cid} is no longer there.", "error")

        self.push_screen(ConversationsScreen(store, self.conversation_id, deleted), chosen)
