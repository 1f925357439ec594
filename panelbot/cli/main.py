"""``panelbot``'s entry point: the parser (each command group adds its own sub-commands) and one-line errors."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from panelbot import __version__
from panelbot.cli import app, ask, cache, check, history, panels, serve
from panelbot.cli import eval as eval_cmd
from panelbot.cli.ask import conversation_id
from panelbot.cli.common import EXIT_OK, Parser
from panelbot.errors import PanelbotError

COMMAND_GROUPS = (ask, panels, check, eval_cmd, history, cache, serve)


def build_parser() -> argparse.ArgumentParser:
    def shared(default: object) -> argparse.ArgumentParser:
        # accepted before or after the command; the command's copy must not reset the top-level value
        sp = argparse.ArgumentParser(add_help=False)
        sp.add_argument("--panel", metavar="NAME", default=default,
                        help="panel name or directory (default: from config)")
        sp.add_argument("--config", metavar="FILE", default=default, help="extra config file to apply")
        return sp

    common = shared(argparse.SUPPRESS)
    p = Parser(
        prog="panelbot",
        description="Ask the 'Agents at Scale' panel anything; answers in the panelists' own words. "
        "With no command, opens the terminal app.",
        parents=[shared(None)],
    )
    p.add_argument("--version", action="version", version=f"panelbot {__version__}")
    p.add_argument("--resume", nargs="?", const=True, default=False, type=conversation_id, metavar="ID",
                   help="open the terminal app on conversation ID (default: the most recent one)")
    p.set_defaults(handler=app.cmd_tui)
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for group in COMMAND_GROUPS:
        group.add_parsers(sub, common)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    out, err = sys.stdout, sys.stderr
    try:
        return args.handler(args, out, err)
    except PanelbotError as exc:
        from panelbot.redact import scrub
        from panelbot.text import strip_control

        # the message may hold untrusted text (a file name, a server's words): one clean line
        err.write(f"panelbot: error: {scrub(strip_control(str(exc), keep_newlines=False))}\n")
        return exc.exit_code
    except KeyboardInterrupt:
        err.write("panelbot: interrupted\n")
        return 130
    except BrokenPipeError:
        # the reader went away (e.g. `| head`); don't let the interpreter complain while flushing
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
