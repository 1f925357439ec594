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

# (binding id, what it does); an id starting with "=" is a fixed key named by the rest. Each line fits the help
# box at 80 columns, so every key shows at 80x24 without scrolling (the footer leaves some keys to this list).
KEY_HELP = (
    ("send", "send the question"),
    ("newline", "new line in the question"),
    ("=Up / Down", "earlier questions (first / last line)"),
    ("=PageUp / PageDown", "scroll the conversation"),
    ("cancel", "stop the answer (the question comes back)"),
    ("followups", "suggested follow-ups (Enter asks one)"),
    ("copy", "copy the highlighted source or last answer"),
    ("regenerate", "answer the last question again, same quotes"),
    ("conversations", "conversations: open, search, rename, delete"),
    ("export", "export the conversation to Markdown"),
    ("toggle_sidebar", "show or hide the side panes"),
    ("command_palette", "command palette"),
    ("help", "this help"),
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
            name = bid[1:] if bid.startswith("=") else key_label(self.keys.get(bid, ""))
            keys.add_row(Text(name), Text(what))
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
