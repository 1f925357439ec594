"""Write panelbot/data/smalltalk_words.txt: the words small talk's phrases are spelt with (run after changing
panelbot/retrieval/smalltalk.py's phrases; tests/test_smalltalk.py checks it is current).

    python scripts/make_smalltalk_words.py
"""

from __future__ import annotations

from panelbot.retrieval.lexicon import DATA_DIR
from panelbot.retrieval.smalltalk import WORDS_FILE, spelling_words

HEADER = (
    "# The words small talk's phrases are spelt with (panelbot.retrieval.smalltalk.spelling_words), one a\n"
    "# line: written by scripts/make_smalltalk_words.py; tests/test_smalltalk.py checks it is current.\n"
)


def main() -> int:
    words = spelling_words()
    (DATA_DIR / WORDS_FILE).write_text(HEADER + "\n".join(words) + "\n", encoding="utf-8")
    print(f"{len(words)} words written to {DATA_DIR / WORDS_FILE}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
