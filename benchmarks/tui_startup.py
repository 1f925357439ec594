"""Time to the first frame of the terminal app (a benchmark, not a test).

Two measurements, each the median of --runs runs:

* in-process (headless): from spawning ``python`` to the app being ready with its first screen laid out
  (Textual's auto-pilot runs then); includes interpreter start-up, imports, panel load and router build;
* real terminal (tmux): from starting the ``panelbot`` executable in a tmux pane until its welcome text is
  on the screen (polled every 10 ms, so the figure can be up to ~10 ms late). Skipped without tmux.

    python benchmarks/tui_startup.py [--runs 7] [--panel minimax-m3]
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
import uuid
from pathlib import Path

CHILD = r"""
import sys, time
from panelbot.config import Config
from panelbot.tui.app import PanelbotApp

async def ready(pilot):
    print(f"READY {time.time():.6f}", flush=True)
    pilot.app.exit()

app = PanelbotApp(Config(panel=sys.argv[1]), sys.argv[1], False)
app.run(headless=True, size=(120, 36), auto_pilot=ready)
"""


def headless_once(panel: str, env: dict[str, str]) -> float:
    start = time.time()
    # from the data directory: `-c` puts the working directory first on sys.path (it would shadow --before)
    out = subprocess.run(
        [sys.executable, "-c", CHILD, panel],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        cwd=env["PANELBOT_DATA_DIR"],
    )
    for line in out.stdout.splitlines():
        if line.startswith("READY "):
            return float(line.split()[1]) - start
    raise RuntimeError(f"the app did not start: {out.stderr[-2000:]}")


def tmux_once(exe: str, env: dict[str, str]) -> float:
    sock = f"panelbot-bench-{uuid.uuid4().hex[:8]}"
    env_args = [a for k, v in env.items() if k.startswith("PANELBOT_") for a in ("-e", f"{k}={v}")]
    try:
        subprocess.run(
            [
                "tmux",
                "-L",
                sock,
                "new-session",
                "-d",
                "-s",
                "b",
                "-x",
                "120",
                "-y",
                "36",
                *env_args,
                "sleep 30",
            ],
            check=True,
        )
        start = time.time()
        subprocess.run(["tmux", "-L", sock, "respawn-pane", "-k", "-t", "b", exe], check=True)
        while time.time() - start < 30:
            screen = subprocess.run(
                ["tmux", "-L", sock, "capture-pane", "-p", "-t", "b"],
                capture_output=True,
                text=True,
            ).stdout
            if "anything about the talk" in screen:
                return time.time() - start
            time.sleep(0.01)
        raise RuntimeError("no first frame within 30 s")
    finally:
        subprocess.run(["tmux", "-L", sock, "kill-server"], capture_output=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--panel", default="minimax-m3")
    ap.add_argument(
        "--before",
        metavar="DIR",
        help="also time another checkout's app headless (PYTHONPATH=DIR), interleaved",
    )
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="panelbot-bench-")
    env = dict(
        os.environ,
        PANELBOT_DATA_DIR=tmp,
        PANELBOT_CONFIG=os.devnull,
        PANELBOT_BACKEND="offline",
        PANELBOT_CACHE_DIR=str(Path(tmp) / "cache"),
    )
    print(
        f"machine: {os.cpu_count()} cores, {platform.machine()}, Python {platform.python_version()}, "
        f"{platform.system()} {platform.release()}"
    )
    headless_once(
        args.panel, env
    )  # warm the OS file cache and .pyc files, and save the panel's index
    before_env = dict(env, PYTHONPATH=args.before) if args.before else None
    if before_env:
        headless_once(args.panel, before_env)
    runs, before = [], []
    for _ in range(args.runs):
        runs.append(headless_once(args.panel, env))
        if before_env:
            before.append(headless_once(args.panel, before_env))
    print(
        f"headless, spawn to first frame: median {statistics.median(runs):.3f} s "
        f"(min {min(runs):.3f}, max {max(runs):.3f}, {len(runs)} runs)"
    )
    if before:
        print(
            f"headless, before ({args.before}), interleaved: median {statistics.median(before):.3f} s "
            f"(min {min(before):.3f}, max {max(before):.3f}, {len(before)} runs)"
        )
    exe = str(Path(sys.executable).parent / "panelbot")
    if not os.access(exe, os.X_OK):
        exe = shutil.which("panelbot") or ""
    if shutil.which("tmux") and exe:
        runs = [tmux_once(exe, env) for _ in range(args.runs)]
        print(
            f"tmux, `panelbot` to welcome on screen: median {statistics.median(runs):.3f} s "
            f"(min {min(runs):.3f}, max {max(runs):.3f}, {len(runs)} runs)"
        )
    else:
        print("tmux or the panelbot executable is missing: real-terminal measurement skipped")
    shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
