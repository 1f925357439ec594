"""Retrieval benchmark: synthetic banks of growing size (default 1,000 -> 10,000 -> 100,000 quotes).

For each size, in a fresh process: the cold index build (``Router(panel)``), saving the index, route
latency p50/p95 over --queries questions (scope + per-speaker retrieval + reasons) and that process's peak
RSS (after the build, and after saving and routing); then --runs new processes that start with the saved index and print the first answer (``panelbot ask
--offline --panel DIR``: wall time and peak RSS). A larger size (default 1,000,000) is projected linearly
from the two largest measured and labelled so. Start-up against the import floor: benchmarks/startup.py.

    python benchmarks/retrieval.py
    python benchmarks/retrieval.py --sizes 100000 --queries 300
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
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


QUESTION = "kernel cache memory latency"


def write_panel_files(panel: Panel, directory: Path) -> None:
    """The synthetic panel as files (quotes and questions as JSON, which is YAML too), so that the saved
    index is keyed and found exactly as a real panel's is."""
    directory.mkdir(parents=True, exist_ok=True)
    people = "".join(f"  - {{id: {p.id}, name: {p.name}, keywords: {json.dumps(list(p.keywords))}}}\n"
                     for p in panel.panelists.values())
    (directory / "panel.yaml").write_text(f"format: 1\ntitle: {panel.title}\npanelists:\n{people}"
                                          f"topics: {json.dumps(list(panel.topics))}\n", encoding="utf-8")
    (directory / "questions.yaml").write_text(json.dumps(
        [{"id": q.id, "text": q.text, "answered_by": list(q.answered_by)} for q in panel.questions]))
    with (directory / "quotes.yaml").open("w", encoding="utf-8") as f:  # one quote at a time: the file's
        f.write("[\n")  # text is never held whole, so the peak RSS measured is the build's
        for i, q in enumerate(panel.quotes):
            f.write(("," if i else "") + json.dumps({"id": q.id, "speaker": q.speaker, "text": q.text,
                                                     "question": q.question, "keywords": list(q.keywords)})
                    + "\n")
        f.write("]\n")


def _cpu_with_children() -> float:
    """CPU time (user + system) of this process and its finished children (the build's forked helper)."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def measure_one(n: int, queries: int, directory: Path | None) -> dict:
    """Generate, build (cold), save, and route in this process; the caller starts warm processes.
    Without a directory: no files and no saving (this also runs another checkout's panelbot, --before)."""
    from panelbot.records import replace

    t0 = time.perf_counter()
    panel = synthetic_panel(n)
    if directory is not None:
        write_panel_files(panel, directory)
        panel = replace(panel, name=directory.name, path=directory)
    t1, c1 = time.perf_counter(), _cpu_with_children()
    router = Router(panel)
    t2, c2 = time.perf_counter(), _cpu_with_children()
    # the build's peak: this process, and the forked helper that gathers a large bank's second half
    rss_built = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    rss_helper = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    file_mb = 0.0
    if directory is not None:
        from panelbot.retrieval import cache

        path = cache.cache_path(directory)
        cache.write_index(path, cache.cache_key(directory), panel, router.index.norm, router.index)
        file_mb = path.stat().st_size / 1e6
    t3 = time.perf_counter()
    rng = random.Random(1)
    vocab = [w for q in panel.quotes[:2000] for w in q.text.split()]
    lat = []
    for i in range(queries):
        q = " ".join(rng.choice(vocab) for _ in range(rng.randint(3, 10)))
        if i % 5 == 0:  # some typos
            q = q.replace("e", "a", 1)
        t = time.perf_counter()
        router.route(q + "?")
        lat.append((time.perf_counter() - t) * 1000)
    lat.sort()
    return {"quotes": n, "generate_s": t1 - t0, "build_s": t2 - t1, "build_cpu_s": c2 - c1, "save_s": t3 - t2,
            "file_mb": file_mb, "route_p50_ms": statistics.median(lat),
            "route_p95_ms": lat[int(0.95 * (len(lat) - 1))],
            "build_rss_mb": rss_built, "helper_rss_mb": rss_helper,
            "save_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


WARM = """
import resource, sys
from panelbot.cli import main
code = main(sys.argv[1:])
sys.stdout.flush()
print(f"RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.1f}", file=sys.stderr)
raise SystemExit(code)
"""


def warm_start(directory: Path, env: dict[str, str], runs: int) -> tuple[float, float]:
    """A new process with the saved index: start, load, route and print the first answer."""
    times, rss = [], 0.0
    subprocess.run([sys.executable, "-c", WARM, "ask", "--offline", "--panel", str(directory), QUESTION],
                   env=env, capture_output=True, check=True)  # compiles the bytecode, fills the file cache
    for _ in range(runs):
        t = time.perf_counter()
        r = subprocess.run([sys.executable, "-c", WARM, "ask", "--offline", "--panel", str(directory),
                            QUESTION], env=env, capture_output=True, text=True, check=True)
        times.append(time.perf_counter() - t)
        if r.stderr.splitlines()[0].startswith("panelbot: note"):
            raise RuntimeError(f"the saved index was not used: {r.stderr}")
        rss = max(rss, float(r.stderr.split("RSS ")[-1]))
    return statistics.median(times), rss


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000,10000,100000", help="bank sizes, comma separated")
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--runs", type=int, default=5, help="warm starts per size (median)")
    ap.add_argument("--project", type=int, default=1_000_000,
                    help="also project this size linearly from the two largest measured (0: no)")
    ap.add_argument("--before", metavar="DIR",
                    help="also build and route each size with another panelbot checkout (e.g. main)")
    ap.add_argument("--one", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--dir", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:  # the child: one size, fresh interpreter so that its peak RSS is its own
        print(json.dumps(measure_one(args.one, args.queries, Path(args.dir) if args.dir else None)))
        return
    tmp = Path(tempfile.mkdtemp(prefix="panelbot-growth-"))
    env = dict(os.environ, PANELBOT_CACHE_DIR=str(tmp / "cache"), PANELBOT_DATA_DIR=str(tmp / "data"),
               PANELBOT_CONFIG=os.devnull, PYTHONPYCACHEPREFIX=str(tmp / "pycache"))
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # warm starts run with compiled bytecode, as installed
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
          f"load average {os.getloadavg()[0]:.1f}")
    rows = []
    try:
        for n in [int(x) for x in args.sizes.split(",")]:
            d = tmp / f"synthetic-{n}"
            out = subprocess.run([sys.executable, __file__, "--one", str(n), "--dir", str(d),
                                  "--queries", str(args.queries)], env=env, capture_output=True, text=True,
                                 check=True)
            row = json.loads(out.stdout.strip().splitlines()[-1])
            row["warm_s"], row["warm_rss_mb"] = warm_start(d, env, args.runs)
            rows.append(row)
            print(_line(row, ""), flush=True)
            if args.before:
                out = subprocess.run([sys.executable, __file__, "--one", str(n), "--queries", str(args.queries)],
                                     env=dict(env, PYTHONPATH=args.before), capture_output=True, text=True,
                                     check=True, cwd=tmp)
                b = json.loads(out.stdout.strip().splitlines()[-1])
                print(f"{'':>9}  before ({args.before}): cold build {b['build_s']:6.2f} s (CPU {b['build_cpu_s']:6.2f} s), "
                      f"route p50 {b['route_p50_ms']:5.1f} ms / p95 {b['route_p95_ms']:5.1f} ms, "
                      f"peak RSS build {b['build_rss_mb']:4.0f} MB, +routing {b['save_rss_mb']:4.0f} MB", flush=True)
        if args.project and len(rows) >= 2 and args.project > rows[-1]["quotes"]:
            a, b = rows[-2], rows[-1]
            f = (args.project - b["quotes"]) / (b["quotes"] - a["quotes"])
            proj = {k: b[k] + f * (b[k] - a[k]) for k in b if isinstance(b[k], float)}
            proj["quotes"] = args.project
            print(_line(proj, f"  (projected linearly from {a['quotes']:,} and {b['quotes']:,}, not run)"))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"load average at the end {os.getloadavg()[0]:.1f}")


def _line(r: dict, note: str) -> str:
    return (f"{r['quotes']:>9,} quotes: cold build {r['build_s']:6.2f} s (CPU {r['build_cpu_s']:6.2f} s), "
            f"save {r['save_s']:5.2f} s "
            f"({r['file_mb']:.0f} MB), warm start + first answer {r['warm_s']:5.2f} s, "
            f"route p50 {r['route_p50_ms']:5.1f} ms / p95 {r['route_p95_ms']:5.1f} ms, "
            f"peak RSS: build {r['build_rss_mb']:4.0f} MB (forked helper {r.get('helper_rss_mb', 0):4.0f} MB), +save and routing {r['save_rss_mb']:4.0f} MB, "
            f"warm {r['warm_rss_mb']:4.0f} MB{note}")


if __name__ == "__main__":
    main()
