"""``panelbot ask --all`` and ``panelbot quote --all``: every installed talk at once (the logic is in
``panelbot.retrieval.library``; this is how the command line shows it)."""

from __future__ import annotations

import argparse
import sys
from typing import Any, TextIO

from panelbot.cli.common import EXIT_OK, load_config_warned, print_json, read_questions
from panelbot.errors import UsageError


def _library(args: argparse.Namespace, err: TextIO):  # -> tuple[Config, Library]
    from panelbot.records import replace
    from panelbot.retrieval.library import Library

    cfg = load_config_warned(args)
    if getattr(args, "k", None):
        cfg = replace(cfg, retrieval=replace(cfg.retrieval, top_k=args.k))
    library, notes = Library.open(cfg.retrieval)
    for note in notes:
        err.write(f"panelbot: note: {note}\n")
    if not library.routers:
        raise UsageError("no panels are installed (see 'panelbot panels')")
    return cfg, library


def ask_all(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from panelbot.answer.compose import format_route, talks_decline_text, terminal_width
    from panelbot.text import fill_text, strip_control

    if args.continue_last or args.cid:
        flag = "-c" if args.continue_last else "--cid"
        raise UsageError(
            f"--all starts a new question across every talk: it cannot continue a conversation "
            f"({flag}); to follow up, continue in one talk with 'panelbot ask --panel NAME {flag} ...'"
        )
    if args.llm or args.base_url or args.model or args.backend:
        raise UsageError(
            "--all answers with the talks' own words: it cannot be combined with --llm, "
            "--base-url, --model or --backend"
        )
    target = args.target.lower()
    if target not in ("auto", "both"):
        raise UsageError(f"with --all, --to expects auto or both (got {args.target!r})")
    _, library = _library(args, err)
    questions = list(read_questions(args.question, sys.stdin))
    for i, q in enumerate(questions):
        if _small_talk_across(
            library,
            q,
            args.json,
            out,
            ("\n" if i else "") + f"Q: {q}\n" if len(questions) > 1 else "",
        ):
            continue
        answer = library.route(q, target)
        if args.json:
            print_json(answer.to_dict(), out)
            continue
        if len(questions) > 1:
            out.write(("\n" if i else "") + f"Q: {q}\n")
        if answer.abstained:
            out.write(fill_text(talks_decline_text(answer.suggestions), terminal_width()) + "\n")
            continue
        for n, t in enumerate(answer.talks):
            title = strip_control(t.panel.title, keep_newlines=False)
            out.write(
                ("\n" if n else "")
                + f"== {title} [{t.panel.name}]\n{format_route(t.panel, t.result)}\n"
            )
        if len(answer.talks) > 1:
            out.write(f"\n({strip_control(answer.reason, keep_newlines=False)})\n")
    return EXIT_OK


def _small_talk_across(
    library: Any, question: str, json_out: bool, out: TextIO, heading: str
) -> bool:
    """'hi', 'thanks!' across every talk: the friendly reply (which talks, what they covered) instead of a
    decline. False when the question is anything else."""
    from panelbot.conversation.smalltalk import panel_names, reason, small_talk

    panels = [r.panel for r in library.routers]
    kind = small_talk(question, panel_names(*panels))
    if not kind:
        return False
    if json_out:
        from panelbot.retrieval.library import LibraryAnswer

        d = LibraryAnswer(question, [], reason(kind), library.suggestions()).to_dict()
        print_json({**d, "kind": "small_talk", "small_talk": kind}, out)
        return True
    from panelbot.answer.compose import talks_small_talk_text, terminal_width
    from panelbot.text import fill_text

    text = talks_small_talk_text(
        panels, kind, library.suggestions()
    )  # wrapped as ask wraps its reply
    out.write(
        heading + "\n".join(fill_text(line, terminal_width()) for line in text.splitlines()) + "\n"
    )
    return True


def quote_all(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from panelbot.text import strip_control

    if args.speaker:
        raise UsageError("--speaker names a panelist of one talk: use it with --panel, not --all")
    query = " ".join(args.query).strip()
    if not query:
        raise UsageError("the query is empty")
    _, library = _library(args, err)
    hits = library.search(query, args.n)
    if args.json:
        print_json([h.to_dict() for h in hits], out)
        return EXIT_OK
    if not hits:
        out.write("No quote in any talk matches that.\n")
    for h in hits:
        q = h.scored.quote
        who = h.panel.display_name(q.speaker)
        out.write(
            strip_control(f"[{h.panel.name}] [{q.id}] {who} ({h.score:.0f}): ", keep_newlines=False)
            + f"\u201c{strip_control(q.text, keep_newlines=False)}\u201d\n"
        )
    return EXIT_OK
