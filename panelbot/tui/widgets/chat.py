"""The conversation: questions, answers labelled and coloured by speaker, declines, notices."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from rich.text import Text
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import Static

from panelbot.answer.present import Shown, saved_answer, verbatim
from panelbot.conversation.pipeline import ALL_TALKS_LABEL, talk_status
from panelbot.conversation.store import NARRATOR_LABEL
from panelbot.panel import Panel
from panelbot.retrieval.results import ScoredQuote
from panelbot.tui.render import answer_body, plain, safe, speaker_colour
from panelbot.tui.widgets.suggestions import DeclineChoices

TRY_LINE = re.compile(r"\u201c([^\u201d]{1,300})\u201d")  # a stored decline's "Try: “…” · “…”"


def stored_label(meta: dict[str, Any], speaker: str) -> str | None:
    """The label a stored answer was shown with: saved with it, else (saved before labels were) the all-talks
    one for the panel's own voice; None when the speaker's name does."""
    label = meta.get("label")
    if label:
        return str(label)
    return ALL_TALKS_LABEL if meta.get("all_talks") and speaker == "panel" else None


def stored_status(meta: dict[str, Any]) -> str:
    """The line a stored answer was shown with under it: saved with it, else which talk it came from."""
    other = meta.get("panel")
    if meta.get("status"):
        return str(meta["status"])
    return talk_status(other) if meta.get("all_talks") and isinstance(other, str) else ""


def decline_choices(text: str, meta: dict[str, Any]) -> tuple[str, list[str]]:
    """A stored decline as the app shows it: its text without the "Try:" line, and the questions that
    line offered (to pick again, as when it was first shown); ``meta["suggestions"]`` when saved."""
    saved = meta.get("suggestions")
    head, _, last = text.rpartition("\n")
    if not last.startswith("Try: "):
        return text, [str(q) for q in saved] if isinstance(saved, list) else []
    if isinstance(saved, list):
        return head, [str(q) for q in saved]
    return head, TRY_LINE.findall(last)


def is_narration(panel: Panel | None, speaker: str, kind: str) -> bool:
    """A decline or small-talk reply in the panel's host's name is the app speaking, not the talk's host."""
    host = panel.host if panel is not None else None
    return kind in ("decline", "reply") and host is not None and speaker == host.id


def narration_label(panel: Panel | None, speaker: str, kind: str, label: str | None) -> str | None:
    """The label the app's own voice is shown with: ``label`` when it already is the app's ("panelbot ·
    <talk>" in all-talks mode), else plain "panelbot" (a record kept the host's name); None when the
    message is no narration (the given label stands)."""
    if not is_narration(panel, speaker, kind):
        return None
    return label if label and label.startswith(NARRATOR_LABEL) else NARRATOR_LABEL


def shown_text(text: str, shown: Shown, name: str, status: str = "") -> tuple[str, str]:
    """An answer block's text and status line, from the answer and what goes with it: the verdict (the
    sentences not supported, the notes on the quotes it cites) under it, and the speaker's own words after
    it when it is not grounded. ``status``: a line of the front end's own (which talk it came from)."""
    lines = [shown.status_line("(", ")"), *(f"({d})" for d in shown.details + shown.notes), status]
    label = shown.quotes_label(name)
    if shown.own_words and shown.quotes and label not in text:  # (an older record holds them)
        text = f"{text}\n\n{label}\n\n{verbatim(shown.quotes)}"
    return text, "\n".join(filter(None, lines))


class UserMessage(Static):
    def __init__(self, text: str) -> None:
        body = Text("You  ", style="bold")
        body.append(safe(text))
        super().__init__(body, classes="user-message")


class Notice(Static):
    """A line from the app itself: errors, search results, export confirmations."""

    def __init__(self, text: str | Text, kind: str = "info") -> None:
        body = text if isinstance(text, Text) else plain(text)
        super().__init__(body, classes=f"notice -{kind}")


class AnswerBlock(Static):
    """One speaker's answer. Streams: ``append`` per delta, ``finish`` with the whole text at the end."""

    class Picked(Message):
        def __init__(self, block: AnswerBlock) -> None:
            super().__init__()
            self.block = block

    def __init__(
        self,
        panel: Panel | None,
        speaker: str,
        *,
        label: str | None = None,
        kind: str = "answer",
        quotes: list[ScoredQuote] | None = None,
    ) -> None:
        super().__init__("", classes=f"answer -{kind}")
        self.panel = panel
        self.speaker = speaker
        self.kind = kind
        self.text = ""
        self.quotes: list[ScoredQuote] = list(quotes or [])
        self.status = ""
        self.colour = speaker_colour(panel, speaker)
        label = narration_label(panel, speaker, kind, label) or label
        self.label = safe(
            label or (panel.display_name(speaker) if panel else speaker), one_line=True
        )
        self.styles.border_left = ("thick", self.colour)

    def on_mount(self) -> None:
        self._refresh_body()

    def _refresh_body(self) -> None:
        body = Text()
        body.append(self.label, style=f"bold {self.colour}")
        if self.kind == "decline":
            body.append("  (declines)", style="dim")
        body.append("\n")
        body.append_text(answer_body(self.text) if self.text else Text("\u2026", style="dim"))
        if self.status:
            body.append("\n" + safe(self.status), style="italic dim")
        self.update(body)

    def append(self, delta: str) -> None:
        self.text += safe(delta)
        self._refresh_body()

    def finish(self, text: str, quotes: list[ScoredQuote] | None = None, status: str = "") -> None:
        """The final full update after the stream: the backend's whole, sanitised answer."""
        self.text = safe(text)
        if quotes is not None:
            self.quotes = list(quotes)
        self.status = status
        self._refresh_body()

    def mark(self, status: str) -> None:
        self.status = status
        self._refresh_body()

    def on_click(self) -> None:
        self.post_message(self.Picked(self))


class ChatLog(VerticalScroll):
    """Scrolls to the newest message as messages arrive, and stays on it through a resize when it was there
    (a reader scrolled up stays where they were)."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.can_focus = False
        self._at_end = True  # on the newest message: kept there when the size changes

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        self._at_end = new_value >= self.max_scroll_y

    def on_resize(self) -> None:
        if self._at_end:
            self.call_after_refresh(self.scroll_end, animate=False, immediate=True)

    def _add(self, widget: Static) -> Static:
        self.mount(widget)
        self.call_after_refresh(self.scroll_end, animate=False)
        return widget

    def add_user(self, text: str) -> UserMessage:
        return self._add(UserMessage(text))  # type: ignore[return-value]

    def add_notice(self, text: str | Text, kind: str = "info") -> Notice:
        return self._add(Notice(text, kind))  # type: ignore[return-value]

    def add_host_lines(self, text: str) -> Notice:
        """A discussion's host lines (the subject framed; where the quotes meet), plain text, a point's
        wrapped lines hanging under its "- ": live and resumed alike."""
        from panelbot.tui.discussion import HangingLines

        notice = self.add_notice(plain(text), "search")
        notice.update(HangingLines(text))
        return notice

    def add_answer(self, panel: Panel | None, speaker: str, **kwargs: object) -> AnswerBlock:
        return self._add(AnswerBlock(panel, speaker, **kwargs))  # type: ignore[arg-type,return-value]

    def answers(self) -> list[AnswerBlock]:
        return list(self.query(AnswerBlock))

    def replay(
        self,
        panel: Panel,
        messages: Sequence[Any],
        talk: Callable[[str], Panel | None] | None = None,
    ) -> list[ScoredQuote]:
        """Show stored messages (a resumed conversation) as they looked, labels included (an answer from
        another talk, held in all-talks mode, is read against that talk: ``talk(name)``); returns the last
        answer's quotes."""
        last: list[ScoredQuote] = []
        host = panel.host.name if panel.host else "The panel"
        talks: dict[str, Panel | None] = {}
        for m in messages:
            if m.role == "user":
                self.add_user(m.text)
            elif m.role in ("assistant", "decline"):
                other = m.meta.get("panel")
                if talk is not None and isinstance(other, str) and other not in talks:
                    talks[other] = talk(other)
                source = (talks.get(other) if isinstance(other, str) else None) or panel
                quotes = [
                    ScoredQuote(q, 0.0, "from history")
                    for qid in m.quote_ids
                    if (q := source.quote(qid)) is not None
                ]
                decline = m.role == "decline"
                label = stored_label(m.meta, m.speaker) or (host if decline else None)
                kind = ("reply" if m.meta.get("small_talk") else "decline") if decline else "answer"
                block = self.add_answer(source, m.speaker, quotes=quotes, label=label, kind=kind)
                if decline:
                    text, choices = decline_choices(m.text, m.meta)
                    block.finish(text, quotes, stored_status(m.meta))
                    if choices:  # to pick, as when it was first shown
                        self._add(DeclineChoices(choices[:3], classes="decline-choices"))
                else:  # as it was shown: its verdict, its quotes, stopped or not, from what was kept
                    name = label or source.display_name(m.speaker)
                    shown = saved_answer(m.meta, m.quote_ids, name, source.quote)
                    text, status = shown_text(m.text, shown, name, stored_status(m.meta))
                    block.finish(text, quotes, status)
                if quotes:
                    last = quotes
            elif m.role == "search" and "discussion" in m.meta:
                self.add_host_lines(m.text)  # a discussion's points, as shown live
            else:
                self.add_notice(plain(m.text), "error" if m.role == "error" else "search")
        return last

    async def clear(self) -> None:
        await self.remove_children()
