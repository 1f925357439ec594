"""Every place panelbot reads or writes, in one module.

Panels are looked up, in order, in: directories listed in ``$PANELBOT_PANELS`` (os.pathsep separated),
``./persona_data`` in the working directory, the user's data directory (``<user data>/panels``), and the
panels shipped with panelbot.
"""

from __future__ import annotations

import os
from pathlib import Path

APP_NAME = "panelbot"

_PACKAGE_DIR = Path(__file__).resolve().parent


def bundled_root() -> Path:
    """Where the shipped persona_data/ and config.yaml live: inside the wheel, or the source checkout."""
    inside = _PACKAGE_DIR / "_bundled"
    if (inside / "persona_data").is_dir():
        return inside
    return _PACKAGE_DIR.parent


def bundled_panels_dir() -> Path:
    return bundled_root() / "persona_data"


def default_config_path() -> Path:
    return bundled_root() / "config.yaml"


def user_data_dir() -> Path:
    env = os.environ.get("PANELBOT_DATA_DIR")
    if env:
        return Path(env)
    from platformdirs import user_data_path

    return user_data_path(APP_NAME, appauthor=False)


def user_config_path() -> Path:
    env = os.environ.get("PANELBOT_CONFIG")
    if env:
        return Path(env)
    from platformdirs import user_config_path as _ucp

    return _ucp(APP_NAME, appauthor=False) / "config.yaml"


def user_cache_dir() -> Path:
    """Where panelbot keeps what it can rebuild (saved indexes): ``$PANELBOT_CACHE_DIR`` or the platform's
    user cache directory (``~/.cache/panelbot`` on Linux)."""
    env = os.environ.get("PANELBOT_CACHE_DIR")
    if env:
        return Path(env)
    from platformdirs import user_cache_path

    return user_cache_path(APP_NAME, appauthor=False)


def index_cache_dir() -> Path:
    """Saved panel indexes (``panelbot.retrieval.cache``)."""
    return user_cache_dir() / "index"


def history_db_path() -> Path:
    return user_data_dir() / "history.sqlite3"


def panel_search_dirs() -> list[Path]:
    dirs: list[Path] = []
    env = os.environ.get("PANELBOT_PANELS")
    if env:
        dirs.extend(Path(p) for p in env.split(os.pathsep) if p)
    try:
        local = Path.cwd() / "persona_data"
        if local.is_dir() and local.resolve() != bundled_panels_dir().resolve():
            dirs.append(local)
    except OSError:  # the working directory was removed or cannot be read
        pass
    dirs.append(user_data_dir() / "panels")
    dirs.append(bundled_panels_dir())
    return dirs
