"""The panels a server offers and the model ids that reach them.

Model ids (``GET /v1/models``; the same names work as ``to=`` in MCP):

* for the default panel (``--panel``, else the config's): one id per panelist (``dan``, ``olive``), ``panel``
  (panelbot picks who answers, as ``--to auto``) and ``both`` (every panelist answers, as ``--to both``);
* for every installed panel, the same qualified by its name: ``minimax-m3/dan``, ``minimax-m3/panel``,
  ``minimax-m3/both``.

Panels are loaded and indexed once, when the server starts; a panel that fails to load is skipped with a
warning (the default one must load).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from panelbot.config import Config, RetrievalSettings
from panelbot.errors import PanelbotError, UsageError
from panelbot.panel import Panel, load_panel, panel_names
from panelbot.retrieval.router import Router

AUTO_ID = "panel"
BOTH_ID = "both"


@dataclass(frozen=True)
class ModelEntry:
    id: str
    panel: str  # panel name
    target: str  # what Router.route(target=...) takes: auto, both or a panelist id
    description: str

    def to_dict(self) -> dict[str, str]:
        return {"panel": self.panel, "target": self.target, "description": self.description}


@dataclass
class PanelEntry:
    """A served panel; its router (the index) is built on first use, so many installed panels start fast."""

    panel: Panel
    settings: RetrievalSettings = field(default_factory=RetrievalSettings)
    _router: Router | None = None

    @property
    def router(self) -> Router:
        if self._router is None:
            self._router = Router(self.panel, self.settings)
        return self._router


@dataclass
class Catalog:
    default: str
    panels: dict[str, PanelEntry]
    models: dict[str, ModelEntry] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.models:
            self.models = _model_ids(self.default, self.panels)

    def entry(self, name: str | None) -> PanelEntry:
        """The named panel (default when None); UsageError listing the served ones."""
        key = name or self.default
        if key not in self.panels:
            raise UsageError(f"unknown panel {key!r} (served: {', '.join(self.panels)})")
        return self.panels[key]

    def model(self, model_id: str) -> ModelEntry | None:
        return self.models.get(model_id) or self.models.get(model_id.strip().lower())

    def target_for(self, panel: Panel, who: str) -> str | None:
        """'auto'/'panel', 'both'/'all', a panelist id or name -> a router target; None if unknown."""
        w = who.strip().lower()
        if w in ("auto", AUTO_ID, ""):
            return "auto"
        if w in (BOTH_ID, "all", "everyone"):
            return "both"
        for pid, persona in panel.panelists.items():
            if w in (
                pid,
                persona.name.lower(),
                persona.name.split()[0].lower() if persona.name else pid,
            ):
                return pid
        return None


def _describe(panel: Panel, target: str) -> str:
    if target == "auto":
        return f"{panel.title}: the panel; panelbot picks who answers (or both)"
    if target == "both":
        return f"{panel.title}: every panelist answers"
    p = panel.panelists[target]
    title = f", {p.title}" if p.title else ""
    return f"{panel.title}: {p.name}{title}"


def _model_ids(default: str, panels: dict[str, PanelEntry]) -> dict[str, ModelEntry]:
    out: dict[str, ModelEntry] = {}

    def add(prefix: str, name: str, panel: Panel) -> None:
        for pid in panel.panelists:
            out.setdefault(
                f"{prefix}{pid}", ModelEntry(f"{prefix}{pid}", name, pid, _describe(panel, pid))
            )
        out.setdefault(
            f"{prefix}{AUTO_ID}",
            ModelEntry(f"{prefix}{AUTO_ID}", name, "auto", _describe(panel, "auto")),
        )
        if len(panel.panelists) > 1:
            out.setdefault(
                f"{prefix}{BOTH_ID}",
                ModelEntry(f"{prefix}{BOTH_ID}", name, "both", _describe(panel, "both")),
            )

    add("", default, panels[default].panel)
    for name, entry in panels.items():
        add(f"{name}/", name, entry.panel)
    return out


def load_catalog(
    config: Config, panel: str | None = None, warn: Callable[[str], None] | None = None
) -> Catalog:
    """The default panel (``panel`` or the config's, indexed now) plus every other installed panel that loads
    (indexed when first asked)."""
    default_panel = load_panel(panel or config.panel)
    panels: dict[str, PanelEntry] = {
        default_panel.name: PanelEntry(default_panel, config.retrieval)
    }
    warnings: list[str] = []
    for name in panel_names():
        if name in panels:
            continue
        try:
            panels[name] = PanelEntry(load_panel(name), config.retrieval)
        except PanelbotError as exc:  # a broken extra panel must not stop the server
            warnings.append(f"panel {name!r} not served: {exc}")
    for w in warnings:
        if warn:
            warn(w)
    default = panels[default_panel.name]  # index it and load the word lists the router reads lazily
    default.router.route(" ".join(default_panel.topics[:2]) or "warm up", "auto")
    return Catalog(default_panel.name, panels, warnings=warnings)
