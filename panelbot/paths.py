"""Every place panelbot reads or writes, in one module.

Panels are looked up, in order, in: directories listed in ``$PANELBOT_PANELS`` (os.pathsep separated),
``./persona_data`` in the working directory, the user's data directory (``<user data>/panels``), and the
panels shipped with panelbot.
"""

from __future__ import annotations

import contextlib
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


def _user_dir(env_var: str | None, platformdirs_name: str) -> Path:
    """``$env_var`` if set, else platformdirs' answer for this platform (``$XDG_...`` or ``~/.local/...``
    on Linux)."""
    env = os.environ.get(env_var) if env_var else None
    if env:
        return Path(env)
    import platformdirs

    return getattr(platformdirs, platformdirs_name)(APP_NAME, appauthor=False)


def user_data_dir() -> Path:
    return _user_dir("PANELBOT_DATA_DIR", "user_data_path")


def user_config_path() -> Path:
    env = os.environ.get("PANELBOT_CONFIG")
    if env:
        return Path(env)
    return _user_dir(None, "user_config_path") / "config.yaml"


def user_cache_dir() -> Path:
    """Where panelbot keeps what it can rebuild (saved indexes): ``$PANELBOT_CACHE_DIR`` or the platform's
    user cache directory (``~/.cache/panelbot`` on Linux)."""
    return _user_dir("PANELBOT_CACHE_DIR", "user_cache_path")


def index_cache_dir() -> Path:
    """Saved panel indexes (``panelbot.retrieval.cache``)."""
    return user_cache_dir() / "index"


def file_size(path: Path) -> int:
    """``path``'s size in bytes; 0 for a file gone or unreadable (another process may clear the cache)."""
    try:
        return path.stat().st_size
    except OSError:
        return 0


def model_cache_dir() -> Path:
    """The sentence model's weights widened to float32 (``panelbot.retrieval.encoder``), one directory per
    shipped model."""
    return user_cache_dir() / "models"


def parsed_cache_dir() -> Path:
    """Config files' parses, kept with their text so that a start needs no YAML parser
    (``panelbot.panel.yaml_lines.load_yaml_remembered``)."""
    return user_cache_dir() / "parsed"


def write_cache_text(path: Path, text: str) -> None:
    """Write a file panelbot can make again (a remembered parse, a record of hashed files): atomically (a
    temporary file beside it, then a rename), readable by the user only, and on a best-effort basis: a cache
    that cannot be written (read-only home, full disk) costs only the work of making it again next time."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink()


class NotRegularFile(OSError):
    """A path holds something other than a regular file (a FIFO, a device, a directory, a socket)."""


def open_regular(path: Path) -> int:
    """A read-only descriptor of the regular file at ``path``. What is there is checked before opening
    (a FIFO is never opened: opening one for reading waits for a writer, forever) and again on the open
    descriptor, which is opened non-blocking, so nothing swapped in between can make the open wait.
    Raises FileNotFoundError when nothing is there, NotRegularFile for anything but a regular file."""
    import stat

    if not stat.S_ISREG(os.stat(path).st_mode):
        raise NotRegularFile(0, "not a regular file", str(path))
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotRegularFile(0, "not a regular file", str(path))
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_cache_bytes(path: Path) -> bytes | None:
    """The bytes of a file panelbot made and can make again; None when it is absent, unreadable or not a
    regular file (a FIFO or a device there is treated as no file, never waited on)."""
    try:
        fd = open_regular(path)
    except OSError:
        return None
    try:
        with os.fdopen(fd, "rb") as f:
            return f.read()
    except OSError:
        return None


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
