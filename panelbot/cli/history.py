"""``panelbot history``: the saved conversations (the app's and the shell's)."""

from __future__ import annotations

import argparse
from typing import TextIO

from panelbot.cli.common import EXIT_OK, print_json


def add_parsers(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    hist = sub.add_parser("history", help="list saved conversations")
    hist.add_argument("--json", action="store_true")
    hist.set_defaults(handler=cmd_history)


def cmd_history(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from panelbot import paths
    from panelbot.conversation.store import ConversationStore
    from panelbot.text import strip_control

    path = paths.history_db_path()
    convs = ConversationStore(path).list_conversations() if path.exists() else []
    if args.json:
        print_json([{"id": c.id, "title": c.title, "panel": c.panel, "started_at": c.started_at,
                      "updated_at": c.updated_at, "messages": c.message_count} for c in convs], out)
        return EXIT_OK
    if not convs:
        out.write("No saved conversations yet.\n")
    for c in convs:
        line = f"{c.id:>4}  {c.updated_at}  {c.message_count:>3} msgs  {c.panel}  {c.title}"
        out.write(strip_control(line, keep_newlines=False) + "\n")
    return EXIT_OK
