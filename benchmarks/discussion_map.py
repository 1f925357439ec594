"""The whole-talk discussion map (``panelbot discuss --map``): its CPU time on a fresh cache and a warm one.

Each run is a fresh interpreter (``python -m panelbot discuss --map --no-log``) with its own cache directory:
"fresh" starts from an empty one (as a first run after installing), "warm" reuses what the fresh run left.
CPU time is the child's user + system time (``resource.getrusage``), best of ``--runs``; the interpreter's
start and panelbot's import are measured the same way (``panelbot --version``) and shown apart.

    python benchmarks/discussion_map.py            # fresh and warm, best of 3
    python benchmarks/discussion_map.py --profile  # in process, fresh cache: where the map's time goes
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from library import run  # noqa: E402  (a child's wall and CPU time)

PANEL = ROOT / "persona_data" / "minimax-m3"


def _cpu(args: list[str], env: dict[str, str]) -> float:
    """CPU seconds (user + system) a fresh interpreter takes to run panelbot with ``args``."""
    return run(args, env, str(ROOT))[1]


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, {platform.system()}"


def timings(runs: int) -> None:
    base_env = {**os.environ, "PYTHONPATH": str(ROOT)}
    mapped = ["discuss", "--map", "--no-log", "--panel", str(PANEL)]
    fresh, warm, start = [], [], []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as cache, tempfile.TemporaryDirectory() as data:
            env = {**base_env, "PANELBOT_CACHE_DIR": cache, "PANELBOT_DATA_DIR": data}
            start.append(_cpu(["--version"], env))
            fresh.append(_cpu(mapped, env))
            warm.append(_cpu(mapped, env))
    print(f"machine: {machine()}")
    print(f"interpreter + import (panelbot --version)  {min(start):6.2f} s CPU")
    print(f"discuss --map, fresh cache                 {min(fresh):6.2f} s CPU (best of {runs})")
    print(f"discuss --map, warm cache                  {min(warm):6.2f} s CPU (best of {runs})")


def profile() -> None:
    import cProfile
    import pstats

    with tempfile.TemporaryDirectory() as cache:
        os.environ["PANELBOT_CACHE_DIR"] = cache
        sys.path.insert(0, str(ROOT))
        from panelbot.discussion.pairing import Pairing
        from panelbot.discussion.stage import discussion_map
        from panelbot.panel import load_panel
        from panelbot.retrieval.router import Router

        router = Router(load_panel(PANEL))
        prof = cProfile.Profile()
        prof.enable()
        entries = discussion_map(router, Pairing(router))
        prof.disable()
        print(f"{len(entries)} subjects")
        pstats.Stats(prof).sort_stats("cumulative").print_stats(25)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument(
        "--profile", action="store_true", help="profile the map in process (fresh cache)"
    )
    args = ap.parse_args(argv)
    if args.profile:
        profile()
    else:
        timings(args.runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
