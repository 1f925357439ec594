"""Choose the passage length a quote's meaning is also read in (``passage_words`` in tuning.json).

    python scripts/compare_passages.py [SIZE ...]      # default: 0 12 16 20 24

For each length (0: the whole quote only), every quote's rows are rebuilt (``meaning.passages``), the
relevance model is refitted on the dev groups of ``scripts/fit_tuning.py`` (the curated panel's dev questions,
the same panel without its asks, the uncurated drafts) with the recorded decision thresholds, and the mean
strictly-right rate of the three is printed, with the paraphrases of the panel without asks. The length with
the best mean is the one to record; then run ``scripts/fit_tuning.py`` (every threshold is refitted on the new
rows) and ``scripts/seed_vectors.py``. Held-out sets are never read.
"""

from __future__ import annotations

import dataclasses
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

import fit_tuning as ft  # noqa: E402  (scripts/, beside this)

from panelbot.panel import load_panel  # noqa: E402
from panelbot.retrieval import meaning  # noqa: E402
from panelbot.retrieval.evaluation import evaluate, load_eval_set  # noqa: E402

# lengths whose means are this close (in points) to the best count as equal: the longest of them is chosen
# (fewer rows to embed and to compare)
TIE = 0.2


def measure(size: int, tmp: Path) -> tuple[float, str]:
    meaning.passage_words = lambda: size  # the rows are rebuilt with this length
    panel = load_panel(ROOT / "persona_data" / "minimax-m3")
    dev = [it for f in ft.DEV_SETS for it in load_eval_set(str(ROOT / f), panel)]
    in_dev = [it for it in dev if it.speakers]
    groups = ft.relevance_groups(panel, in_dev, tmp / f"{size}")
    curated, bare = groups[0][0], groups[1][0]
    full, lexical = ft.fit_relevance(groups)
    tune = dataclasses.replace(curated.tune, relevance=full, relevance_lexical=lexical)
    rates = []
    for r, items in groups:
        r.tune = tune
        rates.append(evaluate(r, items).strict / len(items))
    drafts = sum(rates[2:]) / len(rates[2:])
    mean = (rates[0] + rates[1] + drafts) / 3
    para = [it for it in in_dev if it.kind == "paraphrase"]
    return 100 * mean, (
        f"passage_words {size:2}: mean strictly right {100 * mean:.1f}% (curated {100 * rates[0]:.1f}, "
        f"without asks {100 * rates[1]:.1f}, drafts {100 * drafts:.1f}); paraphrases without asks "
        f"{evaluate(bare, para).strict}/{len(para)}"
    )


def main() -> int:
    sizes = [int(a) for a in sys.argv[1:]] or [0, 12, 16, 20, 24]
    with tempfile.TemporaryDirectory() as tmp:
        # an empty cache and no seeded rows: every length embeds its own rows
        os.environ["PANELBOT_CACHE_DIR"] = str(Path(tmp) / "cache")
        os.environ["PANELBOT_NO_SEED_VECTORS"] = "1"
        means = {}
        for size in sizes:
            means[size], line = measure(size, Path(tmp))
            print(line, flush=True)
    best = max(means.values())
    chosen = max(s for s, m in means.items() if m >= best - TIE)
    print(f"chosen: passage_words {chosen} (the longest within {TIE} points of the best mean)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
