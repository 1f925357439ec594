"""``panelbot eval``: speaker accuracy, recall@1/@3 and abstention on a question set; turn accuracy per kind
on a set of conversations (a file whose items have ``turns``)."""

from __future__ import annotations

import argparse
from typing import TextIO

from panelbot.cli.common import EXIT_OK, load_config_and_panel, print_json
from panelbot.errors import UsageError

EXIT_BELOW_FLOOR = 1  # --suite: a figure fell below its recorded floor


def add_parsers(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    ev = sub.add_parser(
        "eval",
        parents=[common],
        help="measure routing and retrieval on a question set",
        description="Speaker accuracy, recall@1/@3 and abstention precision/recall; for a "
        "file of conversations, turn accuracy per kind of follow-up.",
    )
    ev.add_argument(
        "file", metavar="FILE", nargs="?", help="YAML list or JSON Lines (see docs/quality.md)"
    )
    ev.add_argument(
        "--suite",
        metavar="SUITE",
        help="every talk and set listed in SUITE (e.g. eval/suite.yaml), each held to its floors: "
        "exit 1 when a figure is below one",
    )
    ev.add_argument("--json", action="store_true")
    ev.add_argument("-v", "--verbose", action="store_true", help="list every miss")
    ev.set_defaults(handler=cmd_eval)


def cmd_suite(args: argparse.Namespace, out: TextIO) -> int:
    from panelbot.retrieval.suite import format_suite, run_suite

    results = run_suite(args.suite)
    if args.json:
        print_json(
            [
                {"talk": r.talk, "file": r.file, "figures": r.figures, "below": r.broken}
                for r in results
            ],
            out,
        )
    else:
        out.write(format_suite(results) + "\n")
    return EXIT_BELOW_FLOOR if any(r.broken for r in results) else EXIT_OK


def cmd_eval(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    if args.suite:
        if args.file:
            raise UsageError("give FILE or --suite SUITE, not both")
        return cmd_suite(args, out)
    if not args.file:
        raise UsageError("eval needs FILE (a question or conversation set) or --suite SUITE")
    from panelbot.retrieval.evaluation import evaluate, format_report, load_eval_set, read_eval_file
    from panelbot.retrieval.router import Router

    cfg, panel = load_config_and_panel(args)
    raw = read_eval_file(args.file)
    router = Router(panel, cfg.retrieval)
    from panelbot.conversation.evaluation import is_conversation_set

    if is_conversation_set(raw):
        from panelbot.conversation.evaluation import (
            evaluate_conversations,
            format_conversation_report,
            load_conversations,
        )

        conv_report = evaluate_conversations(router, load_conversations(args.file, panel, raw))
        if args.json:
            print_json(conv_report.to_dict(), out)
        else:
            out.write(format_conversation_report(conv_report, verbose=args.verbose) + "\n")
        return EXIT_OK
    report = evaluate(router, load_eval_set(args.file, panel))
    if args.json:
        print_json(report.to_dict(), out)
    else:
        out.write(format_report(report, verbose=args.verbose) + "\n")
    return EXIT_OK
