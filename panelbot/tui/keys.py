"""The app's key bindings (each with an id that ``tui.keys`` remaps) and the keys' own actions: F1 help and the
light/dark theme. What the other keys do lives with their concern (answering, export, clipboard, layout, ...)."""

from __future__ import annotations

import os

from textual.binding import Binding

from panelbot.config import Config
from panelbot.tui.engine import is_offline
from panelbot.tui.mixin import AppMixin

# Every binding has an id; config.tui.keys remaps them through Textual's keymap.
BINDINGS: list[Binding] = [
    Binding("escape", "cancel", "Stop", id="cancel", show=False),
    Binding("ctrl+e", "export", "Export", id="export", priority=True),
    Binding("f1", "help", "Help", id="help", priority=True),
    # not in the footer (F1 lists it): with it every other key fits at 80 columns
    Binding("ctrl+y", "copy", "Copy", id="copy", show=False, priority=True),
    Binding("ctrl+b", "toggle_sidebar", "Panes", id="toggle_sidebar", priority=True),
    Binding("ctrl+r", "regenerate", "Again", id="regenerate", priority=True),
    Binding("ctrl+o", "conversations", "History", id="conversations", priority=True),
    Binding("ctrl+g", "followups", "Follow-ups", id="followups", show=False, priority=True),
    Binding(
        "ctrl+p", "command_palette", "Commands", id="command_palette", show=False, priority=True
    ),
    Binding("ctrl+q", "quit", "Quit", id="quit", priority=True),
]


class KeyActions(AppMixin):
    def action_help(self) -> None:
        from panelbot.tui.screens.help import HelpScreen

        if isinstance(self.screen, HelpScreen):
            self.screen.dismiss()
            return
        keys = {b.id: b.key for _, b in self._bindings if b.id}
        keys.update(self.config.tui.keys)
        model = "" if is_offline(self.backend) else str(self.backend.label)
        self.push_screen(HelpScreen(keys, self.panel, user_config(self.config), model))

    def action_model_help(self) -> None:
        """/model and the palette's "Answers from a model": what answers now, and how the model is turned
        on (or, with one answering, off)."""
        from panelbot.tui.screens.help import MODEL_HINT

        now = (
            f"Answers come from {self.backend.label}; the quotes only: PANELBOT_BACKEND=offline panelbot."
            if not is_offline(self.backend)
            else "Answers are the panelists' own words, quoted (offline)."
        )
        self.chat_notice(f"{now} {MODEL_HINT} Your config: {user_config(self.config)}", "info")

    def action_toggle_dark(self) -> None:
        self.theme = "textual-light" if self.current_theme.dark else "textual-dark"


def user_config(config: Config) -> str:
    """The user's config file, where keys are remapped and the model is set: the one read (the last of
    the config's sources that is not the shipped one), else where panelbot would read one."""
    from panelbot import paths

    shipped = str(paths.default_config_path())
    read = [s for s in config.sources if s != shipped]
    path = read[-1] if read else str(paths.user_config_path())
    home = os.path.expanduser("~")
    return "~" + path[len(home) :] if home != "~" and path.startswith(home + os.sep) else path
