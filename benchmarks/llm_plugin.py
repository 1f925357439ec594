"""What the ``llm`` plugin adds to ``llm``'s start-up: the same commands with and without it, interleaved.

* ``llm --help``: llm loads its plugins (the plugin module is imported: only its hooks);
* ``llm models``: llm asks every plugin for its models (panelbot reads its config and the installed talks'
  panel.yaml files; no quote bank is read and no index opened);
* ``llm -m panelbot-dan QUESTION``: one answer in-process (the saved index is read), for scale.

"Without" runs with ``LLM_LOAD_PLUGINS=`` (no entry-point plugin loaded); each command runs --runs times,
interleaved, and the medians of wall and CPU time (user + system) are compared. Bytecode is compiled once into
a temporary ``PYTHONPYCACHEPREFIX`` (as an installed package has it), and ``llm``'s directory is a temporary
``LLM_USER_PATH``.

    python benchmarks/llm_plugin.py [--runs 9]
"""

from __future__ import annotations

import argparse
import os
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
import statistics, time, timeit
import llm, llm.cli

t = time.process_time(); import panelbot.llm_plugin as plugin; first = (time.process_time() - t) * 1000
models = []
t = time.process_time(); plugin.register_models(lambda m, *a, **k: models.append(m))
once = (time.process_time() - t) * 1000
again = timeit.repeat(lambda: plugin.register_models(lambda m, *a, **k: None), number=1, repeat=21,
                      timer=time.process_time)
print(f"in process, CPU: importing the plugin {first:.1f} ms; register_models {once:.1f} ms the first "
      f"time (panelbot's config and loader imported), then {statistics.median(again) * 1000:.1f} ms; "
      f"{len(models)} models")
"""


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    t, c = time.perf_counter(), _cpu()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env=env)
    return time.perf_counter() - t, _cpu() - c


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=9)
    args = ap.parse_args()
    exe = shutil.which("llm", path=str(Path(sys.executable).parent)) or shutil.which("llm")
    if exe is None:
        print("the llm CLI is not installed (pip install -e '.[dev]')", file=sys.stderr)
        return 2
    tmp = Path(tempfile.mkdtemp(prefix="panelbot-llm-plugin-"))
    env = dict(
        os.environ,
        PANELBOT_DATA_DIR=str(tmp / "data"),
        PANELBOT_CONFIG=os.devnull,
        PANELBOT_CACHE_DIR=str(tmp / "cache"),
        LLM_USER_PATH=str(tmp / "llm"),
        PYTHONPYCACHEPREFIX=str(tmp / "pycache"),
    )
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    without = dict(env, LLM_LOAD_PLUGINS="")
    commands = {"--help": [exe, "--help"], "models": [exe, "models"]}
    answer = [exe, "-m", "panelbot-dan", "--no-log", QUESTION]
    for cmd in [*commands.values(), answer]:  # .pyc files, the saved index, the OS file cache
        timed(cmd, env)
    got: dict[str, list[tuple[float, float]]] = {}
    for _ in range(args.runs):
        for name, cmd in commands.items():
            got.setdefault(f"{name} without", []).append(timed(cmd, without))
            got.setdefault(f"{name} with", []).append(timed(cmd, env))
        got.setdefault("answer", []).append(timed(answer, env))
    load = os.getloadavg()[0]
    med = {
        k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v))
        for k, v in got.items()
    }
    print(f"machine: {os.cpu_count()} cores, load average {load:.1f}; {args.runs} runs each")
    for name in commands:
        (w0, c0), (w1, c1) = med[f"{name} without"], med[f"{name} with"]
        print(
            f"llm {name:<7} without the plugin {w0 * 1000:6.0f} ms (CPU {c0 * 1000:4.0f}), with it "
            f"{w1 * 1000:6.0f} ms (CPU {c1 * 1000:4.0f}): {(w1 - w0) * 1000:+.0f} ms wall, "
            f"{(c1 - c0) * 1000:+.0f} ms CPU"
        )
    w, c = med["answer"]
    print(f"llm -m panelbot-dan QUESTION (one answer): {w * 1000:.0f} ms (CPU {c * 1000:.0f})")
    out = subprocess.run(
        [sys.executable, "-c", BREAKDOWN], env=env, capture_output=True, text=True, check=True
    )
    print(out.stdout.strip())
    shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
