"""Keeping the API key out of everything a person or a file can see.

A server can echo the key back (in an error, or inside the answer itself), and an error can hold the key in
escaped form (a header's ``repr``). :class:`Redactor` hides every form of a key: the key itself, its
``repr``/JSON/URL-escaped spellings, in any letter case, and any fragment of at least
:data:`MIN_FRAGMENT` characters of those. :class:`StreamRedactor` does the same for text that arrives in
pieces (a fragment split across two pieces is still caught).

Every key in use is registered (:func:`register`) so that each exit (stdout, stderr, JSON, history,
exports, the clipboard) can :func:`scrub` what it writes as a last line of defence.
"""

from __future__ import annotations

import json
import re
from urllib.parse import quote

MIN_FRAGMENT = 6  # this many consecutive characters of a key are treated as the key
MIN_KEY = 3  # a shorter "key" (e.g. "x" for a local server) is not secret and not redacted
MASK = "***"


def _fold(text: str) -> str:
    """Lowercase without changing the length (so positions map back to the original text)."""
    low = text.lower()
    if len(low) == len(text):
        return low
    return "".join(c if len(c.lower()) != 1 else c.lower() for c in text)


def key_forms(key: str) -> list[str]:
    """The spellings of ``key`` that may appear in text: raw, repr-, JSON- and URL-escaped."""
    forms = [
        key,
        repr(key)[1:-1],
        json.dumps(key)[1:-1],
        json.dumps(key, ensure_ascii=False)[1:-1],
        quote(key, safe=""),
    ]
    return list(dict.fromkeys(_fold(f) for f in forms if f))


class Redactor:
    """Replaces every recognisable part of one key by ``***``."""

    def __init__(self, key: str | None) -> None:
        self.key = key or ""
        self.active = len(self.key) >= MIN_KEY
        self.window = 0
        self._re: re.Pattern[str] | None = None
        if not self.active:
            return
        forms = key_forms(self.key)
        if len(self.key) >= MIN_FRAGMENT:
            # every MIN_FRAGMENT-long piece of every form; a lookahead finds overlapping matches
            self.window = MIN_FRAGMENT
            pieces = {
                f[i : i + MIN_FRAGMENT] for f in forms for i in range(len(f) - MIN_FRAGMENT + 1)
            }
        else:  # a short key: only whole occurrences
            self.window = max(len(f) for f in forms)
            pieces = set(forms)
        alternatives = "|".join(re.escape(p) for p in sorted(pieces, key=len, reverse=True))
        self._re = re.compile(f"(?=({alternatives}))")

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Merged (start, end) ranges of ``text`` that are part of the key."""
        if self._re is None or not text:
            return []
        out: list[tuple[int, int]] = []
        for m in self._re.finditer(_fold(text)):
            start, end = m.start(), m.start() + len(m.group(1))
            if out and start <= out[-1][1]:
                out[-1] = (out[-1][0], max(out[-1][1], end))
            else:
                out.append((start, end))
        return out

    def redact(self, text: str) -> str:
        return _apply(text, self.spans(text))

    def leaks(self, text: str) -> bool:
        """Whether ``text`` holds any recognisable part of the key."""
        return bool(self.spans(text))


class StreamRedactor:
    """:class:`Redactor` for text arriving in pieces: the last few characters are held back until the next
    piece shows whether they begin a fragment of the key."""

    def __init__(self, redactor: Redactor) -> None:
        self.r = redactor
        self._held = ""
        self._held_masked: list[tuple[int, int]] = []  # parts of _held already known to be key

    def feed(self, piece: str) -> str:
        if not self.r.active:
            return piece
        text = self._held + piece
        spans = _merge(self._held_masked + self.r.spans(text))
        cut = max(0, len(text) - (self.r.window - 1))
        # never cut inside a masked span: hold the whole span back
        for start, end in spans:
            if start < cut < end:
                cut = start
        self._held = text[cut:]
        self._held_masked = [(max(s, cut) - cut, e - cut) for s, e in spans if e > cut]
        return _apply(text[:cut], [(s, e) for s, e in spans if e <= cut])

    def flush(self) -> str:
        text, spans = self._held, self._held_masked
        self._held, self._held_masked = "", []
        return _apply(text, _merge(spans + self.r.spans(text)))


def _merge(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if out and start <= out[-1][1]:  # overlapping or touching: one mask
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def _apply(text: str, spans: list[tuple[int, int]]) -> str:
    parts: list[str] = []
    pos = 0
    for start, end in spans:
        parts.append(text[pos:start])
        parts.append(MASK)
        pos = end
    parts.append(text[pos:])
    return "".join(parts)


# ----------------------------------------------------------------------------------- the keys in use

_REGISTERED: dict[str, Redactor] = {}


def register(key: str | None) -> Redactor:
    """Remember a key in use (so :func:`scrub` hides it everywhere) and return its redactor."""
    r = _REGISTERED.get(key or "")
    if r is None:
        r = Redactor(key)
        if r.active:
            _REGISTERED[r.key] = r
    return r


def scrub(text: str) -> str:
    """``text`` with every registered key redacted (the last check before text leaves the program)."""
    for r in _REGISTERED.values():
        text = r.redact(text)
    return text
