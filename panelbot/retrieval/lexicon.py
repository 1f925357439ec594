"""Word lists and light stemming shared by ingest and retrieval.

``stopwords.txt``: function words and conversational filler. ``common_en.txt``: the 5,000 most frequent
English words (wordfreq, CC BY-SA 4.0), used to tell generic words from a panel's own vocabulary.
``english_words.txt``: the 40,000 most frequent (same source), real words that typo correction leaves alone.
``common_stems.txt``: ``stem()`` of every word of common_en.txt, written by ``scripts/make_common_stems.py``
(a first start need not stem 5,000 words; a test keeps it equal to what ``stem()`` gives).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterator
from functools import cache, lru_cache
from pathlib import Path

from panelbot.text import words

DATA_DIR = (
    Path(__file__).resolve().parent.parent / "data"
)  # panelbot/data (importlib.resources costs ms)


def _body(name: str) -> str:
    """A word list's text without its leading comment lines."""
    text = (DATA_DIR / name).read_text(encoding="utf-8")
    while text.startswith("#"):
        text = text.partition("\n")[2]
    return text


def _plain(body: str) -> bool:
    """One word per line, no comments further down (every list shipped): fast paths apply."""
    return not any(c in body for c in (" ", "\t", "\r", "\n#"))


@cache
def _wordlist(name: str) -> frozenset[str]:
    """One entry per line; lines starting with '#' are comments."""
    body = _body(name)
    if _plain(body):
        return frozenset(body.split())
    return frozenset(
        s for line in body.splitlines() if (s := line.strip()) and not s.startswith("#")
    )


class WordText:
    """A long word list kept as its text: ``word in it`` is one substring search, so a process that
    checks a handful of words never builds a 40,000-entry set (several ms of every start)."""

    def __init__(self, body: str) -> None:
        self._text = "\n" + body.strip("\n") + "\n"

    def __contains__(self, word: object) -> bool:
        return (
            isinstance(word, str)
            and bool(word)
            and "\n" not in word
            and f"\n{word}\n" in self._text
        )

    def __iter__(self) -> Iterator[str]:
        return iter(self._text.split())

    def __len__(self) -> int:
        return self._text.count("\n") - 1


def stopwords() -> frozenset[str]:
    return _wordlist("stopwords.txt")


def common_words() -> frozenset[str]:
    return _wordlist("common_en.txt")


@cache
def common_rank() -> dict[str, int]:
    """Each common word's place in common_en.txt's frequency order (1: the most frequent)."""
    return {w: n for n, w in enumerate(_body("common_en.txt").split(), 1)}


def specificity(word: str) -> float:
    """How much a word says about a subject, from 0 to 1: 1 for a word outside the 5,000 most frequent
    English words, less the more frequent it is ("year" ~0.56, "games" ~0.68, "career" ~0.80); 0 for a
    stopword."""
    w = word.lower()
    if w in stopwords():
        return 0.0
    rank = common_rank().get(w)
    if rank is None:
        return 1.0
    return math.log(rank) / math.log(len(common_rank()) + 1)


_common_stems: frozenset[str] | None = None


def common_stems() -> frozenset[str]:
    """The stems of common_words(): what a stemmed term is compared with, read from ``common_stems.txt``
    (stemmed ahead of time)."""
    global _common_stems
    if _common_stems is None:
        _common_stems = _wordlist("common_stems.txt")
    return _common_stems


def stem_common_words() -> list[str]:
    """``stem()`` of every common word, sorted: what ``common_stems.txt`` holds."""
    return sorted({stem(w) for w in common_words()})


@cache
def english_words() -> Collection[str]:
    """A larger list of real English words (never treated as typos): supports ``in``, iteration, len."""
    body = _body("english_words.txt")
    if _plain(body):
        return WordText(body)
    return _wordlist("english_words.txt")


_SUFFIXES = (
    ("ational", "ate"),
    ("ization", "ize"),
    ("izations", "ize"),
    ("ations", "ate"),
    ("ation", "ate"),
    ("nesses", ""),
    ("ness", ""),
    ("ments", ""),
    ("ment", ""),
    ("ities", ""),
    ("ity", ""),
    ("ingly", ""),
    ("edly", ""),
    ("ings", ""),
    ("ing", ""),
    ("ies", "y"),
    ("ied", "y"),
    ("ers", "er"),
    ("ed", ""),
    ("es", ""),
    ("s", ""),
    ("ly", ""),
)
_ENDINGS = tuple(suf for suf, _ in _SUFFIXES)  # one C-level check before trying them in order


@lru_cache(maxsize=200_000)
def stem(word: str) -> str:
    """A small, predictable suffix stripper: 'kernels'->'kernel', 'optimizing'->'optimiz',
    'optimization'->'optimize'->'optimiz'. Short words and numbers are left alone."""
    w = word.lower().replace("'", "")
    if len(w) <= 3 or not w.isalpha():
        return w
    if w.endswith(_ENDINGS):
        for suf, rep in _SUFFIXES:
            if w.endswith(suf) and len(w) - len(suf) >= 3:
                w = w[: -len(suf)] + rep
                break
    if w.endswith("e") and len(w) > 3:
        w = w[:-1]
    if len(w) > 4 and w[-1] == w[-2] and w[-1] not in "lsz":
        w = w[:-1]
    return w


def content_words(text: str) -> list[str]:
    """Stemmed words that carry meaning (no stopwords, no single letters)."""
    sw = stopwords()
    return [stem(w) for w in words(text) if w not in sw and len(w) > 1]
