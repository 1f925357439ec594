"""Copy (Ctrl+Y): what is copied (the open screen's payload, the highlighted source with its link, else the last
answer) and how (OSC 52, control sequences stripped and keys scrubbed first)."""

from __future__ import annotations

from panelbot.redact import scrub
from panelbot.text import strip_control
from panelbot.tui.mixin import AppMixin
from panelbot.tui.widgets.chat import ChatLog
from panelbot.tui.widgets.sources import SourcesList


class Clipboard(AppMixin):
    def action_copy(self) -> None:
        payload_fn = getattr(self.screen, "copy_payload", None)
        payload = payload_fn() if callable(payload_fn) else None
        if payload is None:
            sources = self.query_one(SourcesList)
            sq = sources.highlighted_quote() if sources.has_focus else None
            if sq is not None:
                link = (
                    f"\n{sq.quote.url}" if sq.quote.url else ""
                )  # the moment in the video, to open
                payload = (
                    sq.quote.text + link,
                    f"quote {sq.quote.id}" + (" and its link" if link else ""),
                )
        if payload is None:
            answers = self.query_one(ChatLog).answers()
            if answers:
                payload = (answers[-1].text, "the last answer")
        if payload is None:
            self.notify("Nothing to copy yet.", markup=False)
            return
        self.copy_text(*payload)

    def copy_text(self, text: str, what: str) -> None:
        text = scrub(strip_control(text))  # the clipboard is another terminal: no escapes, no key
        try:
            self.copy_to_clipboard(text)
        except Exception as exc:  # no terminal / clipboard: say so, don't crash
            self.notify(f"Could not copy: {exc}", severity="warning", markup=False)
            return
        self.notify(f"Copied {what} (OSC 52).", markup=False)
