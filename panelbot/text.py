"""Text helpers shared by ingest, retrieval and display: normalising, tokenising, and making untrusted
text safe for a terminal (no control sequences)."""

from __future__ import annotations

import os
import re
import unicodedata
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any


class LazyPattern:
    """A regular expression compiled when first used, not at import (start-up time): ``LazyPattern(p, flags)``
    stands where ``re.compile(p, flags)`` would and answers the same methods (search, sub, finditer...)."""

    __slots__ = ("_args", "_compiled")

    def __init__(self, pattern: str | bytes, flags: int = 0) -> None:
        self._args = (pattern, flags)
        self._compiled: re.Pattern[Any] | None = None

    @property
    def compiled(self) -> re.Pattern[Any]:
        """The compiled pattern (compiled on first use)."""
        if self._compiled is None:
            self._compiled = re.compile(*self._args)
        return self._compiled

    def __getattr__(self, name: str) -> Any:
        return getattr(self.compiled, name)

    def __repr__(self) -> str:
        return f"LazyPattern({self._args[0]!r}, {self._args[1]!r})"


class GuardedPattern(LazyPattern):
    """A ``LazyPattern`` every match of which contains one of ``literals`` (ASCII words, in any letter case):
    ``search`` on a text holding none of them answers None without compiling or running the pattern. A
    router has a few such patterns per panelist (their names, their organisation), and most questions name
    nobody. A literal that is not ASCII turns the guard off (Unicode case rules differ from ``casefold``)."""

    __slots__ = ("_literals",)

    def __init__(self, pattern: str, flags: int = 0, literals: tuple[str, ...] = ()) -> None:
        super().__init__(pattern, flags)
        folded = tuple(w.casefold() for w in literals)
        self._literals = folded if folded and all(w and w.isascii() for w in folded) else ()

    def search(self, text: str, *args: int) -> re.Match[str] | None:
        if self._literals:
            folded = text.casefold()
            if "ı" in folded:  # a dotless i matches "i" under re.IGNORECASE, and casefold keeps it
                folded = folded.replace("ı", "i")
            if not any(w in folded for w in self._literals):
                return None
        return self.compiled.search(text, *args)


# CSI / OSC / other escape sequences, then any remaining C0/C1 control characters except \n and \t.
_ANSI_RE = LazyPattern(
    r"""
    \x1b\[[0-?]*[ -/]*[@-~]            # CSI ... final byte
  | \x1b\][^\x07\x1b]*(?:\x07|\x1b\\)? # OSC ... BEL or ST
  | \x1b[PX^_][^\x1b]*(?:\x1b\\)?       # DCS/SOS/PM/APC ... ST
  | \x1b[ -/]+[0-~]                    # nF escapes (ESC ( B ...)
  | \x1b[0-~]                          # other two-byte escapes (Fp, Fe, Fs: ESC 7, ESC =, ESC c ...)
  | \x9b[0-?]*[ -/]*[@-~]              # 8-bit CSI
    """,
    re.VERBOSE,
)
# C0/C1 controls (but \n and \t), DEL, lone surrogates (undecodable bytes kept by surrogateescape), and
# every invisible format character (Unicode category Cf: bidi overrides and isolates, zero-width
# characters, soft hyphen, tag characters...), which can reorder or hide what a person reads.
_FORMAT_CHARS = (
    "\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890-\u0891\u08e2\u180e\u200b-\u200f\u202a-\u202e"
    "\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U00013438"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f"
)
_CTRL_RE = LazyPattern(f"[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff{_FORMAT_CHARS}]")
_LINE_BREAKS_RE = LazyPattern("\r\n|[\r\u2028\u2029]")


def terminal_columns(fallback: int) -> int:
    """``shutil.get_terminal_size((fallback, 24)).columns`` without importing shutil (and the archive modules
    it loads, a millisecond or two of a start): $COLUMNS, else the width of the terminal on stdout, else
    ``fallback``."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(1).columns
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or fallback


def strip_control(text: str, *, keep_newlines: bool = True) -> str:
    """Remove terminal escape sequences, control characters and invisible format characters.

    Newlines and tabs survive when ``keep_newlines``; a carriage return and the Unicode line and paragraph
    separators become a newline (and without ``keep_newlines`` every run of them a single space).
    """
    text = _ANSI_RE.sub("", text)
    text = _LINE_BREAKS_RE.sub("\n", text)
    text = _CTRL_RE.sub("", text)
    if not keep_newlines:
        text = re.sub(r"[\n\t]+", " ", text)
    return text


def shorten(text: str, width: int) -> str:
    """``text`` on one line in at most ``width`` characters: whole, or cut at a word ending in "…" (mid-word
    only when one word fills most of the width)."""
    text = " ".join(text.split())
    if len(text) <= width:
        return text
    if width <= 1:
        return "\u2026"[:width]
    head = text[:width]  # one more than fits: is the cut between two words?
    cut = head[:-1] if head.endswith(" ") else head[:-1].rsplit(" ", 1)[0]
    if len(cut) < width // 2:  # a very long word: cut inside it
        cut = text[: width - 1]
    return cut.rstrip(" ,;:-–—") + "\u2026"


MAX_QUESTION_CHARS = (
    2000  # a question longer than this is refused (routing cost grows with its length)
)


def question_too_long(question: str, what: str = "question") -> str | None:
    """Why ``question`` (or a discussion's subject: ``what``) is refused for its length, or None when it is
    short enough."""
    if len(question) <= MAX_QUESTION_CHARS:
        return None
    return (
        f"the {what} is {len(question):,} characters long; the limit is {MAX_QUESTION_CHARS:,}: "
        "shorten it"
    )


_WORD_RE = LazyPattern(r"[a-z0-9]+(?:[.'][a-z0-9]+)*")


def fold(text: str) -> str:
    """Lowercase, strip accents, unify quotes and dashes; a letter that has no accent to strip but is not
    ASCII either ("ł", "ø", "ß", "æ", a name in another script) is spelt in ASCII letters as ingest spells
    panelist ids ("Rafał" -> "rafal", as "Rafal" is), so a name matches however it is typed."""
    if text.isascii():
        return text.lower()
    text = unicodedata.normalize("NFKD", text)
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    text = (
        text.replace("\u2019", "'")
        .replace("\u2018", "'")
        .replace("\u201c", '"')
        .replace("\u201d", '"')
    )
    if not text.isascii():
        text = _ascii_letters(text)
    return text.lower()


def _ascii_letters(text: str) -> str:
    """Each non-ASCII letter of ``text`` in ASCII letters (anyascii, imported only for such a text); other
    characters (dashes, symbols, punctuation) as they are."""
    from anyascii import anyascii

    def spell(m: re.Match[str]) -> str:
        out = []
        for ch in m.group(0):
            spelt = anyascii(ch) if ch.isalpha() else ""
            out.append(spelt if spelt.isalnum() else ch)
        return "".join(out)

    return _NON_ASCII_RE.sub(spell, text)


_NON_ASCII_RE = LazyPattern(r"[^\x00-\x7f]+")


def word_pattern() -> re.Pattern[str]:
    """The compiled pattern behind :func:`words` (for callers that tokenise many texts: ``findall`` of
    :func:`fold`-ed text is ``words``)."""
    return _WORD_RE.compiled


def words(text: str) -> list[str]:
    """Lowercase word tokens ("m3", "2.7", "don't" stay whole)."""
    return _WORD_RE.findall(fold(text))


def normalize_for_match(text: str) -> str:
    """Collapse text to lowercase words separated by single spaces (for 'does this appear in that')."""
    return " ".join(words(text))


_SENT_RE = LazyPattern(
    r"(?:(?<=[.!?])|(?<=[.!?][\"')\]\u201d\u2019]))\s+(?=[\"'(\[\u201c]?[A-Z0-9])"
)


def split_sentences(text: str) -> list[str]:
    """Split prose into sentences on ., ! or ? followed by a capital or digit."""
    text = " ".join(text.split())
    if not text:
        return []
    parts = _SENT_RE.split(text)
    return [p.strip() for p in parts if p.strip()]


def fill_text(text: str, width: int | None, indent: str = "", hang: str | None = None) -> str:
    """``text`` filled to ``width`` columns, every line starting with ``indent`` (the lines after the first
    with ``hang`` when given: "  - a point" goes on under "a"), for plain-text output. A hyphenated word is
    never broken at its hyphen ("post-" at one line's end, "training" at the next) and a long word (a URL)
    is never cut in two: it overflows the line instead. ``width`` None: one line, for a front end that wraps
    to its own width (the app)."""
    if width is None:
        return indent + " ".join(text.split())
    import textwrap

    return textwrap.fill(
        text,
        width,
        initial_indent=indent,
        subsequent_indent=indent if hang is None else hang,
        break_on_hyphens=False,
        break_long_words=False,
    )


def agree(n: int, noun: str, plural: str = "") -> str:
    """``noun`` for a count of one, else its plural (``plural`` when not noun + "s"): "invalid citation"."""
    return noun if n == 1 else plural or noun + "s"


def count_of(n: int, noun: str, plural: str = "") -> str:
    """``1 turn``, ``2 turns``: a count with its noun agreeing (``plural`` when not noun + "s")."""
    return f"{n:,} {agree(n, noun, plural)}"


def and_list(items: Sequence[str]) -> str:
    """Names as a sentence lists them: "Dan", "Dan and Olive", "Ada, Ben, Cy and Di"."""
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def cased_like(label: str, *texts: str) -> str:
    """``label`` (a topic, often written in lower case: "kv cache storage") with each word as ``texts`` (the
    question, the quote) write it when that form is an acronym or mixed case ("KV", "GPU", "MiniMax"): "KV
    cache storage". A capital that only starts a sentence is not taken."""
    forms: dict[str, str] = {}
    for text in texts:
        for word in re.findall(r"[^\W_][\w'-]*", text):
            if word[1:] != word[1:].lower() or (
                len(word) > 1 and word.isupper()
            ):  # "KV", "MiniMax", "M3"
                forms.setdefault(word.lower(), word)
                if len(word) > 2 and word[-1] == "s" and word[:-1].isupper():  # "GPUs": "GPU" too
                    forms.setdefault(word[:-1].lower(), word[:-1])
    return " ".join(forms.get(w.lower(), w) if w == w.lower() else w for w in label.split(" "))
