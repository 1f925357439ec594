"""Word lists and light stemming shared by ingest and retrieval.

``stopwords.txt``: function words and conversational filler. ``common_en.txt``: the 5,000 most frequent
English words (wordfreq, CC BY-SA 4.0), used to tell generic words from a panel's own vocabulary.
``english_words.txt``: the 40,000 most frequent (same source), real words that typo correction leaves alone.
"""

from __future__ import annotations

from functools import cache, lru_cache
from importlib import resources

from panelbot.text import words


@cache
def _wordlist(name: str) -> frozenset[str]:
    text = resources.files("panelbot.data").joinpath(name).read_text(encoding="utf-8")
    return frozenset(
        line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")
    )


def stopwords() -> frozenset[str]:
    return _wordlist("stopwords.txt")


def common_words() -> frozenset[str]:
    return _wordlist("common_en.txt")


@lru_cache(maxsize=1)
def common_stems() -> frozenset[str]:
    """The stems of common_words(): what a stemmed term is compared with."""
    return frozenset(stem(w) for w in common_words())


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
