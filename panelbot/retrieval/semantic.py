"""The text side of the semantic signal: BERT WordPiece tokenisation in plain Python, and tables of unit
vectors searched by cosine.

The tokenizer gives the ids the ``tokenizers`` library gives for a BERT uncased ``tokenizer.json`` (checked over
every code point and a few hundred sentences, tests/test_semantic.py); the sentence encoder that turns those ids
into vectors is :mod:`panelbot.retrieval.encoder`. A :class:`VectorTable` holds one row per text (a quote, an
example message) as float32 and returns each row's cosine with a query.
"""

from __future__ import annotations

import array
import bisect
import heapq
import operator
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

Vector = array.array  # typecode 'f', unit-norm (or all zeros for a text with no known token)


class ModelError(ValueError):
    """The model directory is missing a file or its files disagree with each other."""


# --- the tokenizer ----------------------------------------------------------------------------------
#
# It follows tokenizers' BertNormalizer (clean_text, handle_chinese_chars, strip_accents, lowercase),
# BertPreTokenizer and WordPiece model, in that order (tokenizers/src/normalizers/bert.rs,
# pre_tokenizers/bert.rs, models/wordpiece/mod.rs). Their character classes come from the Rust crate
# unicode_categories, whose tables are older than Python's unicodedata: the code points whose class
# differs between the two are listed in _CRATE_CLASS_OVERRIDES (found by comparing every code point
# with the tokenizers library; tests/test_semantic.py repeats that comparison).

_ASCII_PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
# Rust's char::is_whitespace (the Unicode White_Space property), less the controls that clean_text
# removes before it maps whitespace to a space (\x0b, \x0c, \x85): only these become a space.
_WHITESPACE = frozenset(
    "\t\n\r \xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)
_REMOVED_CATEGORIES = frozenset({"Cc", "Cf", "Co", "Cs"})  # the crate's is_other() less Cn
_CJK_RANGES = (
    (0x3400, 0x4DBF),
    (0x4E00, 0x9FFF),
    (0xF900, 0xFAFF),
    (0x20000, 0x2A6DF),
    (0x2A700, 0x2B73F),
    (0x2B740, 0x2B81F),
    (0x2B920, 0x2CEAF),
    (0x2F800, 0x2FA1F),
)
# The classes a character can have for the tokenizer.
PLAIN, REMOVED, MARK, PUNCT = "plain", "removed", "mark", "punct"
# (first, last, class): code points the crate classifies otherwise than unicodedata (Python 3.11,
# Unicode 14); most are newer than the crate's tables, which treat them as unassigned (plain).
# Printed by scripts/tokenizer_class_overrides.py.
_CRATE_CLASS_OVERRIDES: tuple[tuple[int, int, str], ...] = (
    (0x061D, 0x061D, PLAIN),
    (0x07FD, 0x07FD, PLAIN),
    (0x0890, 0x0891, PLAIN),
    (0x0898, 0x089F, PLAIN),
    (0x08CA, 0x08E2, PLAIN),
    (0x09FD, 0x09FE, PLAIN),
    (0x0A76, 0x0A76, PLAIN),
    (0x0AFA, 0x0AFF, PLAIN),
    (0x0B55, 0x0B55, PLAIN),
    (0x0C04, 0x0C04, PLAIN),
    (0x0C3C, 0x0C3C, PLAIN),
    (0x0C77, 0x0C77, PLAIN),
    (0x0C84, 0x0C84, PLAIN),
    (0x0D00, 0x0D00, PLAIN),
    (0x0D3B, 0x0D3C, PLAIN),
    (0x0D81, 0x0D81, PLAIN),
    (0x0EBA, 0x0EBA, PLAIN),
    (0x166D, 0x166D, PUNCT),
    (0x1734, 0x1734, MARK),
    (0x180F, 0x180F, PLAIN),
    (0x1885, 0x1886, PLAIN),
    (0x1ABF, 0x1ACE, PLAIN),
    (0x1B7D, 0x1B7E, PLAIN),
    (0x1DF6, 0x1DFB, PLAIN),
    (0x2E43, 0x2E4F, PLAIN),
    (0x2E52, 0x2E5D, PLAIN),
    (0xA82C, 0xA82C, PLAIN),
    (0xA8C5, 0xA8C5, PLAIN),
    (0xA8FF, 0xA8FF, PLAIN),
    (0xA9BD, 0xA9BD, PLAIN),
    (0x10D24, 0x10D27, PLAIN),
    (0x10EAB, 0x10EAD, PLAIN),
    (0x10F46, 0x10F50, PLAIN),
    (0x10F55, 0x10F59, PLAIN),
    (0x10F82, 0x10F89, PLAIN),
    (0x11070, 0x11070, PLAIN),
    (0x11073, 0x11074, PLAIN),
    (0x110C2, 0x110C2, PLAIN),
    (0x110CD, 0x110CD, PLAIN),
    (0x111C9, 0x111C9, PUNCT),
    (0x111CF, 0x111CF, PLAIN),
    (0x1123E, 0x1123E, PLAIN),
    (0x1133B, 0x1133B, PLAIN),
    (0x11438, 0x1143F, PLAIN),
    (0x11442, 0x11444, PLAIN),
    (0x11446, 0x11446, PLAIN),
    (0x1144B, 0x1144F, PLAIN),
    (0x1145A, 0x1145B, PLAIN),
    (0x1145D, 0x1145E, PLAIN),
    (0x11660, 0x1166C, PLAIN),
    (0x116B9, 0x116B9, PLAIN),
    (0x1182F, 0x11837, PLAIN),
    (0x11839, 0x1183B, PLAIN),
    (0x1193B, 0x1193C, PLAIN),
    (0x1193E, 0x1193E, PLAIN),
    (0x11943, 0x11946, PLAIN),
    (0x119D4, 0x119D7, PLAIN),
    (0x119DA, 0x119DB, PLAIN),
    (0x119E0, 0x119E0, PLAIN),
    (0x119E2, 0x119E2, PLAIN),
    (0x11A01, 0x11A0A, PLAIN),
    (0x11A33, 0x11A38, PLAIN),
    (0x11A3B, 0x11A47, PLAIN),
    (0x11A51, 0x11A56, PLAIN),
    (0x11A59, 0x11A5B, PLAIN),
    (0x11A8A, 0x11A96, PLAIN),
    (0x11A98, 0x11A9C, PLAIN),
    (0x11A9E, 0x11AA2, PLAIN),
    (0x11C30, 0x11C36, PLAIN),
    (0x11C38, 0x11C3D, PLAIN),
    (0x11C3F, 0x11C3F, PLAIN),
    (0x11C41, 0x11C45, PLAIN),
    (0x11C70, 0x11C71, PLAIN),
    (0x11C92, 0x11CA7, PLAIN),
    (0x11CAA, 0x11CB0, PLAIN),
    (0x11CB2, 0x11CB3, PLAIN),
    (0x11CB5, 0x11CB6, PLAIN),
    (0x11D31, 0x11D36, PLAIN),
    (0x11D3A, 0x11D3A, PLAIN),
    (0x11D3C, 0x11D3D, PLAIN),
    (0x11D3F, 0x11D45, PLAIN),
    (0x11D47, 0x11D47, PLAIN),
    (0x11D90, 0x11D91, PLAIN),
    (0x11D95, 0x11D95, PLAIN),
    (0x11D97, 0x11D97, PLAIN),
    (0x11EF3, 0x11EF4, PLAIN),
    (0x11EF7, 0x11EF8, PLAIN),
    (0x11FFF, 0x11FFF, PLAIN),
    (0x12FF1, 0x12FF2, PLAIN),
    (0x13430, 0x13438, PLAIN),
    (0x16E97, 0x16E9A, PLAIN),
    (0x16F4F, 0x16F4F, PLAIN),
    (0x16FE2, 0x16FE2, PLAIN),
    (0x16FE4, 0x16FE4, PLAIN),
    (0x1CF00, 0x1CF2D, PLAIN),
    (0x1CF30, 0x1CF46, PLAIN),
    (0x1E000, 0x1E006, PLAIN),
    (0x1E008, 0x1E018, PLAIN),
    (0x1E01B, 0x1E021, PLAIN),
    (0x1E023, 0x1E024, PLAIN),
    (0x1E026, 0x1E02A, PLAIN),
    (0x1E130, 0x1E136, PLAIN),
    (0x1E2AE, 0x1E2AE, PLAIN),
    (0x1E2EC, 0x1E2EF, PLAIN),
    (0x1E944, 0x1E94A, PLAIN),
    (0x1E95E, 0x1E95F, PLAIN),
)
_OVERRIDE_STARTS = [first for first, _, _ in _CRATE_CLASS_OVERRIDES]
# Code points whose lowercase in Rust's char::to_lowercase (a newer Unicode) is not Python's; also
# printed by scripts/tokenizer_class_overrides.py.
_RUST_LOWERCASE: dict[int, str] = {
    0x1C89: "\u1c8a",
    0xA7CB: "\u0264",
    0xA7CC: "\ua7cd",
    0xA7CE: "\ua7cf",
    0xA7D2: "\ua7d3",
    0xA7D4: "\ua7d5",
    0xA7DA: "\ua7db",
    0xA7DC: "\u019b",
    0x10D50: "\U00010d70",
    0x10D51: "\U00010d71",
    0x10D52: "\U00010d72",
    0x10D53: "\U00010d73",
    0x10D54: "\U00010d74",
    0x10D55: "\U00010d75",
    0x10D56: "\U00010d76",
    0x10D57: "\U00010d77",
    0x10D58: "\U00010d78",
    0x10D59: "\U00010d79",
    0x10D5A: "\U00010d7a",
    0x10D5B: "\U00010d7b",
    0x10D5C: "\U00010d7c",
    0x10D5D: "\U00010d7d",
    0x10D5E: "\U00010d7e",
    0x10D5F: "\U00010d7f",
    0x10D60: "\U00010d80",
    0x10D61: "\U00010d81",
    0x10D62: "\U00010d82",
    0x10D63: "\U00010d83",
    0x10D64: "\U00010d84",
    0x10D65: "\U00010d85",
    0x16EA0: "\U00016ebb",
    0x16EA1: "\U00016ebc",
    0x16EA2: "\U00016ebd",
    0x16EA3: "\U00016ebe",
    0x16EA4: "\U00016ebf",
    0x16EA5: "\U00016ec0",
    0x16EA6: "\U00016ec1",
    0x16EA7: "\U00016ec2",
    0x16EA8: "\U00016ec3",
    0x16EA9: "\U00016ec4",
    0x16EAA: "\U00016ec5",
    0x16EAB: "\U00016ec6",
    0x16EAC: "\U00016ec7",
    0x16EAD: "\U00016ec8",
    0x16EAE: "\U00016ec9",
    0x16EAF: "\U00016eca",
    0x16EB0: "\U00016ecb",
    0x16EB1: "\U00016ecc",
    0x16EB2: "\U00016ecd",
    0x16EB3: "\U00016ece",
    0x16EB4: "\U00016ecf",
    0x16EB5: "\U00016ed0",
    0x16EB6: "\U00016ed1",
    0x16EB7: "\U00016ed2",
    0x16EB8: "\U00016ed3",
}


def _is_cjk(cp: int) -> bool:
    return any(first <= cp <= last for first, last in _CJK_RANGES)


def char_class(char: str) -> str:
    """The tokenizer's class of one character: removed by cleaning, a nonspacing mark (stripped
    after NFD), punctuation (a token of its own) or plain."""
    cp = ord(char)
    at = bisect.bisect_right(_OVERRIDE_STARTS, cp) - 1
    if at >= 0 and cp <= _CRATE_CLASS_OVERRIDES[at][1]:
        return _CRATE_CLASS_OVERRIDES[at][2]
    if cp == 0 or cp == 0xFFFD:
        return REMOVED
    if char in _ASCII_PUNCTUATION:
        return PUNCT
    if char in "\t\n\r":
        return PLAIN
    category = unicodedata.category(char)
    if category in _REMOVED_CATEGORIES:
        return REMOVED
    if category == "Mn":
        return MARK
    if category[0] == "P":
        return PUNCT
    return PLAIN


# ASCII text (nearly every question) takes one str.translate: controls removed, whitespace to a space,
# punctuation padded with spaces so that str.split() isolates it.
_ASCII_TABLE: dict[int, Any] = {cp: None for cp in range(32)} | {0x7F: None}
_ASCII_TABLE |= {ord(c): " " for c in "\t\n\r"}
_ASCII_TABLE |= {ord(c): f" {c} " for c in _ASCII_PUNCTUATION}


@dataclass(frozen=True)
class TokenizerSettings:
    unk_token: str = "[UNK]"
    wordpiece_prefix: str = "##"
    max_input_chars_per_word: int = 100
    lowercase: bool = True
    strip_accents: bool = True
    added_tokens: tuple[str, ...] = ()  # matched verbatim in the raw text, before normalisation

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> TokenizerSettings:
        expected = {"type": "bert-wordpiece", "clean_text": True, "handle_chinese_chars": True}
        wrong = {key: config.get(key) for key, want in expected.items() if config.get(key) != want}
        if wrong:
            raise ModelError(f"unsupported tokenizer settings: {wrong}")
        return cls(
            unk_token=config["unk_token"],
            wordpiece_prefix=config["wordpiece_prefix"],
            max_input_chars_per_word=int(config["max_input_chars_per_word"]),
            lowercase=bool(config["lowercase"]),
            strip_accents=bool(config["strip_accents"]),
            added_tokens=tuple(config.get("added_tokens", ())),
        )


class WordPieceTokenizer:
    """BERT uncased tokenisation to vocabulary ids, as the ``tokenizers`` library does it."""

    def __init__(self, vocab: dict[str, int], settings: TokenizerSettings) -> None:
        self.vocab = vocab
        self.settings = settings
        self.unk_id = vocab[settings.unk_token]
        self._word_ids: dict[str, tuple[int, ...]] = {}
        added = sorted(settings.added_tokens, key=len, reverse=True)
        self._added = re.compile("|".join(map(re.escape, added))) if added else None

    def normalize(self, text: str) -> str:
        """BertNormalizer: clean, pad CJK characters, strip accents (NFD, drop Mn), lowercase."""
        settings = self.settings
        if text.isascii():
            text = text.translate(_ASCII_TABLE)
            return text.lower() if settings.lowercase else text
        chars: list[str] = []
        for char in text:
            if char in _WHITESPACE:
                chars.append(" ")
            elif char_class(char) != REMOVED:
                chars.append(f" {char} " if _is_cjk(ord(char)) else char)
        text = "".join(chars)
        if settings.strip_accents:
            text = unicodedata.normalize("NFD", text)
            text = "".join(c for c in text if c.isascii() or char_class(c) != MARK)
        if settings.lowercase:
            # character by character, as Rust's char::to_lowercase: no final-sigma context
            lower = _RUST_LOWERCASE
            text = "".join([lower.get(ord(c)) or c.lower() for c in text])
        return text

    @staticmethod
    def pre_tokenize(normalized: str) -> list[str]:
        """BertPreTokenizer: split on whitespace, each punctuation character a word of its own."""
        if not normalized.isascii():
            normalized = "".join(
                f" {c} " if not c.isascii() and char_class(c) == PUNCT else c for c in normalized
            )
            normalized = normalized.translate(_ASCII_TABLE)
        elif any(c in _ASCII_PUNCTUATION for c in normalized):
            normalized = normalized.translate(_ASCII_TABLE)
        return normalized.split()

    def wordpiece(self, word: str) -> tuple[int, ...]:
        """Greedy longest-match-first WordPiece; the whole word is [UNK] if any piece is not known."""
        cached = self._word_ids.get(word)
        if cached is not None:
            return cached
        ids = self._wordpiece(word)
        if len(self._word_ids) < 200_000:
            self._word_ids[word] = ids
        return ids

    def _wordpiece(self, word: str) -> tuple[int, ...]:
        if len(word) > self.settings.max_input_chars_per_word:
            return (self.unk_id,)
        vocab, prefix = self.vocab, self.settings.wordpiece_prefix
        ids: list[int] = []
        start = 0
        while start < len(word):
            for end in range(len(word), start, -1):
                piece = word[start:end] if start == 0 else prefix + word[start:end]
                found = vocab.get(piece)
                if found is not None:
                    ids.append(found)
                    start = end
                    break
            else:
                return (self.unk_id,)
        return tuple(ids)

    def encode(self, text: str) -> list[int]:
        """The ids ``tokenizers`` gives (``add_special_tokens=False``, no truncation), [UNK] included."""
        ids: list[int] = []
        for piece, added in self._split_added(text):
            if added:
                ids.append(self.vocab[piece])
                continue
            for word in self.pre_tokenize(self.normalize(piece)):
                ids.extend(self.wordpiece(word))
        return ids

    def _split_added(self, text: str) -> list[tuple[str, bool]]:
        if self._added is None:
            return [(text, False)]
        pieces: list[tuple[str, bool]] = []
        at = 0
        for match in self._added.finditer(text):
            pieces.append((text[at : match.start()], False))
            pieces.append((match.group(), True))
            at = match.end()
        pieces.append((text[at:], False))
        return [(piece, added) for piece, added in pieces if piece]


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    """Cosine of two unit vectors (their dot product)."""
    return float(sum(map(operator.mul, a, b)))


# --- a table of vectors ------------------------------------------------------------------------------


class VectorTable:
    """Rows of unit vectors (e.g. one per quote), searched by cosine."""

    def __init__(self, rows: Sequence[Vector], dims: int) -> None:
        import numpy

        self.dims = dims
        for index, row in enumerate(rows):
            if len(row) != dims:
                raise ValueError(f"row {index} has {len(row)} dims, the table {dims}")
        self._matrix = numpy.array(rows, dtype=numpy.float32).reshape(len(rows), dims)

    def __len__(self) -> int:
        return len(self._matrix)

    def _sims(self, query: Vector) -> Any:
        import numpy

        if len(query) != self.dims:
            raise ValueError(f"the query has {len(query)} dims, the table {self.dims}")
        return self._matrix @ numpy.asarray(query, dtype=numpy.float32)

    def row(self, index: int) -> Vector:
        """One row, as a vector."""
        return array.array("f", self._matrix[index].tobytes())

    def similarities(self, query: Vector) -> list[float]:
        """The cosine of the query with each row, in row order."""
        return self._sims(query).tolist()

    def top(self, query: Vector, k: int) -> list[tuple[int, float]]:
        """The k rows most similar to the query, best first, as (row index, cosine)."""
        if k <= 0 or not len(self):
            return []
        sims = self._sims(query).tolist()
        return heapq.nsmallest(k, enumerate(sims), key=lambda item: (-item[1], item[0]))

    def to_bytes(self) -> bytes:
        """The rows as little-endian float32, row after row."""
        return self._matrix.astype("<f4").tobytes()

    @classmethod
    def from_bytes(cls, data: bytes, dims: int) -> VectorTable:
        import numpy

        if dims <= 0 or len(data) % (4 * dims):
            raise ValueError(f"{len(data)} bytes is not a whole number of {dims}-dim float32 rows")
        table = cls.__new__(cls)
        table.dims = dims
        table._matrix = numpy.frombuffer(data, dtype="<f4").astype(numpy.float32).reshape(-1, dims)
        return table
