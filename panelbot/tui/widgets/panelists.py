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
from panelbot.tui.widgets.sidepane import TypeThrough


class TargetSet(TypeThrough, RadioSet):
    """The Auto / each panelist / Both radio set: exactly one is on at any time."""


class PanelistsPane(TypeThrough, VerticalScroll):
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
        with TargetSet(id="target"):
            for t in targets(self.panel):
                yield RadioButton(
                    Content(t.label), value=t.value == self.target, id=f"target-{t.value}"
                )

    def select(self, target: str) -> None:
        """Set the selector from code (e.g. /ask dan). The radio set switches the previous button off
        itself; the change is not echoed back as a TargetChanged, the caller already knows."""
        self.target = target
        try:
            button = self.query_one(f"#target-{target}", RadioButton)
        except Exception:
            return
        button.value = True

    def selected(self) -> list[str]:
        """The targets whose button is on (exactly one, unless something is wrong)."""
        return [b.id.removeprefix("target-") for b in self.query(RadioButton) if b.value and b.id]

    def on_radio_set_changed(self, event: RadioSet.Changed) -> None:
        event.stop()
        target = (event.pressed.id or "").removeprefix("target-") or "auto"
        if target == self.target:
            return  # set from code by select()
        self.target = target
        self.post_message(self.TargetChanged(target))
