"""Fit the floor at which a message's nearest example in the bank of follow-up messages counts
(``message_kind_floor`` in ``panelbot/data/tuning.json``; ``panelbot.conversation.kind_bank``).

    python scripts/fit_message_kinds.py [--dev-conversations FILE ...] [--dry-run]

Every turn after the first of the dev conversation sets (never eval/heldout/) is labelled by its set's
``kind``; a message's nearest example must name a kind that fits it: continuation and elaboration turns
take ``continue`` or ``clarify``, reason ``reason``, other ``other``, switch ``switch``, offtopic
``offtopic``, smalltalk ``smalltalk``; a new question (after a decline, or a switch without a cue) takes no
follow-up kind. Every floor between observed similarities is tried; the one kept maximises
right - 2 x wrong among the turns the bank reads (a wrong reading costs more than none: below the floor, a
message is read by its words alone). It prints the figures and the mistakes, then writes the floor into the
tuning record, leaving every other entry as it was (``--dry-run``: print only).

The kinds read on a message's frame (``discuss``, ``ask``: a request for a discussion, and what one is not)
are not fitted here: the follow-up turns never read them. At the floor fitted, it prints (and records) how the
frames read the labelled discussion requests (``--discussion-requests``, default
eval/discussion_requests_dev.yaml): precision and recall of the ``discuss`` kind.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from panelbot.conversation.evaluation import load_conversations  # noqa: E402
from panelbot.conversation.kind_bank import DISCUSS, message_kinds  # noqa: E402
from panelbot.discussion.evaluation import load_requests  # noqa: E402
from panelbot.panel import load_panel  # noqa: E402
from panelbot.retrieval.evaluation import load_eval_set  # noqa: E402
from panelbot.retrieval.router import Router  # noqa: E402

RECORD = ROOT / "panelbot" / "data" / "tuning.json"
PANEL = ROOT / "persona_data" / "minimax-m3"
DEV = [
    "eval/conversations_dev.yaml",
    "eval/conversations_test.yaml",
    "eval/conversations_final.yaml",
    "eval/conversations_holdout2.yaml",
    "eval/conversations_holdout3.yaml",
    "eval/conversations_social.yaml",
    "eval/conversations_newuser.yaml",
    "eval/conversations_newuser2.yaml",
    "../shared/eval/conversations.yaml",
]
# single questions, none a request for a discussion
QUESTION_SETS = [
    "eval/dev.yaml",
    "eval/test.yaml",
    "eval/final.yaml",
    "eval/holdout3.yaml",
    "../shared/eval/questions.yaml",
]
FITS = {
    "continuation": {"continue", "clarify"},
    "elaboration": {"continue", "clarify"},
    "reason": {"reason"},
    "other": {"other"},
    "switch": {"switch"},
    "offtopic": {"offtopic"},
    "smalltalk": {"smalltalk"},
    "after_decline": {"framing", "switch"},
    "single": {"framing", "switch"},
}
WRONG_COST = 2.0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dev-conversations", nargs="+", default=DEV)
    ap.add_argument("--dry-run", action="store_true")
    ap.add_argument("--discussion-requests", default="eval/discussion_requests_dev.yaml")
    args = ap.parse_args()
    if any("heldout" in f for f in args.dev_conversations):
        print("never fit on eval/heldout/", file=sys.stderr)
        return 2
    panel = load_panel(PANEL)
    bank = message_kinds(Router(panel))
    seen: list[tuple[float, bool, str, str, str]] = []  # similarity, fits, gold, got, message
    used = []
    for f in args.dev_conversations:
        path = ROOT / f
        if not path.exists():
            continue
        used.append(f)
        for conv in load_conversations(str(path), panel):
            for it in conv.turns[1:]:
                gold = it.kind or "other"
                hit = bank.nearest(it.question)
                seen.append(
                    (hit.similarity, hit.kind in FITS.get(gold, set()), gold, hit.kind, it.question)
                )
    best_floor, best_value = 1.0, 0.0
    for floor in sorted({s for s, *_ in seen}):
        read = [ok for s, ok, *_ in seen if s >= floor]
        value = sum(read) - WRONG_COST * (len(read) - sum(read))
        if value > best_value:
            best_floor, best_value = floor, value
    read = [(ok, g, k, m, s) for s, ok, g, k, m in seen if s >= best_floor]
    right = sum(ok for ok, *_ in read)
    print(
        f"turns {len(seen)}; floor {best_floor:.4f}: the bank reads {len(read)}, "
        f"{right} fitting ({100 * right / max(1, len(read)):.1f}%)"
    )
    for ok, g, k, m, s in sorted(read, key=lambda r: -r[4]):
        if not ok:
            print(f"  wrong: {m!r} ({g}) read as {k} at {s:.3f}")
    discussion_floor = _discussion_floor(bank, args, panel, best_floor)
    requests = _frames(bank, args.discussion_requests, discussion_floor)
    record = json.loads(RECORD.read_text(encoding="utf-8"))
    record["message_kind_floor"] = round(best_floor, 4)
    record["discussion_floor"] = round(discussion_floor, 4)
    record["message_kind_fit"] = {
        "fitted_by": "scripts/fit_message_kinds.py",
        "dev_conversations": used,
        "turns": len(seen),
        "read": len(read),
        "fitting": right,
        "discussion_requests": requests,
    }
    where = "not written (--dry-run)" if args.dry_run else f"written to {RECORD.relative_to(ROOT)}"
    if not args.dry_run:
        RECORD.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    print(f"message_kind_floor {record['message_kind_floor']}: {where}")
    return 0


def _discussion_floor(bank: object, args: argparse.Namespace, panel: object, floor: float) -> float:
    """Just above the best discussion-frame similarity of every ordinary message of the dev sets (every
    single question and conversation turn, and the labelled requests' negatives): none reads as a request."""
    # (questions asked of both left out, single or in a conversation: "what do they both think of X?" may
    # well be answered as a discussion)
    messages = [
        it.question
        for f in QUESTION_SETS
        for it in load_eval_set(str(ROOT / f), panel)
        if it.kind != "both"
    ]
    for f in args.dev_conversations:
        if (ROOT / f).exists():
            messages += [
                t.question
                for c in load_conversations(str(ROOT / f), panel)
                for t in c.turns
                if len(t.speakers) < 2
            ]
    labelled = load_requests(ROOT / args.discussion_requests)
    messages += [it.message for it in labelled if not it.discussion]
    top = floor
    for message in messages:
        hit = bank.nearest(bank.framed(message)[0], discussions=True)  # type: ignore[attr-defined]
        if hit.kind == DISCUSS and hit.similarity >= top:
            top = hit.similarity + 1e-4
            print(f"  ordinary, read as discuss at {hit.similarity:.3f}: {message!r}")
    print(f"discussion_floor {top:.4f}")
    return top


def _frames(bank: object, path: str, floor: float) -> dict[str, object]:
    """How the frames read the labelled discussion requests at ``floor`` (printed; recorded)."""
    items = load_requests(ROOT / path)
    got = []
    for it in items:
        frame, _ = bank.framed(it.message)  # type: ignore[attr-defined]
        hit = bank.nearest(frame, discussions=True)  # type: ignore[attr-defined]
        got.append((hit.at_least(floor) == DISCUSS, it))
    predicted = sum(g for g, _ in got)
    true = sum(it.discussion for _, it in got)
    correct = sum(g and it.discussion for g, it in got)
    precision = 100 * correct / max(1, predicted)
    recall = 100 * correct / max(1, true)
    print(
        f"{path}: {len(items)} messages; their frames read as discuss: precision {precision:.1f}% "
        f"({correct}/{predicted}), recall {recall:.1f}% ({correct}/{true})"
    )
    for g, it in got:
        if g != it.discussion:
            print(f"  {'read' if g else 'not read'} as discuss: {it.message!r}")
    return {
        "file": path,
        "messages": len(items),
        "precision": round(precision, 1),
        "recall": round(recall, 1),
    }


if __name__ == "__main__":
    raise SystemExit(main())
