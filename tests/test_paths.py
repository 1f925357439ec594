"""Where panelbot keeps its files: ``$PANELBOT_*`` when set, else the platform's user directories (the XDG
ones on Linux, as README's "Linux paths" says)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from panelbot import paths


@pytest.fixture
def no_overrides(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    for var in ("PANELBOT_DATA_DIR", "PANELBOT_CONFIG", "PANELBOT_CACHE_DIR"):
        monkeypatch.delenv(var, raising=False)
    for var in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    return tmp_path


@pytest.mark.skipif(sys.platform != "linux", reason="the XDG layout is Linux's")
def test_linux_user_dirs_are_under_home_by_default(no_overrides: Path) -> None:
    home = no_overrides
    assert paths.user_data_dir() == home / ".local/share/panelbot"
    assert paths.user_config_path() == home / ".config/panelbot/config.yaml"
    assert paths.user_cache_dir() == home / ".cache/panelbot"
    assert paths.history_db_path() == home / ".local/share/panelbot/history.sqlite3"
    assert paths.index_cache_dir() == home / ".cache/panelbot/index"


@pytest.mark.skipif(sys.platform != "linux", reason="the XDG layout is Linux's")
def test_linux_user_dirs_follow_absolute_xdg_variables(
    no_overrides: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    xdg = no_overrides / "xdg"
    monkeypatch.setenv("XDG_DATA_HOME", str(xdg / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(xdg / "config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(xdg / "cache"))
    assert paths.user_data_dir() == xdg / "data/panelbot"
    assert paths.user_config_path() == xdg / "config/panelbot/config.yaml"
    assert paths.user_cache_dir() == xdg / "cache/panelbot"


def test_panelbot_variables_win(no_overrides: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(no_overrides / "xdg"))
    monkeypatch.setenv("PANELBOT_DATA_DIR", str(no_overrides / "d"))
    monkeypatch.setenv("PANELBOT_CONFIG", str(no_overrides / "c.yaml"))
    monkeypatch.setenv("PANELBOT_CACHE_DIR", str(no_overrides / "k"))
    assert paths.user_data_dir() == no_overrides / "d"
    assert paths.user_config_path() == no_overrides / "c.yaml"
    assert paths.user_cache_dir() == no_overrides / "k"
