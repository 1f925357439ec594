"""``panelbot discuss "SUBJECT"``: the panel discusses a subject in their quoted words, with the points where
their quotes meet and, where that is measured, whether they agree (``panelbot.discussion``); ``--map`` lists the subjects both spoke to, ``--llm``
voices the exchange through a model (each turn verified; a turn that fails falls back to the quotes);
``--all`` stages it on every installed talk whose panel spoke to it.

A discussion is a turn of a conversation like any ``ask``: through the one turn pipeline
(:class:`panelbot.conversation.pipeline.Session`), saved to the history (``--no-log``: not), so
``panelbot history show`` lists it and ``panelbot ask -c "why do they disagree?"`` follows it up.

Exit status as ``ask``: 0, 3 when a turn fell back to the quotes because the model failed, 2 usage/data."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any, TextIO

from panelbot.cli.common import EXIT_OK, load_config_and_index, print_json, read_questions
from panelbot.errors import UsageError

if TYPE_CHECKING:
    from panelbot.config import Config
    from panelbot.conversation.session import ConversationLog
    from panelbot.discussion.stage import Discussion
    from panelbot.discussion.voices import VoicedTurn
    from panelbot.panel import Panel


def add_parsers(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "discuss",
        parents=[common],
        help="the panel discusses a subject: who said what, where their quotes meet, and whether "
        "they agree where that is measured",
        description="Stage SUBJECT as the talk would have run had the host pressed on: the host's own "
        "question, each panelist who spoke to it in their quoted words, then the points where a pair of "
        "their quotes is measured to be about the same thing. A point says whether they agree or differ "
        "only where the panel's verdict is measured to hold; elsewhere (every point of the shipped "
        "talk) it says that whether they agree is not measured. A subject neither spoke to is declined "
        "like any off-topic question.",
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
    p.add_argument(
        "--all",
        action="store_true",
        help="discuss SUBJECT on every installed talk whose panel spoke to it",
    )
    p.add_argument("--json", action="store_true", help="print a JSON object")
    p.add_argument(
        "--llm",
        action="store_true",
        help="voice the exchange through an OpenAI-compatible endpoint",
    )
    p.add_argument("--base-url", metavar="URL", help="OpenAI-compatible base URL (implies --llm)")
    p.add_argument("--model", metavar="NAME", help="model name (implies --llm)")
    p.add_argument("--no-log", action="store_true", help="don't save this to the history")
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
    from panelbot.text import count_of

    if args.map is not None and args.subject:
        raise UsageError("give a SUBJECT or --map, not both")
    if args.map is None and not args.subject:
        raise UsageError("give a SUBJECT to discuss (or --map for the subjects both spoke to)")
    if args.all:
        return discuss_all(args, out, err)
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
            raise UsageError(f"--map {args.map}: the map has {count_of(len(entries), 'subject')}")
        d = entry_discussion(router, entries[args.map - 1])
    else:
        d = discuss(router, next(read_questions(args.subject, sys.stdin, "subject")), pairing)
    use_llm = args.llm or bool(args.base_url or args.model)
    log = _conversation(cfg, panel, no_log=args.no_log)
    try:
        if use_llm and not d.declined:
            cfg = cfg.with_endpoint(args.base_url, args.model, None, generate=True)
            return voice_discussion(
                d,
                cfg,
                panel,
                json_out=args.json,
                out=out,
                err=err,
                width=width,
                log=log,
                router=router,
            )
        conversation, why = _through_pipeline(d, panel, router, None, log)
    finally:
        log.close()
    if args.json:
        print_json({**d.to_dict(), "conversation": conversation}, out)
    else:
        out.write(discussion_text(panel, d, width) + "\n")
    _not_saved(why, out, err)
    return EXIT_OK


def discuss_all(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``--all``: SUBJECT staged on every installed talk whose panel spoke to it (the turn pipeline's
    :meth:`TalksSession.discuss`), each under its talk's title, then which talks it was staged on and why;
    declined when no talk's panel spoke to it. Offline, like ``ask --all``; not saved to the history."""
    import sys

    from panelbot.answer.compose import terminal_width
    from panelbot.cli.common import open_all_talks
    from panelbot.conversation.pipeline import Declined, TalkDiscussed, TalksDiscussed, TalksSession
    from panelbot.discussion.render import discussion_text
    from panelbot.text import fill_text, strip_control

    if args.map is not None:
        raise UsageError("--map lists one talk's subjects: use it with --panel NAME, not --all")
    if args.llm or args.base_url or args.model:
        raise UsageError(
            "--all discusses in the talks' own words: it cannot be combined with --llm, "
            "--base-url or --model"
        )
    _, library = open_all_talks(args, err)
    subject = next(read_questions(args.subject, sys.stdin, "subject"))
    width = terminal_width()
    staged: list[dict[str, Any]] = []
    summary: TalksDiscussed | None = None
    declined = ""
    for event in TalksSession(library).discuss(subject):
        if isinstance(event, TalksDiscussed):
            summary = event
        elif isinstance(event, Declined):
            declined = event.text
        elif isinstance(event, TalkDiscussed):
            p, d = event.panel, event.discussion
            staged.append({"panel": p.name, "title": p.title, **d.to_dict()})
            if not args.json:
                title = strip_control(p.title, keep_newlines=False)
                out.write(("\n" if len(staged) > 1 else "") + f"== {title} [{p.name}]\n")
                out.write(discussion_text(p, d, width) + "\n")
    reason = summary.reason if summary is not None else ""
    if args.json:
        print_json(
            {
                "subject": subject,
                "declined": bool(declined),
                "reason": reason or declined,
                "talks": staged,
                "silent": list(summary.silent) if summary is not None else [],
            },
            out,
        )
    elif declined:
        out.write(fill_text(declined, width) + "\n")
    else:
        out.write("\n" + fill_text(f"({strip_control(reason, keep_newlines=False)})", width) + "\n")
    return EXIT_OK


def _conversation(cfg: Config, panel: Panel, *, no_log: bool) -> ConversationLog:
    """A new conversation in the history the other turns use (not written with ``--no-log``)."""
    from panelbot import paths
    from panelbot.conversation.session import ConversationLog

    return ConversationLog.open(
        paths.history_db_path(),
        panel.name,
        log=cfg.history.log_cli and not no_log,
        panel_dir=str(panel.path.resolve()),
    )


def _not_saved(why: str | None, out: TextIO, err: TextIO) -> None:
    if why is not None:
        from panelbot.cli.ask import not_saved_line

        out.flush()
        err.write(not_saved_line(why))


def _through_pipeline(
    d: Discussion, panel: Panel, router: Any, backend: Any, log: ConversationLog | None
) -> tuple[int | None, str | None]:
    """The discussion as one turn of the pipeline (offline: nothing waits): the conversation's id and why
    it was not saved (None: it was, or not logging)."""
    from panelbot.conversation.pipeline import NotSaved, Recorded, Session
    from panelbot.discussion.turn import reading_of

    session = Session(panel, router, backend, log)
    for event in session.ask_now(d.subject, "both", reading=reading_of(d, d.subject)):
        if isinstance(event, Recorded):
            return event.conversation_id, None
        if isinstance(event, NotSaved):
            return event.conversation_id, event.why
    return None, None


def voice_discussion(
    d: Discussion,
    cfg: Config,
    panel: Panel,
    *,
    json_out: bool,
    out: TextIO,
    err: TextIO,
    width: int,
    log: ConversationLog | None = None,
    router: Any = None,
) -> int:
    """``--llm``: each turn in the panelist's voice (verified), the points as offline; exit 3 when a turn
    fell back to the quotes because the model failed. The turns are the pipeline's (``log``: the
    conversation they are written to; none: not kept)."""
    import asyncio

    from panelbot.answer.backends.registry import get_backend
    from panelbot.cli.common import EXIT_FALLBACK
    from panelbot.discussion.render import discussion_text
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

    async def run() -> tuple[list[VoicedTurn], int | None, str | None]:
        try:
            return await _voiced(d, panel, router, backend, log)
        finally:
            await backend.aclose()

    turns, conversation, why = asyncio.run(run())
    failed = [t for t in turns if t.fallback.startswith("the model failed")]
    for t in failed:
        err.write(f"panelbot: {scrub(strip_control(t.fallback, keep_newlines=False))}\n")
    if json_out:
        obj = d.to_dict()
        obj["voiced"] = [t.to_dict() for t in turns]
        obj["model"] = backend.label
        obj["conversation"] = conversation
        print_json(obj, out)
    else:
        out.write(discussion_text(panel, d, width, voiced=turns) + "\n")
    _not_saved(why, out, err)
    return EXIT_FALLBACK if failed else EXIT_OK


async def _voiced(
    d: Discussion, panel: Panel, router: Any, backend: Any, log: ConversationLog | None
) -> tuple[list[VoicedTurn], int | None, str | None]:
    """The pipeline's turn through a model: each panelist's verified turn (their quotes when it failed)."""
    from panelbot.conversation.pipeline import NotSaved, Recorded, Session, SpeakerDone
    from panelbot.discussion.turn import reading_of
    from panelbot.discussion.voices import voiced_turn

    session = Session(panel, router, backend, log)
    turns: list[VoicedTurn] = []
    conversation, why = None, None
    by_speaker = {t.speaker: t for t in d.turns}
    async for event in session.ask(d.subject, "both", reading=reading_of(d, d.subject)):
        if isinstance(event, SpeakerDone) and event.speaker in by_speaker:
            turns.append(voiced_turn(event, by_speaker[event.speaker]))
        elif isinstance(event, Recorded):
            conversation = event.conversation_id
        elif isinstance(event, NotSaved):
            conversation, why = event.conversation_id, event.why
    return turns, conversation, why
