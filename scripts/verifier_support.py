"""Precision and recall of the verifier's support check on a labelled set of sentences.

``python scripts/verifier_support.py [LABELS.yaml] [--sweep] [--misses]``

LABELS (default tests/fixtures/verifier/support.yaml) holds quotes by id and items ``{text, cites, label}``
with label ``supported`` or ``unsupported``. Each item's sentence is checked against its cited quotes by
``panelbot.answer.llm.verify.support`` at ``SUPPORT_THRESHOLD``. "Positive" is *supported*: precision is the
share of the sentences the verifier passes that are truly supported (1 - precision is fabrication let
through), recall the share of truly supported sentences it passes. ``--sweep`` shows both for thresholds
around the declared one (how it was chosen); ``--misses`` lists the items it gets wrong.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from panelbot.answer.llm import verify  # noqa: E402

DEFAULT = ROOT / "tests" / "fixtures" / "verifier" / "support.yaml"


@dataclass(frozen=True)
class Scores:
    threshold: float
    tp: int
    fp: int
    fn: int
    tn: int

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0

    def line(self) -> str:
        return (
            f"threshold {self.threshold:.2f}: precision {self.precision:.3f} recall {self.recall:.3f} "
            f"(tp {self.tp} fp {self.fp} fn {self.fn} tn {self.tn})"
        )


def load(path: Path) -> tuple[dict[str, str], list[dict]]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    return data["quotes"], data["items"]


def judge(quotes: dict[str, str], items: list[dict], threshold: float) -> tuple[Scores, list[str]]:
    """Scores at ``threshold`` and one line per item judged wrongly."""
    tp = fp = fn = tn = 0
    misses = []
    for it in items:
        s = verify.support(it["text"], [quotes[c] for c in it["cites"]])
        passed = s.share >= threshold and not (s.missing_numbers or s.negation_unmatched)
        truth = it["label"] == "supported"
        tp += passed and truth
        fp += passed and not truth
        fn += (not passed) and truth
        tn += (not passed) and not truth
        if passed != truth:
            misses.append(
                f"{'false pass' if passed else 'false fail'} {s.share:.2f} {it['cites']}: {it['text']}"
            )
    return Scores(threshold, tp, fp, fn, tn), misses


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("labels", nargs="?", type=Path, default=DEFAULT)
    ap.add_argument("--sweep", action="store_true", help="thresholds 0.30 to 0.90")
    ap.add_argument("--misses", action="store_true", help="list the items judged wrongly")
    args = ap.parse_args(argv)
    quotes, items = load(args.labels)
    n_sup = sum(it["label"] == "supported" for it in items)
    print(f"{len(items)} labelled sentences: {n_sup} supported, {len(items) - n_sup} unsupported")
    scores, misses = judge(quotes, items, verify.SUPPORT_THRESHOLD)
    print(f"declared {scores.line()}")
    if args.sweep:
        for t in [x / 20 for x in range(6, 19)]:
            print("  " + judge(quotes, items, t)[0].line())
    if args.misses:
        for m in misses:
            print("  " + m)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
