"""Start-up of ``panelbot ask --offline`` against the import floor, as ratios measured in one run.

Three commands, run interleaved (so a busy machine slows them alike) --runs times each, medians compared:

* floor: ``python -c "import rapidfuzz, yaml"`` (Python's own start plus the two libraries panelbot needs);
* warm:  ``python -m panelbot ask --offline QUESTION`` with the panel's saved index in place;
* cold:  the same with an empty cache directory (the YAML is read and the index built, then saved).

    python benchmarks/startup.py [--runs 9] [--panel minimax-m3]
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

QUESTION = "How do you deal with a growing KV cache?"


def wall(cmd: list[str], env: dict[str, str]) -> float:
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env=env)
    return time.perf_counter() - t


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--panel", default="minimax-m3")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="panelbot-startup-"))
    base = dict(os.environ, PANELBOT_DATA_DIR=str(tmp / "data"), PANELBOT_CONFIG=str(tmp / "none.yaml"),
                PANELBOT_BACKEND="offline")
    warm_env = dict(base, PANELBOT_CACHE_DIR=str(tmp / "warm-cache"))
    ask = [sys.executable, "-m", "panelbot", "ask", "--offline", "--panel", args.panel, QUESTION]
    floor = [sys.executable, "-c", "import rapidfuzz, yaml"]
    wall(ask, warm_env)  # fills the warm cache, .pyc files and the OS file cache
    wall(floor, base)
    times: dict[str, list[float]] = {"floor": [], "warm": [], "cold": []}
    load_before = os.getloadavg()
    for i in range(args.runs):
        times["floor"].append(wall(floor, base))
        times["warm"].append(wall(ask, warm_env))
        cold_env = dict(base, PANELBOT_CACHE_DIR=str(tmp / f"cold-cache-{i}"))  # empty every time
        times["cold"].append(wall(ask, cold_env))
    load_after = os.getloadavg()
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"machine: {os.cpu_count()} cores, {platform.machine()}, Python {platform.python_version()}, "
          f"{platform.system()} {platform.release()}; load average {load_before[0]:.1f} -> {load_after[0]:.1f}")
    for k in ("floor", "warm", "cold"):
        v = times[k]
        print(f"{k:>5}: median {med[k] * 1000:6.1f} ms  (min {min(v) * 1000:.1f}, max {max(v) * 1000:.1f}, "
              f"{len(v)} runs)")
    print(f"ratios to the floor: warm {med['warm'] / med['floor']:.2f}x (aim <= 1.5x), "
          f"cold {med['cold'] / med['floor']:.2f}x (aim <= 2.5x)")
    shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
