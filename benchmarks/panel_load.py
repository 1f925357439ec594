"""Loading a large quote bank: ``load_panel`` alone, in fresh processes, as JSON and as block YAML.

The synthetic banks of benchmarks/retrieval.py (``synthetic_panel``, ``write_panel_files``), written once per
size and form; then --runs fresh interpreters per checkout, interleaved (a busy machine slows them alike), each
timing one ``load_panel(DIR)`` after its imports: CPU (user + system), wall time and the process's peak RSS.
Medians (and the best CPU) are printed; ``--before DIR`` times another checkout of panelbot (e.g. the main
branch) from the same files. This is the "load" part of retrieval.py's cold build, without the rest.

    python benchmarks/panel_load.py --sizes 100000 --runs 5 --before /path/to/main [--forms json,yaml]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ONE_LOAD = """
import json, resource, sys, time
from pathlib import Path
from panelbot.panel import load_panel
t, w = time.process_time(), time.perf_counter()
n = len(load_panel(Path(sys.argv[1])).quotes)
cpu, wall = time.process_time() - t, time.perf_counter() - w
print(json.dumps({"quotes": n, "cpu": cpu, "wall": wall,
                  "rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def one_load(directory: Path, env: dict[str, str], cwd: Path) -> dict:
    """One ``load_panel`` in a new interpreter started in ``cwd`` (an empty directory, so that ``-c`` does not
    put a checkout first on sys.path: the one loaded is PYTHONPATH's)."""
    out = subprocess.run(
        [sys.executable, "-c", ONE_LOAD, str(directory)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        cwd=cwd,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="100000", help="bank sizes, comma separated")
    ap.add_argument(
        "--forms",
        default="json,yaml",
        help="json (as retrieval.py writes it), yaml (block, as ingest)",
    )
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument(
        "--before", metavar="DIR", help="another panelbot checkout to time alongside (e.g. main)"
    )
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="panelbot-load-"))
    cwd = tmp / "cwd"
    cwd.mkdir()
    here = str(Path(__file__).resolve().parent.parent)
    env = dict(
        os.environ,
        PANELBOT_CACHE_DIR=str(tmp / "cache"),
        PANELBOT_DATA_DIR=str(tmp / "data"),
        PANELBOT_CONFIG=os.devnull,
        PYTHONPYCACHEPREFIX=str(tmp / "pycache"),
    )
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    checkouts = {"this": dict(env, PYTHONPATH=here)}
    if args.before:
        checkouts[f"before ({args.before})"] = dict(env, PYTHONPATH=args.before)
    print(
        f"{os.cpu_count()} cores, Python {sys.version.split()[0]}; load average {os.getloadavg()[0]:.1f}"
    )
    try:
        for n in [int(x) for x in args.sizes.split(",")]:
            for form in args.forms.split(","):
                d = tmp / f"bank-{n}-{form}"
                subprocess.run(
                    [
                        sys.executable,
                        str(Path(__file__).with_name("retrieval.py")),
                        "--write",
                        str(n),
                        "--dir",
                        str(d),
                        *(["--yaml"] if form == "yaml" else []),
                    ],
                    env=env,
                    check=True,
                )
                for e in checkouts.values():
                    one_load(d, e, cwd)  # compiles the bytecode and fills the OS file cache
                runs: dict[str, list[dict]] = {name: [] for name in checkouts}
                for _ in range(args.runs):
                    for name, e in checkouts.items():
                        runs[name].append(one_load(d, e, cwd))
                for name, rs in runs.items():
                    cpu = [r["cpu"] for r in rs]
                    print(
                        f"{n:>9,} quotes, {form:4s}: load_panel CPU {statistics.median(cpu):6.3f} s "
                        f"(best {min(cpu):.3f}), wall {statistics.median(r['wall'] for r in rs):6.3f} s, "
                        f"peak RSS {max(r['rss'] for r in rs):4.0f} MB  <- {name}",
                        flush=True,
                    )
                shutil.rmtree(d, ignore_errors=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
