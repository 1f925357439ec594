"""The panel: the model (``model``: personas, host questions, turns, quotes) and its validating loader
(``loader``; ``yaml_lines`` gives YAML errors their file and line). The names most code needs are here."""

from panelbot.panel.loader import find_panel_dir, list_panels, load_panel, panel_names
from panelbot.panel.model import HostQuestion, Panel, PanelInfo, Persona, Quote, Turn

__all__ = [
    "HostQuestion",
    "Panel",
    "PanelInfo",
    "Persona",
    "Quote",
    "Turn",
    "find_panel_dir",
    "list_panels",
    "load_panel",
    "panel_names",
]
