"""Make a panel's turns carry its quotes' exact wording (``python scripts/align_turns_to_quotes.py PANEL_DIR``).

For hand-curated panels: after editing quotes (fixing a mishearing, say), run this so each turn shows the
quote's wording and the context view can highlight it (``panelbot check`` reports quotes not found in their
turn). It changes turns.yaml only; see panelbot/ingest/align.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from panelbot.ingest.align import align_turn  # noqa: E402
from panelbot.text import normalize_for_match  # noqa: E402


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
        new = align_turn(turns[i]["text"], texts)
        if new != turns[i]["text"]:
            turns[i]["text"] = new
            changed += 1
    (d / "turns.yaml").write_text(
        yaml.safe_dump(turns, sort_keys=False, allow_unicode=True, width=110), encoding="utf-8"
    )
    missing = [
        q["id"]
        for q in quotes
        if q.get("turn") is not None
        and normalize_for_match(q["text"]) not in normalize_for_match(turns[q["turn"]]["text"])
    ]
    print(f"{changed} turn(s) rewritten; quotes still not found in their turn: {missing or 'none'}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else str(ROOT / "persona_data" / "minimax-m3"))
