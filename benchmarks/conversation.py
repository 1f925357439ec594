"""Conversation benchmark: how long reading a follow-up against the conversation takes.

Replays every conversation of an eval file (default eval/conversations_dev.yaml) turn by turn through
``resolve`` (each turn replays the turns before it) and times each turn; then times ``suggest_followups``
(what the app computes under each answer). On the shipped panel, and optionally on the synthetic bank of
benchmarks/retrieval.py (--quotes N), where the same questions are asked of a much larger bank.

    python benchmarks/conversation.py
    python benchmarks/conversation.py --quotes 100000
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time
from pathlib import Path

from panelbot.conversation.evaluation import load_conversations
from panelbot.conversation.followups import suggest_followups
from panelbot.conversation.resolve import ConversationTurn, resolve
from panelbot.panel import load_panel
from panelbot.retrieval.router import Router

ROOT = Path(__file__).resolve().parents[1]


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p * (len(xs) - 1))))]


def run(router: Router, questions: list[list[str]], label: str) -> None:
    turn_ms: list[float] = []
    follow_ms: list[float] = []
    for conv in questions:
        history: list[ConversationTurn] = []
        for q in conv:
            t0 = time.perf_counter()
            res = resolve(router, history, q)
            turn_ms.append(1000 * (time.perf_counter() - t0))
            history.append(
                ConversationTurn(
                    q, list(res.route.speakers), [sq.quote.id for sq in res.route.quotes]
                )
            )
            t0 = time.perf_counter()
            suggest_followups(router, history)
            follow_ms.append(1000 * (time.perf_counter() - t0))
    print(
        f"{label}: {len(turn_ms)} turns; resolve p50 {statistics.median(turn_ms):.1f} ms, "
        f"p95 {pct(turn_ms, 0.95):.1f} ms; follow-up suggestions p50 {statistics.median(follow_ms):.1f} ms, "
        f"p95 {pct(follow_ms, 0.95):.1f} ms"
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("file", nargs="?", default=str(ROOT / "eval" / "conversations_dev.yaml"))
    ap.add_argument("--quotes", type=int, default=0, help="also on a synthetic bank of N quotes")
    args = ap.parse_args()
    print(f"Python {sys.version.split()[0]}, {platform.machine()}, {platform.system()}")
    panel = load_panel("minimax-m3")
    questions = [[t.question for t in c.turns] for c in load_conversations(args.file, panel)]
    run(Router(panel), questions, f"shipped panel ({len(panel.quotes)} quotes)")
    if args.quotes:
        sys.path.insert(0, str(ROOT / "benchmarks"))
        from retrieval import synthetic_panel  # type: ignore[import-not-found]

        big = synthetic_panel(args.quotes)
        run(Router(big), questions, f"synthetic bank ({args.quotes:,} quotes)")


if __name__ == "__main__":
    main()
