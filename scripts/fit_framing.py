"""Fit the framing threshold (``threshold:`` in ``panelbot/data/framing_questions.yaml``) on a labelled dev set.

    python scripts/fit_framing.py [--dev eval/framing_dev.yaml] [--dry-run | --check]

For every question of the dev set (framing questions of each kind and look-alike content questions, on the
shipped panel and on uncurated fixture drafts built by ingest's own code) it computes the signals
``panelbot.retrieval.framing`` decides on -- best similarity to the filled bank, best similarity to any quote
row, whether what it asks beyond the closest example is in the talk's scope -- then tries every threshold
between observed similarities and keeps the one with the best F1 of "is a framing question" (ties: the
higher threshold, fewer content questions taken). It prints precision/recall at that threshold, how many
framing questions got the right kind and panelists, and every mistake; then writes the threshold into the
bank's one ``threshold:`` line (``--dry-run``: print only).
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import yaml  # noqa: E402

from panelbot.ingest.draft import build_draft, write_draft  # noqa: E402
from panelbot.panel import Panel, load_panel  # noqa: E402
from panelbot.retrieval.framing import PERSON, FramingReader, FramingSignals, framing_bank  # noqa: E402
from panelbot.retrieval.router import Router  # noqa: E402

BANK = ROOT / "panelbot" / "data" / "framing_questions.yaml"
DEV = ROOT / "eval" / "framing_dev.yaml"
FIXTURES = ROOT / "tests" / "fixtures"
THRESHOLD_LINE = re.compile(r"^threshold:.*$", re.MULTILINE)


def open_panel(spec: str, scratch: Path) -> Panel:
    """An installed panel by name, or ``fixture:<captions>``: its uncurated draft, ingested into scratch."""
    if spec.startswith("fixture:"):
        captions = FIXTURES / spec.removeprefix("fixture:")
        text = captions.read_text(encoding="utf-8")
        name = captions.name.split("_")[0]
        out = scratch / name
        write_draft(build_draft(text, name), text, out)
        return load_panel(out)
    return load_panel(spec)


def labelled(entry: dict) -> list[tuple[str, str | None, list[str]]]:
    """(question, kind or None for content, expected panelists) for one panel's entry."""
    out: list[tuple[str, str | None, list[str]]] = []
    framing = entry.get("framing") or {}
    for kind, items in framing.items():
        if kind == PERSON:
            for pid, questions in items.items():
                out += [(q, kind, [pid]) for q in questions]
        else:
            out += [(q, kind, []) for q in items]
    out += [(q, None, []) for q in entry.get("content") or []]
    return out


Row = tuple[
    FramingSignals, bool, bool
]  # signals, labelled framing, read as a kind (names it needs)


def taken(row: Row, t: float) -> bool:
    """The reader's whole decision at threshold t."""
    return row[0].framing(t) and row[2]


def scores(rows: list[Row], t: float) -> tuple[float, int, int, int]:
    """(F1, true positives, false positives, false negatives) at threshold t."""
    tp = sum(1 for r in rows if r[1] and taken(r, t))
    fp = sum(1 for r in rows if not r[1] and taken(r, t))
    fn = sum(1 for r in rows if r[1] and not taken(r, t))
    return (2 * tp / (2 * tp + fp + fn) if tp else 0.0), tp, fp, fn


def best_threshold(rows: list[Row]) -> tuple[float, float, float]:
    """The threshold of the best F1, in the middle of the range of thresholds that reach it (the most
    room on both sides), and that range."""
    candidates = sorted({round(r[0].similarity, 4) for r in rows} | {1.0})
    f1s = {t: scores(rows, t)[0] for t in candidates}
    top = max(f1s.values())
    best = [t for t in candidates if f1s[t] == top]
    # the range reaching it starts just above the highest similarity below its lowest member
    below = [t for t in candidates if t < best[0]]
    low = below[-1] + 1e-4 if below else best[0]
    middle = round((low + best[-1]) / 2, 4)
    if scores(rows, middle)[0] < top:
        middle = best[-1]
    return middle, low, best[-1]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--dev", type=Path, default=DEV)
    ap.add_argument("--dry-run", action="store_true", help="print the fit, write nothing")
    ap.add_argument(
        "--check",
        action="store_true",
        help="no fit: score the set at the bank's threshold as shipped (a held-out set), write nothing",
    )
    args = ap.parse_args(argv)
    dev = yaml.safe_load(args.dev.read_text(encoding="utf-8"))
    rows: list[Row] = []
    details: list[tuple[str, str, str | None, list[str], FramingReader, FramingSignals]] = []
    with tempfile.TemporaryDirectory() as scratch:
        for entry in dev["panels"]:
            panel = open_panel(entry["panel"], Path(scratch))
            reader = FramingReader(Router(panel))
            for question, kind, expected in labelled(entry):
                signals = reader.signals(question)
                rows.append(
                    (signals, kind is not None, reader.reading(question, signals) is not None)
                )
                details.append((panel.name, question, kind, expected, reader, signals))
    if args.check:
        threshold = low = high = framing_bank().threshold
    else:
        threshold, low, high = best_threshold(rows)
    _, tp, fp, fn = scores(rows, threshold)
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    framing_n = sum(1 for r in rows if r[1])
    print(
        f"{len(rows)} questions ({framing_n} framing, {len(rows) - framing_n} content) "
        f"from {args.dev.relative_to(ROOT) if args.dev.is_relative_to(ROOT) else args.dev}"
    )
    if not args.check:
        print(f"best F1 for thresholds {low:.4f} .. {high:.4f}; chosen: the middle")
    print(
        f"threshold {threshold:.4f}: precision {precision:.3f} ({tp}/{tp + fp}), "
        f"recall {recall:.3f} ({tp}/{tp + fn})"
    )
    right_kind = 0
    for row, (name, question, kind, expected, reader, signals) in zip(rows, details, strict=True):
        got = reader.reading(question, signals) if taken(row, threshold) else None
        if kind is not None and got is not None:
            ok = got.kind == kind and (not expected or got.speakers == expected)
            right_kind += ok
            if not ok:
                print(f"  wrong kind/panelist [{name}] {question!r}: {got.kind} {got.speakers}")
        elif (got is not None) != (kind is not None):
            what = "content taken as framing" if got is not None else f"{kind} missed"
            print(
                f"  {what} [{name}] {question!r}: bank {signals.similarity:.3f} "
                f"(~{signals.example.text!r}), quotes {signals.quote_similarity:.3f}, "
                f"contrast {signals.contrast_similarity:.3f}, "
                f"everyday {signals.background_similarity:.3f}, "
                f"rest {signals.rest!r} about the talk={signals.rest_in_scope}"
            )
    print(f"framing questions taken with the right kind and panelists: {right_kind}/{tp}")
    if args.dry_run or args.check:
        return 0
    text = BANK.read_text(encoding="utf-8")
    new, n = THRESHOLD_LINE.subn(f"threshold: {threshold:.4f}", text, count=1)
    if n != 1:
        print(f"no 'threshold:' line in {BANK}", file=sys.stderr)
        return 1
    BANK.write_text(new, encoding="utf-8")
    print(f"wrote threshold {threshold:.4f} to {BANK.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
