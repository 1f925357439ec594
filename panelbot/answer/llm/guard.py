"""Take out of a model's answer every line that poses as panelbot's own: a speaker heading or a verdict.

panelbot writes a heading over each panelist's answer (``Olive (Research lead of RL, MiniMax):``) and a verdict
under it (``[grounded: …]``); the servers read headings back to tell who said what. So a model must not be able
to write either: at the start of a line (after spaces, Markdown marks and list bullets),

- a *heading* is the name, first name or id of anyone on the panel, or a generic speaker label ("You",
  "Audience member", "Host", "Assistant"...), optionally with a parenthesised title, then a colon: that much
  is removed and the rest of the line kept (``Olive: we trained…`` -> ``we trained…``);
- a line that is only ``Any Name (Any Title):`` is a heading too, and removed;
- a *verdict* is a line opening with a bracket and a verdict word (``[grounded``, ``(NOT grounded``,
  ``【verified``, ``[cites nothing``, ``(stopped)``...), a verdict word and a colon (``Grounded: yes``), or
  ``Name's own words:``: the whole line is removed.

:class:`OutputGuard` works on a stream: ``feed(piece)`` returns what can be shown now (a line start is held
back only while it could still become a heading or a verdict, at most :data:`HOLD_CHARS` characters), and
``flush()`` the rest. ``removed`` lists what was taken out. Plain string work, linear in the text.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from panelbot.panel import Panel

HOLD_CHARS = 240  # a line start undecided after this many characters is ordinary text
_TITLE_CHARS = 160  # the most a parenthesised title after a name may hold
_LEAD = " \t\u00a0\u3000*_#>~|`-+\u2022\u00b7\u25aa\u25e6\u2013\u2014"  # spaces, Markdown, bullets
_OPENERS = "[(\uff3b\uff08\u3010\u3014\u27e6{<"  # a verdict line opens with one of these
_COLONS = ":\uff1a\ufe55\ufe13"
# General speaker labels (of no one talk): who else a transcript-style answer could pretend to be.
GENERIC_LABELS = (
    "you",
    "user",
    "audience",
    "audience member",
    "question",
    "q",
    "a",
    "answer",
    "host",
    "moderator",
    "assistant",
    "panelbot",
    "the panel",
    "panel",
    "system",
)
VERDICT_WORDS = (
    "grounded",
    "not grounded",
    "partly grounded",
    "partially grounded",
    "ungrounded",
    "fully grounded",
    "verified",
    "not verified",
    "unverified",
    "verdict",
    "cites nothing",
    "cites none",
    "not supported",
    "unsupported",
    "supported",
    "misquoted",
    "invalid citation",
    "the model failed",
    "generation failed",
    "stopped",
    "checked",
)
# A whole line "Some Name (Some Title):" (a speaker nobody on the panel has: still a heading to a reader):
# up to five capitalised words, a parenthesised title, a colon.
_NAME_WORDS_RE = re.compile(r"[^\W\d_][\w.'\u2019&-]{0,40}(?: [^\W\d_][\w.'\u2019&-]{0,40}){0,4} ?")
_TITLE_RE = re.compile(r"\([^()\n]{1,160}\)[ \t*_]*[:\uff1a\ufe55\ufe13][ \t*_]*")
_TITLE_PREFIX_RE = re.compile(r"\([^()\n]{0,160}(?:\)[ \t*_]*(?:[:\uff1a\ufe55\ufe13][ \t*_]*)?)?")

_HOLD, _CLEAN, _DROP, _HEADING = "hold", "clean", "drop", "heading"


def _fold(text: str) -> str:
    """Lower case, full-width letters and lookalikes from other scripts (Cyrillic "О") as ASCII, one
    character for one (positions stay the same)."""
    if text.isascii():
        return text.lower()
    from anyascii import anyascii

    out = []
    for ch in text:
        if not ch.isascii():
            n = unicodedata.normalize("NFKC", ch)
            if len(n) == 1 and not n.isascii() and n.isalpha():
                n = anyascii(n) or n
            ch = n if len(n) == 1 else ch
        low = ch.lower()
        out.append(low if len(low) == 1 else ch)
    return "".join(out)


def panel_labels(panel: Panel | None) -> list[str]:
    """Everything a heading on this panel could name: each panelist's and the host's name, first name
    and id, and the generic labels; lower case, longest first."""
    labels = set(GENERIC_LABELS)
    if panel is not None:
        people = [*panel.panelists.values(), *([panel.host] if panel.host else [])]
        for p in people:
            for label in (p.name, p.id, *(p.name.split()[:1])):
                label = _fold(" ".join(label.split()))
                if label:
                    labels.add(label)
    return sorted(labels, key=lambda s: (-len(s), s))


def _lead(line: str) -> int:
    """Where a line's words start (after spaces, Markdown marks and bullets)."""
    i = 0
    while i < len(line) and line[i] in _LEAD:
        i += 1
    return i


def _after_spaces(text: str, i: int, chars: str = " \t*_") -> int:
    while i < len(text) and text[i] in chars:
        i += 1
    return i


class OutputGuard:
    """Removes headings and verdict lines from a model's answer as it streams (see the module's doc)."""

    def __init__(self, labels: Iterable[str] = GENERIC_LABELS) -> None:
        self.labels = sorted({_fold(x) for x in labels if x}, key=lambda s: (-len(s), s))
        self.removed: list[str] = []  # each removed line (or heading), its spaces collapsed
        self._removed_raw: list[str] = []
        self._pending = ""  # the start of the current line, not yet decided
        self._mode = (
            "start"  # "start": deciding; "pass": the rest of the line is shown; "drop": removed
        )
        self._after_heading = False  # a heading was just removed: the spaces after it go too

    @classmethod
    def for_panel(cls, panel: Panel | None) -> OutputGuard:
        return cls(panel_labels(panel))

    # ------------------------------------------------------------------------------------------ stream

    def feed(self, piece: str) -> str:
        self._pending += piece
        return self._run(final=False)

    def flush(self) -> str:
        return self._run(final=True)

    def clean(self, text: str) -> str:
        """The whole of ``text`` at once."""
        return self.feed(text) + self.flush()

    def _run(self, *, final: bool) -> str:
        out: list[str] = []
        while self._pending:
            if (
                self._after_heading
            ):  # the spaces after a heading go, and its line break if it was alone
                rest = self._pending.lstrip(" \t*_")
                if not rest:
                    self._pending = ""
                    break
                self._pending = rest[1:] if rest[0] == "\n" else rest
                self._after_heading = False
                continue
            nl = self._pending.find("\n")
            if self._mode == "pass":
                cut = len(self._pending) if nl < 0 else nl + 1
                out.append(self._pending[:cut])
                self._pending = self._pending[cut:]
                self._mode = "pass" if nl < 0 else "start"
                continue
            if self._mode == "drop":
                cut = len(self._pending) if nl < 0 else nl + 1
                self._note(self._pending[:cut], extend=True)
                self._pending = self._pending[cut:]
                self._mode = "drop" if nl < 0 else "start"
                continue
            line = self._pending if nl < 0 else self._pending[:nl]
            complete = nl >= 0 or final
            kind, cut = self._decide(line, complete)
            if kind == _HOLD:
                if len(line) <= HOLD_CHARS:
                    break
                kind = _CLEAN
            if kind == _CLEAN:
                self._mode = "pass"
            elif kind == _DROP:
                self._note(line)
                self._pending = self._pending[len(line) + (nl >= 0) :]
                self._mode = "start" if nl >= 0 else "drop"
                continue
            else:  # a heading: it goes, the rest of the line is read again from its start
                self._note(line[:cut])
                self._pending = self._pending[cut:]
                self._after_heading = True
                continue
        if final:
            self._mode, self._after_heading = "start", False
        return "".join(out)

    def _note(self, text: str, *, extend: bool = False) -> None:
        """Remember what was removed (a line dropped over several pieces is one entry)."""
        if extend and self._removed_raw:
            self._removed_raw[-1] += text
        else:
            self._removed_raw.append(text)
        self.removed[:] = [" ".join(r.split()) for r in self._removed_raw]

    # ------------------------------------------------------------------------------------------ decide

    def _decide(self, line: str, complete: bool) -> tuple[str, int]:
        """What the start of ``line`` is: (_HOLD, 0) not known yet, (_CLEAN, 0), (_DROP, 0) a verdict line,
        or (_HEADING, end) a heading ending at ``end``."""
        start = _lead(line)
        rest = line[start:]
        if not rest.strip():
            return (_HOLD if not complete else _CLEAN), 0
        folded = _fold(rest)
        verdict = self._verdict(folded, complete)
        if verdict != _CLEAN:
            return verdict, 0
        kind, end = self._heading(folded, complete)
        if kind == _HEADING:
            return kind, start + end
        if kind == _DROP:
            return kind, 0
        generic = self._generic_heading(rest, complete)
        if generic == _HEADING:
            return _DROP, 0
        if _HOLD in (kind, generic):
            return _HOLD, 0
        return _CLEAN, 0

    def _verdict(self, folded: str, complete: bool) -> str:
        bracketed = folded[0] in _OPENERS
        body = folded[_after_spaces(folded, 1, " \t*_") :] if bracketed else folded
        if not body:
            return _CLEAN if complete else _HOLD
        undecided = False
        for word in VERDICT_WORDS:
            if body.startswith(word):
                after = body[len(word) :]
                if bracketed:
                    if not after:
                        return _DROP if complete else _HOLD
                    if not after[0].isalnum():
                        return _DROP
                    continue
                i = _after_spaces(after, 0)
                if i == len(after) and not complete:
                    undecided = True
                elif i < len(after) and after[i] in _COLONS:
                    return _DROP
            elif word.startswith(body) and not complete:
                undecided = True
        return _HOLD if undecided else _CLEAN

    def _heading(self, folded: str, complete: bool) -> tuple[str, int]:
        undecided = False
        for label in self.labels:
            if folded.startswith(label):
                kind, end = self._after_label(folded, len(label), complete)
                if kind in (_HEADING, _DROP):
                    return kind, end
                undecided = undecided or kind == _HOLD
            elif label.startswith(folded) and not complete:
                undecided = True
        return (_HOLD if undecided else _CLEAN), 0

    def _after_label(self, folded: str, i: int, complete: bool) -> tuple[str, int]:
        """After a label at the start of a line: a heading (its end), or not, or not known yet."""
        if i < len(folded) and (folded[i].isalnum() or folded[i] == "-"):
            return _CLEAN, 0  # "Danny", "dan-04": a longer word, not this label
        j = _after_spaces(folded, i)
        for owner in ("'s own words", "\u2019s own words"):
            tail = folded[j : j + len(owner)]
            if tail == owner:
                return _DROP, 0  # "Dan's own words:": the whole line goes
            if owner.startswith(tail) and j + len(tail) == len(folded) and not complete:
                return _HOLD, 0
        if j < len(folded) and folded[j] == "(":
            close = folded.find(")", j, j + _TITLE_CHARS + 2)
            if close < 0:
                if "\n" in folded[j:] or len(folded) - j > _TITLE_CHARS or complete:
                    return _CLEAN, 0
                return _HOLD, 0
            j = _after_spaces(folded, close + 1)
        if j == len(folded):
            return (_CLEAN if complete else _HOLD), 0
        if folded[j] in _COLONS:
            return _HEADING, _after_spaces(folded, j + 1, " \t*_")
        return _CLEAN, 0

    @staticmethod
    def _generic_heading(rest: str, complete: bool) -> str:
        """``Any Name (Any Title):`` as the whole line: _HEADING; _HOLD while the line could still become
        one."""
        name = _NAME_WORDS_RE.match(rest)
        if name is None:
            return _CLEAN
        words = rest[: name.end()].split()
        if not all(w[0].isupper() for w in words):
            return _CLEAN
        tail = rest[name.end() :]
        if complete:
            return _HEADING if _TITLE_RE.fullmatch(tail.rstrip()) else _CLEAN
        if not tail:
            return _HOLD
        return _HOLD if _TITLE_PREFIX_RE.fullmatch(tail) else _CLEAN
