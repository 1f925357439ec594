"""Write panelbot/data/common_stems.txt: stem() of every word of common_en.txt (run after changing either).

python scripts/make_common_stems.py
"""

from __future__ import annotations

from panelbot.retrieval.lexicon import DATA_DIR, stem_common_words

HEADER = (
    "# stem() of every word of common_en.txt, one a line: written by scripts/make_common_stems.py;\n"
    "# tests/test_lexicon_data.py checks it is current.\n"
)


def main() -> int:
    stems = stem_common_words()
    (DATA_DIR / "common_stems.txt").write_text(HEADER + "\n".join(stems) + "\n", encoding="utf-8")
    print(f"{len(stems)} stems written to {DATA_DIR / 'common_stems.txt'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
