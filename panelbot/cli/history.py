"""``panelbot history``: the saved conversations (the app's and the shell's are the same ones): list them,
``show ID``, ``search TEXT`` (SQLite FTS5 over questions and answers), ``rename ID TITLE``, ``rm ID``."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, TextIO

from panelbot.cli.ask import conversation_id
from panelbot.cli.common import EXIT_OK, Parser, print_json
from panelbot.errors import UsageError
from panelbot.text import count_of, fill_text

if TYPE_CHECKING:
    from typing import Any

    from panelbot.answer.present import Shown
    from panelbot.conversation.store import (
        ConversationStore,
        ConversationSummary,
        SearchHit,
        StoredMessage,
    )
    from panelbot.panel import Quote


def add_parsers(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    hist = sub.add_parser(
        "history",
        help="saved conversations: list, show, search, rename, rm",
        description="With no sub-command, list the saved conversations (newest first).",
    )
    hist.add_argument("--json", action="store_true")
    hist.add_argument(
        "--ids",
        action="store_true",
        help="only the ids, newest first, one a line (for shell completion)",
    )
    hist.set_defaults(handler=cmd_history)
    hsub = hist.add_subparsers(dest="history_command", metavar="SUBCOMMAND")
    json_flag = Parser(add_help=False)
    json_flag.add_argument(
        "--json", action="store_true", default=argparse.SUPPRESS, help="print JSON"
    )

    show = hsub.add_parser("show", parents=[json_flag], help="print one conversation")
    show.add_argument("id", type=conversation_id, metavar="ID")
    show.set_defaults(handler=cmd_show)

    search = hsub.add_parser(
        "search", parents=[json_flag], help="find questions and answers (full text)"
    )
    search.add_argument("text", nargs="+", metavar="TEXT")
    search.add_argument(
        "-n", type=int, default=20, metavar="N", help="at most N rows (JSON: hits; default 20)"
    )
    search.set_defaults(handler=cmd_search)

    rename = hsub.add_parser("rename", parents=[json_flag], help="give a conversation a new title")
    rename.add_argument("id", type=conversation_id, metavar="ID")
    rename.add_argument("title", nargs="+", metavar="TITLE")
    rename.set_defaults(handler=cmd_rename)

    rm = hsub.add_parser("rm", parents=[json_flag], help="delete a conversation")
    rm.add_argument("id", type=conversation_id, metavar="ID")
    rm.set_defaults(handler=cmd_rm)


def _open(*, create: bool = False) -> ConversationStore | None:
    """The history database; None when it does not exist yet (and need not be created)."""
    from panelbot import paths
    from panelbot.conversation.store import ConversationStore

    path = paths.history_db_path()
    if not create and not path.exists():
        return None
    return ConversationStore(path)


def _clean(text: str) -> str:
    from panelbot.text import strip_control

    return strip_control(text, keep_newlines=False)


def cmd_history(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from panelbot.conversation.store import listed_titles, short_time

    store = _open()
    convs = store.list_conversations() if store else []
    if store:
        store.close()
    if args.ids:
        out.writelines(f"{c.id}\n" for c in convs)
        return EXIT_OK
    if args.json:
        print_json(
            [
                {
                    "id": c.id,
                    "title": c.title,
                    "panel": c.panel,
                    "started_at": c.started_at,
                    "updated_at": c.updated_at,
                    "messages": c.message_count,
                    "source": c.source,
                }
                for c in convs
            ],
            out,
        )
        return EXIT_OK
    if not convs:
        out.write("No saved conversations yet.\n")
    titles = listed_titles(convs)  # the same question asked twice: "KV? (2)"
    for c in convs:
        out.write(
            _clean(
                f"{c.id:>4}  {short_time(c.updated_at)}  {c.message_count:>3} msgs  {c.panel}  "
                f"{titles[c.id]}"
            )
            + "\n"
        )
    return EXIT_OK


def _missing(conv_id: int) -> UsageError:
    return UsageError(f"no conversation {conv_id} (see 'panelbot history')")


def cmd_show(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from panelbot.conversation.store import short_time

    store = _open()
    if store is None:
        raise _missing(args.id)
    with store:
        summary = store.conversation(args.id)
        if summary is None:
            raise _missing(args.id)
        messages = store.messages(args.id)
    from panelbot.conversation.session import panel_dir_of, panel_to_open

    talks = _Talks(
        panel_to_open(summary.panel, panel_dir_of(messages))
    )  # a panel given by path too
    if getattr(args, "json", False):
        print_json(_conversation_json(summary, messages, talks), out)
        return EXIT_OK
    names = talks.names()
    out.write(_clean(f"#{summary.id} {summary.title}") + "\n")
    out.write(
        _clean(
            f"panel {summary.panel}; started {short_time(summary.started_at)} ({summary.source}); "
            f"{count_of(len(messages), 'message')}"
        )
        + "\n"
    )
    for n, m in enumerate(messages):
        if m.role == "user":
            _write_question(m, out)
            continue
        who = _speaker_label(m, names, talks)
        discussion = isinstance(m.meta, dict) and "discussion" in m.meta  # the host's lines of one
        out.write(f"{_clean(_message_label(m, who, discussion))}:\n")
        _write_body(m.text, discussion, out)
        if m.role == "assistant":
            for line in _shown_lines(m, talks, who):
                out.write(line + "\n")
        note = _turn_note(messages, n)
        if note:
            out.write("\n" + fill_text(_clean(note), 100) + "\n")
    return EXIT_OK


def _conversation_json(
    summary: ConversationSummary, messages: list[StoredMessage], talks: _Talks
) -> dict[str, Any]:
    """``history show --json``: the conversation's summary with its messages (an answer's quotes shown)."""
    d = summary.to_dict()
    d["messages"] = [
        {
            "role": m.role,
            "speaker": m.speaker,
            "text": m.text,
            "quote_ids": m.quote_ids,
            "meta": m.meta,
            "created_at": m.created_at,
            **(_shown_json(m, talks) if m.role == "assistant" else {}),
        }
        for m in messages
    ]
    return d


def _write_question(m: StoredMessage, out: TextIO) -> None:
    """The user's line, and how a follow-up was read ("read as ...: a follow-up to ...")."""
    out.write("\n" + fill_text(_clean(f"You: {m.text}"), 100) + "\n")
    context = m.meta.get("context") if isinstance(m.meta, dict) else None
    if isinstance(context, dict):
        kind = str(context.get("kind") or "follow-up").replace("_", " ")
        subject = context.get("subject") or ""
        out.write(
            _clean(f"  (read as {kind}: a follow-up to your question about {subject})") + "\n"
        )


def _speaker_label(m: StoredMessage, names: dict[str, str], talks: _Talks) -> str:
    """Who said a stored reply: the panelist's name; panelbot's own voice for a decline in the host's
    name (as the app and its export label it: not the host); the role when nobody is named."""
    from panelbot.conversation.store import NARRATOR_LABEL

    who = names.get(m.speaker, m.speaker) if m.speaker else m.role
    if m.role == "decline" and m.speaker == talks.host_id():
        return NARRATOR_LABEL
    return who


def _message_label(m: StoredMessage, who: str, discussion: bool) -> str:
    """The heading over a stored reply: "Dan", "Dan (declined)" (a reply to "hi" is not declined),
    "Discussion" or "Search" for the host's lines, "Error"."""
    small_talk = isinstance(m.meta, dict) and m.meta.get("small_talk")
    return {
        "decline": who if small_talk else f"{who} (declined)",
        "search": "Discussion" if discussion else "Search",
        "error": "Error",
    }.get(m.role, who)


def _write_body(text: str, discussion: bool, out: TextIO) -> None:
    """A reply's text wrapped at 100 columns: paragraphs; a discussion's lines one by one, its points
    ("  - Both spoke to it: ...") with a hanging indent."""
    for para in text.split("\n" if discussion else "\n\n"):
        point = discussion and para.lstrip().startswith("- ")
        indent = "  " + para[: len(para) - len(para.lstrip())] if point else "  "
        body = _clean(para.strip() if point else para)
        out.write(fill_text(body, 100, indent, indent + "  " if point else None) + "\n")


def _turn_note(messages: list[StoredMessage], n: int) -> str:
    """The note that closed an answer as it was given, after the last of its answers (``messages[n]``):
    "(Dan spoke to this most on the panel)", "(Olive didn't speak to this on the panel; Dan did)", the
    talk's framing, how a follow-up was read -- its question's routing reason, as ``ask`` printed it (a
    model's answer: only a follow-up's). "" elsewhere, and for a decline (its text says it)."""
    answers = []
    for i in range(n, -1, -1):
        if messages[i].role != "assistant":
            break
        answers.append(messages[i])
    if not answers or (n + 1 < len(messages) and messages[n + 1].role == "assistant"):
        return ""
    question = messages[n - len(answers)] if n >= len(answers) else None
    meta = question.meta if question is not None and question.role == "user" else None
    reason = meta.get("reason") if isinstance(meta, dict) else None
    if not isinstance(reason, str) or not reason.strip():
        return ""
    generated = any(
        isinstance(a.meta, dict) and any(k in a.meta for k in ("verdict", "grounded", "error"))
        for a in answers
    )
    if generated and not reason.startswith("follow-up"):
        return ""
    return f"({reason})"


class _Talks:
    """The panels a conversation's answers came from (its own; another talk's in all-talks mode), loaded
    when first needed; None for one that cannot be loaded (its quotes are then named by id only)."""

    def __init__(self, own: str) -> None:
        self.own = own
        self._loaded: dict[str, Any] = {}

    def panel(self, name: str | None = None) -> Any:
        name = name or self.own
        if name not in self._loaded:
            try:
                from panelbot.panel import load_panel

                self._loaded[name] = load_panel(name)
            except Exception:
                self._loaded[name] = None
        return self._loaded[name]

    def of(self, m: StoredMessage) -> Any:
        """The panel message ``m`` was answered from (None when it cannot be loaded)."""
        other = m.meta.get("panel") if isinstance(m.meta, dict) else None
        return (self.panel(other) if isinstance(other, str) else None) or self.panel()

    def quotes(self, m: StoredMessage) -> list[Quote]:
        panel = self.of(m)
        if panel is None:
            return []
        return [q for i in m.quote_ids if isinstance(i, str) and (q := panel.quote(i)) is not None]

    def host_id(self) -> str | None:
        """The id of the talk's host (a decline is stored in the host's name), None without one."""
        panel = self.panel()
        return panel.host.id if panel is not None and panel.host is not None else None

    def names(self) -> dict[str, str]:
        """Panelist and host ids -> names, when the panel can be loaded (ids otherwise)."""
        panel = self.panel()
        if panel is None:
            return {}
        names = {pid: p.name for pid, p in panel.panelists.items()}
        if panel.host is not None:
            names[panel.host.id] = panel.host.name
        return names


def _shown(m: StoredMessage, talks: _Talks, name: str) -> Shown:
    from panelbot.answer.present import saved_answer

    panel = talks.of(m)
    return saved_answer(m.meta, m.quote_ids, name, panel.quote if panel else lambda _i: None)


def _quote_lines(quotes: list[Quote], with_notes: bool = True) -> list[str]:
    out = []
    for q in quotes:
        out.append(fill_text(_clean(f"[{q.id}] \u201c{q.text}\u201d"), 100, "    "))
        if q.note and with_notes:
            out.append(fill_text(_clean(f"(note on {q.id}: {q.note})"), 100, "      "))
    return out


def _shown_lines(m: StoredMessage, talks: _Talks, name: str) -> list[str]:
    """What goes under a saved answer, as it went under it when it was given: its verdict (or
    "(stopped)"), the sentences its quotes do not support, then the quotes it relied on, each with the
    curator's note when it has one. A verbatim answer gets the notes on its quotes (older records lack
    them)."""
    from panelbot.answer.compose import quote_note_lines
    from panelbot.answer.present import verbatim

    shown = _shown(m, talks, name)
    status = shown.status_line()
    lines = [status] if status else []
    lines += [f"[{d}]" for d in shown.details + shown.notes]
    label = shown.quotes_label(name)
    if shown.own_words and shown.quotes and label not in m.text:
        lines.append(label)
        lines += [fill_text(_clean(p), 100, "    ") for p in verbatim(shown.quotes).split("\n")]
    elif shown.quotes and status:
        lines.append(label)
        lines += _quote_lines(shown.quotes, with_notes=not shown.notes)
    elif not status:  # verbatim quotes: their notes, unless the text holds them already
        lines += [n for n in quote_note_lines(talks.quotes(m)) if n not in m.text]
    if status and m.quote_ids and talks.of(m) is None:
        ids = ", ".join(str(i) for i in m.quote_ids)
        lines.append(_clean(f"(its quotes: {ids}; the panel is not installed to show them)"))
    return [fill_text(_clean(ln), 100, "  ") if not ln.startswith("  ") else ln for ln in lines]


def _shown_json(m: StoredMessage, talks: _Talks) -> dict[str, Any]:
    """A saved answer's verdict, status and quotes (with their notes) for ``history show --json``."""
    shown = _shown(m, talks, m.speaker)
    quotes = shown.quotes or talks.quotes(m)
    return {
        "verdict": shown.grade,
        "status": shown.status_line() or None,
        "stopped": shown.stopped,
        "quotes": [
            {
                "id": q.id,
                "speaker": q.speaker,
                "text": q.text,
                **({"note": q.note} if q.note else {}),
            }
            for q in quotes
        ],
    }


def cmd_search(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    text = " ".join(args.text).strip()
    if not text:
        raise UsageError("the search text is empty")
    if not 1 <= args.n <= 1000:
        raise UsageError(f"-n expects a number from 1 to 1000 (got {args.n})")
    store = _open()
    as_json = getattr(args, "json", False)
    hits = []
    if store is not None:
        with store:
            # text rows fold repeats of the same message together: read enough hits for N rows
            hits = store.search(text, args.n if as_json else min(1000, args.n * 10))
    if as_json:
        print_json([h.to_dict() for h in hits], out)
        return EXIT_OK
    if not hits:
        out.write(f"Nothing in the history matches {_clean(text)!r}.\n")
    for line in search_rows(hits)[: args.n]:
        out.write(line + "\n")
    return EXIT_OK


TITLE_WIDTH = 40


def search_rows(hits: list[SearchHit]) -> list[str]:
    """One row per message, best match first: the conversation, its title (cut at a word), who said it
    ("you:" or the panelist's id and a colon: brackets mark only the matching words) and the snippet.
    The same words said in several conversations (the same question asked again, the same quotes given
    again) are one row naming the other conversations."""
    from panelbot.text import shorten

    groups: dict[tuple[str, str, str], list[SearchHit]] = {}
    for h in hits:
        groups.setdefault((h.role, h.speaker or "", " ".join(h.snippet.split())), []).append(h)
    rows = []
    for same in groups.values():
        h = same[0]
        who = "you" if h.role == "user" else h.speaker or h.role
        title = shorten(_clean(h.title), TITLE_WIDTH).ljust(TITLE_WIDTH)
        others = list(
            dict.fromkeys(
                o.conversation_id for o in same[1:] if o.conversation_id != h.conversation_id
            )
        )
        also = f"  (also in {', '.join(map(str, others))})" if others else ""
        rows.append(
            _clean(f"{h.conversation_id:>4}  {title}  {who}: {' '.join(h.snippet.split())}{also}")
        )
    return rows


def cmd_rename(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    title = " ".join(args.title).strip()
    if not title:
        raise UsageError("the title is empty")
    store = _open()
    if store is None:
        raise _missing(args.id)
    with store:
        if not store.rename_conversation(args.id, title):
            raise _missing(args.id)
        summary = store.conversation(args.id)
    if getattr(args, "json", False):
        print_json({"renamed": args.id, "title": summary.title if summary else title}, out)
    else:
        out.write(
            _clean(f"Renamed conversation {args.id}: {summary.title if summary else title}") + "\n"
        )
    return EXIT_OK


def cmd_rm(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    store = _open()
    if store is None:
        raise _missing(args.id)
    with store:
        summary = store.conversation(args.id)
        if summary is None or not store.delete_conversation(args.id):
            raise _missing(args.id)
    if getattr(args, "json", False):
        print_json({"deleted": args.id, "title": summary.title}, out)
    else:
        out.write(_clean(f"Deleted conversation {args.id}: {summary.title}") + "\n")
    return EXIT_OK
