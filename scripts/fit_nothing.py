"""Fit the "reads as nothing" floor (``nothing_floor`` in ``panelbot/data/tuning.json``) on dev data.

    python scripts/fit_nothing.py [--junk FILE] [--dry-run]

A message that matches no word of the panel's and is near nothing known -- no quote's rows, no everyday
question on another subject -- asks nothing ("xyz", "asdf", "foo bar baz"). The scope model was fitted on
real questions and weighs such a message where it never saw one (its bias answers it). The floor on
``ScopeSignals.nearest_known`` declines it first.

Data, as ``fit_tuning.py`` uses it: the dev question sets of the shipped panel, curated and without its asks,
and the uncurated drafts of the dev fixture talks (DEV_DRAFTS) on their own questions; and the dev junk
inputs (``eval/junk_dev.yaml``) asked of every one of those panels. Only questions that match no panel word
can meet the floor. It is put midway between the lowest in-scope such question and the highest junk input
below it: no dev question in scope is declined by it, as many junk inputs as that allows are. The held-out
sets in eval/heldout/ are never read here.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from fit_tuning import DEV_DRAFTS, DEV_SETS, RECORD, _draft, without_asks, write_record  # noqa: E402

from panelbot.panel import load_panel  # noqa: E402
from panelbot.retrieval.evaluation import load_eval_set  # noqa: E402
from panelbot.retrieval.router import Router  # noqa: E402

JUNK = "eval/junk_dev.yaml"
# the shipped panel's question sets outside eval/heldout/ (the scope fit's dev sets and its check sets)
QUESTION_SETS = [*DEV_SETS, "eval/final.yaml", "eval/holdout3.yaml"]


def unmatched_values(router: Router, questions: list[str]) -> list[float]:
    """``nearest_known`` of each question that matches no word of the router's panel."""
    out = []
    for question in questions:
        if not router.query_terms(question).matched:
            out.append(router.scope_signals(question).nearest_known)
    return out


def choose_floor(in_scope: list[float], junk: list[float]) -> float:
    """Midway between the lowest in-scope value and the highest junk value below it."""
    lowest = min(in_scope, default=1.0)
    below = [v for v in junk if v < lowest]
    if not below:
        return 0.0
    return (lowest + max(below)) / 2


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--junk", default=JUNK)
    ap.add_argument("--dry-run", action="store_true", help="print the fit, write nothing")
    args = ap.parse_args()
    if "heldout" in args.junk:
        print("fit_nothing.py: held-out sets are never fitted on", file=sys.stderr)
        return 2

    panel = load_panel(ROOT / "persona_data" / "minimax-m3")
    shipped = [it for f in QUESTION_SETS for it in load_eval_set(str(ROOT / f), panel)]
    groups = [(Router(panel), shipped), (without_asks(panel), shipped)]
    with tempfile.TemporaryDirectory() as tmp:
        for captions, eval_file in DEV_DRAFTS:
            draft = _draft(ROOT / captions, Path(tmp))
            groups.append((Router(draft), load_eval_set(str(ROOT / eval_file), draft)))
        junk_items = [it.question for it in load_eval_set(str(ROOT / args.junk), panel)]
        in_scope: list[float] = []
        junk: list[float] = []
        n_junk = 0
        for router, items in groups:
            in_scope += unmatched_values(router, [it.question for it in items if it.speakers])
            junk += unmatched_values(router, junk_items)
            n_junk += len(junk_items)
    floor = choose_floor(in_scope, junk)
    declined = sum(v < floor for v in junk)
    print(
        f"nothing floor {floor:.4f}: in scope with no panel word {len(in_scope)} (lowest "
        f"{min(in_scope, default=1.0):.4f}), junk inputs declined by it {declined}/{n_junk}"
    )
    record = json.loads(RECORD.read_text(encoding="utf-8"))
    record["nothing_floor"] = round(floor, 4)
    record["nothing_fit"] = {
        "fitted_by": "scripts/fit_nothing.py",
        "question_sets": QUESTION_SETS,
        "dev_drafts": [c for c, _ in DEV_DRAFTS],
        "junk": args.junk,
        "in_scope_unmatched": len(in_scope),
        "junk_declined": f"{declined}/{n_junk}",
    }
    shown = {k: record[k] for k in ("nothing_floor", "nothing_fit")}
    write_record(record, dry_run=args.dry_run, shown=shown)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
