"""Print _CRATE_CLASS_OVERRIDES and _RUST_LOWERCASE for panelbot/retrieval/semantic.py.

The tokenizers library classifies characters with the Rust crate unicode_categories, whose tables are
older than Python's unicodedata. This probes the library for every code point -- removed by clean_text,
a nonspacing mark stripped after NFD, punctuation isolated by BertPreTokenizer, or plain -- and prints
the ranges where that differs from what semantic.char_class derives from unicodedata; and the
characters whose lowercase (Rust's char::to_lowercase, a newer Unicode) differs from Python's. Run it with the
dev extra installed (it needs ``tokenizers``) after a Python upgrade, if tests/test_semantic.py's
every-code-point comparison fails:

    .venv/bin/python scripts/tokenizer_class_overrides.py
"""

from __future__ import annotations

import sys
import unicodedata
from pathlib import Path

from tokenizers.normalizers import BertNormalizer
from tokenizers.pre_tokenizers import BertPreTokenizer

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from panelbot.retrieval import semantic  # noqa: E402

CLEAN = BertNormalizer(
    clean_text=True, handle_chinese_chars=False, strip_accents=False, lowercase=False
)
STRIP = BertNormalizer(
    clean_text=False, handle_chinese_chars=False, strip_accents=True, lowercase=False
)
PRE = BertPreTokenizer()
LOWER = BertNormalizer(
    clean_text=False, handle_chinese_chars=False, strip_accents=False, lowercase=True
)


def library_class(char: str) -> str | None:
    """The library's class of a character, None for whitespace (not a class of char_class)."""
    if CLEAN.normalize_str(char) == "":
        return semantic.REMOVED
    if CLEAN.normalize_str(char) == " ":
        return None
    if STRIP.normalize_str(char) == "":
        return semantic.MARK
    if len(PRE.pre_tokenize_str(f"a{char}b")) == 3:
        return semantic.PUNCT
    return semantic.PLAIN


def main() -> None:
    semantic._CRATE_CLASS_OVERRIDES = ()
    semantic._OVERRIDE_STARTS = []
    ranges: list[list] = []
    for cp in range(0x80, 0x110000):
        if 0xD800 <= cp <= 0xDFFF:
            continue
        char = chr(cp)
        want, have = library_class(char), semantic.char_class(char)
        if unicodedata.normalize("NFD", char) != char:
            # only clean_text sees it: NFD replaces it before marks and punctuation are looked at
            want = semantic.REMOVED if want == semantic.REMOVED else semantic.PLAIN
            have = semantic.REMOVED if have == semantic.REMOVED else semantic.PLAIN
        if want is None or want == have:
            continue
        if ranges and ranges[-1][1] == cp - 1 and ranges[-1][2] == want:
            ranges[-1][1] = cp
        else:
            ranges.append([cp, cp, want])
    print(f"# unicodedata {unicodedata.unidata_version}: {len(ranges)} ranges")
    names = {
        semantic.PLAIN: "PLAIN",
        semantic.REMOVED: "REMOVED",
        semantic.MARK: "MARK",
        semantic.PUNCT: "PUNCT",
    }
    for first, last, want in ranges:
        print(f"    (0x{first:04X}, 0x{last:04X}, {names[want]}),")
    print("# _RUST_LOWERCASE")
    for cp in range(0x80, 0x110000):
        if 0xD800 <= cp <= 0xDFFF:
            continue
        rust = LOWER.normalize_str(chr(cp))
        if rust != chr(cp).lower():
            print(f"    0x{cp:04X}: {rust!a},")


if __name__ == "__main__":
    main()
