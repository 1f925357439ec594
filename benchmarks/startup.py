"""Start-up of ``panelbot ask --offline`` against the import floor, as ratios measured in one run.

Three commands, run interleaved (so a busy machine slows them alike) --runs times each, medians compared:

* floor: ``python -c "import rapidfuzz, yaml"`` (Python's own start plus the two libraries panelbot needs);
* warm:  ``python -m panelbot ask --offline QUESTION`` with the panel's saved index in place (the question is
  logged to the history, as ``ask`` does by default);
* nolog: the same with ``--no-log`` (no history database opened);
* cold:  the same with an empty cache directory (the YAML is read and the index built, then saved).

    python benchmarks/startup.py [--runs 9] [--panel minimax-m3] [--before /path/to/other/checkout]

Bytecode: every command runs as from an installed package, with compiled ``.pyc`` files. They are kept in a
temporary ``PYTHONPYCACHEPREFIX`` (no checkout is written to) and filled by a first, unmeasured run of each
command; ``PYTHONDONTWRITEBYTECODE`` is dropped for the children, since with it set and no ``.pyc`` files
every run would recompile panelbot's sources (~35 ms of CPU) while the floor's libraries come compiled.

``--before DIR`` also times ``ask --offline`` from another checkout of panelbot (``PYTHONPATH=DIR``, e.g. the
main branch) in the same interleaved run.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

QUESTION = "How do you deal with a growing KV cache?"

BREAKDOWN = """
import statistics, sys, time
from panelbot.panel import load_panel
from panelbot.panel.loader import find_panel_dir
from panelbot.retrieval.cache import open_indexed
from panelbot.retrieval.index import QuoteIndex
from panelbot.retrieval.router import Router
from panelbot.retrieval.vocabulary import Normalizer

def cpu(f, n=21):
    out = []
    for _ in range(n):
        t = time.process_time(); f(); out.append(time.process_time() - t)
    return statistics.median(out) * 1000

d = find_panel_dir(sys.argv[1])
o = open_indexed(d)
r = Router(o.panel, index=o.index)
p = load_panel(d)
print(f"in process, CPU medians: saved index read and checked {cpu(lambda: open_indexed(d)):.1f} ms, "
      f"router {cpu(lambda: Router(o.panel, index=o.index)):.1f} ms, "
      f"answer {cpu(lambda: r.route(sys.argv[2])):.1f} ms; instead, YAML {cpu(lambda: load_panel(d)):.1f} ms "
      f"+ index build {cpu(lambda: QuoteIndex(p, Normalizer(p.vocabulary))):.1f} ms")
"""


CPU: dict[
    str, list[float]
] = {}  # the same runs' CPU time (user + system): steadier on a busy machine


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def wall(cmd: list[str], env: dict[str, str], label: str = "") -> float:
    t, c = time.perf_counter(), _cpu()
    # run from an empty directory: `-m` puts the working directory first on sys.path, which would shadow
    # PYTHONPATH (--before) with the checkout the benchmark is started from
    subprocess.run(
        cmd, check=True, stdout=subprocess.DEVNULL, env=env, cwd=env["PANELBOT_DATA_DIR"]
    )
    if label:
        CPU.setdefault(label, []).append(_cpu() - c)
    return time.perf_counter() - t


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--panel", default="minimax-m3")
    ap.add_argument("--before", metavar="DIR", help="another panelbot checkout to time alongside")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="panelbot-startup-"))
    (tmp / "data").mkdir()
    base = dict(
        os.environ,
        PANELBOT_DATA_DIR=str(tmp / "data"),
        PANELBOT_CONFIG=os.devnull,
        PANELBOT_BACKEND="offline",
        PYTHONPYCACHEPREFIX=str(tmp / "pycache"),
    )
    base.pop("PYTHONDONTWRITEBYTECODE", None)
    warm_env = dict(base, PANELBOT_CACHE_DIR=str(tmp / "warm-cache"))
    ask = [sys.executable, "-m", "panelbot", "ask", "--offline", "--panel", args.panel, QUESTION]
    floor = [sys.executable, "-c", "import rapidfuzz, yaml"]
    wall(ask, warm_env)  # fills the warm cache, .pyc files and the OS file cache
    wall(ask, dict(base, PANELBOT_CACHE_DIR=str(tmp / "cold-cache-warmup")))
    wall(floor, base)
    nolog = [*ask[:-1], "--no-log", QUESTION]
    times: dict[str, list[float]] = {"floor": [], "warm": [], "nolog": [], "cold": []}
    before_env = (
        dict(base, PYTHONPATH=args.before, PANELBOT_CACHE_DIR=str(tmp / "before-cache"))
        if args.before
        else None
    )
    if before_env:
        times["before"] = []
        wall(ask, before_env)
    load_before = os.getloadavg()
    for i in range(args.runs):
        times["floor"].append(wall(floor, base, "floor"))
        times["warm"].append(wall(ask, warm_env, "warm"))
        times["nolog"].append(wall(nolog, warm_env, "nolog"))
        cold_env = dict(base, PANELBOT_CACHE_DIR=str(tmp / f"cold-cache-{i}"))  # empty every time
        times["cold"].append(wall(ask, cold_env, "cold"))
        if before_env:
            times["before"].append(wall(ask, before_env, "before"))
    load_after = os.getloadavg()
    med = {k: statistics.median(v) for k, v in times.items()}
    print(
        f"machine: {os.cpu_count()} cores, {platform.machine()}, Python {platform.python_version()}, "
        f"{platform.system()} {platform.release()}; load average {load_before[0]:.1f} -> {load_after[0]:.1f}"
    )
    for k in times:
        v = times[k]
        print(
            f"{k:>5}: median {med[k] * 1000:6.1f} ms  (min {min(v) * 1000:.1f}, max {max(v) * 1000:.1f}, "
            f"{len(v)} runs)"
        )
    print(
        f"ratios to the floor: warm {med['warm'] / med['floor']:.2f}x (aim <= 2x, issues 18 and 19), "
        f"warm --no-log {med['nolog'] / med['floor']:.2f}x, "
        f"cold {med['cold'] / med['floor']:.2f}x (aim <= 2.5x)"
        + (f", before ({args.before}) {med['before'] / med['floor']:.2f}x" if args.before else "")
    )
    out = subprocess.run(
        [sys.executable, "-c", BREAKDOWN, args.panel, QUESTION],
        env=warm_env,
        capture_output=True,
        text=True,
        check=True,
        cwd=warm_env["PANELBOT_DATA_DIR"],
    )
    print(out.stdout.strip())
    cpu = {k: statistics.median(v) for k, v in CPU.items()}
    print(
        "CPU time (user + system), medians: "
        + ", ".join(f"{k} {v * 1000:.0f} ms ({v / cpu['floor']:.2f}x)" for k, v in cpu.items())
    )
    shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
