"""Pick a backend by name: 'offline', 'openai', or a third party's entry point in ``panelbot.answer.backends``.

A plugin registers ``name = "package.module:Class"`` under ``[project.entry-points."panelbot.backends"]``;
the class is built as ``Class(config, panel)`` and must implement :class:`panelbot.answer.backends.base.Backend`.
"""

from __future__ import annotations

from importlib import import_module
from importlib.metadata import entry_points
from typing import Any

from panelbot.answer.backends.base import Backend
from panelbot.config import Config
from panelbot.errors import UsageError
from panelbot.panel import Panel

GROUP = "panelbot.backends"
BUILTIN = {
    "offline": "panelbot.answer.backends.offline:OfflineBackend",
    "openai": "panelbot.answer.backends.openai_compat:OpenAICompatBackend",
}


def _plugins() -> dict[str, Any]:
    return {ep.name: ep for ep in entry_points(group=GROUP)}


def available_backends() -> list[str]:
    return sorted(set(BUILTIN) | set(_plugins()))


def get_backend(name: str, config: Config, panel: Panel | None) -> Backend:
    """Build the named backend. UsageError for an unknown name, listing the available ones."""
    name = (name or "").strip()
    if name in BUILTIN:  # built-ins are imported directly: they work from a source checkout too
        module, _, attr = BUILTIN[name].partition(":")
        cls = getattr(import_module(module), attr)
    else:
        ep = _plugins().get(name)
        if ep is None:
            raise UsageError(
                f"unknown backend {name!r} (available: {', '.join(available_backends())})"
            )
        try:
            cls = ep.load()
        except (
            Exception
        ) as exc:  # a broken plugin is the user's setup problem: one line, no traceback
            raise UsageError(f"backend {name!r} ({ep.value}) failed to load: {exc}") from None
    return cls(config, panel)
