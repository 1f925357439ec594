"""``panelbot eval``: speaker accuracy, recall@1/@3 and abstention on a question set."""

from __future__ import annotations

import argparse
from typing import TextIO

from panelbot.cli.common import EXIT_OK, load_config_and_panel, print_json


def add_parsers(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    ev = sub.add_parser("eval", parents=[common], help="measure routing and retrieval on a question set",
                        description="Speaker accuracy, recall@1/@3 and abstention precision/recall.")
    ev.add_argument("file", metavar="FILE", help="YAML list or JSON Lines (see README)")
    ev.add_argument("--json", action="store_true")
    ev.add_argument("-v", "--verbose", action="store_true", help="list every miss")
    ev.set_defaults(handler=cmd_eval)


def cmd_eval(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from panelbot.retrieval.evaluation import evaluate, format_report, load_eval_set
    from panelbot.retrieval.router import Router

    cfg, panel = load_config_and_panel(args)
    items = load_eval_set(args.file, panel)
    report = evaluate(Router(panel, cfg.retrieval), items)
    if args.json:
        print_json(report.to_dict(), out)
    else:
        out.write(format_report(report, verbose=args.verbose) + "\n")
    return EXIT_OK
