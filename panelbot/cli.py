"""The ``panelbot`` command line. Importing this module is cheap: Textual and httpx are imported only by the
sub-commands that need them (the TUI and ``ask --llm``)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Sequence
from typing import TextIO

from panelbot import __version__
from panelbot.errors import PanelbotError, UsageError

EXIT_OK, EXIT_USAGE, EXIT_FALLBACK = 0, 2, 3


class _Parser(argparse.ArgumentParser):
    """argparse that reports a bad flag in one line, says what is expected, and exits 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        sys.stderr.write(f"{self.prog}: error: {message}\n(try '{self.prog} --help')\n")
        raise SystemExit(EXIT_USAGE)


def _k(value: str) -> int:
    try:
        k = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number from 1 to 50, got {value!r}") from None
    if not 1 <= k <= 50:
        raise argparse.ArgumentTypeError(f"expected a whole number from 1 to 50, got {k}")
    return k


def build_parser() -> argparse.ArgumentParser:
    def shared(default: object) -> argparse.ArgumentParser:
        # accepted before or after the command; the command's copy must not reset the top-level value
        sp = argparse.ArgumentParser(add_help=False)
        sp.add_argument("--panel", metavar="NAME", default=default,
                        help="panel name or directory (default: from config)")
        sp.add_argument("--config", metavar="FILE", default=default, help="extra config file to apply")
        return sp

    common = shared(argparse.SUPPRESS)
    p = _Parser(
        prog="panelbot",
        description="Ask the 'Agents at Scale' panel anything; answers in the panelists' own words. "
        "With no command, opens the terminal app.",
        parents=[shared(None)],
    )
    p.add_argument("--version", action="version", version=f"panelbot {__version__}")
    p.add_argument("--resume", action="store_true", help="open the terminal app on the last conversation")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    ask = sub.add_parser("ask", parents=[common], help="answer a question (offline quotes or a model)",
                         description="Answer QUESTION ('-' reads one question per line from stdin).")
    ask.add_argument("question", nargs="+", metavar="QUESTION")
    mode = ask.add_mutually_exclusive_group()
    mode.add_argument("--offline", action="store_true", help="verbatim quotes only, no network (default)")
    mode.add_argument("--llm", action="store_true", help="generate through an OpenAI-compatible endpoint")
    ask.add_argument("--json", action="store_true", help="print a JSON object (JSON Lines for '-')")
    ask.add_argument("--to", dest="target", default="auto", metavar="WHO",
                     help="who answers: auto (default), both, or a panelist id")
    ask.add_argument("-k", type=_k, default=None, metavar="K", help="quotes per answer (default: config)")
    ask.add_argument("--base-url", metavar="URL", help="OpenAI-compatible base URL (implies --llm)")
    ask.add_argument("--model", metavar="NAME", help="model name (implies --llm)")
    ask.add_argument("--backend", metavar="NAME", help="answer backend: offline, openai or a plugin")

    quote = sub.add_parser("quote", parents=[common], help="look up the best matching quotes",
                           description="The K best quotes for QUERY: no routing, no abstention.")
    quote.add_argument("query", nargs="+", metavar="QUERY")
    quote.add_argument("-n", type=_k, default=5, metavar="K", help="how many quotes (default 5)")
    quote.add_argument("--speaker", metavar="ID", help="only this panelist's quotes")
    quote.add_argument("--json", action="store_true", help="print a JSON list")

    panels = sub.add_parser("panels", help="list installed panels")
    panels.add_argument("--json", action="store_true")

    ingest = sub.add_parser("ingest", help="turn raw captions into a draft panel",
                            description="Turn raw auto-captions into a draft panel that a person reviews.")
    ingest.add_argument("captions", metavar="CAPTIONS")
    ingest.add_argument("--out", metavar="DIR", help="panel directory to write, e.g. persona_data/NAME")
    ingest.add_argument("--turns-json", action="store_true", help="print the segmented turns as JSON")
    ingest.add_argument("--force", action="store_true", help="overwrite even a curated panel")

    ev = sub.add_parser("eval", parents=[common], help="measure routing and retrieval on a question set",
                        description="Speaker accuracy, recall@1/@3 and abstention precision/recall.")
    ev.add_argument("file", metavar="FILE", help="YAML list or JSON Lines (see README)")
    ev.add_argument("--json", action="store_true")
    ev.add_argument("-v", "--verbose", action="store_true", help="list every miss")

    hist = sub.add_parser("history", help="list saved conversations")
    hist.add_argument("--json", action="store_true")
    return p


# ----------------------------------------------------------------------------------------------- helpers


def _load(args: argparse.Namespace):
    from panelbot.config import load_config
    from panelbot.panel import load_panel

    cfg = load_config(getattr(args, "config", None))
    for w in cfg.warnings:
        sys.stderr.write(f"panelbot: warning: {w}\n")
    panel = load_panel(getattr(args, "panel", None) or cfg.panel)
    return cfg, panel


def _questions(parts: list[str], stdin: TextIO) -> Iterator[str]:
    if parts == ["-"]:
        for line in stdin:
            line = line.strip()
            if line:
                yield line
        return
    q = " ".join(parts).strip()
    if not q:
        raise UsageError("the question is empty")
    yield q


def _print_json(obj: object, out: TextIO) -> None:
    out.write(json.dumps(obj, ensure_ascii=False) + "\n")


# ----------------------------------------------------------------------------------------------- commands


def cmd_ask(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from dataclasses import replace

    from panelbot.answer.compose import format_route
    from panelbot.retrieval.router import Router

    cfg, panel = _load(args)
    if args.k:
        cfg = replace(cfg, retrieval=replace(cfg.retrieval, top_k=args.k))
    target = args.target.lower()
    if target not in ("auto", "both", *panel.panelists):
        raise UsageError(
            f"--to expects auto, both or one of: {', '.join(panel.panelists)} (got {args.target!r})"
        )
    changes = {}
    if args.base_url:
        changes["base_url"] = args.base_url
    if args.model:
        changes["model"] = args.model
    if args.backend:
        changes["name"] = args.backend
    use_llm = args.llm or (
        not args.offline and (bool(args.base_url or args.model) or (args.backend or cfg.backend.name) != "offline")
    )
    if use_llm and (args.backend or cfg.backend.name) == "offline":
        changes["name"] = "openai"
    if changes:
        cfg = cfg.with_backend(**changes)
    router = Router(panel, cfg.retrieval)
    questions = list(_questions(args.question, sys.stdin))
    if use_llm:
        from panelbot.llm_cli import ask_llm

        return ask_llm(questions, json_out=args.json, config=cfg, panel=panel, router=router,
                       target=target, out=out, err=err)
    for i, q in enumerate(questions):
        result = router.route(q, target)
        if args.json:
            d = result.to_dict()
            if result.abstained:
                d["suggestions"] = result.suggestions
            _print_json(d, out)
        else:
            if len(questions) > 1:
                out.write(("\n" if i else "") + f"Q: {q}\n")
            out.write(format_route(panel, result) + "\n")
    return EXIT_OK


def cmd_quote(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from panelbot.retrieval.router import Router
    from panelbot.text import strip_control

    cfg, panel = _load(args)
    query = " ".join(args.query).strip()
    if not query:
        raise UsageError("the query is empty")
    speakers = None
    if args.speaker:
        if args.speaker not in panel.panelists:
            raise UsageError(f"--speaker expects one of: {', '.join(panel.panelists)} (got {args.speaker!r})")
        speakers = {args.speaker}
    hits = Router(panel, cfg.retrieval).search(query, args.n, speakers)
    if args.json:
        _print_json([h.to_dict() for h in hits], out)
        return EXIT_OK
    if not hits:
        out.write("No quote matches that.\n")
    for h in hits:
        who = panel.display_name(h.quote.speaker)
        out.write(f"[{h.quote.id}] {who} ({h.score:.0f}): "
                  f"\u201c{strip_control(h.quote.text, keep_newlines=False)}\u201d\n")
    return EXIT_OK


def cmd_panels(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from panelbot.panel import list_panels
    from panelbot.text import strip_control

    infos = list_panels()
    if args.json:
        _print_json([{"name": i.name, "title": i.title, "status": i.status, "path": str(i.path),
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
        out.write(json.dumps([t.to_dict() for t in turns], ensure_ascii=False, indent=1) + "\n")
        return EXIT_OK
    outdir = Path(args.out)
    draft = build_draft(captions, outdir.name)
    written = write_draft(draft, captions, outdir, force=args.force)
    if args.turns_json:
        out.write(json.dumps([t.to_dict() for t in draft.turns], ensure_ascii=False, indent=1) + "\n")
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


def cmd_eval(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from panelbot.retrieval.evaluation import evaluate, format_report, load_eval_set
    from panelbot.retrieval.router import Router

    cfg, panel = _load(args)
    items = load_eval_set(args.file, panel)
    report = evaluate(Router(panel, cfg.retrieval), items)
    if args.json:
        _print_json(report.to_dict(), out)
    else:
        out.write(format_report(report, verbose=args.verbose) + "\n")
    return EXIT_OK


def cmd_history(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from panelbot import paths
    from panelbot.conversation.store import ConversationStore
    from panelbot.text import strip_control

    path = paths.history_db_path()
    convs = ConversationStore(path).list_conversations() if path.exists() else []
    if args.json:
        _print_json([{"id": c.id, "title": c.title, "panel": c.panel, "started_at": c.started_at,
                      "updated_at": c.updated_at, "messages": c.message_count} for c in convs], out)
        return EXIT_OK
    if not convs:
        out.write("No saved conversations yet.\n")
    for c in convs:
        line = f"{c.id:>4}  {c.updated_at}  {c.message_count:>3} msgs  {c.panel}  {c.title}"
        out.write(strip_control(line, keep_newlines=False) + "\n")
    return EXIT_OK


def cmd_tui(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from panelbot.config import Config, load_config
    from panelbot.errors import ConfigError, DataError

    try:
        cfg, problem = load_config(args.config), None
    except (ConfigError, DataError) as exc:  # shown inside the app, which runs on the defaults
        cfg, problem = Config(), str(exc)
    from panelbot.tui import run

    return run(cfg, args.panel, args.resume, config_error=problem)


COMMANDS = {
    "ask": cmd_ask, "quote": cmd_quote, "panels": cmd_panels, "ingest": cmd_ingest,
    "eval": cmd_eval, "history": cmd_history,
}


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    out, err = sys.stdout, sys.stderr
    try:
        handler = COMMANDS.get(args.command, cmd_tui)
        return handler(args, out, err)
    except PanelbotError as exc:
        err.write(f"panelbot: error: {exc}\n")
        return exc.exit_code
    except KeyboardInterrupt:
        err.write("panelbot: interrupted\n")
        return 130
    except BrokenPipeError:
        # the reader went away (e.g. `| head`); don't let the interpreter complain while flushing
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
