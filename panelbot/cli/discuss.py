"""``panelbot discuss "SUBJECT"``: the panel discusses a subject in their quoted words, with the points where
they agree or differ measured (``panelbot.discussion``); ``--map`` lists the subjects both spoke to, ``--llm``
voices the exchange through a model (each turn verified; a turn that fails falls back to the quotes).

Exit status as ``ask``: 0, 3 when a turn fell back to the quotes because the model failed, 2 usage/data."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, TextIO

from panelbot.cli.common import EXIT_OK, load_config_and_index, print_json, read_questions
from panelbot.errors import UsageError

if TYPE_CHECKING:
    from panelbot.config import Config
    from panelbot.discussion.stage import Discussion
    from panelbot.panel import Panel


def add_parsers(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "discuss",
        parents=[common],
        help="the panel discusses a subject: who said what, where they agree and differ",
        description="Stage SUBJECT as the talk would have run had the host pressed on: the host's own "
        "question, each panelist who spoke to it in their quoted words, then the points where a pair of "
        "their quotes is measured to be about the same thing (agreement, difference). A subject neither "
        "spoke to is declined like any off-topic question.",
    )
    p.add_argument("subject", nargs="*", metavar="SUBJECT")
    p.add_argument(
        "--map",
        nargs="?",
        const=0,
        type=_entry_number,
        metavar="N",
        help="list the subjects both panelists spoke to (with N: discuss the Nth)",
    )
    p.add_argument("--json", action="store_true", help="print a JSON object")
    p.add_argument(
        "--llm",
        action="store_true",
        help="voice the exchange through an OpenAI-compatible endpoint",
    )
    p.add_argument("--base-url", metavar="URL", help="OpenAI-compatible base URL (implies --llm)")
    p.add_argument("--model", metavar="NAME", help="model name (implies --llm)")
    p.set_defaults(handler=cmd_discuss)


def _entry_number(value: str) -> int:
    try:
        n = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a subject's number, got {value!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected a subject's number from 1, got {n}")
    return n


def cmd_discuss(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    import sys

    from panelbot.answer.compose import terminal_width
    from panelbot.discussion.pairing import Pairing
    from panelbot.discussion.render import discussion_text, map_text
    from panelbot.discussion.stage import discuss, discussion_map, entry_discussion
    from panelbot.retrieval.router import Router

    if args.map is not None and args.subject:
        raise UsageError("give a SUBJECT or --map, not both")
    if args.map is None and not args.subject:
        raise UsageError("give a SUBJECT to discuss (or --map for the subjects both spoke to)")
    cfg, opened = load_config_and_index(args)
    panel = opened.panel
    router = Router(panel, cfg.retrieval, index=opened.index)
    pairing = Pairing(router)
    width = terminal_width()
    if args.map == 0:
        entries = discussion_map(router, pairing)
        if args.json:
            print_json({"panel": panel.name, "subjects": [e.to_dict() for e in entries]}, out)
        else:
            out.write(map_text(panel, entries, width) + "\n")
        return EXIT_OK
    if args.map:
        entries = discussion_map(router, pairing)
        if args.map > len(entries):
            raise UsageError(f"--map {args.map}: the map has {len(entries)} subject(s)")
        d = entry_discussion(router, entries[args.map - 1])
    else:
        d = discuss(router, next(read_questions(args.subject, sys.stdin)), pairing)
    use_llm = args.llm or bool(args.base_url or args.model)
    if use_llm and not d.declined:
        cfg = cfg.with_endpoint(args.base_url, args.model, None, generate=True)
        return voice_discussion(d, cfg, panel, json_out=args.json, out=out, err=err, width=width)
    if args.json:
        print_json(d.to_dict(), out)
    else:
        out.write(discussion_text(panel, d, width) + "\n")
    return EXIT_OK


def voice_discussion(
    d: Discussion,
    cfg: Config,
    panel: Panel,
    *,
    json_out: bool,
    out: TextIO,
    err: TextIO,
    width: int,
) -> int:
    """``--llm``: each turn in the panelist's voice (verified), the points as offline; exit 3 when a turn
    fell back to the quotes because the model failed."""
    import asyncio

    from panelbot.answer.backends.registry import get_backend
    from panelbot.cli.common import EXIT_FALLBACK
    from panelbot.discussion.render import discussion_text
    from panelbot.discussion.voices import VoicedTurn, voice
    from panelbot.redact import scrub
    from panelbot.text import strip_control

    if cfg.backend.name == "openai" and not cfg.backend.base_url.strip():
        err.write(
            "panelbot: no model endpoint configured (pass --base-url or set OPENAI_BASE_URL); "
            "the discussion in their own words\n"
        )
        out.write(discussion_text(panel, d, width) + "\n")
        return EXIT_FALLBACK
    backend = get_backend(cfg.backend.name, cfg, panel)

    async def run() -> list[VoicedTurn]:
        try:
            return await voice(backend, panel, d)
        finally:
            await backend.aclose()

    turns = asyncio.run(run())
    failed = [t for t in turns if t.fallback.startswith("the model failed")]
    for t in failed:
        err.write(f"panelbot: {scrub(strip_control(t.fallback, keep_newlines=False))}\n")
    if json_out:
        obj = d.to_dict()
        obj["voiced"] = [t.to_dict() for t in turns]
        obj["model"] = backend.label
        print_json(obj, out)
        return EXIT_FALLBACK if failed else EXIT_OK
    out.write(discussion_text(panel, d, width, voiced=turns) + "\n")
    return EXIT_FALLBACK if failed else EXIT_OK
