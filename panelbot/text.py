"""Text helpers shared by ingest, retrieval and display: normalising, tokenising, and making untrusted
text safe for a terminal (no control sequences)."""

from __future__ import annotations

import re
import unicodedata

# CSI / OSC / other escape sequences, then any remaining C0/C1 control characters except \n and \t.
_ANSI_RE = re.compile(
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
_CTRL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")


def strip_control(text: str, *, keep_newlines: bool = True) -> str:
    """Remove terminal escape sequences and control characters (bidi overrides too).

    Newlines and tabs survive when ``keep_newlines``; a carriage return becomes a newline.
    """
    text = _ANSI_RE.sub("", text)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _CTRL_RE.sub("", text)
    if not keep_newlines:
        text = re.sub(r"[\n\t]+", " ", text)
    return text


_WORD_RE = re.compile(r"[a-z0-9]+(?:[.'][a-z0-9]+)*")


def fold(text: str) -> str:
    """Lowercase, strip accents, unify quotes and dashes."""
    if text.isascii():
        return text.lower()
    text = unicodedata.normalize("NFKD", text)
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    text = text.replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", '"').replace("\u201d", '"')
    return text.lower()


def words(text: str) -> list[str]:
    """Lowercase word tokens ("m3", "2.7", "don't" stay whole)."""
    return _WORD_RE.findall(fold(text))


def normalize_for_match(text: str) -> str:
    """Collapse text to lowercase words separated by single spaces (for 'does this appear in that')."""
    return " ".join(words(text))


_SENT_RE = re.compile(r"(?:(?<=[.!?])|(?<=[.!?][\"')\]\u201d\u2019]))\s+(?=[\"'(\[\u201c]?[A-Z0-9])")


def split_sentences(text: str) -> list[str]:
    """Split prose into sentences on ., ! or ? followed by a capital or digit."""
    text = " ".join(text.split())
    if not text:
        return []
    parts = _SENT_RE.split(text)
    return [p.strip() for p in parts if p.strip()]
