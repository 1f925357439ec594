"""Compare forms of the scope model (``panelbot.retrieval.tuning.ScopeModel``) out of fold.

    python scripts/compare_scope.py

On fit_tuning.py's scope data (its dev sets on the curated panel and on the same without asks, and the uncurated
drafts of DEV_DRAFTS; questions asking for a specific left out as there), each form -- a subset of the
``ScopeSignals`` features -- is fitted leaving one dev set (or one draft) out and scored on it. Printed per form:
the AUC of in scope against off-topic, and how many in-scope questions are declined when the threshold declines
75, 80, 85 and 90% of the off-topic ones. (It chose the hubness features, 2026-12-04: docs/quality.md.)
"""

from __future__ import annotations

import math
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
from fit_tuning import DEV_DRAFTS, DEV_SETS, _draft, fit_logistic, without_asks  # noqa: E402

from panelbot.panel import load_panel  # noqa: E402
from panelbot.retrieval.evaluation import load_eval_set  # noqa: E402
from panelbot.retrieval.router import Router  # noqa: E402

NAMES = ("lexical", "closest", "margin", "local margin", "closer everyday")
FORMS = {
    "shipped before (lexical, closest, margin)": (0, 1, 2),
    "+ local margin": (0, 1, 2, 3),
    "+ closer everyday": (0, 1, 2, 4),
    "+ both (shipped)": (0, 1, 2, 3, 4),
    "lexical, closest, local margin, closer everyday": (0, 1, 3, 4),
}
SHARES = (0.75, 0.80, 0.85, 0.90)


def rows(tmp: Path) -> list[tuple[str, tuple[float, ...], int]]:
    """(fold, features, in scope) for every question the scope model is fitted on."""
    panel = load_panel(ROOT / "persona_data" / "minimax-m3")
    out = []
    for f in DEV_SETS:
        items = load_eval_set(str(ROOT / f), panel)
        for router in (Router(panel), without_asks(panel)):
            for it in items:
                if it.speakers or router.asked_facet(it.question) is None:
                    sig = router.scope_signals(it.question)
                    out.append((f, sig.features(), int(bool(it.speakers))))
    for captions, eval_file in DEV_DRAFTS:
        draft = _draft(ROOT / captions, tmp)
        router = Router(draft)
        for it in load_eval_set(str(ROOT / eval_file), draft):
            if it.speakers or router.asked_facet(it.question) is None:
                sig = router.scope_signals(it.question)
                out.append((captions, sig.features(), int(bool(it.speakers))))
    return out


def out_of_fold(
    data: list[tuple[str, tuple[float, ...], int]], cols: tuple[int, ...]
) -> list[float]:
    probs = [0.0] * len(data)
    for fold in dict.fromkeys(f for f, _, _ in data):
        train = [(tuple(x[c] for c in cols), y) for f, x, y in data if f != fold]
        w = fit_logistic([x for x, _ in train], [y for _, y in train])
        for i, (f, x, _) in enumerate(data):
            if f == fold:
                z = w[0] + sum(wi * x[c] for wi, c in zip(w[1:], cols, strict=True))
                probs[i] = 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, z))))
    return probs


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        data = rows(Path(tmp))
    ys = np.array([y for _, _, y in data])
    print(f"{len(data)} questions ({int(ys.sum())} in scope); features: {', '.join(NAMES)}")
    for label, cols in FORMS.items():
        p = np.array(out_of_fold(data, cols))
        ins, outs = p[ys == 1], p[ys == 0]
        auc = float((ins[:, None] > outs[None, :]).mean())
        at = ", ".join(
            f"{int(100 * s)}%: {int((ins < np.quantile(outs, s)).sum())}" for s in SHARES
        )
        print(f"  {label:48s} AUC {auc:.4f}; in scope declined at off-topic declined {at}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
