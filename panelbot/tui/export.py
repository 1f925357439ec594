"""Export (Ctrl+E, /export [PATH]): the saved conversation as Markdown, to a new file or, after asking, over an
existing one. The Markdown itself is made in ``panelbot.conversation.export``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from panelbot.errors import PanelbotError
from panelbot.panel import Panel
from panelbot.tui.mixin import AppMixin
from panelbot.tui.widgets.chat import narration_label, stored_label, stored_status


class ExportActions(AppMixin):
    def action_export(self) -> None:
        self.export(None)

    def export(self, path: str | None) -> None:
        from datetime import datetime, timezone

        from panelbot.answer.present import saved_answer
        from panelbot.conversation.export import (
            ExportMessage,
            conversation_markdown,
            default_export_name,
        )

        store = self.store
        if self.conversation_id is None or store is None or self.panel is None:
            self.notify("Nothing to export yet: ask a question first.", markup=False)
            return
        panel = self.panel
        try:
            summary = store.conversation(self.conversation_id)
            stored = store.messages(self.conversation_id)
        except PanelbotError as exc:
            self.chat_notice(f"Export failed: {exc}", "error")
            return
        title = summary.title if summary else "Conversation"
        talks: dict[str, Panel | None] = {}

        def talk_of(m: Any) -> Panel:
            """The talk a message came from (another one for an answer held in all-talks mode)."""
            name = m.meta.get("panel")
            if not isinstance(name, str) or name == panel.name:
                return panel
            if name not in talks:
                talks[name] = self.panel_named(name)
            return talks[name] or panel

        def lookup_in(talk: Panel) -> Callable[[str], tuple[str, str, str] | None]:
            def lookup(qid: str) -> tuple[str, str, str] | None:
                q = talk.quote(qid)
                return (talk.display_name(q.speaker), q.text, q.note) if q else None

            return lookup

        messages = []
        for m in stored:
            talk = talk_of(m)
            note = stored_status(m.meta)
            role = (
                "reply" if m.role == "decline" and m.meta.get("small_talk") else m.role
            )  # a reply to "hi"
            if role == "search" and "discussion" in m.meta:
                role = "discussion"  # a discussion's host lines, stored as a search is
            label = stored_label(m.meta, m.speaker)
            # the app's own voice, as the chat labels it (a record may hold the host's name)
            who = (
                narration_label(talk, m.speaker, role, label)
                or label
                or (talk.display_name(m.speaker) if m.speaker else "")
            )
            # a generated answer as it was shown: its verdict, its quotes, stopped or not
            shown = (
                saved_answer(m.meta, m.quote_ids, who, talk.quote) if role == "assistant" else None
            )
            messages.append(
                ExportMessage(
                    role,
                    who,
                    m.text,
                    m.quote_ids,
                    note,
                    lookup_in(talk) if talk is not panel else None,
                    shown,
                )
            )
        lookup = lookup_in(panel)

        text = conversation_markdown(title, panel.title, messages, quote_lookup=lookup)
        now = datetime.now(timezone.utc)
        target = Path(path).expanduser() if path else Path.cwd() / default_export_name(title, now)
        if not target.parent.is_dir():  # a typo in the path should not create directories
            self.chat_notice(
                f"Export failed: {target.parent}: no such directory (create it first)", "error"
            )
            return
        self._write_export(target, text, overwrite=False)

    def _write_export(self, target: Path, text: str, *, overwrite: bool) -> None:
        from panelbot.conversation.export import write_export

        try:
            written = write_export(target, text, overwrite=overwrite)
        except FileExistsError:
            from panelbot.tui.screens.confirm import ConfirmScreen

            def answered(yes: bool | None) -> None:
                if yes:
                    self._write_export(target, text, overwrite=True)
                else:
                    self.notify("Export cancelled; the file was left as it was.", markup=False)

            self.push_screen(ConfirmScreen(f"{target} exists. Overwrite it?"), answered)
            return
        except OSError as exc:
            self.chat_notice(f"Export failed: {exc}", "error")
            return
        self.chat_notice(f"Exported the conversation to {written}", "info")
