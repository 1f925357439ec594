"""Start-up against the size of the library: how many talks are installed (not how big one is; for that,
benchmarks/retrieval.py).

For each library size (default 1, 10, 100 and 300 installed talks, copies of the shipped panel and the test
fixtures' talks, each under its own name, in a directory on ``$PANELBOT_PANELS``), with every saved index
in place (made by one untimed ``ask --all``), the median over --runs new processes of:

* ``ask --offline QUESTION`` on the shipped panel (one talk, whatever else is installed);
* ``ask --all QUESTION`` (every talk: grows with the library, by design);
* ``panels`` (lists every talk from its metadata);

plus the one untimed-before ``ask --all`` that saved every index (the cold build of the whole library).
CPU time (user + system) of the child is reported next to wall time; the machine's load average is printed.

    python benchmarks/library.py [--sizes 1 10 100 300] [--runs 5]
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

ROOT = Path(__file__).resolve().parent.parent
SOURCES = [
    ROOT / "persona_data" / "minimax-m3",
    ROOT / "tests" / "fixtures" / "library" / "gardens",
    ROOT / "tests" / "fixtures" / "library" / "storage",
]
QUESTION = "How do you deal with a growing KV cache?"


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run(args: list[str], env: dict[str, str], cwd: str) -> tuple[float, float]:
    t, c = time.perf_counter(), _cpu()
    subprocess.run(
        [sys.executable, "-m", "panelbot", *args],
        env=env,
        cwd=cwd,
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return time.perf_counter() - t, _cpu() - c


def make_library(directory: Path, n: int) -> None:
    """``n`` talks: the shipped panel and the fixtures in turn, copied under new names."""
    directory.mkdir(parents=True)
    for i in range(n):
        src = SOURCES[i % len(SOURCES)]
        shutil.copytree(src, directory / f"talk-{i:04d}-{src.name}")


def _cell(times: list[tuple[float, float]]) -> str:
    wall = statistics.median(w for w, _ in times)
    cpu = statistics.median(c for _, c in times)
    return f"{wall * 1000:7.0f} ms ({cpu * 1000:4.0f} cpu)"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1, 10, 100, 300])
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="panelbot-library-"))
    load = os.getloadavg()[0]
    print(
        f"machine: {os.cpu_count()} cores, {platform.machine()}, Python {platform.python_version()}, "
        f"{platform.system()} {platform.release()}; load average {load:.1f}"
    )
    print(
        f"{'talks':>6} | {'cold ask --all':>15} | {'ask --offline (one talk)':>25} | {'ask --all':>19} | "
        f"{'panels':>19}"
    )
    try:
        for n in args.sizes:
            lib = tmp / f"lib-{n}"
            make_library(lib, n)
            (tmp / "data").mkdir(exist_ok=True)
            env = dict(
                os.environ,
                PANELBOT_PANELS=str(lib),
                PANELBOT_DATA_DIR=str(tmp / "data"),
                PANELBOT_CONFIG=os.devnull,
                PANELBOT_CACHE_DIR=str(tmp / f"cache-{n}"),
                PANELBOT_BACKEND="offline",
                PYTHONPYCACHEPREFIX=str(tmp / "pycache"),
            )
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            # compiled bytecode first (one shared prefix for every size), in a cache that is then dropped
            run(
                ["ask", "--all", "--no-log", QUESTION],
                dict(env, PANELBOT_CACHE_DIR=str(tmp / "warm-up")),
                str(tmp),
            )
            shutil.rmtree(tmp / "warm-up", ignore_errors=True)
            cold = run(["ask", "--all", "--no-log", QUESTION], env, str(tmp))
            commands = {
                "one": ["ask", "--offline", "--no-log", "--panel", "minimax-m3", QUESTION],
                "all": ["ask", "--all", "--no-log", QUESTION],
                "panels": ["panels"],
            }
            for c in commands.values():  # compiled bytecode and the OS file cache, untimed
                run(c, env, str(tmp))
            got: dict[str, list[tuple[float, float]]] = {k: [] for k in commands}
            for _ in range(args.runs):
                for k, c in commands.items():
                    got[k].append(run(c, env, str(tmp)))

            print(
                f"{n:>6} | {cold[0]:6.2f} s ({cold[1]:4.2f} cpu) | {_cell(got['one']):>25} | "
                f"{_cell(got['all']):>19} | {_cell(got['panels']):>19}"
            )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"load average after: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
