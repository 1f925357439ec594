"""The slash commands typed in the input (/ask, /quote, /source, /export, /clear, /regenerate, /history, /panel,
/model, /help): dispatch to ``_cmd_NAME`` and each one's usage message. Each handler hands over to the concern that does
the work; the command table and the parser are plain Python in ``engine`` (COMMANDS, parse_command)."""

from __future__ import annotations

from panelbot.tui import engine
from panelbot.tui.mixin import AppMixin
from panelbot.tui.render import safe


class SlashCommands(AppMixin):
    def run_command_line(self, line: str) -> None:
        cmd = engine.parse_command(line)
        if cmd is None:
            return
        handler = (
            getattr(self, f"_cmd_{cmd.name}", None) if cmd.name in engine.COMMAND_NAMES else None
        )
        if handler is None:
            names = ", ".join(f"/{c.name}" for c in engine.COMMANDS)
            self.chat_notice(f"Unknown command /{cmd.name}. Commands: {names}", "error")
            return
        handler(cmd.arg)

    def _usage(self, name: str, more: str = "") -> None:
        """A command given without what it needs: its usage line (from ``engine.COMMANDS``) in the chat."""
        self.chat_notice(f"Usage: {engine.command_usage(name, self.panel)}{more}", "error")

    def _cmd_ask(self, arg: str) -> None:
        word, _, question = arg.partition(" ")
        target = engine.resolve_target(self.panel, word) if word else None
        if target is None:
            self._usage("ask")
            return
        if question.strip():  # a one-off: this question goes to them, the selector stays as it was
            self.ask(question, target)
        else:
            self.set_target(target)
            label = next((t.label for t in engine.targets(self.panel) if t.value == target), target)
            self.notify(f"Questions now go to: {label}", markup=False)

    def _cmd_quote(self, arg: str) -> None:
        if not arg:
            self._usage("quote")
            return
        self.search_quotes(arg)

    def _cmd_source(self, arg: str) -> None:
        if not arg:
            self._usage("source", " (the id in square brackets after a quote)")
            return
        self.open_source(arg.strip().strip("[]"))

    def _cmd_export(self, arg: str) -> None:
        self.export(arg or None)

    def _cmd_clear(self, arg: str) -> None:
        self.new_conversation()

    def _cmd_regenerate(self, arg: str) -> None:
        self.action_regenerate()

    def _cmd_history(self, arg: str) -> None:
        self.action_conversations()

    def _cmd_panel(self, arg: str) -> None:
        if not arg:
            names = (
                ", ".join(safe(p.name, one_line=True) for p in self.installed_panels()) or "none"
            )
            self._usage("panel", f" (installed: {names})")
            return
        self.switch_panel(arg)

    def _cmd_help(self, arg: str) -> None:
        self.action_help()

    def _cmd_model(self, arg: str) -> None:
        self.action_model_help()
