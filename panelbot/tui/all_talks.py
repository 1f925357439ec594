"""All talks at once (the palette's "Ask: all talks"): open every installed talk, route a question across them,
and show each answering talk's panelists in their own words, labelled with the talk."""

from __future__ import annotations

from panelbot.answer.backends.base import Message
from panelbot.answer.backends.offline import quotes_text
from panelbot.tui import engine
from panelbot.tui.mixin import AppMixin
from panelbot.tui.render import safe
from panelbot.tui.widgets.chat import ChatLog
from panelbot.tui.widgets.sources import SourcesList


class AllTalks(AppMixin):
    def set_all_talks(self, on: bool) -> None:
        """Send questions to every installed talk (True) or to this panel only (False)."""
        if on and self._library is None:
            try:
                self._library, notes = engine.open_library(self.config)
            except Exception as exc:
                self.chat_notice(f"Cannot open the other talks: {safe(str(exc), one_line=True)}", "error")
                return
            for note in notes:
                self.chat_notice(note, "info")
        self.all_talks = on
        n = len(self._library.routers) if on else 1
        self.notify(f"Questions now go to all {n} talks." if on else "Questions now go to this talk only.",
                    markup=False)

    def _answer_all_talks(self, question: str) -> None:
        """Route across every talk; each answering talk's panelists reply in their own words."""
        chat = self.query_one(ChatLog)
        try:
            answer = self._library.route(question)
        except Exception as exc:
            self.chat_notice(f"Could not route the question: {exc}", "error")
            return
        self.history.append(Message("user", question))
        if answer.abstained:
            topics = ", ".join(answer.suggestions[:8])
            text = "None of the talks got into that, so we'd rather not guess." + (
                f" They covered: {topics}." if topics else "")
            block = chat.add_answer(self.panel, "panel", label="All talks", kind="decline")
            block.finish(text)
            self.query_one(SourcesList).show(self.panel, [], "Sources: none (declined)")
            self.last_quotes = []
            self._save("decline", "panel", text, meta={"reason": answer.reason, "all_talks": True})
            self.history.append(Message("panel", text))
            return
        for talk in answer.talks:
            for speaker in talk.result.speakers:
                quotes = talk.result.quotes_for(speaker)
                label = f"{talk.panel.display_name(speaker)} \u00b7 {talk.panel.title}"
                block = chat.add_answer(talk.panel, speaker, quotes=quotes, label=label)
                block.finish(quotes_text(quotes), quotes, f"(from the talk {talk.panel.name})")
                self._save("assistant", speaker, block.text, [sq.quote.id for sq in quotes],
                           {"panel": talk.panel.name, "all_talks": True})
                self.history.append(Message(speaker, block.text))
        best = answer.talks[0]
        self.last_quotes = list(best.result.quotes)
        self.query_one(SourcesList).show(best.panel, best.result.quotes,
                                         f"Sources: {safe(best.panel.name, one_line=True)}")
        chat.scroll_end(animate=False)
