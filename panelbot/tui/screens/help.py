"""F1 / /help: the keys (as remapped in config) and the slash commands."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from panelbot.panel import Panel
from panelbot.tui.engine import COMMANDS, command_usage, key_label
from panelbot.tui.render import safe

# (binding id, what it does, the slash command doing the same or ""); an id starting with "=" is a fixed key named
# by the rest. Each line fits the help box at 80 columns and the whole help fits 80x24 without scrolling: a command
# with a key is named on the key's line, the commands list holds the others.
KEY_HELP = (
    ("send", "send the question", ""),
    ("newline", "new line in the question", ""),
    ("=Up / Down", "earlier questions (first / last line)", ""),
    ("=PageUp / PageDown", "scroll the conversation", ""),
    ("cancel", "stop the answer (the question comes back)", ""),
    ("followups", "suggested follow-ups (Enter asks one)", ""),
    ("copy", "copy the highlighted source or last answer", ""),
    ("regenerate", "the last question again, same quotes", "regenerate"),
    ("conversations", "saved conversations: open, rename, delete", "history"),
    ("export", "export the conversation to Markdown", "export"),
    ("toggle_sidebar", "show or hide the side panes", ""),
    ("command_palette", "commands; the discussion map", "discuss"),
    ("quit", "quit", ""),
)  # this help's own key (and /help) is named on its frame, to leave a line for how the model is turned on


# how the model is turned on: only the settings do it (the app has no flag); /model and the palette's
# "Answers from a model" say so
MODEL_HINT = (
    "Answers from a model: start with PANELBOT_BACKEND=openai panelbot "
    "(PANELBOT_BASE_URL, PANELBOT_MODEL), or backend: {name: openai} in the config."
)


CONFIG_LINE = "Keys (tui.keys) and the model (backend:): "
HELP_WIDTH = 76  # the help's text at 80 columns (its box is 80 wide: border and padding take 4)


def config_line(config_file: str) -> str:
    """Where keys are remapped and the model is set: the user's config file, whole when it fits the line at
    80 columns ("~/.config/panelbot/config.yaml" does), else as many of its last folders as fit before its
    name (the help fits 80x24, this on one line)."""
    path = safe(config_file, one_line=True)
    room = HELP_WIDTH - len(CONFIG_LINE)
    if len(path) <= room:
        return CONFIG_LINE + path
    *folders, kept = path.replace("\\", "/").split("/")
    for folder in reversed(folders):
        if len(folder) + len(kept) + 3 > room:  # "…/" before "folder/kept"
            break
        kept = f"{folder}/{kept}"
    kept = "\u2026/" + kept
    return CONFIG_LINE + (kept if len(kept) <= room else "\u2026" + kept[-(room - 1) :])


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,f1", "dismiss", "Close")]

    def __init__(
        self,
        keys: dict[str, str],
        panel: Panel | None = None,
        config_file: str = "config.yaml",
        model: str = "",
    ) -> None:
        super().__init__()
        self.keys = keys
        self.panel = panel  # whose panelist ids /ask takes
        self.config_file = config_file  # the user's, named where to remap keys and set the model
        self.model = model  # what answers: a model's name, or "" offline

    def compose(self) -> ComposeResult:
        usage = {c.name: command_usage(c.name, self.panel) for c in COMMANDS}
        keys = Table.grid(padding=(0, 2))
        keys.add_column(style="bold")
        keys.add_column()
        # named elsewhere: /help on the frame with its key, /model on the line saying what answers
        with_keys = {"help", "model"}
        for bid, what, command in KEY_HELP:
            name = bid[1:] if bid.startswith("=") else key_label(self.keys.get(bid, ""))
            line = Text(what)
            if command:
                with_keys.add(command)
                line.append(f" ({usage[command]})", style="dim")
            keys.add_row(Text(name), line)
        cmds = Table.grid(padding=(0, 2))
        cmds.add_column(style="bold")
        cmds.add_column()
        for c in COMMANDS:
            if c.name not in with_keys:
                cmds.add_row(Text(safe(usage[c.name])), Text(c.help))
        with VerticalScroll(id="help-body") as body:
            body.border_title = "Keys"
            body.border_subtitle = Text(  # a Text: a remapped key is never read as markup
                f"{key_label(self.keys.get('help', 'f1'))} or Esc to close (/help)"
            )
            yield Static(keys)
            yield Static(
                Text(
                    "Commands (type in the input, or use the command palette)",
                    style="bold underline",
                )
            )
            yield Static(cmds)
            now = (
                f"Answers from {safe(self.model, one_line=True)[:36]} (/model: how to go offline)"
                if self.model
                else "Quotes, offline. For a model: PANELBOT_BACKEND=openai panelbot (/model)"
            )
            yield Static(Text(now, style="dim"))
            yield Static(Text(config_line(self.config_file), style="dim"))
