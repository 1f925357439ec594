"""How long `panelbot ingest` takes on a long talk: the seed's words five times over (about 20,000 words, a
two-hour talk) as YouTube rolling WebVTT with word timings (about 5,600 cues), parsed, de-duplicated,
attributed and cut into quotes. Median of 5 runs.

    python benchmarks/ingest.py
"""

from __future__ import annotations

import importlib.util
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from panelbot.ingest.captions import dedupe_text, read_captions  # noqa: E402
from panelbot.ingest.draft import build_draft  # noqa: E402


def main() -> None:
    spec = importlib.util.spec_from_file_location(
        "maker", ROOT / "tests" / "fixtures" / "make_timed_captions.py"
    )
    maker = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(maker)
    _, body = read_captions(
        (ROOT / "persona_data" / "minimax-m3" / "captions.txt").read_text(encoding="utf-8")
    )
    talk = " >> ".join([dedupe_text(body)] * 5)
    vtt = maker.vtt(talk)
    runs = []
    for _ in range(5):
        t = time.perf_counter()
        draft = build_draft(vtt, "big")
        runs.append(time.perf_counter() - t)
    print(
        f"{len(talk.split())} words, {vtt.count('-->')} cues, {len(vtt) / 1e6:.1f} MB of VTT: "
        f"build_draft median {statistics.median(runs):.2f} s ({len(draft.turns)} turns, {len(draft.quotes)} quotes)"
    )


if __name__ == "__main__":
    main()
