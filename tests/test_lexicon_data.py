"""Data files derived from others stay in step with the code that derives them."""

from __future__ import annotations

from panelbot.retrieval import lexicon


def test_common_stems_file_is_current() -> None:
    """If this fails, stem() or common_en.txt changed: run `python scripts/make_common_stems.py`."""
    shipped = lexicon._wordlist("common_stems.txt")
    assert shipped == frozenset(lexicon.stem_common_words())
    assert lexicon.common_stems() == shipped
