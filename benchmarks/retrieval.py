"""Retrieval benchmark: synthetic banks of growing size (default 1,000 -> 10,000 -> 100,000 quotes).

For each size the bank is written as a panel's files (quotes and questions as JSON, which is YAML too), and
then, each in a fresh process with an empty cache:

- **cold build**, as a user meets it: the panel's files are on disk and no saved index exists. Two times:
  **ready** = until the router can answer: hashing the files for the cache key + loading and validating the
  quote bank + building the index + the save (written here for a small bank; for a large one, forking the
  child that writes it) + building the router on it; **saved** = until the saved index is in place (the
  forked child waited for; = ready for a bank saved in process). Each part is timed (wall and CPU, the CPU
  of forked helpers included once they are waited for) with the process's peak RSS; then route latency
  p50/p95 over --queries questions (scope + per-speaker retrieval + reasons) in the same process;
- the same through the real command: ``panelbot ask --offline --panel DIR QUESTION`` with no saved index
  (interpreter start included): when its answer is shown, when it exits (its index saved), peak RSS;
- **warm start + first answer**: --runs new processes of that command with the saved index (median).

A larger size (default 1,000,000) is projected linearly from the two largest measured and labelled so.
``--before DIR`` also runs the cold build from the same files with another checkout (e.g. main), and
``--one-process`` with no forked helper (a bank of 20,000 quotes or more is otherwise gathered in two, and
one of 10,000 or more saved by a forked child).
Start-up against the import floor: benchmarks/startup.py.

    python benchmarks/retrieval.py
    python benchmarks/retrieval.py --sizes 100000 --queries 300 --before /path/to/main
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
    vocab = sorted(
        {w.strip(".,?!\"'").lower() for q in base.quotes for w in q.text.split() if len(w) > 3}
    )
    invented = [
        "".join(rng.choice("bcdfghjklmnprstvwz") + rng.choice("aeiou") for _ in range(3))
        for _ in range(20_000)
    ]
    words = vocab + invented
    speakers = ["ada", "ben", "cy", "di"]
    panelists = {
        s: Persona(s, s.title(), "Role", "Org", keywords=tuple(rng.sample(vocab, 20)))
        for s in speakers
    }
    questions = [
        HostQuestion(
            f"q{i:03d}",
            " ".join(rng.choice(words) for _ in range(12)) + "?",
            answered_by=(rng.choice(speakers),),
        )
        for i in range(500)
    ]
    quotes = []
    for i in range(n):
        sp = speakers[i % 4]
        text = " ".join(rng.choice(words) for _ in range(rng.randint(20, 80))) + "."
        quotes.append(
            Quote(
                f"{sp}-{i:06d}",
                sp,
                text,
                question=f"q{rng.randrange(500):03d}",
                keywords=tuple(rng.sample(words, 5)),
            )
        )
    return Panel(
        "synthetic",
        "Synthetic",
        Path("."),
        "curated",
        None,
        panelists,
        quotes,
        questions,
        vocabulary=dict(base.vocabulary),
        topics=("kv cache", "kernels"),
    )


QUESTION = "kernel cache memory latency"


def write_panel_files(panel: Panel, directory: Path, *, block_yaml: bool = False) -> None:
    """The synthetic panel as files (quotes and questions as JSON, which is YAML too; or the quotes as block
    YAML, as ``panelbot ingest`` writes them), so that the saved index is keyed and found exactly as a real
    panel's is."""
    directory.mkdir(parents=True, exist_ok=True)
    people = "".join(
        f"  - {{id: {p.id}, name: {p.name}, keywords: {json.dumps(list(p.keywords))}}}\n"
        for p in panel.panelists.values()
    )
    (directory / "panel.yaml").write_text(
        f"format: 1\ntitle: {panel.title}\npanelists:\n{people}"
        f"topics: {json.dumps(list(panel.topics))}\n",
        encoding="utf-8",
    )
    (directory / "questions.yaml").write_text(
        json.dumps(
            [
                {"id": q.id, "text": q.text, "answered_by": list(q.answered_by)}
                for q in panel.questions
            ]
        )
    )
    if block_yaml:
        import yaml

        with (directory / "quotes.yaml").open("w", encoding="utf-8") as f:
            for q in panel.quotes:
                f.write(
                    yaml.dump(
                        [
                            {
                                "id": q.id,
                                "speaker": q.speaker,
                                "text": q.text,
                                "question": q.question,
                                "keywords": list(q.keywords),
                            }
                        ],
                        Dumper=getattr(yaml, "CSafeDumper", yaml.SafeDumper),
                        sort_keys=False,
                        allow_unicode=True,
                        width=110,
                    )
                )
        return
    with (directory / "quotes.yaml").open(
        "w", encoding="utf-8"
    ) as f:  # one quote at a time: the file's
        f.write("[\n")  # text is never held whole, so the peak RSS measured is the build's
        for i, q in enumerate(panel.quotes):
            f.write(
                ("," if i else "")
                + json.dumps(
                    {
                        "id": q.id,
                        "speaker": q.speaker,
                        "text": q.text,
                        "question": q.question,
                        "keywords": list(q.keywords),
                    }
                )
                + "\n"
            )
        f.write("]\n")


def _cpu_with_children() -> float:
    """CPU time (user + system) of this process and its finished children (the build's forked helper)."""
    me, kids = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def _rss_mb(who: int = resource.RUSAGE_SELF) -> float:
    return resource.getrusage(who).ru_maxrss / 1024


def measure_cold(directory: Path, queries: int) -> dict:
    """In a fresh process with an empty cache: everything between "the panel's files are on disk" and "the
    router is ready" (what ``panelbot ask`` does on a cache miss), part by part; then routing."""
    from panelbot.panel import load_panel
    from panelbot.retrieval import cache
    from panelbot.retrieval.index import QuoteIndex
    from panelbot.retrieval.vocabulary import Normalizer

    parts: dict[str, float] = {}
    t, c = time.perf_counter(), _cpu_with_children()
    t_start, c_start = t, c

    def mark(name: str) -> None:
        nonlocal t, c
        t2, c2 = time.perf_counter(), _cpu_with_children()
        parts[f"{name}_s"], parts[f"{name}_cpu_s"] = t2 - t, c2 - c
        t, c = t2, c2

    key = cache.cache_key(directory)
    mark("key")
    panel = load_panel(directory)
    mark("load")
    path = cache.cache_path(directory)
    normalizer = Normalizer(panel.vocabulary)
    forked = False
    if hasattr(cache, "save"):  # an older checkout (--before): build, then save (here or forked)
        index = QuoteIndex(panel, normalizer)
        mark("build")
        cache.save(path, key, panel, index)
        forked = path in cache.saves_under_way()
        mark("save")
    else:  # SQLite: built straight into the saved file (renamed into place when whole)
        db = cache.write_index(path, key, panel, normalizer)
        mark("build")
        index = QuoteIndex(panel, normalizer, db)
        mark("save")
    router = Router(panel, index=index)
    mark("router")
    ready_s, ready_cpu_s = t - t_start, c - c_start
    notes = getattr(cache, "finish_saves", list)()
    if notes or not path.is_file():
        raise RuntimeError(f"the index was not saved: {notes}")
    mark("wait")
    cold = {
        "cold_s": ready_s,
        "cold_cpu_s": ready_cpu_s,
        "saved_s": t - t_start,
        "saved_cpu_s": c - c_start,
        "forked_save": forked,
        "cold_rss_mb": _rss_mb(),
        "helper_rss_mb": _rss_mb(resource.RUSAGE_CHILDREN),
        "file_mb": path.stat().st_size / 1e6,
    }
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
    return {
        "quotes": len(panel.quotes),
        **parts,
        **cold,
        "route_p50_ms": statistics.median(lat),
        "route_p95_ms": lat[int(0.95 * (len(lat) - 1))],
        "routed_rss_mb": _rss_mb(),
    }


WARM = """
import atexit, resource, sys

def rss():  # registered first, so run last: after the exit handler that waits for a save under way
    rss = max(resource.getrusage(w).ru_maxrss for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    print(f"RSS {rss / 1024:.1f}", file=sys.stderr)

atexit.register(rss)
from panelbot.cli import main
raise SystemExit(main(sys.argv[1:]))
"""


def ask(directory: Path, env: dict[str, str]) -> tuple[float, float, float, str]:
    """``panelbot ask --offline --panel DIR QUESTION`` in a new process: when its answer was shown (its
    first output), when it exited (wall times), its peak RSS (a forked helper's included), its stderr."""
    t = time.perf_counter()
    p = subprocess.Popen(
        [sys.executable, "-c", WARM, "ask", "--offline", "--panel", str(directory), QUESTION],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert p.stdout is not None and p.stderr is not None
    first = p.stdout.read(1)
    shown = time.perf_counter() - t
    out, err = first + p.stdout.read(), p.stderr.read().decode()
    if p.wait() or not out:
        raise RuntimeError(f"ask failed ({p.returncode}): {err}")
    return shown, time.perf_counter() - t, float(err.split("RSS ")[-1]), err


def cli_cold_and_warm(directory: Path, env: dict[str, str], runs: int, warmed: Path) -> dict:
    """The command with an empty cache (it builds and saves the index), then --runs times with it saved.
    ``warmed``: a cache directory that already holds this panel's index."""
    # compile the bytecode first, as an installed package has it (with the saved index: no build)
    ask(directory, dict(env, PANELBOT_CACHE_DIR=str(warmed)))
    shutil.rmtree(env["PANELBOT_CACHE_DIR"], ignore_errors=True)
    cold_shown, cold_s, cold_rss, _ = ask(directory, env)
    times, rss = [], 0.0
    for _ in range(runs):
        _, s, r, err = ask(directory, env)
        if err.splitlines()[0].startswith("panelbot: note"):
            raise RuntimeError(f"the saved index was not used: {err}")
        times.append(s)
        rss = max(rss, r)
    return {
        "cli_cold_shown_s": cold_shown,
        "cli_cold_s": cold_s,
        "cli_cold_rss_mb": cold_rss,
        "warm_s": statistics.median(times),
        "warm_rss_mb": rss,
    }


def _child(args: list[str], env: dict[str, str]) -> dict:
    out = subprocess.run([sys.executable, __file__, *args], env=env, capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError(out.stderr)
    return json.loads(out.stdout.strip().splitlines()[-1]) if out.stdout.strip() else {}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000,10000,100000", help="bank sizes, comma separated")
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--runs", type=int, default=5, help="warm starts per size (median)")
    ap.add_argument(
        "--project",
        type=int,
        default=1_000_000,
        help="also project this size linearly from the two largest measured (0: no)",
    )
    ap.add_argument(
        "--before",
        metavar="DIR",
        help="also run the cold build from the same files with another panelbot checkout (e.g. main)",
    )
    ap.add_argument(
        "--one-process",
        action="store_true",
        help="also run the cold build with no forked helpers (one process), to compare",
    )
    ap.add_argument(
        "--yaml",
        action="store_true",
        help="write the quote bank as block YAML (as ingest does) instead of JSON",
    )
    ap.add_argument("--write", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--no-helper", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--cold", help=argparse.SUPPRESS)
    ap.add_argument("--dir", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if (
        args.write
    ):  # a child: write the bank's files (generating it costs memory the build must not count)
        write_panel_files(synthetic_panel(args.write), Path(args.dir), block_yaml=args.yaml)
        return
    if args.cold:  # a child: the cold build in a fresh interpreter, so that its peak RSS is its own
        if args.no_helper:  # an older checkout's forked helpers off
            from panelbot.retrieval import cache, index

            index.PARALLEL_FROM = cache.FORK_SAVE_FROM = sys.maxsize
        print(json.dumps(measure_cold(Path(args.cold), args.queries)))
        return
    tmp = Path(tempfile.mkdtemp(prefix="panelbot-growth-"))
    env = dict(
        os.environ,
        PANELBOT_CACHE_DIR=str(tmp / "cache"),
        PANELBOT_DATA_DIR=str(tmp / "data"),
        PANELBOT_CONFIG=os.devnull,
        PYTHONPYCACHEPREFIX=str(tmp / "pycache"),
    )
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # commands run with compiled bytecode, as installed
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    rows = []
    try:
        for n in [int(x) for x in args.sizes.split(",")]:
            d = tmp / f"synthetic-{n}"
            _child(["--write", str(n), "--dir", str(d), *(["--yaml"] if args.yaml else [])], env)
            shutil.rmtree(tmp / "cache", ignore_errors=True)
            row = _child(["--cold", str(d), "--queries", str(args.queries)], env)
            row.update(
                cli_cold_and_warm(
                    d,
                    dict(env, PANELBOT_CACHE_DIR=str(tmp / "cli-cache")),
                    args.runs,
                    tmp / "cache",
                )
            )
            rows.append(row)
            print(_line(row, ""), flush=True)
            if args.one_process:
                one = _child(
                    ["--cold", str(d), "--queries", str(args.queries), "--no-helper"],
                    dict(env, PANELBOT_CACHE_DIR=str(tmp / "one-cache")),
                )
                print(_line(one, "  <- one process (no forked helper)", short=True), flush=True)
            if args.before:
                b = _child(
                    ["--cold", str(d), "--queries", str(args.queries)],
                    dict(env, PYTHONPATH=args.before, PANELBOT_CACHE_DIR=str(tmp / "before-cache")),
                )
                print(_line(b, f"  <- before ({args.before})", short=True), flush=True)
        if args.project and len(rows) >= 2 and args.project > rows[-1]["quotes"]:
            a, b = rows[-2], rows[-1]
            f = (args.project - b["quotes"]) / (b["quotes"] - a["quotes"])
            proj = {k: b[k] + f * (b[k] - a[k]) for k in b if type(b[k]) is float}
            proj["quotes"] = args.project
            print(
                _line(
                    proj,
                    f"  (projected linearly from {a['quotes']:,} and {b['quotes']:,}, not run)",
                )
            )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"load average at the end {os.getloadavg()[0]:.1f}")


def _line(r: dict, note: str, *, short: bool = False) -> str:
    forked = r.get("forked_save", True)  # (a projection: as the largest size measured)
    save = "save: fork" if forked else "save"
    parts = ", ".join(
        f"{label} {r[f'{k}_s']:.2f}"
        for k, label in (
            ("key", "key"),
            ("load", "load"),
            ("build", "build"),
            ("save", save),
            ("router", "router"),
        )
    )
    saved = (
        f"SAVED {r['saved_s']:6.2f} s (the forked child's file in place {r['wait_s']:.2f} s after ready)"
        if forked
        else f"SAVED {r['saved_s']:6.2f} s (saved in process, before ready)"
    )
    out = (
        f"{r['quotes']:>9,} quotes: COLD BUILD ready {r['cold_s']:6.2f} s (CPU {r['cold_cpu_s']:6.2f} s; "
        f"{parts}), {saved}, peak RSS {r['cold_rss_mb']:4.0f} MB (forked helpers {r['helper_rss_mb']:4.0f} MB), "
        f"route p50 {r['route_p50_ms']:5.1f} ms / p95 {r['route_p95_ms']:5.1f} ms "
        f"(RSS then {r['routed_rss_mb']:4.0f} MB)"
    )
    if not short:
        out += (
            f", saved file {r['file_mb']:.0f} MB; command cold: answer shown {r['cli_cold_shown_s']:5.2f} s, "
            f"exited (index saved) {r['cli_cold_s']:5.2f} s ({r['cli_cold_rss_mb']:4.0f} MB), "
            f"WARM start + first answer {r['warm_s']:5.2f} s ({r['warm_rss_mb']:4.0f} MB)"
        )
    return out + note


if __name__ == "__main__":
    main()
