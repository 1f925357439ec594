"""``panelbot panels`` (the installed panels) and ``panelbot ingest`` (raw captions -> a draft panel)."""

from __future__ import annotations

import argparse
import json
from typing import TextIO

from panelbot.cli.common import EXIT_OK, print_json
from panelbot.errors import UsageError


def add_parsers(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    panels = sub.add_parser("panels", help="list installed panels")
    panels.add_argument("--json", action="store_true")
    panels.set_defaults(handler=cmd_panels)

    ingest = sub.add_parser("ingest", help="turn raw captions into a draft panel",
                            description="Turn raw auto-captions into a draft panel that a person reviews.")
    ingest.add_argument("captions", metavar="CAPTIONS")
    ingest.add_argument("--out", metavar="DIR", help="panel directory to write, e.g. persona_data/NAME")
    ingest.add_argument("--turns-json", action="store_true", help="print the segmented turns as JSON")
    ingest.add_argument("--force", action="store_true", help="overwrite even a curated panel")
    ingest.set_defaults(handler=cmd_ingest)


def cmd_panels(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from panelbot.panel import list_panels
    from panelbot.text import strip_control

    infos = list_panels()
    if args.json:
        print_json([{"name": i.name, "title": i.title, "status": i.status, "path": str(i.path),
                      "panelists": list(i.panelists), "quotes": i.quotes} for i in infos], out)
        return EXIT_OK
    if not infos:
        out.write("No panels installed.\n")
    for i in infos:
        who = ", ".join(i.panelists)
        out.write(f"{i.name:<20} {i.status:<8} {i.quotes:>4} quotes  {who:<16} "
                  f"{strip_control(i.title, keep_newlines=False)}\n")
    return EXIT_OK


def cmd_ingest(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from pathlib import Path

    from panelbot.ingest.draft import build_draft, read_captions_file, segment, write_draft

    if not args.out and not args.turns_json:
        raise UsageError("ingest needs --out DIR (where to write the panel) and/or --turns-json")
    captions = read_captions_file(args.captions)
    if args.turns_json and not args.out:
        _, turns, _ = segment(captions)
        out.write(json.dumps([t.to_dict() for t in turns], ensure_ascii=True, indent=1) + "\n")
        return EXIT_OK
    outdir = Path(args.out)
    if outdir.exists() and not outdir.is_dir():
        raise UsageError(f"--out {outdir} is a file, not a directory (--force replaces only a panel "
                         "directory)")
    draft = build_draft(captions, outdir.name)
    try:
        written = write_draft(draft, captions, outdir, force=args.force)
    except OSError as exc:  # a read-only place, a path under a file, /proc, a full disk...
        from panelbot.errors import DataError

        raise DataError(f"cannot write the panel there: {exc.strerror or exc}", str(outdir)) from None
    if args.turns_json:
        out.write(json.dumps([t.to_dict() for t in draft.turns], ensure_ascii=True, indent=1) + "\n")
        return EXIT_OK
    unknown = sum(1 for t in draft.turns if t.speaker == "unknown")
    out.write(
        f"Wrote draft panel {outdir} ({len(draft.turns)} turns, {len(draft.questions)} host questions, "
        f"{len(draft.quotes)} quotes; panelists: {', '.join(draft.names)}).\n"
    )
    if unknown:
        out.write(f"{unknown} turn(s) could not be attributed: marked 'unknown' in turns.yaml for review.\n")
    out.write(f"Try: panelbot ask --panel {outdir.name} \"...\"   ({len(written)} files written)\n")
    return EXIT_OK
