"""``panelbot check PANEL``: how healthy a panel is (speakers, unknown answers, quotes vs turns, a self-test)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import TextIO

from panelbot.cli.common import EXIT_OK, print_json
from panelbot.errors import UsageError


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
    check.add_argument(
        "--fix",
        action="store_true",
        help="walk the doubtful turns on a terminal, asking who said each, then derive the draft again",
    )
    check.add_argument(
        "--speaker",
        action="append",
        default=[],
        metavar="TURN=NAME",
        help="set who said turn TURN (its number in the report; NAME a panelist or 'host'), then derive "
        "the draft again; repeatable, for scripts",
    )
    check.add_argument(
        "--force",
        action="store_true",
        help="with --fix/--speaker: derive a panel again even when it was curated since the ingest",
    )
    check.set_defaults(handler=cmd_check)


def cmd_check(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from panelbot.ingest.health import format_health, panel_health
    from panelbot.panel import load_panel

    if args.target:
        panel = load_panel(args.target)
    else:
        from panelbot.cli.common import load_config_and_panel

        _, panel = load_config_and_panel(args)
    overrides = turn_overrides(args.speaker)
    if args.fix:
        if not _on_terminal():
            raise UsageError(
                "--fix asks about each doubtful turn on a terminal; in a script use "
                "--speaker TURN=NAME"
            )
        overrides.update(walk_doubtful(panel, panel_health(panel).doubtful, _ask_line, out))
    if overrides:
        panel = _fixed(panel, overrides, force=args.force, out=err if args.json else out)
    elif args.fix:
        out.write("Nothing changed.\n")
    h = panel_health(panel)
    if args.json:
        print_json(h.to_dict(), out)
    else:
        from panelbot.text import strip_control

        out.write(strip_control(format_health(h)) + "\n")
    return EXIT_OK


def turn_overrides(pairs: list[str]) -> dict[int, str]:
    """--speaker TURN=NAME (repeatable) -> {turn number: name}; a malformed one is a usage error."""
    out: dict[int, str] = {}
    for pair in pairs:
        turn, sep, name = pair.partition("=")
        name = " ".join(name.split())
        if not sep or not turn.strip().isdigit() or not name:
            raise UsageError(f"--speaker expects TURN=NAME (e.g. 12=host), got {pair!r}")
        out[int(turn)] = name
    return out


def _on_terminal() -> bool:
    return sys.stdin.isatty()


def _ask_line(prompt: str) -> str | None:
    """One answer typed on the terminal; None at end of input."""
    try:
        return input(prompt)
    except EOFError:
        return None


def walk_doubtful(
    panel, doubtful: list[dict], ask: Callable[[str], str | None], out: TextIO
) -> dict[int, str]:  # noqa: ANN001 - a Panel
    """Show each doubtful turn (the words before it and its own) and ask who said it: Enter keeps the
    speaker, a name or 'host' sets it, 'q' stops (what was answered is kept). -> {turn number: name}."""
    from panelbot.text import shorten, strip_control

    people = ["host", *panel.panelists]
    chosen: dict[int, str] = {}
    for k, d in enumerate(doubtful, 1):
        i = d["index"]
        before = panel.turns[i - 1] if i > 0 else None
        out.write(
            f"\n[{k}/{len(doubtful)}] turn {d['turn']}, taken as {d['speaker']} ({d['why']})\n"
        )
        if before is not None:
            tail = " ".join(before.text.split()[-14:])
            out.write(
                f"  before ({before.speaker}): … {strip_control(tail, keep_newlines=False)}\n"
            )
        text = strip_control(panel.turns[i].text, keep_newlines=False)
        out.write(f"  this turn: {shorten(text, 300)}\n")
        while True:
            got = ask(f"  who said it? [Enter: {d['speaker']}; {', '.join(people)}; q: stop] ")
            if got is None or got.strip().lower() == "q":
                return chosen
            who = got.strip()
            if not who or _known(who, panel):
                break
            out.write(f"  not on the panel: {strip_control(who, keep_newlines=False)!r}\n")
        if who and who != d["speaker"]:
            chosen[d["turn"]] = who
    return chosen


def _known(who: str, panel) -> bool:  # noqa: ANN001 - a Panel
    from panelbot.ingest.names import speaker_for

    names = [p.name for p in panel.panelists.values()]
    return speaker_for(who, list(panel.panelists), names) is not None


def _fixed(panel, overrides: dict[int, str], *, force: bool, out: TextIO):  # noqa: ANN001, ANN202
    """The panel derived again with the turns set by hand."""
    from panelbot.ingest.draft import rederive
    from panelbot.panel import load_panel

    draft, _ = rederive(panel.path, overrides, force=force)
    shown = ", ".join(f"turn {n} -> {who}" for n, who in sorted(overrides.items()))
    from panelbot.text import count_of

    out.write(
        f"Derived {panel.path} again ({shown}; {count_of(len(draft.turns), 'turn')}, "
        f"{count_of(len(draft.quotes), 'quote')}).\n"
    )
    return load_panel(panel.path)
