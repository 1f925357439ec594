"""What every command shares: the one-line-error argument parser, exit codes, loading config and panel,
reading questions, printing JSON. Cheap to import (no Textual, no httpx)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, TextIO

from panelbot.errors import UsageError

if TYPE_CHECKING:
    from panelbot.config import Config
    from panelbot.panel import Panel
    from panelbot.retrieval.cache import Opened

EXIT_OK, EXIT_USAGE, EXIT_FALLBACK = 0, 2, 3


class Parser(argparse.ArgumentParser):
    """argparse that reports a bad flag in one line, says what is expected, and exits 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        sys.stderr.write(f"{self.prog}: error: {message}\n(try '{self.prog} --help')\n")
        raise SystemExit(EXIT_USAGE)


def count_k(value: str) -> int:
    """argparse type: a whole number from 1 to 50."""
    try:
        k = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number from 1 to 50, got {value!r}") from None
    if not 1 <= k <= 50:
        raise argparse.ArgumentTypeError(f"expected a whole number from 1 to 50, got {k}")
    return k


def load_config_and_panel(args: argparse.Namespace) -> tuple[Config, Panel]:
    from panelbot.config import load_config
    from panelbot.panel import load_panel

    cfg = load_config(getattr(args, "config", None))
    for w in cfg.warnings:
        sys.stderr.write(f"panelbot: warning: {w}\n")
    panel = load_panel(getattr(args, "panel", None) or cfg.panel)
    return cfg, panel


def load_config_and_index(args: argparse.Namespace) -> tuple[Config, Opened]:
    """The config and the panel with its index, from the saved index when it is current (a one-line note
    on stderr when a saved index was unusable and has been rebuilt)."""
    from panelbot.config import load_config
    from panelbot.retrieval.cache import open_indexed

    cfg = load_config(getattr(args, "config", None))
    for w in cfg.warnings:
        sys.stderr.write(f"panelbot: warning: {w}\n")
    opened = open_indexed(getattr(args, "panel", None) or cfg.panel)
    if opened.note:
        sys.stderr.write(f"panelbot: note: {opened.note}\n")
    return cfg, opened


def read_questions(parts: list[str], stdin: TextIO) -> Iterator[str]:
    """The question from the command line, or one per non-empty line of stdin for '-'."""
    if parts == ["-"]:
        for line in stdin:
            line = line.strip()
            if line:
                yield line
        return
    q = " ".join(parts).strip()
    if not q:
        raise UsageError("the question is empty")
    yield q


def print_json(obj: object, out: TextIO) -> None:
    out.write(json.dumps(obj, ensure_ascii=False) + "\n")
