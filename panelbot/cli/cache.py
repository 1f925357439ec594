"""``panelbot cache info|clear``: the saved panel indexes (``panelbot.retrieval.cache``)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, TextIO

from panelbot.cli.common import EXIT_OK, Parser, print_json

if TYPE_CHECKING:
    from pathlib import Path


def add_parsers(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    cache = sub.add_parser(
        "cache",
        help="show or clear the saved panel indexes",
        description="Saved panel indexes (and remembered parses of config files) make "
        "every start after the first immediate. They are rebuilt by themselves when a "
        "panel, a config file or panelbot changes.",
    )
    actions = cache.add_subparsers(
        dest="action", metavar="ACTION", parser_class=Parser, required=True
    )
    info = actions.add_parser(
        "info", help="where the saved indexes are, and whether each is current"
    )
    info.add_argument("--json", action="store_true")
    info.set_defaults(handler=cmd_info)
    clear = actions.add_parser(
        "clear",
        help="delete every saved index and remembered config parse "
        "(they are made again when needed)",
    )
    clear.set_defaults(handler=cmd_clear)


def _size(n: int) -> str:
    for unit in ("B", "KB", "MB"):
        if n < 1024 or unit == "MB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024  # type: ignore[assignment]
    return f"{n} B"


def cmd_info(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    import time

    from panelbot import paths
    from panelbot.panel.yaml_lines import remembered_files
    from panelbot.retrieval.cache import entries
    from panelbot.text import strip_control

    where = paths.index_cache_dir()
    found = entries()
    parses = remembered_files()
    parse_bytes = sum(_file_size(p) for p in parses)
    if args.json:
        print_json(
            {
                "directory": str(where),
                "indexes": [
                    {
                        "panel": e.panel,
                        "panel_directory": e.directory,
                        "file": str(e.path),
                        "bytes": e.size,
                        "quotes": e.quotes,
                        "created": e.created,
                        "state": e.state,
                        "install": e.install,
                        "this_install": not e.elsewhere,
                    }
                    for e in found
                ],
                "config_parses": {
                    "directory": str(paths.parsed_cache_dir()),
                    "files": len(parses),
                    "bytes": parse_bytes,
                },
            },
            out,
        )
        return EXIT_OK
    total = sum(e.size for e in found)
    out.write(
        f"Saved indexes: {where} ({len(found)} file{'s' * (len(found) != 1)}, {_size(total)})\n"
    )
    for e in found:
        built = time.strftime("%Y-%m-%d %H:%M", time.localtime(e.created)) if e.created else "?"
        state = "elsewhere" if e.elsewhere and e.state in ("current", "stale") else e.state
        line = (
            f"  {e.panel:<20} {state:<9} {e.quotes:>7} quotes {_size(e.size):>9}  built {built}  "
            f"{e.directory}"
        )
        out.write(strip_control(line, keep_newlines=False) + "\n")
        if (
            state != e.state
        ):  # another install's: not used here, replaced by this one's when next opened
            note = (
                f"    built by another install of panelbot ({e.install}; {e.state} for it): this one "
                "builds its own when it next opens the panel"
            )
            out.write(strip_control(note, keep_newlines=False) + "\n")
    out.write(
        strip_control(
            f"Remembered config parses: {paths.parsed_cache_dir()} ({len(parses)} file"
            f"{'s' * (len(parses) != 1)}, {_size(parse_bytes)})",
            keep_newlines=False,
        )
        + "\n"
    )
    return EXIT_OK


def _file_size(p: Path) -> int:
    try:
        return p.stat().st_size
    except OSError:
        return 0


def cmd_clear(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from panelbot import paths
    from panelbot.panel.yaml_lines import remembered_files
    from panelbot.retrieval.cache import clear

    n, freed = clear()
    out.write(
        f"Removed {n} saved index{'es' * (n != 1)} ({_size(freed)}) from {paths.index_cache_dir()}.\n"
    )
    gone = 0
    for p in remembered_files():
        try:
            p.unlink()
        except OSError:
            continue
        gone += p.suffix == ".json"
    if gone:
        out.write(
            f"Removed {gone} remembered config parse{'s' * (gone != 1)} from {paths.parsed_cache_dir()}.\n"
        )
    return EXIT_OK
