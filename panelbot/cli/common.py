"""What every command shares: the one-line-error argument parser, exit codes, loading config and panel,
reading questions, printing JSON. Cheap to import (no Textual, no httpx)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING

from panelbot.errors import UsageError

if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any, TextIO

    from panelbot.config import Config
    from panelbot.panel import Panel
    from panelbot.retrieval.cache import Opened
    from panelbot.retrieval.library import Library

EXIT_OK, EXIT_USAGE, EXIT_FALLBACK = 0, 2, 3


def _english(message: str) -> str:
    return message


# argparse asks gettext for a translation of every label it makes (a dozen lookups, and the locale module:
# ~2 ms of every start). Python ships no translation of argparse, and panelbot's own words are English.
argparse._ = _english  # type: ignore[attr-defined]


class _HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, told the terminal's width (argparse makes one for every option it adds, and
    without a width each imports shutil to ask)."""

    def __init__(
        self,
        prog: str,
        indent_increment: int = 2,
        max_help_position: int = 24,
        width: int | None = None,
    ) -> None:
        if width is None:
            from panelbot.text import terminal_columns

            width = terminal_columns(80) - 2
        super().__init__(prog, indent_increment, max_help_position, width)


class Parser(argparse.ArgumentParser):
    """argparse that reports a bad flag in one line, says what is expected, and exits 2."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> None:  # type: ignore[override]
        from panelbot.cli.suggest import with_suggestion
        from panelbot.text import strip_control

        message = strip_control(with_suggestion(self, message), keep_newlines=False)
        sys.stderr.write(f"{self.prog}: error: {message} (try '{self.prog} --help')\n")
        raise SystemExit(EXIT_USAGE)


def count_k(value: str) -> int:
    """argparse type: a whole number from 1 to 50."""
    try:
        k = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a whole number from 1 to 50, got {value!r}"
        ) from None
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
    cfg = load_config_warned(args)
    return cfg, open_noted(getattr(args, "panel", None) or cfg.panel)


def load_config_warned(args: argparse.Namespace) -> Config:
    """The config (``--config`` or the usual places), its warnings written to stderr."""
    from panelbot.config import load_config

    cfg = load_config(getattr(args, "config", None))
    for w in cfg.warnings:
        sys.stderr.write(f"panelbot: warning: {w}\n")
    return cfg


def open_noted(name_or_dir: str | Path) -> Opened:
    """A panel with its index (see ``open_indexed``), its one-line note (a rebuilt saved index) on stderr."""
    from panelbot.retrieval.cache import open_indexed

    opened = open_indexed(name_or_dir)
    if opened.note:
        sys.stderr.write(f"panelbot: note: {opened.note}\n")
    return opened


def open_all_talks(args: argparse.Namespace, err: TextIO) -> tuple[Config, Library]:
    """The config (``-k`` applied) and every installed talk (``--all``), its notes (rebuilt indexes,
    skipped panels) on ``err``; UsageError when no panel is installed."""
    from panelbot.records import replace
    from panelbot.retrieval.library import Library

    cfg = load_config_warned(args)
    if getattr(args, "k", None):
        cfg = replace(cfg, retrieval=replace(cfg.retrieval, top_k=args.k))
    library, notes = Library.open(cfg.retrieval)
    for note in notes:
        err.write(f"panelbot: note: {note}\n")
    if not library.routers:
        raise UsageError("no panels are installed (see 'panelbot panels')")
    return cfg, library


def read_questions(parts: list[str], stdin: TextIO, what: str = "question") -> Iterator[str]:
    """The question (``what``: or the subject, for ``discuss``) from the command line, or one per non-empty
    line of stdin for '-'.

    Bytes that are not UTF-8 become U+FFFD (never written back raw: a lone 0x9B is an 8-bit CSI), control
    characters are dropped, and a question over the length limit is refused."""
    from panelbot.text import question_too_long, strip_control

    if parts == ["-"]:
        raw = getattr(stdin, "buffer", None)
        lines = (b.decode("utf-8", "replace") for b in raw) if raw is not None else iter(stdin)
        asked = False
        for n, line in enumerate(lines, 1):
            line = strip_control(line, keep_newlines=False).strip()
            if line:
                too_long = question_too_long(line, what)
                if too_long:
                    raise UsageError(f"line {n} of stdin: {too_long}")
                asked = True
                yield line
        if not asked:
            raise UsageError(f"no {what} on stdin ('-' reads one {what} per non-empty line)")
        return
    q = strip_control(" ".join(parts), keep_newlines=False).strip()
    if not q:
        raise UsageError(f"the {what} is empty")
    too_long = question_too_long(q, what)
    if too_long:
        raise UsageError(too_long)
    yield q


def print_json(obj: object, out: TextIO) -> None:
    """One JSON object on one line, ASCII only: every non-ASCII character (C1 controls, bidi overrides,
    U+2028, which JSON Lines readers split on) is a \\u escape; no API key in any form."""
    from panelbot.redact import scrub

    out.write(scrub(json.dumps(obj, ensure_ascii=True)) + "\n")
