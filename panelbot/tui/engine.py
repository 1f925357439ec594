"""The TUI's link to the engine: router, backend, declines, targets and slash commands.

Plain Python (no Textual), so it is cheap to import and easy to test. The backend is chosen in exactly one
place, :func:`make_backend`, which uses the backend registry when it is installed and the offline backend
otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from panelbot.answer.backends.base import Backend
from panelbot.config import Config
from panelbot.panel import Panel
from panelbot.text import strip_control

# ------------------------------------------------------------------------------------------- backend


def is_offline(backend: Any) -> bool:
    """Whether answers are the quotes themselves (no model rewrites them)."""
    from panelbot.answer.backends.offline import OfflineBackend

    return backend is None or isinstance(backend, OfflineBackend)


def make_backend(config: Config, panel: Panel) -> tuple[Backend, str | None]:
    """The configured backend, or the offline one with a one-line reason when that is not possible."""
    from panelbot.answer.backends.offline import OfflineBackend

    if config.backend.name in ("", "offline"):
        return OfflineBackend(config, panel), None
    try:
        from panelbot.answer.backends.registry import get_backend
    except ImportError:
        return OfflineBackend(config, panel), (
            f"backend {config.backend.name!r} is not available in this build; answering with offline quotes"
        )
    try:
        return get_backend(config.backend.name, config, panel), None
    except Exception as exc:  # a bad name, a missing URL: say so, keep working offline
        return OfflineBackend(
            config, panel
        ), f"backend {config.backend.name!r}: {exc}; answering with offline quotes"


def make_router(panel: Panel, config: Config) -> Any:
    from panelbot.retrieval.router import Router

    return Router(panel, config.retrieval)


def open_panel(name: str, config: Config) -> tuple[Panel, Any, str | None]:
    """A panel and its router from the saved index when current (else built and saved), and a one-line
    note when a saved index had to be rebuilt."""
    from panelbot.retrieval.cache import open_indexed
    from panelbot.retrieval.router import Router

    opened = open_indexed(name)
    return opened.panel, Router(opened.panel, config.retrieval, index=opened.index), opened.note


def open_library(config: Config) -> tuple[Any, list[str]]:
    """Every installed talk (``panelbot.retrieval.library.Library``) and one-line notes."""
    from panelbot.retrieval.library import Library

    return Library.open(config.retrieval)


# ------------------------------------------------------------------------------------------- targets


@dataclass(frozen=True)
class Target:
    value: str  # what Router.route(target=...) takes
    label: str


def targets(panel: Panel | None) -> list[Target]:
    """Auto, each panelist, then everyone ('Both' for a pair), built from the panel."""
    out = [Target("auto", "Auto")]
    if panel is None:
        return out
    for pid, persona in panel.panelists.items():
        out.append(
            Target(
                pid,
                strip_control(
                    persona.name.split()[0] if persona.name else pid, keep_newlines=False
                ),
            )
        )
    if len(panel.panelists) > 1:
        out.append(Target("both", "Both" if len(panel.panelists) == 2 else "All"))
    return out


def resolve_target(panel: Panel | None, word: str) -> str | None:
    """'dan', 'Dan', a panelist id, 'both', 'all' or 'auto' -> a target value; None if unknown."""
    w = word.strip().lower()
    if w in ("auto", "both"):
        return w
    if w == "all" and panel is not None and len(panel.panelists) > 1:
        return "both"
    if panel is None:
        return None
    for t in targets(panel):
        if w in (t.value.lower(), t.label.lower()):
            return t.value
    for pid, persona in panel.panelists.items():
        if w == persona.name.lower():
            return pid
    return None


def suggested_questions(panel: Panel | None, router: Any) -> list[str]:
    """Questions to offer in the side pane, in a user's words and known to have an answer (the router's
    ``example_questions``); a router without them gets the host's questions."""
    if panel is None:
        return []
    examples = getattr(router, "example_questions", None)
    if callable(examples):
        try:
            return [strip_control(q, keep_newlines=False) for q in examples()]
        except Exception:
            pass
    return [strip_control(q.text, keep_newlines=False) for q in panel.questions]


# ------------------------------------------------------------------------------------------- keys

_KEY_NAMES = {
    "escape": "Esc",
    "enter": "Enter",
    "tab": "Tab",
    "space": "Space",
    "up": "Up",
    "down": "Down",
}


def key_label(key: str) -> str:
    """'ctrl+j' -> 'Ctrl+J', 'escape' -> 'Esc', 'f1,f2' -> 'F1, F2'."""
    out = []
    for combo in key.split(","):
        parts = [p.strip() for p in combo.strip().split("+")]
        out.append(
            "+".join(_KEY_NAMES.get(p, p.capitalize() if len(p) > 1 else p.upper()) for p in parts)
        )
    return ", ".join(out)


# ------------------------------------------------------------------------------------------- commands


@dataclass(frozen=True)
class CommandSpec:
    name: str
    usage: str
    help: str


COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec("ask", "/ask {targets} [QUESTION]", "who answers (and ask at once)"),
    CommandSpec("quote", "/quote QUERY", "search the quote bank"),
    CommandSpec("source", "/source ID", "open a quote in the context of its talk"),
    CommandSpec(
        "discuss", "/discuss [SUBJECT]", "the panel discusses a subject (no subject: the map)"
    ),
    CommandSpec("export", "/export [PATH]", "save the conversation as Markdown"),
    CommandSpec("clear", "/clear", "start a new conversation"),
    CommandSpec(
        "regenerate", "/regenerate", "answer the last question again, with the same quotes"
    ),
    CommandSpec("history", "/history", "saved conversations: open, search, rename, delete"),
    CommandSpec("panel", "/panel NAME", "switch to another installed panel"),
    CommandSpec("model", "/model", "what answers, and how to turn a model on"),
    CommandSpec("help", "/help", "keys and commands"),
)
COMMAND_NAMES = {c.name for c in COMMANDS}
_COMMAND_SPECS = {c.name: c for c in COMMANDS}


def command_usage(name: str, panel: Panel | None) -> str:
    """A command's usage line for this panel: ``{targets}`` in it is who can answer (/ask auto|dan|olive|both)."""
    return _COMMAND_SPECS[name].usage.format(targets="|".join(t.value for t in targets(panel)))


@dataclass(frozen=True)
class Command:
    name: str
    arg: str


def parse_command(line: str) -> Command | None:
    """'/ask dan' -> Command('ask', 'dan'); None when the line is not a slash command."""
    text = line.strip()
    if not text.startswith("/") or text.startswith("//"):
        return None
    head, _, rest = text[1:].partition(" ")
    return Command(head.lower(), rest.strip())
