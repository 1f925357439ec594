"""F1 / /help: the keys (as remapped in config) and the slash commands."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from panelbot.tui.engine import COMMANDS, key_label

KEY_HELP = (
    ("send", "send the question"),
    ("newline", "new line in the question"),
    ("cancel", "stop the answer in progress (the question goes back in the input)"),
    ("export", "export the conversation to Markdown"),
    ("help", "this help"),
    ("copy", "copy the highlighted source, or the last answer (OSC 52)"),
    ("toggle_sidebar", "show or hide the side panes"),
    ("command_palette", "command palette"),
    ("regenerate", "answer the last question again, with the same quotes"),
    ("conversations", "saved conversations: open, search, rename, delete"),
    ("followups", "the suggested follow-ups under the last answer (Enter asks one)"),
    ("quit", "quit"),
)


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,f1", "dismiss", "Close")]

    def __init__(self, keys: dict[str, str]) -> None:
        super().__init__()
        self.keys = keys

    def compose(self) -> ComposeResult:
        keys = Table.grid(padding=(0, 2))
        keys.add_column(style="bold")
        keys.add_column()
        for bid, what in KEY_HELP:
            keys.add_row(Text(key_label(self.keys.get(bid, ""))), Text(what))
        keys.add_row(Text("Up / Down"), Text("earlier questions (on the first / last line)"))
        keys.add_row(Text("PageUp / PageDown"), Text("scroll the conversation (from the input)"))
        cmds = Table.grid(padding=(0, 2))
        cmds.add_column(style="bold")
        cmds.add_column()
        for c in COMMANDS:
            cmds.add_row(Text(c.usage), Text(c.help))
        with VerticalScroll(id="help-body") as body:
            body.border_title = "Help"
            body.border_subtitle = "Esc to close"
            yield Static(Text("Keys", style="bold underline"))
            yield Static(keys)
            yield Static(Text("\nCommands (type in the input, or use the command palette)", style="bold underline"))
            yield Static(cmds)
            yield Static(Text(
                "\nPick a suggested question to ask it; pick a source to see it in the context of the talk. "
                "Keys can be remapped in config.yaml under tui.keys.", style="dim"))
