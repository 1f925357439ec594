"""The command palette: the slash commands, targets, panels and suggested questions, fuzzy-searchable."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from functools import partial
from typing import Protocol

from textual.app import SystemCommand
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content
from textual.markup import escape

from panelbot.panel import Panel, PanelInfo
from panelbot.tui.engine import suggested_questions, targets
from panelbot.tui.render import safe


class PaletteHost(Protocol):
    """What the palette needs of the app (so this module does not import the app, which imports it)."""

    panel: Panel | None
    all_talks: bool

    def set_target(self, value: str) -> None: ...
    def set_all_talks(self, on: bool) -> None: ...
    def run_command_line(self, line: str) -> object: ...
    def ask(self, question: str) -> object: ...
    def installed_panels(self) -> list[PanelInfo]: ...
    def action_export(self) -> object: ...
    def action_help(self) -> object: ...
    def action_copy(self) -> object: ...
    def action_toggle_sidebar(self) -> object: ...
    def action_toggle_dark(self) -> object: ...
    def action_regenerate(self) -> object: ...
    def action_conversations(self) -> object: ...
    def action_discussion_map(self) -> object: ...

    def action_model_help(self) -> object: ...


class PanelbotCommands(Provider):
    def _commands(self) -> list[tuple[str, Callable[[], object], str]]:
        app: PaletteHost = self.app  # type: ignore[assignment]
        cmds: list[tuple[str, Callable[[], object], str]] = []
        for t in targets(app.panel):
            cmds.append((f"Ask: {t.label}", partial(app.set_target, t.value), f"/ask {t.value}"))
        if app.all_talks:
            cmds.append(
                (
                    "Ask: this talk only",
                    partial(app.set_all_talks, False),
                    "questions go to the loaded panel only",
                )
            )
        else:
            cmds.append(
                (
                    "Ask: all talks",
                    partial(app.set_all_talks, True),
                    "questions go to every installed talk; answers name the talk",
                )
            )
        cmds += [
            ("Export conversation", app.action_export, "/export: save as Markdown"),
            ("Clear conversation", partial(app.run_command_line, "/clear"), "/clear: start afresh"),
            (
                "Conversations",
                app.action_conversations,
                "/history: open, search, rename or delete one",
            ),
            (
                "Regenerate answer",
                app.action_regenerate,
                "/regenerate: the last question, same quotes",
            ),
            (
                "Discuss: subjects both spoke to",
                app.action_discussion_map,
                "/discuss: the map; Enter stages a subject's discussion",
            ),
            ("Help", app.action_help, "/help: keys and commands"),
            ("Answers from a model", app.action_model_help, "how to turn the model on"),
            ("Copy answer", app.action_copy, "copy the last answer (OSC 52)"),
            ("Toggle side panes", app.action_toggle_sidebar, "panelists, suggestions and sources"),
            ("Toggle light / dark theme", app.action_toggle_dark, "switch between light and dark"),
        ]
        for info in app.installed_panels():
            name = safe(info.name, one_line=True)
            cmds.append(
                (
                    f"Panel: {name}",
                    partial(app.run_command_line, f"/panel {info.name}"),
                    safe(info.title, one_line=True),
                )
            )
        if app.panel is not None:  # in a user's words, each known to have an answer
            for q in suggested_questions(app.panel, getattr(app, "router", None)):
                text = safe(q, one_line=True)
                cmds.append((f"Ask: {text}", partial(app.ask, text), "suggested question"))
        return cmds

    async def discover(self) -> Hits:
        for name, callback, help_text in self._commands():
            if name.startswith("Ask: ") and len(name) > 20:
                continue  # suggested questions appear when searching
            yield DiscoveryHit(Content(name), callback, text=name, help=escape(help_text))

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, callback, help_text in self._commands():
            score = matcher.match(name)
            if score > 0:
                # Not matcher.highlight(): it parses its argument as markup, and names are untrusted.
                _, offsets = matcher.fuzzy_search.match(query, name)
                prompt = Content(name)
                for offset in offsets:
                    prompt = prompt.stylize("reverse", offset, offset + 1)
                yield Hit(score, prompt, callback, text=name, help=escape(help_text))


# Textual's own palette entries a panelbot user has no use for, or has twice: "Keys" (F1 and "Help" list
# every key), "Maximize" (of a pane) and "Screenshot" (an SVG file in the working directory). Quit and Theme
# stay. Left out, the panel's own commands are not pushed below five of Textual's.
HIDDEN_SYSTEM_COMMANDS = frozenset({"Keys", "Maximize", "Screenshot"})


def system_commands(commands: Iterable[SystemCommand]) -> Iterator[SystemCommand]:
    """Textual's system commands without :data:`HIDDEN_SYSTEM_COMMANDS`."""
    return (c for c in commands if c.title not in HIDDEN_SYSTEM_COMMANDS)
