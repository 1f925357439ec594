"""``panelbot ask --all`` and ``panelbot quote --all``: every installed talk at once (a question is the turn
pipeline's, :class:`panelbot.conversation.pipeline.TalksSession`; the search is
``panelbot.retrieval.library``'s; this is how the command line shows them)."""

from __future__ import annotations

import argparse
import sys
from typing import Any, TextIO

from panelbot.cli.common import EXIT_OK, open_all_talks, print_json, read_questions
from panelbot.errors import UsageError


def ask_all(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from panelbot.conversation.pipeline import TalksSession

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
    _, library = open_all_talks(args, err)
    questions = list(read_questions(args.question, sys.stdin))
    for i, q in enumerate(questions):
        heading = ("\n" if i else "") + f"Q: {q}\n" if len(questions) > 1 else ""
        # each question on its own (a new conversation across the talks), as the pipeline answers it
        _print_across(TalksSession(library).ask(q, target), library, q, args.json, out, heading)
    return EXIT_OK


def _print_across(
    events: Any, library: Any, question: str, json_out: bool, out: TextIO, heading: str
) -> None:
    """One question across every talk, printed: each answering talk's panelists in their own words under
    the talk's title, or the decline; small talk gets the talks' friendly reply."""
    from panelbot.answer.compose import format_route, terminal_width
    from panelbot.conversation.pipeline import Declined, TalkAnswered, TalksRouted
    from panelbot.retrieval.library import LibraryAnswer
    from panelbot.text import fill_text, strip_control

    routed: Any = None
    answered = 0
    for event in events:
        if isinstance(event, TalksRouted):
            routed = event.answer
            if json_out:
                print_json(routed.to_dict(), out)
            else:
                out.write(heading)
        elif isinstance(event, Declined) and event.small_talk:  # 'hi', 'thanks!'
            if json_out:
                d = LibraryAnswer(question, [], event.reason, library.suggestions()).to_dict()
                print_json({**d, "kind": "small_talk", "small_talk": event.small_talk}, out)
                continue
            lines = (fill_text(line, terminal_width()) for line in event.text.splitlines())
            out.write(heading + "\n".join(lines) + "\n")
        elif isinstance(event, Declined) and not json_out:
            out.write(fill_text(event.text, terminal_width()) + "\n")
        elif isinstance(event, TalkAnswered) and not json_out:
            title = strip_control(event.panel.title, keep_newlines=False)
            out.write(
                ("\n" if answered else "")
                + f"== {title} [{event.panel.name}]\n{format_route(event.panel, event.route)}\n"
            )
            answered += 1
    if answered > 1 and routed is not None:
        out.write(f"\n({strip_control(routed.reason, keep_newlines=False)})\n")


def quote_all(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from panelbot.text import strip_control

    if args.speaker:
        raise UsageError("--speaker names a panelist of one talk: use it with --panel, not --all")
    query = " ".join(args.query).strip()
    if not query:
        raise UsageError("the query is empty")
    _, library = open_all_talks(args, err)
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
