"""Fit the thresholds that decide by meaning (``panelbot/data/tuning.json``) on labelled dev sets.

    python scripts/fit_tuning.py [--dev FILE ...] [--check FILE ...] [--dry-run]

Dev sets (default: ``eval/dev.yaml`` and ``eval/test.yaml`` of the shipped panel, the sets the lexical rules
were developed on, and the independent ``../shared/eval/questions.yaml`` -- development data after its first run,
recorded in eval/heldout/FIRST_RUN.md) choose every number; check sets are only reported. The held-out sets in
eval/heldout/ are never read here. Steps:

1. the scope model: a logistic regression of "in scope" on log(1 + lexical evidence), the best similarity to
   any quote and its margin over the nearest everyday question (``ScopeSignals``), fitted by Newton's method
   with a small ridge penalty; its threshold is the highest that keeps the dev set's wrongly declined in-scope
   questions at most ``--max-declined`` (default 3%). Questions asking for a specific the talk never gave are
   left out: that check declines them whatever their scope;
2. the relevance model (``panelbot.retrieval.relevance``): a logistic regression of "an expected answer" on
   every quote's features for every in-scope question of the curated panel, the same panel without its asks
   and the uncurated drafts of DEV_DRAFTS (and one on the lexical features alone); then its thresholds --
   who spoke to it, when a second panelist answers too, which further quotes an answer shows -- by coordinate
   search for the mean strictly-right rate (right speakers and a right quote in the top 3) of those three;
3. the follow-up floor, on the dev conversations' elaborations and off-topic turns.

The record written names the dev sets and the figures the fit reached, so a reader can reproduce it.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from fit_message_kinds import DEV as DEV_CONVERSATION_SETS  # noqa: E402  (scripts/, beside this)

from panelbot import records  # noqa: E402
from panelbot.ingest.draft import build_draft, write_draft  # noqa: E402
from panelbot.panel import Panel, load_panel  # noqa: E402
from panelbot.retrieval import tuning as tuning_mod  # noqa: E402
from panelbot.retrieval.evaluation import EvalItem, evaluate, hit, load_eval_set  # noqa: E402
from panelbot.retrieval.relevance import RelevanceModel, features  # noqa: E402
from panelbot.retrieval.results import ScoredQuote  # noqa: E402
from panelbot.retrieval.router import Router  # noqa: E402

RECORD = ROOT / "panelbot" / "data" / "tuning.json"
# the sets the lexical rules were developed on, and the independent set beside the checkout (after its first
# run, reported in eval/heldout/FIRST_RUN.md, it is development data)
DEV_SETS = ["eval/dev.yaml", "eval/test.yaml", "../shared/eval/questions.yaml"]
# uncurated drafts of fixture talks with eval sets of their own (written for the draft-routing work)
DEV_DRAFTS = [
    ("tests/fixtures/ocean_panel_captions.txt", "tests/fixtures/ocean_panel_eval.yaml"),
    ("tests/fixtures/bread_panel.vtt", "tests/fixtures/bread_panel_eval.yaml"),
    ("tests/fixtures/transit_panel_captions.txt", "tests/fixtures/transit_panel_eval.yaml"),
    ("tests/fixtures/health_panel.srt", "tests/fixtures/health_panel_eval.yaml"),
    ("tests/fixtures/volcano_interview.vtt", "tests/fixtures/volcano_interview_eval.yaml"),
    ("tests/fixtures/games_panel_captions.txt", "tests/fixtures/games_panel_eval.yaml"),
]
# every conversation set outside eval/heldout/, as fit_message_kinds.py uses them (the floor is one number: the
# more elaborations it is fitted on, the less it follows a few of them)
DEV_CONVERSATIONS = DEV_CONVERSATION_SETS
# the entries of panelbot/data/tuning.json this script writes (and two of an earlier blend it retired)
OWN_KEYS = frozenset(
    {
        "fitted_by",
        "dev_sets",
        "dev_drafts",
        "max_declined",
        "relevance",
        "scope",
        "followup_floor",
        "dev_conversations",
        "figures_at_fit",
        "semantic_weight",
        "semantic_depth",
    }
)
# the grids the decision thresholds are searched on (0-100 relevance scores; a share of the first's)
SPOKE_FLOORS = (1.0, 2.0, 5.0, 10.0, 15.0, 20.0, 30.0)
SEVERAL_FLOORS = (1.0, 2.0, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0)
BOTH_FLOORS = (20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 101.0)
BOTH_SHARES = (0.5, 0.6, 0.7, 0.8, 0.9)
SILENCE_FLOORS = frozenset({"spoke_floor"})
KEEP_FLOORS = (3.0, 5.0, 10.0, 15.0, 25.0)
# a higher keep floor (fewer quotes shown beside the best) is chosen when it costs at most this much
KEEP_SLACK = 0.005


def fit_logistic(rows: list[tuple[float, ...]], ys: list[int], ridge: float = 0.01) -> list[float]:
    """[bias, *weights] by Newton's method on the log loss, with a small ridge penalty on the weights (not
    on the bias). The one logistic fit of the fitting scripts (scope, relevance, discussion, attribution)."""
    import numpy as np

    x = np.hstack([np.ones((len(rows), 1)), np.asarray(rows, dtype=float)])
    y = np.asarray(ys, dtype=float)
    w = np.zeros(x.shape[1])
    penalty = np.full(x.shape[1], ridge)
    penalty[0] = 0.0
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(-np.clip(x @ w, -60.0, 60.0)))
        grad = x.T @ (p - y) + penalty * w
        hess = (x * (p * (1 - p))[:, None]).T @ x + np.diag(penalty)
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-9:
            break
    return [float(v) for v in w]


def choose_threshold(
    probs: list[float], ys: list[int], max_declined: float
) -> tuple[float, float, float]:
    """(threshold, share of in-scope declined, share of off-topic declined): the highest threshold whose
    in-scope declines stay within ``max_declined``."""
    ins = sorted(p for p, y in zip(probs, ys, strict=False) if y)
    outs = [p for p, y in zip(probs, ys, strict=False) if not y]
    allowed = int(math.floor(max_declined * len(ins)))
    # declining the `allowed` lowest in-scope questions at most: threshold just above the allowed-th one
    t = ins[allowed] - 1e-9 if allowed < len(ins) else 1.0
    t = max(min(t, 0.99), -0.99)
    declined_in = sum(1 for p in ins if p < t) / len(ins)
    declined_out = sum(1 for p in outs if p < t) / max(len(outs), 1)
    return t, declined_in, declined_out


def fit_followup_floor(router: Router, panel: object, args: argparse.Namespace) -> float:
    """The margin in meaning (closest quote row less nearest everyday question) below which a pointing-back
    follow-up is off-topic: the highest that keeps the dev conversations' elaborations declined at most
    ``--max-declined``. (The margin, not the scope probability: a follow-up's few words of its own carry
    little lexical evidence, so the probability declines elaborations like "so where do you put it?")"""
    from panelbot.conversation.evaluation import load_conversations

    ins: list[float] = []
    outs: list[float] = []
    for f in args.dev_conversations:
        for conv in load_conversations(str(ROOT / f), panel):
            for it in conv.turns[1:]:
                if it.kind == "elaboration" and it.speakers:
                    ins.append(router.scope_signals(it.question).margin)
                elif it.kind == "offtopic" and not it.speakers:
                    outs.append(router.scope_signals(it.question).margin)
    ys = [1] * len(ins) + [0] * len(outs)
    floor, dec_in, dec_out = choose_threshold(ins + outs, ys, args.max_declined)
    print(
        f"follow-up floor {floor:.3f}: dev elaborations declined {100 * dec_in:.1f}% of {len(ins)}, "
        f"off-topic follow-ups declined {100 * dec_out:.1f}% of {len(outs)} (on this signal alone)"
    )
    return floor


def _relevance_rows(
    groups: list[tuple[Router, list[EvalItem]]],
) -> tuple[list[tuple[float, ...]], list[tuple[float, ...]], list[int]]:
    """Each in-scope dev question's quotes as rows of relevance features (with and without meaning), and
    whether the quote is one of the question's expected answers."""
    full: list[tuple[float, ...]] = []
    lex_only: list[tuple[float, ...]] = []
    ys: list[int] = []
    for r, items in groups:
        quotes = r.index.quotes
        for it in items:
            lexical, sims = r.relevance_inputs(it.question)
            best_lex = max(lexical.values(), default=0.0)
            best_sim = max(sims or [0.0])
            for i, q in enumerate(quotes):
                lex = lexical.get(i, 0.0)
                full.append(features(lex, best_lex, sims[i] if sims else 0.0, best_sim))
                lex_only.append(features(lex, best_lex))
                ys.append(int(hit(it, [ScoredQuote(q, 0.0)])))
    return full, lex_only, ys


def fit_relevance(
    groups: list[tuple[Router, list[EvalItem]]],
) -> tuple[RelevanceModel, RelevanceModel]:
    """The relevance models (``panelbot.retrieval.relevance``), with and without meaning: logistic
    regressions of "an expected answer" on each quote's features."""

    full, lex_only, ys = _relevance_rows(groups)
    out = []
    for rows in (full, lex_only):
        w = fit_logistic(rows, ys)
        out.append(RelevanceModel(round(w[0], 4), tuple(round(v, 4) for v in w[1:])))
    return out[0], out[1]


def fit_decisions(
    chosen: tuning_mod.Tuning, groups: list[tuple[Router, list[EvalItem]]]
) -> tuple[tuning_mod.Tuning, float]:
    """The spoke and both thresholds, by coordinate search (two passes over the grids) for the mean of the
    strictly-right rates of the curated dev questions, the same without asks and the drafts."""

    def rate(cand: tuning_mod.Tuning) -> float:
        rates = []
        for r, items in groups:
            r.tune = cand
            rates.append(evaluate(r, items).strict / len(items))
        return (rates[0] + rates[1] + sum(rates[2:]) / max(len(rates) - 2, 1)) / 3

    best = rate(chosen)
    for _ in range(2):
        for name, grid in (
            ("keep_floor", KEEP_FLOORS),
            ("both_floor", BOTH_FLOORS),
            ("both_share", BOTH_SHARES),
            ("spoke_floor", SPOKE_FLOORS),
        ):
            for v in grid:
                cand = dataclasses.replace(chosen, **{name: v})
                got = rate(cand)
                # on a tie, the lower floor of who spoke to it: saying someone "didn't speak to this"
                # when asked needs the evidence, not only the absence of a better fit
                lower = name in SILENCE_FLOORS and v < getattr(chosen, name)
                if got > best + 1e-9 or (lower and got >= best - 1e-9):
                    best, chosen = got, cand
            print(f"  {name} {getattr(chosen, name)}: mean strictly right {100 * best:.1f}%")
    # the fewest quotes beside the best that cost (almost) nothing: the highest keep floor within KEEP_SLACK
    for v in KEEP_FLOORS:
        cand = dataclasses.replace(chosen, keep_floor=v)
        if rate(cand) >= best - KEEP_SLACK:
            chosen = cand
    print(f"  keep_floor {chosen.keep_floor}: mean strictly right {100 * rate(chosen):.1f}%")
    return fit_several_floor(chosen, groups[:2]), rate(chosen)


def fit_several_floor(
    chosen: tuning_mod.Tuning, groups: list[tuple[Router, list[EvalItem]]]
) -> tuning_mod.Tuning:
    """The floor below which a panelist asked together with the other is left out ("X didn't speak to
    this"): every in-scope dev question asked of both (``target="both"``, as the app's selector and ``--to
    both`` do), right when exactly its expected panelists answer -- a question only one spoke to leaves the
    other out, a question both spoke to keeps both. (The questions the dev sets word as asked of both are too
    few to fit it on.) Balanced between the questions one and both spoke to; ties go to the lower floor."""

    def accuracy(cand: tuning_mod.Tuning) -> float:
        # balanced: the questions both spoke to weigh as much as the many only one spoke to
        ok = {1: 0, 2: 0}
        n = {1: 0, 2: 0}
        for r, items in groups:
            r.tune = cand
            for it in items:
                k = min(len(it.speakers), 2)
                n[k] += 1
                ok[k] += set(r.route(it.question, "both").speakers) == set(it.speakers)
        return sum(ok[k] / max(n[k], 1) for k in ok) / 2

    best, got = chosen, accuracy(chosen)
    for v in SEVERAL_FLOORS:
        cand = dataclasses.replace(chosen, several_floor=v)
        acc = accuracy(cand)
        if acc > got + 1e-9 or (acc >= got - 1e-9 and v < best.several_floor):
            best, got = cand, acc
    print(
        f"  several_floor {best.several_floor}: asked of both, right speakers {100 * got:.1f}% (balanced)"
    )
    return best


def without_asks(panel: Panel) -> Router:
    """The same panel with its curated asks left out: the dev questions' asks were written beside them, so on
    the curated panel a question in other words looks easier than it is; without them it is the uncurated
    case (a question in words no one wrote down for it), on the same gold answers (path None: not the files'
    saved index or rows, which hold the asks)."""
    return Router(
        records.replace(
            panel, path=None, quotes=[records.replace(q, asks=()) for q in panel.quotes]
        )
    )


def relevance_groups(
    panel: Panel, in_dev: list[EvalItem], tmp: Path
) -> list[tuple[Router, list[EvalItem]]]:
    """The groups the relevance model is fitted on: the curated panel and the same without asks on the dev
    questions, and each uncurated draft of DEV_DRAFTS (written under ``tmp``) on its own questions."""
    groups = [(Router(panel), in_dev), (without_asks(panel), in_dev)]
    for captions, eval_file in DEV_DRAFTS:
        draft = _draft(ROOT / captions, tmp)
        items = load_eval_set(str(ROOT / eval_file), draft)
        groups.append((Router(draft), [it for it in items if it.speakers]))
    return groups


def _draft(captions: Path, tmp: Path) -> Panel:
    text = captions.read_text(encoding="utf-8")
    out = tmp / captions.stem
    write_draft(build_draft(text, captions.stem), text, out)
    return load_panel(out)


def report(router: Router, sets: dict[str, list[EvalItem]]) -> dict[str, dict]:
    out = {}
    for name, items in sets.items():
        d = evaluate(router, items).to_dict()
        out[name] = {
            k: d[k]
            for k in (
                "items",
                "strictly_right",
                "speaker_accuracy",
                "recall_at_3",
                "abstention_recall",
                "wrongly_abstained",
            )
        }
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--dev", nargs="*", default=DEV_SETS)
    ap.add_argument("--dev-conversations", nargs="*", default=DEV_CONVERSATIONS)
    ap.add_argument("--check", nargs="*", default=["eval/final.yaml", "eval/holdout3.yaml"])
    ap.add_argument("--max-declined", type=float, default=0.03)
    ap.add_argument("--dry-run", action="store_true", help="print the fit, write nothing")
    args = ap.parse_args()

    panel = load_panel(ROOT / "persona_data" / "minimax-m3")
    dev = [it for f in args.dev for it in load_eval_set(str(ROOT / f), panel)]
    checks = {f: load_eval_set(str(ROOT / f), panel) for f in args.check}
    router = Router(panel)
    bare = without_asks(panel)

    # 1. scope
    # a question asking for a specific the talk never gave (a price, a date) is declined by that check
    # whatever its scope, so it does not teach the scope model what "off-topic" looks like
    scoped = [it for it in dev if it.speakers or router.asked_facet(it.question) is None]
    signals = [r.scope_signals(it.question) for r in (router, bare) for it in scoped]
    ys = [int(bool(it.speakers)) for _ in (router, bare) for it in scoped]
    # ... and uncurated drafts of other talks (no asks: lower similarities), so that one model serves both
    drafts: list[tuple[Router, list[EvalItem]]] = []
    workdir = tempfile.TemporaryDirectory()  # the drafts' files, kept until the blend is chosen
    tmp = workdir.name
    for captions, eval_file in DEV_DRAFTS:
        draft = _draft(ROOT / captions, Path(tmp))
        droute = Router(draft)
        draft_items = load_eval_set(str(ROOT / eval_file), draft)
        drafts.append((droute, [it for it in draft_items if it.speakers]))
        for it in draft_items:
            if it.speakers or droute.asked_facet(it.question) is None:
                signals.append(droute.scope_signals(it.question))
                ys.append(int(bool(it.speakers)))
    bias, w_lex, w_sem, w_margin = fit_logistic([sig.features() for sig in signals], ys)
    scope = tuning_mod.ScopeModel(bias, w_lex, w_sem, w_margin, 0.5)
    probs = [scope.probability(sig) for sig in signals]
    t, dec_in, dec_out = choose_threshold(
        probs, ys, args.max_declined
    )  # curated, bare and drafts alike
    scope = dataclasses.replace(scope, threshold=t)
    print(
        f"scope: bias {bias:.3f} lexical {w_lex:.3f} semantic {w_sem:.3f} margin {w_margin:.3f} "
        f"threshold {t:.3f}: dev in-scope declined {100 * dec_in:.1f}%, "
        f"off-topic declined {100 * dec_out:.1f}%"
    )

    # 2. the relevance model (scope fixed as fitted), then its thresholds, then the follow-up floor: fitted on
    # the shipped panel's dev questions (curated: asks written beside them), the same without asks and the
    # uncurated drafts (the words of the talk alone), so that one model serves both
    in_dev = [it for it in dev if it.speakers]
    groups = [(router, in_dev), (bare, in_dev), *drafts]
    started = time.perf_counter()
    full, lexical = fit_relevance(groups)
    # the search starts from the figures of the first fit (any start reaches them on the shipped data)
    chosen = tuning_mod.Tuning(
        scope,
        full,
        lexical,
        spoke_floor=10.0,
        several_floor=20.0,
        both_floor=70.0,
        both_share=0.7,
        keep_floor=5.0,
    )
    chosen, best = fit_decisions(chosen, groups)
    print(
        f"relevance: {full} / lexical {lexical}; spoke {chosen.spoke_floor}, both {chosen.both_floor} "
        f"and {chosen.both_share} of the first: mean strictly right {100 * best:.1f}% "
        f"({time.perf_counter() - started:.0f} s)"
    )
    workdir.cleanup()
    router.tune = chosen
    chosen = dataclasses.replace(chosen, followup_floor=fit_followup_floor(router, panel, args))
    router.tune = chosen
    figures = report(router, {"dev": dev, **checks})
    for name, d in figures.items():
        print(f"  {name}: {d}")
    kept = json.loads(RECORD.read_text(encoding="utf-8")) if RECORD.exists() else {}
    # the sections other scripts fit (message kinds, discussion, attribution) are kept as they are
    record = {
        **{k: v for k, v in kept.items() if k not in OWN_KEYS},
        "fitted_by": "scripts/fit_tuning.py",
        "dev_sets": args.dev,
        "dev_drafts": [c for c, _ in DEV_DRAFTS],
        "max_declined": args.max_declined,
        "relevance": {
            "model": dataclasses.asdict(chosen.relevance),
            "lexical_model": dataclasses.asdict(chosen.relevance_lexical),
            "spoke_floor": chosen.spoke_floor,
            "several_floor": chosen.several_floor,
            "both_floor": chosen.both_floor,
            "both_share": chosen.both_share,
            "keep_floor": chosen.keep_floor,
        },
        "scope": dataclasses.asdict(chosen.scope),
        "followup_floor": chosen.followup_floor,
        "dev_conversations": args.dev_conversations,
        "figures_at_fit": figures,
    }
    write_record(record, dry_run=args.dry_run)
    return 0


def write_record(record: dict, *, dry_run: bool, shown: dict | None = None) -> None:
    """Write the tuning record (or, dry, print ``shown``, by default all of it)."""
    if dry_run:
        print(json.dumps(record if shown is None else shown, indent=2))
    else:
        RECORD.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {RECORD.relative_to(ROOT)}")


if __name__ == "__main__":
    raise SystemExit(main())
