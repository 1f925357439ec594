"""Errors a user can cause (bad data, bad flags, bad config). The CLI turns these into one line and exit 2."""

from __future__ import annotations


class PanelbotError(Exception):
    """Base class: a problem to report in one line, never as a traceback."""

    exit_code = 2


class UsageError(PanelbotError):
    """A bad flag, an empty question, an unknown option value."""


class DataError(PanelbotError):
    """A panel or eval file that cannot be loaded. Names the file (and line where known)."""

    def __init__(self, message: str, path: str | None = None, line: int | None = None) -> None:
        self.path = path
        self.line = line
        where = ""
        if path:
            where = f"{path}:{line}: " if line else f"{path}: "
        super().__init__(f"{where}{message}")


class ConfigError(DataError):
    """config.yaml is malformed or holds a value of the wrong kind."""


class PanelNotFound(PanelbotError):
    """No installed panel has that name."""
