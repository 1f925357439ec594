"""``panelbot cache info|clear``: what panelbot keeps in its cache directory and makes again when needed: the
saved panel indexes (``panelbot.retrieval.cache``), remembered config parses and the sentence model's widened
weights (``panelbot.retrieval.encoder``)."""

from __future__ import annotations

import argparse
from typing import TextIO

from panelbot.cli.common import EXIT_OK, Parser, print_json


def add_parsers(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    cache = sub.add_parser(
        "cache",
        help="show or clear the cache: saved indexes, config parses, the model's weights",
        description="Saved panel indexes (and remembered parses of config files) make "
        "every start after the first immediate. They are rebuilt by themselves when a "
        "panel, a config file or panelbot changes. The sentence model's weights are kept "
        "there too, widened once from the shipped float16 copy.",
    )
    actions = cache.add_subparsers(
        dest="action", metavar="ACTION", parser_class=Parser, required=True
    )
    info = actions.add_parser(
        "info",
        help="where the saved indexes are, whether each is current, and the size of everything "
        "in the cache",
    )
    info.add_argument("--json", action="store_true")
    info.set_defaults(handler=cmd_info)
    clear = actions.add_parser(
        "clear",
        help="delete every saved index, remembered config parse and widened copy of the model's "
        "weights (they are made again when needed; the next start widens the weights again)",
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
    from panelbot.retrieval.encoder import cached_copies
    from panelbot.text import strip_control

    where = paths.index_cache_dir()
    found = entries()
    parses = remembered_files()
    parse_bytes = sum(paths.file_size(p) for p in parses)
    models = cached_copies()
    model_bytes = sum(size for _, size in models)
    total = sum(e.size for e in found)
    everything = total + parse_bytes + model_bytes
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
                "models": {
                    "directory": str(paths.model_cache_dir()),
                    "copies": [{"directory": str(d), "bytes": size} for d, size in models],
                    "bytes": model_bytes,
                },
                "bytes": everything,
            },
            out,
        )
        return EXIT_OK
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
    lines = [
        f"Sentence model's widened weights: {paths.model_cache_dir()} ({len(models)} "
        f"cop{'ies' if len(models) != 1 else 'y'}, {_size(model_bytes)})"
    ]
    lines += [f"  {d.name:<40} {_size(size):>9}" for d, size in models]
    lines.append(f"Total: {_size(everything)}")
    for line in lines:
        out.write(strip_control(line, keep_newlines=False) + "\n")
    return EXIT_OK


def cmd_clear(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from panelbot import paths
    from panelbot.panel.yaml_lines import remembered_files
    from panelbot.retrieval.cache import clear
    from panelbot.retrieval.encoder import clear_cached

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
    copies, freed = clear_cached()
    if copies:
        out.write(
            f"Removed {copies} widened cop{'ies' if copies != 1 else 'y'} of the sentence model's weights "
            f"({_size(freed)}) from {paths.model_cache_dir()}; the next start widens them again.\n"
        )
    return EXIT_OK
