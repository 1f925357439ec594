"""TUI test fixtures: an isolated data dir, the tiny test panel, an app factory."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import settle, type_and_send  # noqa: F401  (the app's pilot helpers, shared)

HERE = Path(__file__).parent
LIBRARY = (
    HERE.parent / "fixtures" / "library"
)  # the talks installed beside the tiny panel for all-talks mode


@pytest.fixture(autouse=True)
def isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Never touch the developer's history or config; find the test panels."""
    data = tmp_path / "data"
    monkeypatch.setenv("PANELBOT_DATA_DIR", str(data))
    (tmp_path / "no-user-config.yaml").write_text("", encoding="utf-8")  # named, so it must exist
    monkeypatch.setenv("PANELBOT_CONFIG", str(tmp_path / "no-user-config.yaml"))
    monkeypatch.setenv("PANELBOT_PANELS", str(HERE / "panels"))
    monkeypatch.delenv("PANELBOT_BACKEND", raising=False)
    monkeypatch.chdir(tmp_path)
    return data


@pytest.fixture
def talks_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tiny panel and the talks of tests/fixtures/library installed: what all-talks mode opens."""
    monkeypatch.setenv("PANELBOT_PANELS", os.pathsep.join([str(HERE / "panels"), str(LIBRARY)]))


@pytest.fixture
def make_app() -> Callable[..., Any]:
    from panelbot.config import Config
    from panelbot.tui.app import PanelbotApp

    from .fakes import KeywordRouter

    def factory(panel: str = "tiny", **kwargs: Any) -> PanelbotApp:
        kwargs.setdefault("router_factory", KeywordRouter)
        config = kwargs.pop("config", None) or Config(panel=panel)
        return PanelbotApp(
            config, kwargs.pop("panel_name", panel), kwargs.pop("resume", False), **kwargs
        )

    return factory


def chat_text(app: Any) -> str:
    """Everything rendered in the chat log, as plain text."""
    from panelbot.tui.widgets.chat import ChatLog

    parts = []
    for child in app.query_one(ChatLog).children:
        visual = child.render()
        parts.append(getattr(visual, "plain", str(visual)))
    return "\n".join(parts)


def header_text(app: Any, width: int = 200) -> str:
    """The header as plain text, rendered at the given width."""
    import io

    from rich.console import Console

    console = Console(width=width, file=io.StringIO(), record=True, color_system=None)
    console.print(app.query_one("#header").content)
    return console.export_text()


async def palette(pilot: Any, text: str) -> None:
    """Run the command palette's entry ``text`` (typed, then Enter)."""
    await pilot.press("ctrl+p")
    await pilot.pause()
    await pilot.press(*text)
    await pilot.pause(0.3)
    await pilot.press("enter")
    await pilot.pause()
