"""``panelbot``'s entry point: the parser (each command group adds its own sub-commands) and one-line errors."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from importlib import import_module

from panelbot import __version__
from panelbot.cli import app
from panelbot.cli.ask import conversation_id
from panelbot.cli.common import EXIT_OK, Parser
from panelbot.errors import PanelbotError

# the modules (panelbot.cli.<group>) that add the commands, in --help's order: ask and quote; discuss; panels and
# ingest; check; eval; history; cache; serve and mcp; web; completion
COMMAND_GROUPS = (
    "ask",
    "discuss",
    "panels",
    "check",
    "eval",
    "history",
    "cache",
    "serve",
    "web",
    "completion",
)


def _panel_name(value: str) -> str:
    """argparse type: a panel name or directory, not empty (``--panel ""`` used the default panel)."""
    if not value.strip():
        raise argparse.ArgumentTypeError("expected a panel name or directory, got an empty one")
    return value


def build_parser() -> argparse.ArgumentParser:
    """The whole parser: the top-level options and every command group's sub-commands."""

    def shared(default: object) -> argparse.ArgumentParser:
        # accepted before or after the command; the command's copy must not reset the top-level value
        sp = Parser(add_help=False)
        sp.add_argument(
            "--panel",
            metavar="NAME",
            default=default,
            type=_panel_name,
            help="panel name or directory (default: from config)",
        )
        sp.add_argument(
            "--config", metavar="FILE", default=default, help="extra config file to apply"
        )
        return sp

    common = shared(argparse.SUPPRESS)
    p = Parser(
        prog="panelbot",
        description="Ask the 'Agents at Scale' panel anything; answers in the panelists' own words. "
        "With no command, opens the terminal app.",
        parents=[shared(None)],
    )
    p.add_argument("--version", action="version", version=f"panelbot {__version__}")
    p.add_argument(
        "--resume",
        nargs="?",
        const=True,
        default=False,
        type=conversation_id,
        metavar="ID",
        help="open the terminal app on conversation ID (default: the most recent one)",
    )
    p.set_defaults(handler=app.cmd_tui)
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for name in COMMAND_GROUPS:
        import_module(f"panelbot.cli.{name}").add_parsers(sub, common)
    return p


# ask's flags for a model, which the app (no command) does not take: it follows the settings
MODEL_FLAGS = ("--llm", "--base-url", "--model")


def _model_flag_for_the_app(parser: argparse.ArgumentParser, argv: Sequence[str]) -> str | None:
    """The flag of :data:`MODEL_FLAGS` given before any command (``panelbot --llm``), if one is."""
    commands = next(a.choices for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for word in argv:
        if word in commands:
            return None
        if word.split("=", 1)[0] in MODEL_FLAGS:
            return word.split("=", 1)[0]
    return None


def parse(parser: argparse.ArgumentParser, argv: Sequence[str]) -> argparse.Namespace:
    """``parser.parse_args(argv)``, except that a word no option knows is reported by the command it
    follows (so the hint points at ``panelbot ask --help``, not the top-level help), and a model's flag
    given to the app says how the app answers with a model."""
    flag = _model_flag_for_the_app(parser, argv)
    if flag:
        parser.error(
            f"the app takes no {flag}: start it as PANELBOT_BACKEND=openai panelbot (the endpoint in "
            "PANELBOT_BASE_URL and PANELBOT_MODEL) or set backend: in your config; ask --llm asks one "
            "question of a model"
        )
    args, extra = parser.parse_known_args(argv)
    if extra:
        _innermost(parser, args).error(f"unrecognized arguments: {' '.join(extra)}")
    return args


def _innermost(
    parser: argparse.ArgumentParser, args: argparse.Namespace
) -> argparse.ArgumentParser:
    """The (sub-)command parser that ``args`` went through last: ``panelbot history search``'s for
    ``history search``."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            chosen = getattr(args, action.dest, None)
            if isinstance(chosen, str) and chosen in action.choices:
                return _innermost(action.choices[chosen], args)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    parser = build_parser()
    args = parse(parser, argv)
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
