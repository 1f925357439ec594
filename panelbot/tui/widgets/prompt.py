"""The question input: Enter sends, a newline key that works everywhere (Ctrl+J), history on up/down."""

from __future__ import annotations

from textual.binding import Binding
from textual.content import Content
from textual.message import Message
from textual.widgets import TextArea


class Prompt(TextArea):
    """Multi-line input. Up on the first line / down on the last line walk the question history."""

    BINDINGS = [
        Binding("enter", "submit", "Send", id="send", priority=True),
        Binding("ctrl+j", "newline", "New line", id="newline", show=False, priority=True),
        Binding("up", "history(-1)", show=False),
        Binding("down", "history(1)", show=False),
        Binding("pageup", "scroll_chat(-1)", "Scroll up", show=False),
        Binding("pagedown", "scroll_chat(1)", "Scroll down", show=False),
    ]

    class Submitted(Message):
        def __init__(self, prompt: Prompt, text: str) -> None:
            super().__init__()
            self.prompt = prompt
            self.text = text

    def __init__(
        self, send_key: str = "Enter", newline_key: str = "Ctrl+J", **kwargs: object
    ) -> None:
        # longest first: the one shown is the longest that fits the input's width (3 panes leave it narrow);
        # Content, not str: TextArea reads a str placeholder as markup, and the key names come from config
        placeholders = tuple(
            Content(p)
            for p in (
                f"Ask the panel anything  ({send_key} send \u00b7 {newline_key} new line \u00b7 /help)",
                f"Ask the panel  ({send_key} send \u00b7 {newline_key} new line)",
                f"Ask the panel  ({send_key} send \u00b7 /help)",
                f"Ask the panel  ({send_key} send)",
                "Ask the panel",
            )
        )
        super().__init__(
            soft_wrap=True,
            show_line_numbers=False,
            tab_behavior="focus",
            compact=True,
            placeholder=placeholders[0],
            **kwargs,  # type: ignore[arg-type]
        )
        self._placeholders = placeholders
        self.question_history: list[str] = []
        self._history_pos: int | None = None
        self._draft = ""

    def on_resize(self) -> None:
        width = self.content_size.width - 1  # the cursor sits on the placeholder's first cell
        self.placeholder = next(
            (p for p in self._placeholders if p.cell_length <= width), self._placeholders[-1]
        )

    def action_submit(self) -> None:
        # Enter is a priority binding, handled before key presses already queued for this widget
        # (typed or pasted in the same burst, e.g. over ssh or from tmux send-keys); submit only after
        # they have been inserted, so the text is complete.
        self.call_later(self._submit)

    def _submit(self) -> None:
        text = self.text
        if not text.strip():
            return
        self.post_message(self.Submitted(self, text))

    def action_scroll_chat(self, pages: int) -> None:
        """PageUp / PageDown scroll the conversation while the focus stays here."""
        from panelbot.tui.widgets.chat import ChatLog

        for chat in self.screen.query(ChatLog):
            chat.scroll_page_up(animate=False) if pages < 0 else chat.scroll_page_down(
                animate=False
            )

    def action_newline(self) -> None:
        # a priority binding too: insert after the keys already queued (typed in the same burst), or
        # "one" Ctrl+J "two" typed fast lands as "\none two"
        self.call_later(self.insert, "\n")

    def remember(self, text: str) -> None:
        text = text.strip()
        if text and (not self.question_history or self.question_history[-1] != text):
            self.question_history.append(text)
        self._history_pos = None

    def set_text(self, text: str) -> None:
        self.load_text(text)
        self.move_cursor(self.document.end)

    def action_history(self, step: int) -> None:
        row = self.cursor_location[0]
        last_row = self.document.line_count - 1
        at_edge = (step < 0 and row == 0) or (step > 0 and row == last_row)
        if not at_edge or not self.question_history:
            self.action_cursor_up() if step < 0 else self.action_cursor_down()
            return
        if self._history_pos is None:
            if step > 0:
                return
            self._draft = self.text
            pos = len(self.question_history) - 1
        else:
            pos = self._history_pos + step
        if pos < 0:
            pos = 0
        if pos >= len(self.question_history):
            self._history_pos = None
            self.set_text(self._draft)
            return
        self._history_pos = pos
        self.set_text(self.question_history[pos])
