"""Markdown export of a conversation: who said what, the quotes behind each answer, with their ids.

Each quote's words are written once: when a later answer shows a quote again, its words there are replaced by
a reference to its id ("(olive-02: quoted above)"), so the file reads on its own without repeating itself.
A generated answer carries what it carried when it was given (``ExportMessage.shown``): its graded verdict in
italics under its heading, the sentences its quotes do not support, and its quotes -- "NAME's own words" when
it is not grounded; a stopped answer is marked "(stopped)"; a quote with a curator's note says so.

Writing is atomic (a temp file in the same directory, fsync, then rename) and never replaces an existing
file unless the caller says so: ``write_export(..., overwrite=False)`` raises :class:`FileExistsError`,
and the TUI asks the person before calling again with ``overwrite=True``.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from panelbot.redact import scrub
from panelbot.text import LazyPattern, strip_control

if TYPE_CHECKING:
    from panelbot.answer.present import Shown

# quote id -> (speaker name, verbatim text) or (speaker name, verbatim text, the curator's note)
QuoteLookup = Callable[[str], "tuple[str, str] | tuple[str, str, str] | None"]

# a quoted passage left with nothing but references to quotes written above, and its ids after it
_ONLY_REFS = LazyPattern(
    r"\u201c\s*((?:\([^()\u201c\u201d]+: quoted above\)\s*)+)\u201d(?:\s*\[[^\]\s]+\])*"
)
_REF_ID = LazyPattern(r"\(([^()\u201c\u201d]+): quoted above\)")


class NotARegularFile(OSError):
    """The export target exists and is not a regular file (a device, FIFO, socket, symlink, directory)."""


@dataclass(frozen=True)
class ExportMessage:
    role: str  # "user", "assistant", "decline", "reply" (to small talk), "search", "discussion", "error"
    speaker: str  # display name ("" for the user)
    text: str
    quote_ids: list[str] = field(default_factory=list)
    note: str = ""  # shown after the heading, e.g. "(from the talk gardens)" for an answer in all-talks mode
    # the quotes of the talk this message came from, when not the conversation's panel (all-talks mode)
    quote_lookup: QuoteLookup | None = field(default=None, compare=False)
    # a generated answer: its verdict, the sentences not supported, its quotes (None: verbatim quotes)
    shown: Shown | None = field(default=None, compare=False)


def _clean(text: str) -> str:
    return scrub(strip_control(text)).strip()


def conversation_markdown(
    title: str,
    panel_title: str,
    messages: Iterable[ExportMessage],
    *,
    quote_lookup: QuoteLookup | None = None,
    exported_at: datetime | None = None,
) -> str:
    """Render the conversation. ``quote_lookup(id) -> (speaker name, verbatim text[, note])`` adds a
    sources list."""
    when = (exported_at or datetime.now(timezone.utc)).strftime("%Y-%m-%d %H:%M UTC")
    out = [
        f"# {_clean(title) or 'Conversation'}",
        "",
        f"Panel: {_clean(panel_title)}  ",
        f"Exported: {when}",
        "",
    ]
    listed: set[str] = set()  # each quote's text is written once
    for msg in messages:
        text = _clean(msg.text)
        lookup = msg.quote_lookup or quote_lookup
        if msg.role != "user" and lookup is not None:
            text = _refer_back(text, [i for i in msg.quote_ids if i in listed], lookup)
        if not text and not msg.quote_ids:
            continue  # never an empty section
        if msg.role == "user":
            out += ["## You", "", text, ""]
            continue
        who = _clean(msg.speaker) or "Panel"
        label = {
            "decline": f"{who} (declines)",
            "search": "Quote search",
            "discussion": "Discussion",
            "error": "Error",
        }.get(msg.role, who)
        note = _clean(msg.note)
        shown = msg.shown
        status = _clean(shown.status_line("", "")) if shown is not None else ""
        out += [f"### {label}", "", *([f"*{note}*", ""] if note else [])]
        out += [*([f"*{status}*", ""] if status else []), text, ""]
        if shown is not None and shown.details:
            out += [*(f"- {_clean(d)}" for d in shown.details), ""]
        ids = list(dict.fromkeys(i for i in msg.quote_ids if i))
        if ids:
            out += _sources(ids, text, lookup, listed, _sources_label(shown, who))
    return "\n".join(out).rstrip() + "\n"


def _sources_label(shown: Shown | None, who: str) -> str:
    if shown is None or not (shown.own_words or shown.stopped):
        return "Sources:"
    return shown.quotes_label(who)


def _sources(
    ids: list[str], text: str, lookup: QuoteLookup | None, listed: set[str], label: str
) -> list[str]:
    """The sources list of one answer: each quote's words written out the first time (not when the answer
    holds them), its curator's note with them."""
    out = [label, ""]
    flat = " ".join(text.split())
    for qid in ids:
        found = lookup(qid) if lookup else None
        if not found:
            out.append(f"- `{_clean(qid)}`")
            continue
        speaker, quote = found[0], _clean(found[1])
        doubt = _clean(found[2]) if len(found) > 2 else ""
        said = f" \u2014 note: {doubt}" if doubt else ""
        if qid in listed or " ".join(quote.split()) in flat:  # already written out above
            out.append(
                f"- `{_clean(qid)}` ({_clean(speaker)})" + (said if qid not in listed else "")
            )
        else:
            out.append(f"- `{_clean(qid)}` ({_clean(speaker)}): \u201c{quote}\u201d{said}")
        listed.add(qid)
    out.append("")
    return out


def _refer_back(text: str, ids: list[str], quote_lookup: QuoteLookup) -> str:
    """``text`` with the words of quotes already written above replaced by a reference to their id; a quoted
    passage left with only such references becomes one line naming them."""
    changed = False
    for qid in dict.fromkeys(ids):
        found = quote_lookup(qid)
        words = _clean(found[1]).split() if found else []
        if not words:
            continue
        pattern = re.compile(r"\s+".join(re.escape(w) for w in words))
        ref = f"({_clean(qid)}: quoted above)"
        text, n = pattern.subn(lambda _m, ref=ref: ref, text, count=1)
        changed = changed or n > 0
    if not changed:
        return text

    def collapse(m: re.Match[str]) -> str:
        refs = _REF_ID.findall(m.group(1))
        return f"({', '.join(refs)}: quoted above)"

    return _ONLY_REFS.sub(collapse, text)


def default_export_name(title: str, when: datetime | None = None) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")[:40] or "conversation"
    stamp = (when or datetime.now(timezone.utc)).strftime("%Y%m%d-%H%M%S")
    return f"panelbot-{slug}-{stamp}.md"


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISLNK, "a symbolic link"),
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISFIFO, "a named pipe (FIFO)"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def _refuse_special(target: Path) -> bool:
    """True when ``target`` exists (as a regular file); NotARegularFile when it exists as anything else."""
    try:
        mode = target.lstat().st_mode
    except FileNotFoundError:
        return False
    if stat.S_ISREG(mode):
        return True
    kind = _kind(mode)
    error = IsADirectoryError if stat.S_ISDIR(mode) else NotARegularFile
    raise error(
        f"{target} is {kind}; an export is written only to a new or regular file, so it was "
        "left untouched"
    )


def write_export(path: str | Path, text: str, *, overwrite: bool = False) -> Path:
    """Write ``text`` to ``path`` atomically. Raises FileExistsError rather than replace a file unasked, and
    NotARegularFile (IsADirectoryError) rather than touch a device, FIFO, socket, symlink or directory."""
    target = Path(path).expanduser()
    text = scrub(text)
    if _refuse_special(target) and not overwrite:
        raise FileExistsError(f"{target} already exists")
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(
        prefix=f".{target.name[:200]}.", suffix=".tmp", dir=target.parent
    )
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        if overwrite:
            _refuse_special(target)  # again, just before replacing: it may have changed meanwhile
            os.replace(tmp, target)
        else:
            # link() fails if the name appeared meanwhile: no window in which another file is clobbered.
            try:
                os.link(tmp, target)
            except FileExistsError:
                raise FileExistsError(f"{target} already exists") from None
            except OSError:  # a filesystem without hard links
                if target.exists() or target.is_symlink():
                    raise FileExistsError(f"{target} already exists") from None
                os.replace(tmp, target)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
    return target
