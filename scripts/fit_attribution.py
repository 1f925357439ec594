"""Fit ingest's attribution tuning (``panelbot/data/tuning.json``, section ``attribution``) on the development talks.

    python scripts/fit_attribution.py [--dry-run]

Development talks: the fixtures with true speakers per raw turn (tests/fixtures/truth.yaml) and the first unseen
set (tests/fixtures/unseen/, true turns in NAME.yaml; development data since its first run). Never the blind sets.

1. Evidence by meaning (``panelbot/ingest/presented.py``): ``meaning_scale`` and ``meaning_floor`` from a small
   grid, the pair that gets most answers right over the development talks (ties: the smaller scale).
2. The per-turn confidence (``panelbot/ingest/confidence.py``): a logistic model of "this turn's speaker is
   right" on the turn's features, fitted (L2-regularised Newton steps) on every attributed turn that is not
   decided by a label.
3. The health report's threshold ``flag_below``: the lowest confidence under which every wrong turn the order /
   field rule does not already flag is flagged (recall 1 on dev), unless that flags more than half of the right
   firm turns (then the threshold that flags half, and the recall it gets is reported).

Prints the grid, the model, and the flag recall (wrong turns flagged) and precision (flags that are wrong turns).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from types import SimpleNamespace

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "tests" / "fixtures" / "unseen"))

from fit_tuning import fit_logistic  # noqa: E402  (scripts/, beside this)

import panelbot.retrieval.tuning as tuning_module  # noqa: E402
from panelbot.ingest.basis import doubtful_part  # noqa: E402
from panelbot.ingest.confidence import FEATURES, features  # noqa: E402
from panelbot.ingest.draft import segment  # noqa: E402

RECORD = ROOT / "panelbot" / "data" / "tuning.json"
FIXTURES = ROOT / "tests" / "fixtures"
UNSEEN = FIXTURES / "unseen"
SCALES = (0.0, 5.0, 10.0, 20.0, 40.0)
FLOORS = (0.03, 0.05, 0.1)
L2 = 0.1  # ridge on the logistic weights (the features are of order 1)
MAX_FIRM_FLAGGED = 0.5  # of the right firm turns, at most this share flagged


def _talks() -> list[tuple[str, str, object]]:
    """(name, captions text, truth): truth is a list of speakers per raw turn, or a list of (speaker, text)."""
    out: list[tuple[str, str, object]] = []
    truth = yaml.safe_load((FIXTURES / "truth.yaml").read_text(encoding="utf-8"))
    for name, speakers in truth.items():
        out.append((name, (FIXTURES / name).read_text(encoding="utf-8"), speakers))
    from make_unseen import OUTPUT

    for src in sorted(UNSEEN.glob("*.yaml")):
        if src.stem.endswith("_eval"):
            continue
        talk = yaml.safe_load(src.read_text(encoding="utf-8"))
        if talk.get("mapping"):
            continue  # labelled: the labels decide
        caps = src.with_name(src.stem + OUTPUT[talk["format"]])
        rows = [(r[0], r[1].replace(" | ", " ")) for r in talk["turns"]]
        out.append((caps.name, caps.read_text(encoding="utf-8"), rows))
    return out


def _labels(turns: list, truth: object) -> tuple[list[bool | None], int, int]:
    """(per draft turn: right, wrong (False) or None when it cannot say; answers right; answers)."""
    if truth and isinstance(truth[0], str):  # speakers per raw turn
        marks: list[bool | None] = []
        right = n = 0
        for t in turns:
            wants = [truth[i] for i in t.sources if i < len(truth) and truth[i] != "-"]
            marks.append(None if not wants else all(w == t.speaker for w in wants))
            for w in wants:
                if w != "host":
                    n += 1
                    right += w == t.speaker
        return marks, right, n
    from fixture_talks import attribute, speaker_ids

    ids = speaker_ids(
        {s for s, _ in truth}, sorted({t.speaker for t in turns} - {"host", "unknown"})
    )
    got = attribute(SimpleNamespace(turns=turns), truth)
    owners: dict[int, list[bool]] = {}
    right = n = 0
    for (who, text), (speaker, k) in zip(truth, got, strict=True):
        ok = speaker == ids[who]
        if k is not None:
            owners.setdefault(k, []).append(ok)
        if who != "host" and len(text.split()) >= 4:
            n += 1
            right += ok
    return [all(owners[k]) if k in owners else None for k in range(len(turns))], right, n


def _run(
    talks: list, scale: float, floor: float, model: dict | None = None
) -> tuple[int, int, list]:
    """Attribute every talk with the given tuning: (answers right, answers, per-turn rows)."""
    base = {**tuning_module._ATTRIBUTION_DEFAULTS, "meaning_scale": scale, "meaning_floor": floor}
    if model:
        base.update(model)
    tuning_module.attribution_tuning = lambda: base  # type: ignore[assignment]
    rows = []
    right = n = 0
    for name, text, truth in talks:
        _SPY.clear()
        _, turns, _ = segment(text)
        marks, r, k = _labels(turns, truth)
        right, n = right + r, n + k
        presented, ids = _SPY.get("presented"), _SPY.get("ids", [])
        for t, ok in zip(turns, marks, strict=True):
            if ok is None or t.speaker == "unknown" or t.why.startswith("labelled"):
                continue
            f = features(t, ids, presented)
            rows.append((name, t, ok, f, doubtful_part(t.reasons()) is not None))
    return right, n, rows


_SPY: dict = {}  # what ingest built for the talk just segmented: its Presented object and panelist ids


def _install_spy() -> None:
    import panelbot.ingest.speakers as speakers

    original = speakers.set_confidences

    def spy(turns, ids, presented):  # noqa: ANN001, ANN202
        _SPY["presented"], _SPY["ids"] = presented, ids
        return original(turns, ids, presented)

    speakers.set_confidences = spy  # type: ignore[assignment]


def _threshold(rows: list, confs: list[float]) -> tuple[float, dict]:
    """The flag threshold and what it gets on dev (see the module docstring)."""
    firm = [(c, ok) for (_, _, ok, _, doubtful), c in zip(rows, confs, strict=True) if not doubtful]
    wrong_firm = sorted(c for c, ok in firm if not ok)
    right_firm = sorted(c for c, ok in firm if ok)
    want = (wrong_firm[-1] + 1e-4) if wrong_firm else 0.0
    cap = right_firm[int(len(right_firm) * MAX_FIRM_FLAGGED)] if right_firm else 1.0
    below = round(min(want, cap), 4)
    return below, _flag_report(rows, confs, below)


def _flag_report(rows: list, confs: list[float], below: float) -> dict:
    flagged = [doubtful or c < below for (_, _, _, _, doubtful), c in zip(rows, confs, strict=True)]
    wrong = [not ok for _, _, ok, _, _ in rows]
    tp = sum(f and w for f, w in zip(flagged, wrong, strict=True))
    return {
        "turns": len(rows),
        "wrong_turns": sum(wrong),
        "flags": sum(flagged),
        "wrong_flagged": tp,
        "recall": round(tp / sum(wrong), 3) if any(wrong) else 1.0,
        "precision": round(tp / sum(flagged), 3) if any(flagged) else 1.0,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--dry-run", action="store_true", help="fit and report; do not write tuning.json"
    )
    args = ap.parse_args(argv)
    _install_spy()
    talks = _talks()
    grid = []
    for scale in SCALES:
        for floor in FLOORS if scale else FLOORS[:1]:
            right, n, _ = _run(talks, scale, floor)
            grid.append((right, -scale, floor))
            print(f"meaning_scale {scale:>5} floor {floor:.2f}: {right}/{n} answers right")
    right, neg_scale, floor = max(grid)
    scale = -neg_scale
    _, n, rows = _run(talks, scale, floor)
    xs = [[f[k] for k in FEATURES] for _, _, _, f, _ in rows]
    ys = [int(ok) for _, _, ok, _, _ in rows]
    bias, *weights = fit_logistic(xs, ys, L2)
    model = {"bias": bias, "weights": dict(zip(FEATURES, weights, strict=True))}
    from panelbot.ingest.confidence import confidence

    confs = [confidence(f, model["weights"], bias) for _, _, _, f, _ in rows]
    below, report = _threshold(rows, confs)
    print(f"chosen: meaning_scale {scale}, floor {floor}: {right}/{n} answers right")
    shown = ", ".join(f"{k} {v:.3f}" for k, v in model["weights"].items())
    print(f"model: bias {bias:.3f}, {shown}")
    print(f"flag_below {below}: {json.dumps(report)}")
    print(f"order/field rule alone: {json.dumps(_flag_report(rows, confs, 0.0))}")
    # for comparison: flagging by the confidence alone, at the lowest threshold that flags every wrong turn
    alone = [(name, t, ok, f, False) for name, t, ok, f, _ in rows]
    every = max((c for (_, _, ok, _, _), c in zip(rows, confs, strict=True) if not ok), default=0.0)
    print(
        f"confidence alone under {every + 1e-4:.4f}: {json.dumps(_flag_report(alone, confs, every + 1e-4))}"
    )
    firm = sorted(
        round(c, 3) for (_, _, ok, _, d), c in zip(rows, confs, strict=True) if ok and not d
    )
    print(f"right firm turns: {len(firm)}, confidence deciles {firm[:: max(1, len(firm) // 10)]}")
    for (name, t, ok, _, doubtful), c in zip(rows, confs, strict=True):
        if not ok:
            mark = "flagged" if doubtful or c < below else "MISSED"
            print(
                f"  wrong: {name}: {t.speaker} conf {c:.2f} ({mark}; {t.why[:40]}): {t.text[:50]}"
            )
    section = {
        "meaning_scale": scale,
        "meaning_floor": floor,
        "bias": round(bias, 4),
        "weights": {k: round(v, 4) for k, v in model["weights"].items()},
        "flag_below": below,
        "fit": {
            "fitted_by": "scripts/fit_attribution.py",
            "dev_talks": [name for name, _, _ in talks],
            "answers_right": right,
            "answers": n,
            **report,
        },
    }
    if args.dry_run:
        return 0
    record = json.loads(RECORD.read_text(encoding="utf-8"))
    record["attribution"] = section
    RECORD.write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {RECORD.relative_to(ROOT)} (section attribution)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
