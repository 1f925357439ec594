"""Compare forms of the relevance model (``panelbot.retrieval.relevance``) that trust the lexical terms only as
far as the lexical evidence is strong.

    python scripts/compare_relevance.py

The shipped form weighs a quote's lexical score, its share of the question's best lexical score, its
similarity in meaning and how far that is below the best. A question in words the talk never used has a weak
best lexical match, so its "share of the best" may say little; each form below lets the fit weigh the
lexical terms (or the gap in meaning) differently by the strength of the best lexical match ``b`` (0-100):

* ``gated share``: the share times b / (b + tau);
* ``piecewise``: separate lexical weights (and an intercept) below and above b = tau;
* ``meaning when words are weak``: an extra gap-in-meaning term times exp(-b / tau).

Each is refitted (logistic regression of "an expected answer", as ``scripts/fit_tuning.py`` fits the shipped
form) on the dev groups of ``scripts/fit_tuning.py`` -- the curated panel's in-scope dev questions, the same
panel without its asks, the uncurated drafts of its DEV_DRAFTS -- with the recorded decision thresholds; it
prints the fitted weights, the mean strictly-right rate of the three (fit_tuning's objective) and each, and
the same figures on the check sets (``eval/final.yaml``, ``eval/holdout3.yaml``, curated and without asks).
A form is worth recording only when its mean beats the shipped one's. Held-out sets are never read.
"""

from __future__ import annotations

import dataclasses
import math
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

import fit_tuning as ft  # noqa: E402  (scripts/, beside this)

from panelbot.panel import load_panel  # noqa: E402
from panelbot.retrieval import relevance  # noqa: E402
from panelbot.retrieval.evaluation import EvalItem, evaluate, load_eval_set  # noqa: E402
from panelbot.retrieval.router import Router  # noqa: E402
from panelbot.retrieval.tuning import tuning  # noqa: E402

Features = Callable[..., tuple[float, ...]]
CHECKS = ("eval/final.yaml", "eval/holdout3.yaml")


def _share(lexical: float, best: float) -> float:
    return lexical / best if best > 0.0 else 0.0


def gated(tau: float) -> Features:
    def feats(lexical: float, best: float, sim: float = 0.0, best_sim: float = 0.0):
        return (lexical / 100.0, _share(lexical, best) * best / (best + tau), sim, sim - best_sim)

    return feats


def piecewise(tau: float) -> Features:
    def feats(lexical: float, best: float, sim: float = 0.0, best_sim: float = 0.0):
        strong = 1.0 if best >= tau else 0.0
        lex, share = lexical / 100.0, _share(lexical, best)
        weak = 1.0 - strong
        return (lex * strong, share * strong, lex * weak, share * weak, strong, sim, sim - best_sim)

    return feats


def meaning_when_weak(tau: float) -> Features:
    def feats(lexical: float, best: float, sim: float = 0.0, best_sim: float = 0.0):
        gap = sim - best_sim
        return (lexical / 100.0, _share(lexical, best), sim, gap, gap * math.exp(-best / tau))

    return feats


FORMS: dict[str, Features] = {
    "shipped": relevance.features,
    **{f"gated share, tau {t:g}": gated(t) for t in (5.0, 20.0, 40.0)},
    **{f"piecewise, tau {t:g}": piecewise(t) for t in (15.0, 25.0, 35.0)},
    **{f"meaning when words are weak, tau {t:g}": meaning_when_weak(t) for t in (10.0, 20.0)},
}


def groups(tmp: Path) -> tuple[list[tuple[Router, list[EvalItem]]], dict[str, list]]:
    """fit_tuning's relevance groups (curated, without asks, drafts) and the check sets (both panels)."""
    panel = load_panel(ROOT / "persona_data" / "minimax-m3")
    dev = [it for f in ft.DEV_SETS for it in load_eval_set(str(ROOT / f), panel)]
    in_dev = [it for it in dev if it.speakers]
    out = ft.relevance_groups(panel, in_dev, tmp)
    router, bare = out[0][0], out[1][0]
    checks = {}
    for f in CHECKS:
        items = load_eval_set(str(ROOT / f), panel)
        checks[f] = (router, items)
        checks[f"{f} without asks"] = (bare, items)
    return out, checks


def measure(form: Features, grps, checks) -> str:
    relevance.features = form  # RelevanceModel.scores reads the module's features
    ft.features = form  # ... and fit_tuning's rows
    model, _ = ft.fit_relevance(grps)
    tune = dataclasses.replace(tuning(), relevance=model)
    rates = []
    for r, items in grps:
        r.tune = tune
        rates.append(evaluate(r, items).strict / len(items))
    drafts = sum(rates[2:]) / max(len(rates) - 2, 1)
    mean = (rates[0] + rates[1] + drafts) / 3
    lines = [
        f"  weights {model.bias:+.2f} {' '.join(f'{w:+.2f}' for w in model.weights)}",
        f"  dev mean strictly right {100 * mean:.1f}% (curated {100 * rates[0]:.1f}, without "
        f"asks {100 * rates[1]:.1f}, drafts {100 * drafts:.1f})",
    ]
    for name, (r, items) in checks.items():
        r.tune = tune
        rep = evaluate(r, items)
        para = rep.by_kind.get("paraphrase", [0, 0])
        lines.append(
            f"  {name}: strictly right {rep.to_dict()['strictly_right']}%, "
            f"paraphrases {para[0]}/{para[1]}"
        )
    return "\n".join(lines)


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        grps, checks = groups(Path(tmp))
        for name, form in FORMS.items():
            print(name, flush=True)
            print(measure(form, grps, checks), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
