"""Retrieval benchmark: a synthetic bank of N quotes (default 100,000).

Reports index build time, query latency p50/p95 (route: scope + per-speaker retrieval), peak RSS, and the
wall time of `panelbot ask --offline` against `python -c "import rapidfuzz, yaml"`.

    python benchmarks/retrieval.py            # 100,000 quotes, 300 queries
    python benchmarks/retrieval.py --quotes 20000 --queries 100
"""

from __future__ import annotations

import argparse
import platform
import random
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

from panelbot.panel import HostQuestion, Panel, Persona, Quote, load_panel
from panelbot.retrieval.router import Router


def synthetic_panel(n: int, seed: int = 7) -> Panel:
    """N quotes built from the shipped panel's words plus invented ones, 4 panelists, 500 host questions."""
    rng = random.Random(seed)
    base = load_panel("minimax-m3")
    vocab = sorted({w.strip(".,?!\"'").lower() for q in base.quotes for w in q.text.split() if len(w) > 3})
    invented = ["".join(rng.choice("bcdfghjklmnprstvwz") + rng.choice("aeiou") for _ in range(3))
                for _ in range(20_000)]
    words = vocab + invented
    speakers = ["ada", "ben", "cy", "di"]
    panelists = {s: Persona(s, s.title(), "Role", "Org", keywords=tuple(rng.sample(vocab, 20)))
                 for s in speakers}
    questions = [HostQuestion(f"q{i:03d}", " ".join(rng.choice(words) for _ in range(12)) + "?",
                              answered_by=(rng.choice(speakers),)) for i in range(500)]
    quotes = []
    for i in range(n):
        sp = speakers[i % 4]
        text = " ".join(rng.choice(words) for _ in range(rng.randint(20, 80))) + "."
        quotes.append(Quote(f"{sp}-{i:06d}", sp, text, question=f"q{rng.randrange(500):03d}",
                            keywords=tuple(rng.sample(words, 5))))
    return Panel("synthetic", "Synthetic", Path("."), "curated", None, panelists, quotes, questions,
                 vocabulary=dict(base.vocabulary), topics=("kv cache", "kernels"))


def cli_startup(runs: int = 7) -> tuple[float, float]:
    def wall(cmd: list[str]) -> float:
        times = []
        for _ in range(runs):
            t = time.perf_counter()
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
            times.append(time.perf_counter() - t)
        return statistics.median(times)

    ask = wall([sys.executable, "-m", "panelbot", "ask", "--offline", "How do you deal with a growing KV cache?"])
    base = wall([sys.executable, "-c", "import rapidfuzz, yaml"])
    return ask, base


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quotes", type=int, default=100_000)
    ap.add_argument("--queries", type=int, default=300)
    args = ap.parse_args()
    t0 = time.perf_counter()
    panel = synthetic_panel(args.quotes)
    t1 = time.perf_counter()
    router = Router(panel)
    t2 = time.perf_counter()
    rng = random.Random(1)
    vocab = [w for q in panel.quotes[:2000] for w in q.text.split()]
    queries = []
    for i in range(args.queries):
        q = " ".join(rng.choice(vocab) for _ in range(rng.randint(3, 10)))
        if i % 5 == 0:  # some typos
            q = q.replace("e", "a", 1)
        queries.append(q + "?")
    lat = []
    for q in queries:
        t = time.perf_counter()
        router.route(q)
        lat.append((time.perf_counter() - t) * 1000)
    lat.sort()
    p50 = statistics.median(lat)
    p95 = lat[int(0.95 * (len(lat) - 1))]
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    ask, base = cli_startup()
    print(f"machine: {platform.machine()}, {__import__('os').cpu_count()} cores, Python {platform.python_version()}")
    print(f"bank: {args.quotes:,} synthetic quotes (generated in {t1 - t0:.1f} s)")
    print(f"index build: {t2 - t1:.2f} s")
    print(f"route latency over {len(lat)} queries: p50 {p50:.1f} ms, p95 {p95:.1f} ms")
    print(f"peak RSS: {rss_mb:.0f} MB")
    print(f"`panelbot ask --offline` wall (median of 7): {ask * 1000:.0f} ms; "
          f"`python -c 'import rapidfuzz, yaml'`: {base * 1000:.0f} ms; ratio {ask / base:.2f}x")


if __name__ == "__main__":
    main()
