"""Measure rapidfuzz scorers as off-topic detectors on the shipped panel (why the router does not use them).

For every question of an eval set, take the best whole-string score of each scorer against all quotes (and
host questions), then report: the median best score of in-scope and of off-topic questions, how many
off-topic questions score 100 (saturation), and the best balanced accuracy any single threshold reaches.

    python benchmarks/scorers.py [eval/dev.yaml ...]
"""

from __future__ import annotations

import statistics
import sys

from rapidfuzz import fuzz, process

from panelbot.panel import load_panel
from panelbot.retrieval.evaluation import load_eval_set
from panelbot.retrieval.router import Router

SCORERS = {
    "ratio": fuzz.ratio,
    "partial_ratio": fuzz.partial_ratio,
    "token_sort_ratio": fuzz.token_sort_ratio,
    "token_set_ratio": fuzz.token_set_ratio,
    "partial_token_set_ratio": fuzz.partial_token_set_ratio,
    "WRatio": fuzz.WRatio,
    "QRatio": fuzz.QRatio,
}


def best_threshold(pos: list[float], neg: list[float]) -> tuple[float, float]:
    """(balanced accuracy, threshold) of the best 'in scope if score >= t' rule."""
    best = (0.0, 0.0)
    for t in sorted(set(pos + neg)):
        tpr = sum(p >= t for p in pos) / len(pos)
        tnr = sum(n < t for n in neg) / len(neg)
        best = max(best, ((tpr + tnr) / 2, t))
    return best


def main(files: list[str]) -> None:
    panel = load_panel("minimax-m3")
    docs = [q.text.lower() for q in panel.quotes] + [q.text.lower() for q in panel.questions]
    items = [it for f in files for it in load_eval_set(f, panel)]
    print(
        f"{len(items)} questions ({sum(not it.speakers for it in items)} off-topic) from {', '.join(files)}"
    )
    print(
        f"{'scorer':<24} {'median in':>9} {'median off':>10} {'off at 100':>10} {'best bal.acc':>12}"
    )
    for name, scorer in SCORERS.items():
        pos, neg = [], []
        for it in items:
            _, score, _ = process.extractOne(it.question.lower(), docs, scorer=scorer)
            (pos if it.speakers else neg).append(score)
        acc, t = best_threshold(pos, neg)
        print(
            f"{name:<24} {statistics.median(pos):>9.1f} {statistics.median(neg):>10.1f} "
            f"{sum(n >= 100 for n in neg):>10} {acc:>8.1%} @{t:.0f}"
        )
    router = Router(panel)
    pos = [router.route(it.question).scope for it in items if it.speakers]
    neg = [router.route(it.question).scope for it in items if not it.speakers]
    acc, t = best_threshold(pos, neg)
    print(
        f"{'panelbot scope evidence':<24} {statistics.median(pos):>9.2f} {statistics.median(neg):>10.2f} "
        f"{'-':>10} {acc:>8.1%} @{t:.2f}"
    )


if __name__ == "__main__":
    main(sys.argv[1:] or ["eval/dev.yaml", "eval/test.yaml", "eval/final.yaml"])
