"""Export (Ctrl+E, /export [PATH]): the saved conversation as Markdown, to a new file or, after asking, over an
existing one. The Markdown itself is made in ``panelbot.conversation.export``."""

from __future__ import annotations

from pathlib import Path

from panelbot.errors import PanelbotError
from panelbot.tui.mixin import AppMixin


class ExportActions(AppMixin):
    def action_export(self) -> None:
        self.export(None)

    def export(self, path: str | None) -> None:
        from datetime import datetime, timezone

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
        messages = [
            ExportMessage(m.role, panel.display_name(m.speaker) if m.speaker else "", m.text, m.quote_ids)
            for m in stored
        ]

        def lookup(qid: str) -> tuple[str, str] | None:
            q = panel.quote(qid)
            return (panel.display_name(q.speaker), q.text) if q else None

        text = conversation_markdown(title, panel.title, messages, quote_lookup=lookup)
        now = datetime.now(timezone.utc)
        target = Path(path).expanduser() if path else Path.cwd() / default_export_name(title, now)
        if not target.parent.is_dir():  # a typo in the path should not create directories
            self.chat_notice(f"Export failed: {target.parent}: no such directory (create it first)", "error")
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
