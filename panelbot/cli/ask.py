"""``panelbot ask`` (route a question and answer it: verbatim quotes, or a model with ``--llm``) and
``panelbot quote`` (the K best quotes, no routing)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from panelbot.cli.common import (
    EXIT_OK,
    count_k,
    load_config_and_index,
    load_config_warned,
    open_noted,
    print_json,
    read_questions,
)
from panelbot.errors import UsageError
from panelbot.panel.model import format_time

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path
    from typing import TextIO

    from panelbot.config import Config
    from panelbot.conversation.pipeline import TurnEvent
    from panelbot.conversation.session import ConversationLog
    from panelbot.panel.model import Panel
    from panelbot.retrieval.index import QuoteIndex
    from panelbot.retrieval.results import RouteResult, ScoredQuote
    from panelbot.retrieval.router import Router


def add_parsers(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    ask = sub.add_parser(
        "ask",
        parents=[common],
        help="answer a question (offline quotes or a model)",
        description="Answer QUESTION ('-' reads one question per line from stdin).",
    )
    ask.add_argument("question", nargs="+", metavar="QUESTION")
    mode = ask.add_mutually_exclusive_group()
    mode.add_argument(
        "--offline", action="store_true", help="verbatim quotes only, no network (default)"
    )
    mode.add_argument(
        "--llm", action="store_true", help="generate through an OpenAI-compatible endpoint"
    )
    ask.add_argument("--json", action="store_true", help="print a JSON object (JSON Lines for '-')")
    ask.add_argument(
        "--to",
        dest="target",
        default="auto",
        metavar="WHO",
        help="who answers: auto (default), both, or a panelist id",
    )
    ask.add_argument(
        "-k", type=count_k, default=None, metavar="K", help="quotes per answer (default: config)"
    )
    ask.add_argument("--base-url", metavar="URL", help="OpenAI-compatible base URL (implies --llm)")
    ask.add_argument("--model", metavar="NAME", help="model name (implies --llm)")
    ask.add_argument(
        "--backend", metavar="NAME", help="answer backend: offline, openai or a plugin"
    )
    conv = ask.add_mutually_exclusive_group()
    conv.add_argument(
        "-c",
        "--continue",
        dest="continue_last",
        action="store_true",
        help="continue the most recent conversation (follow-ups like 'tell me more' use it; "
        "with '-' every line continues it)",
    )
    conv.add_argument("--cid", type=conversation_id, metavar="ID", help="continue conversation ID")
    ask.add_argument("--no-log", action="store_true", help="don't save this to the history")
    ask.add_argument(
        "--all", action="store_true", help="search every installed talk (quotes name the talk)"
    )
    ask.set_defaults(handler=cmd_ask)

    quote = sub.add_parser(
        "quote",
        parents=[common],
        help="look up the best matching quotes",
        description="The K best quotes for QUERY: no routing, no abstention.",
    )
    quote.add_argument("query", nargs="+", metavar="QUERY")
    quote.add_argument(
        "-n", type=count_k, default=5, metavar="K", help="how many quotes (default 5)"
    )
    quote.add_argument("--speaker", metavar="ID", help="only this panelist's quotes")
    quote.add_argument("--json", action="store_true", help="print a JSON list")
    quote.add_argument(
        "--all", action="store_true", help="search every installed talk (quotes name the talk)"
    )
    quote.set_defaults(handler=cmd_quote)


MAX_CONVERSATION_ID = 2**63 - 1  # the largest SQLite INTEGER


def _shown(value: str, width: int = 40) -> str:
    """``value`` quoted for an error line, cut to ``width`` characters (a pasted page is not echoed)."""
    return repr(value) if len(value) <= width else repr(value[:width]) + "..."


def conversation_id(value: str) -> int:
    """argparse type: a conversation id (a positive whole number)."""
    try:
        n = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a conversation id (a number), got {_shown(value)}"
        ) from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected a conversation id (a number from 1), got {n}")
    if n > MAX_CONVERSATION_ID:
        # SQLite keeps ids in a signed 64-bit integer: a larger number is no conversation, and binding it
        # would raise OverflowError deep in the store
        raise argparse.ArgumentTypeError(
            f"no conversation has id {_shown(value.strip())} (ids go up to {MAX_CONVERSATION_ID})"
        )
    return n


def cmd_ask(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from panelbot.records import replace
    from panelbot.retrieval.router import Router

    if args.all:
        from panelbot.cli.across import ask_all

        return ask_all(args, out, err)
    chained = bool(args.continue_last or args.cid)
    if chained and not getattr(args, "panel", None):
        cfg, panel, index, conv = _continue_on_its_panel(args)
    else:
        cfg, panel, index, conv = _open_panel_and_conversation(args)
    if args.k:
        cfg = replace(cfg, retrieval=replace(cfg.retrieval, top_k=args.k))
    target = _answering_target(args.target, panel)
    use_llm = _uses_model(args, cfg)
    cfg = cfg.with_endpoint(args.base_url, args.model, args.backend, generate=use_llm)
    router = Router(panel, cfg.retrieval, index=index)
    try:
        questions = list(read_questions(args.question, sys.stdin))
        if use_llm:
            from panelbot.cli.llm import ask_llm

            return ask_llm(
                questions,
                json_out=args.json,
                config=cfg,
                panel=panel,
                router=router,
                target=target,
                out=out,
                err=err,
                conversation=conv,
                chained=chained,
            )
        _ask_offline(questions, panel, router, target, conv, chained, args.json, out, err)
    finally:
        conv.close()
    return EXIT_OK


def _ask_offline(
    questions: list[str],
    panel: Panel,
    router: Router,
    target: str,
    conv: ConversationLog,
    chained: bool,
    json_out: bool,
    out: TextIO,
    err: TextIO,
) -> None:
    """Answer each question with the verbatim quotes: the first (or, with ``chained``, every one) in
    ``conv``, the others each in a conversation of its own; several questions are printed each under its
    ``Q:`` line (not in JSON)."""
    from panelbot.conversation.pipeline import Session

    hinted = False
    for i, q in enumerate(questions):
        turn = conv if chained or i == 0 else conv.fresh()
        if not json_out and len(questions) > 1:
            out.write(("\n" if i else "") + f"Q: {q}\n")
        result = _print_offline_turn(
            Session(panel, router, None, turn).ask_now(q, target), panel, json_out, out, err
        )
        if i and not chained and not hinted and _follows_nothing(result):
            # "and the other one?" on the line after "who is Dan?": each line is a conversation of
            # its own unless -c, which the answer alone ("nothing to follow up on yet") does not say
            err.write(LINES_ARE_SEPARATE)
            hinted = True


def _continue_on_its_panel(
    args: argparse.Namespace,
) -> tuple[Config, Panel, QuoteIndex, ConversationLog]:
    """(config, panel, index, conversation) for ``-c``/``--cid`` with no ``--panel``: the conversation
    says which panel; the default one is not opened first (its index may need building, and its note
    would have nothing to do with this follow-up)."""
    from panelbot.panel.loader import find_panel_dir

    cfg = load_config_warned(args)
    default = find_panel_dir(cfg.panel)
    conv = _open_conversation(args, cfg, default.name, default)
    try:
        if conv.panel == default.name:
            opened = open_noted(default)
            panel, index = opened.panel, opened.index
        else:
            panel, index = continued_panel(conv, None)
    except BaseException:
        conv.close()
        raise
    return cfg, panel, index, conv


def _open_panel_and_conversation(
    args: argparse.Namespace,
) -> tuple[Config, Panel, QuoteIndex, ConversationLog]:
    """(config, panel, index, conversation) for a question to the panel asked for (or the default one),
    in a new conversation or one continued with it; a conversation held with another panel opens that
    panel instead."""
    cfg, opened = load_config_and_index(args)
    panel, index = opened.panel, opened.index
    conv = _open_conversation(args, cfg, panel.name, panel.path)
    if conv.panel != panel.name:  # continuing a conversation held with another panel
        try:
            panel, index = continued_panel(conv, getattr(args, "panel", None))
        except BaseException:
            conv.close()
            raise
    return cfg, panel, index, conv


def _open_conversation(
    args: argparse.Namespace, cfg: Config, panel_name: str, panel_dir: Path
) -> ConversationLog:
    """The conversation the question goes to: a new one with the panel, or the one ``-c``/``--cid``
    continues (saved unless the config or ``--no-log`` says not to)."""
    from panelbot import paths
    from panelbot.conversation.session import ConversationLog

    return ConversationLog.open(
        paths.history_db_path(),
        panel_name,
        continue_last=args.continue_last,
        conversation_id=args.cid,
        log=cfg.history.log_cli and not args.no_log,
        panel_dir=str(panel_dir.resolve()),
    )


def _answering_target(asked: str, panel: Panel) -> str:
    """The ``--to`` value as the router takes it: auto, both or a panelist's id (a name as shown, such as
    "Joaquín" or "joaquín", is taken for its id); a usage error for anyone else."""
    target = asked.lower()
    if target not in ("auto", "both", *panel.panelists):
        from panelbot.ingest.names import speaker_for

        names = [p.name for p in panel.panelists.values()]
        target = speaker_for(asked, list(panel.panelists), names) or target
    if target not in ("auto", "both", *panel.panelists):
        raise UsageError(
            f"--to expects auto, both or one of: {', '.join(panel.panelists)} (got {asked!r})"
        )
    return target


def _uses_model(args: argparse.Namespace, cfg: Config) -> bool:
    """Whether the answer is generated by a model: ``--llm``, or (unless ``--offline``) an endpoint or a
    model named, or a backend other than offline configured or asked for."""
    return args.llm or (
        not args.offline
        and (bool(args.base_url or args.model) or (args.backend or cfg.backend.name) != "offline")
    )


LINES_ARE_SEPARATE = (
    "panelbot: note: each line of '-' is a conversation of its own; "
    "'panelbot ask -c -' makes the lines one conversation\n"
)


def _follows_nothing(result: RouteResult | None) -> bool:
    """The message was read as a follow-up with nothing before it to follow."""
    from panelbot.conversation.kinds import NOTHING_TO_FOLLOW

    return result is not None and result.abstained and result.reason == NOTHING_TO_FOLLOW


def not_saved_line(why: str) -> str:
    """The line said after an answer the history could not keep."""
    return f"panelbot: warning: this answer was not saved to the history: {why}\n"


def _print_offline_turn(
    events: Iterator[TurnEvent], panel: Panel, json_out: bool, out: TextIO, err: TextIO
) -> RouteResult | None:
    """One turn answered with the verbatim quotes: printed once it is recorded (JSON: with the
    conversation's id), then one line when the history could not keep it. Returns what was answered."""
    from panelbot.answer.compose import format_route
    from panelbot.conversation.pipeline import NotSaved, Recorded, Resolved
    from panelbot.text import strip_control

    resolved: Resolved | None = None
    for event in events:
        if isinstance(event, Resolved):
            resolved = event
        if not isinstance(event, Recorded | NotSaved) or resolved is None:
            continue
        result = resolved.route
        if json_out:
            d = result.to_dict()
            if result.abstained:
                d["suggestions"] = result.suggestions
                if result.unstated:
                    d["unstated"] = result.unstated
                    d["nearby"] = [sq.to_dict() for sq in result.nearby]
            d["conversation"] = event.conversation_id
            d["context"] = resolved.context
            print_json(d, out)
        else:
            text = format_route(panel, result)
            if resolved.resolution.discussion is not None:  # the host's lines around the turns
                from panelbot.discussion.turn import with_host_lines

                text = with_host_lines(panel, resolved.resolution.discussion, text)
            out.write(text + "\n")
            links = [
                strip_control(
                    f"  [{sq.quote.id}] {format_time(sq.quote.start or 0)}  {sq.quote.url}",
                    keep_newlines=False,
                )
                for sq in shown_quotes(result)
                if sq.quote.url
            ]
            if links:
                out.write("Watch:\n" + "\n".join(links) + "\n")
        if isinstance(event, NotSaved):  # the answer first, then what became of it
            out.flush()
            err.write(not_saved_line(event.why))
    return resolved.route if resolved is not None else None


def continued_panel(conv: ConversationLog, asked_for: str | None) -> tuple[Panel, QuoteIndex]:
    """The panel (with its index) of a conversation continued with ``-c``/``--cid`` that was held with
    another panel than the default: from the directory it was held with (a panel given by path is not
    installed), else by name. A usage error when ``--panel`` names another panel or it is gone."""
    from panelbot.conversation.session import panel_to_open
    from panelbot.errors import PanelNotFound
    from panelbot.retrieval.cache import open_indexed

    if asked_for:
        raise UsageError(
            f"conversation {conv.conversation_id} is with panel {conv.panel!r}, not {asked_for!r}"
        )
    try:
        other = open_indexed(panel_to_open(conv.panel, conv.panel_dir))
    except PanelNotFound:
        where = f" (it was in {conv.panel_dir})" if conv.panel_dir else ""
        raise UsageError(
            f"conversation {conv.conversation_id} is with panel {conv.panel!r}, which is not "
            f"installed{where}; continue it with --panel DIR"
        ) from None
    return other.panel, other.index


def shown_quotes(result: RouteResult) -> list[ScoredQuote]:
    """The answer's quotes in the order ``format_route`` prints them: speaker by speaker, each speaker's
    passages in spoken order (so the "Watch:" links read top to bottom like the answer above them)."""
    from panelbot.answer.compose import passages

    by_id = {sq.quote.id: sq for sq in result.quotes}
    order = [i for sp in result.speakers for p in passages(result.quotes_for(sp)) for i in p.ids]
    return [by_id[i] for i in dict.fromkeys(order) if i in by_id]


def cmd_quote(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from panelbot.retrieval.router import Router
    from panelbot.text import question_too_long, strip_control

    if args.all:
        from panelbot.cli.across import quote_all

        return quote_all(args, out, err)
    cfg, opened = load_config_and_index(args)
    panel = opened.panel
    query = strip_control(" ".join(args.query), keep_newlines=False).strip()
    if not query:
        raise UsageError("the query is empty")
    if question_too_long(query):
        raise UsageError(question_too_long(query).replace("question", "query"))
    speakers = None
    if args.speaker:
        if args.speaker not in panel.panelists:
            raise UsageError(
                f"--speaker expects one of: {', '.join(panel.panelists)} (got {args.speaker!r})"
            )
        speakers = {args.speaker}
    hits = Router(panel, cfg.retrieval, index=opened.index).search(query, args.n, speakers)
    if args.json:
        print_json([h.to_dict() for h in hits], out)
        return EXIT_OK
    if not hits:
        out.write("No quote matches that.\n")
    for h in hits:
        who = panel.display_name(h.quote.speaker)
        out.write(
            strip_control(
                f"[{h.quote.id}] {who} ({h.score:.0f}): \u201c{h.quote.text}\u201d",
                keep_newlines=False,
            )
            + "\n"
        )
        if h.quote.note:
            from panelbot.answer.compose import note_line

            out.write("    " + note_line(h.quote.id, h.quote.note) + "\n")
        if h.quote.start is not None:
            out.write(
                strip_control(
                    f"    at {format_time(h.quote.start)}"
                    + (f"  {h.quote.url}" if h.quote.url else ""),
                    keep_newlines=False,
                )
                + "\n"
            )
    return EXIT_OK
