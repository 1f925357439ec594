"""Word lists and light stemming shared by ingest and retrieval.

``stopwords.txt``: function words and conversational filler. ``common_en.txt``: the 5,000 most frequent
English words (wordfreq, CC BY-SA 4.0), used to tell generic words from a panel's own vocabulary.
``english_words.txt``: the 40,000 most frequent (same source), real words that typo correction leaves alone.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache
from pathlib import Path

from panelbot.text import words

DATA_DIR = Path(__file__).resolve().parent.parent / "data"  # panelbot/data (importlib.resources costs ms)

_COMMENT_RE = re.compile(r"^#.*$", re.MULTILINE)


@cache
def _wordlist(name: str) -> frozenset[str]:
    """One entry per line; lines starting with '#' are comments."""
    text = (DATA_DIR / name).read_text(encoding="utf-8")
    body = _COMMENT_RE.sub("", text)
    if " " not in body and "\t" not in body:  # one word per line (every list shipped): split in C
        return frozenset(body.split())
    return frozenset(line.strip() for line in body.splitlines() if line.strip())


def stopwords() -> frozenset[str]:
    return _wordlist("stopwords.txt")


def common_words() -> frozenset[str]:
    return _wordlist("common_en.txt")


_common_stems: frozenset[str] | None = None


def common_stems() -> frozenset[str]:
    """The stems of common_words(): what a stemmed term is compared with. Computed once per process,
    or handed over by a saved index (``prime_common_stems``) so that a warm start need not stem 5,000
    words."""
    global _common_stems
    if _common_stems is None:
        _common_stems = frozenset(stem(w) for w in common_words())
    return _common_stems


def prime_common_stems(stems: frozenset[str]) -> None:
    """Use ``stems`` as common_stems() (from a saved index whose key covers this module and the lists)."""
    global _common_stems
    if _common_stems is None:
        _common_stems = stems


def english_words() -> frozenset[str]:
    """A larger list of real English words (never treated as typos)."""
    return _wordlist("english_words.txt")


_SUFFIXES = (
    ("ational", "ate"), ("ization", "ize"), ("izations", "ize"), ("ations", "ate"), ("ation", "ate"),
    ("nesses", ""), ("ness", ""), ("ments", ""), ("ment", ""), ("ities", ""), ("ity", ""),
    ("ingly", ""), ("edly", ""), ("ings", ""), ("ing", ""), ("ies", "y"), ("ied", "y"), ("ers", "er"),
    ("ed", ""), ("es", ""), ("s", ""), ("ly", ""),
)


@lru_cache(maxsize=200_000)
def stem(word: str) -> str:
    """A small, predictable suffix stripper: 'kernels'->'kernel', 'optimizing'->'optimiz',
    'optimization'->'optimize'->'optimiz'. Short words and numbers are left alone."""
    w = word.lower().replace("'", "")
    if len(w) <= 3 or not w.isalpha():
        return w
    for suf, rep in _SUFFIXES:
        if w.endswith(suf) and len(w) - len(suf) >= 3:
            w = w[: -len(suf)] + rep
            break
    if w.endswith("e") and len(w) > 4:
        w = w[:-1]
    if len(w) > 4 and w[-1] == w[-2] and w[-1] not in "lsz":
        w = w[:-1]
    return w


def content_words(text: str) -> list[str]:
    """Stemmed words that carry meaning (no stopwords, no single letters)."""
    sw = stopwords()
    return [stem(w) for w in words(text) if w not in sw and len(w) > 1]
