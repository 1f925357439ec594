"""Who is on the panel, and who should answer (the target selector)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import RadioButton, RadioSet, Static

from panelbot.panel import Panel
from panelbot.tui.engine import targets
from panelbot.tui.render import persona_card


class PanelistsPane(VerticalScroll):
    """Name, role, organisation and colour of each panelist, then Auto / each panelist / Both."""

    class TargetChanged(Message):
        def __init__(self, target: str) -> None:
            super().__init__()
            self.target = target

    def __init__(self, panel: Panel | None, target: str = "auto", **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.panel = panel
        self.target = target
        self.border_title = "Panel"

    def compose(self) -> ComposeResult:
        if self.panel is None:
            yield Static(Content("No panel loaded."), classes="dim")
            return
        for persona in self.panel.panelists.values():
            yield Static(persona_card(self.panel, persona), classes="persona")
        yield Static(Content("Who answers"), classes="section-title")
        with RadioSet(id="target"):
            for t in targets(self.panel):
                yield RadioButton(Content(t.label), value=t.value == self.target, id=f"target-{t.value}")

    def select(self, target: str) -> None:
        """Set the selector from code (e.g. /ask dan) without echoing a change back."""
        self.target = target
        try:
            button = self.query_one(f"#target-{target}", RadioButton)
        except Exception:
            return
        with self.prevent(RadioSet.Changed, RadioButton.Changed):
            button.value = True

    def on_radio_set_changed(self, event: RadioSet.Changed) -> None:
        event.stop()
        button_id = event.pressed.id or ""
        self.target = button_id.removeprefix("target-") or "auto"
        self.post_message(self.TargetChanged(self.target))
