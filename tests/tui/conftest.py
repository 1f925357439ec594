"""TUI test fixtures: an isolated data dir, the tiny test panel, an app factory."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).parent


@pytest.fixture(autouse=True)
def isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Never touch the developer's history or config; find the test panels."""
    data = tmp_path / "data"
    monkeypatch.setenv("PANELBOT_DATA_DIR", str(data))
    monkeypatch.setenv("PANELBOT_CONFIG", str(tmp_path / "no-user-config.yaml"))
    monkeypatch.setenv("PANELBOT_PANELS", str(HERE / "panels"))
    monkeypatch.delenv("PANELBOT_BACKEND", raising=False)
    monkeypatch.chdir(tmp_path)
    return data


@pytest.fixture
def make_app() -> Callable[..., Any]:
    from panelbot.config import Config
    from panelbot.tui.app import PanelbotApp

    from .fakes import KeywordRouter

    def factory(panel: str = "tiny", **kwargs: Any) -> PanelbotApp:
        kwargs.setdefault("router_factory", KeywordRouter)
        config = kwargs.pop("config", None) or Config(panel=panel)
        return PanelbotApp(config, kwargs.pop("panel_name", panel), kwargs.pop("resume", False), **kwargs)

    return factory
