"""Make a panel's turns carry its quotes' exact wording (``python scripts/align_turns_to_quotes.py PANEL_DIR``).

Curated quotes fix caption mishearings ("KB cache" -> "KV cache") and drop stutters ("the the"), so their
text is often not found in the raw turn they point to: the context view can then neither highlight the quote
nor show the corrected wording, and ``panelbot check`` reports a mismatch. This finds each quote's span in its
turn (aligning the words, so stutters and fixes do not throw it off) and puts the quote's text in its place;
the rest of the turn is left as captioned. Run it after editing quotes; it changes turns.yaml only.
"""

from __future__ import annotations

import sys
from difflib import SequenceMatcher
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from panelbot.text import normalize_for_match, words  # noqa: E402


def align(turn_text: str, quotes: list[str]) -> str:
    tokens = turn_text.split()
    for quote in sorted(quotes, key=lambda q: -_position(tokens, q)[0]):  # from the end, so spans stay put
        if normalize_for_match(quote) in normalize_for_match(" ".join(tokens)) and quote in " ".join(tokens):
            continue
        a, b = _position(tokens, quote)
        if b > a:
            tokens[a:b] = quote.split()
    return " ".join(tokens)


def _position(tokens: list[str], quote: str) -> tuple[int, int]:
    """Token span [a, b) of the turn that the quote's words align with."""
    flat: list[tuple[int, str]] = [(i, w) for i, tok in enumerate(tokens) for w in words(tok)]
    qw = words(quote)
    sm = SequenceMatcher(None, [w for _, w in flat], qw, autojunk=False)
    blocks = [m for m in sm.get_matching_blocks() if m.size]
    if not blocks or sum(m.size for m in blocks) < 0.6 * len(qw):
        return (0, 0)
    first, last = blocks[0], blocks[-1]
    # widen to the quote's own ends when its first or last words were changed (a fix, a dropped filler)
    a = flat[max(first.a - first.b, 0)][0]
    b = flat[min(last.a + last.size + (len(qw) - last.b - last.size), len(flat)) - 1][0] + 1
    return (a, b)


def main(panel_dir: str) -> None:
    d = Path(panel_dir)
    turns = yaml.safe_load((d / "turns.yaml").read_text(encoding="utf-8"))
    quotes = yaml.safe_load((d / "quotes.yaml").read_text(encoding="utf-8"))
    by_turn: dict[int, list[str]] = {}
    for q in quotes:
        if q.get("turn") is not None:
            by_turn.setdefault(q["turn"], []).append(q["text"])
    changed = 0
    for i, texts in by_turn.items():
        new = align(turns[i]["text"], texts)
        if new != turns[i]["text"]:
            turns[i]["text"] = new
            changed += 1
    (d / "turns.yaml").write_text(
        yaml.safe_dump(turns, sort_keys=False, allow_unicode=True, width=110), encoding="utf-8"
    )
    missing = [q["id"] for q in quotes if q.get("turn") is not None
               and normalize_for_match(q["text"]) not in normalize_for_match(turns[q["turn"]]["text"])]
    print(f"{changed} turn(s) rewritten; quotes still not found in their turn: {missing or 'none'}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else str(ROOT / "persona_data" / "minimax-m3"))
