"""``panelbot check PANEL``: how healthy a panel is (speakers, unknown answers, quotes vs turns, a self-test)."""

from __future__ import annotations

import argparse
from typing import TextIO

from panelbot.cli.common import EXIT_OK, print_json


def add_parsers(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    check = sub.add_parser(
        "check",
        parents=[common],
        help="report how healthy a panel is",
        description="Turns, words and quotes per speaker, answers still 'unknown', quotes "
        "not found in their turn, and a self-test built from the talk; warnings say what "
        "to curate first.",
    )
    check.add_argument(
        "target", nargs="?", metavar="PANEL", help="panel name or directory (default: config)"
    )
    check.add_argument("--json", action="store_true", help="print a JSON object")
    check.set_defaults(handler=cmd_check)


def cmd_check(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from panelbot.ingest.health import format_health, panel_health
    from panelbot.panel import load_panel

    if args.target:
        panel = load_panel(args.target)
    else:
        from panelbot.cli.common import load_config_and_panel

        _, panel = load_config_and_panel(args)
    h = panel_health(panel)
    if args.json:
        print_json(h.to_dict(), out)
    else:
        from panelbot.text import strip_control

        out.write(strip_control(format_health(h)) + "\n")
    return EXIT_OK
