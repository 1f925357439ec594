"""``panelbot`` with no command: the terminal app (the only command that imports Textual)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import TextIO


def cmd_tui(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from panelbot.config import Config, load_config
    from panelbot.errors import ConfigError, DataError

    try:
        cfg, problem = load_config(args.config), None
    except (ConfigError, DataError) as exc:  # shown inside the app, which runs on the defaults
        cfg, problem = Config(), str(exc)
    from panelbot.tui import run

    return run(cfg, args.panel, args.resume, config_error=problem)
