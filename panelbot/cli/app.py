"""``panelbot`` with no command: the terminal app (the only command that imports Textual)."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

from panelbot.errors import UsageError

if TYPE_CHECKING:
    from typing import TextIO

NO_TERMINAL = (
    "the app needs a terminal ({stream} is not one); to ask from a script or a pipe use "
    "panelbot ask QUESTION (see panelbot ask --help)"
)


def _is_terminal(stream: object) -> bool:
    """True if ``stream`` is an open terminal (a closed or missing stream is none)."""
    try:
        return bool(stream.isatty())  # type: ignore[attr-defined]
    except (AttributeError, ValueError, OSError):
        return False


def _refuse_without_a_terminal(out: object) -> None:
    """A usage error if stdin or stdout is not a terminal: the app would paint escape codes into the
    pipe or file and wait for keys that never come (``panelbot --resume 1 < /dev/null > out.txt``) --
    unless Textual is given a driver of its own (``TEXTUAL_DRIVER``: textual-serve's web driver, which
    ``panelbot web`` runs each browser tab's app with, speaks over pipes)."""
    if os.environ.get("TEXTUAL_DRIVER"):
        return
    for stream, name in ((sys.stdin, "stdin"), (out, "stdout")):
        if not _is_terminal(stream):
            raise UsageError(NO_TERMINAL.format(stream=name))


def _check_resumable(conv_id: int) -> None:
    """A usage error for ``--resume ID`` of no saved conversation, as ``ask --cid ID`` gives, before the
    app starts. A history that cannot be read is left to the app (it says so and starts a new one)."""
    from panelbot import paths
    from panelbot.conversation.store import ConversationStore
    from panelbot.errors import PanelbotError

    path = paths.history_db_path()
    if not path.exists():  # not created just to read it
        raise UsageError(f"no conversation {conv_id} (the history is empty)")
    try:
        with ConversationStore(path) as store:
            found = store.conversation(conv_id) is not None
    except PanelbotError:
        return
    if not found:
        raise UsageError(f"no conversation {conv_id} (see 'panelbot history')")


def cmd_tui(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from panelbot.config import Config, load_config
    from panelbot.errors import ConfigError, DataError

    _refuse_without_a_terminal(out)
    if args.resume is not True and args.resume:  # an id (True: the most recent one, if any)
        _check_resumable(args.resume)
    try:
        cfg, problem = load_config(args.config), None
    except (ConfigError, DataError) as exc:  # shown inside the app, which runs on the defaults
        cfg, problem = Config(), str(exc)
    from panelbot.tui import run

    return run(cfg, args.panel, args.resume, config_error=problem)
