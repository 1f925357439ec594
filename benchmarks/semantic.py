"""The sentence encoder (panelbot/retrieval/encoder.py): its costs and the quality of meaning alone.

Speed: numpy's import, the first use (weights widened from the shipped float16 file into an empty cache directory), a load from the
cache (the header of the memory-mapped weights), embedding one question, and embedding the shipped bank's rows
(each quote's text, asks and host question, batched). Quality, per eval file: recall@3 of retrieval by meaning
alone over the shipped quote bank (in-scope items), each quote scoring its best row, with the rows of
``--rows`` (text; text+host; text+asks+host).

    python benchmarks/semantic.py
    python benchmarks/semantic.py --eval ../shared/eval/questions.yaml eval/dev.yaml eval/test.yaml

What chose the encoder (2-core x86_64, Python 3.11, commit before it): on eval/dev.yaml, eval/test.yaml and
../shared/eval/questions.yaml (364 in-scope items), recall@3 with text+host rows 293/364 (paraphrases
95/126) against 224/364 (59/126) for the static model2vec distillation of the same model that panelbot
shipped before; with the asks too, 341/364 against 301/364.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from panelbot.panel import load_panel  # noqa: E402
from panelbot.retrieval.encoder import shipped_model  # noqa: E402
from panelbot.retrieval.evaluation import load_eval_set  # noqa: E402
from panelbot.retrieval.semantic import VectorTable  # noqa: E402

PANEL = ROOT / "persona_data" / "minimax-m3"
DEFAULT_EVAL = ["eval/dev.yaml", "eval/test.yaml", "eval/final.yaml"]


def _fresh(code: str, env: dict[str, str]) -> float:
    """Seconds a fresh interpreter takes to run ``code`` (best of three)."""
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True, env=env, cwd=ROOT)
        best = min(best, time.perf_counter() - started)
    return best


def speed() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    base = _fresh("pass", env)
    print(f"numpy import            {1000 * (_fresh('import numpy', env) - base):7.1f} ms")
    with tempfile.TemporaryDirectory() as cache:
        first = {**env, "PANELBOT_CACHE_DIR": cache}
        started = time.perf_counter()
        subprocess.run(
            [
                sys.executable,
                "-c",
                "from panelbot.retrieval.encoder import shipped_model as m; m()",
            ],
            check=True,
            env=first,
        )
        print(f"first use (widen)       {time.perf_counter() - started:7.2f} s")
    load = "from panelbot.retrieval.encoder import shipped_model as m; m().weights"
    print(f"load from the cache     {1000 * (_fresh(load, env) - base):7.1f} ms (with numpy)")
    model = shipped_model()
    model.embed("warm up")
    questions = [f"How do you keep the KV cache small on long tasks, case {i}?" for i in range(40)]
    started = time.perf_counter()
    for q in questions:
        model.embed(q)
    print(f"embed a question        {1000 * (time.perf_counter() - started) / 40:7.1f} ms")
    panel = load_panel(PANEL)
    rows = list(dict.fromkeys(t for q in panel.quotes for t in (q.text, *q.asks)))
    started = time.perf_counter()
    type(model)(model.path).embed_many(rows)
    print(f"the bank's {len(rows)} rows    {time.perf_counter() - started:7.2f} s")


def quality(files: list[str], variants: list[str]) -> None:
    panel = load_panel(PANEL)
    model = shipped_model()
    for variant in variants:
        texts: list[str] = []
        owners: list[int] = []
        for i, q in enumerate(panel.quotes):
            rows = [q.text]
            if "asks" in variant:
                rows += list(q.asks)
            host = panel.question(q.question) if q.question else None
            if "host" in variant and host:
                rows.append(host.text)
            for t in dict.fromkeys(rows):
                texts.append(t)
                owners.append(i)
        table = VectorTable(model.embed_many(texts), model.dims)
        hits: Counter[str] = Counter()
        totals: Counter[str] = Counter()
        for f in files:
            for it in load_eval_set(str(ROOT / f), panel):
                if not it.speakers or not it.quotes:
                    continue
                best = [-1.0] * len(panel.quotes)
                sims = table.similarities(model.embed(it.question))
                for owner, sim in zip(owners, sims, strict=True):
                    best[owner] = max(best[owner], sim)
                top = sorted(range(len(best)), key=lambda i: -best[i])[:3]
                kind = it.kind or "other"
                totals[kind] += 1
                hits[kind] += any(panel.quotes[i].id in it.quotes for i in top)
        by_kind = ", ".join(f"{k} {hits[k]}/{totals[k]}" for k in sorted(totals))
        print(f"{variant:15} recall@3 {sum(hits.values())}/{sum(totals.values())}  ({by_kind})")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--eval", nargs="*", default=DEFAULT_EVAL)
    ap.add_argument("--rows", nargs="*", default=["text", "text+host", "text+asks+host"])
    ap.add_argument("--no-speed", action="store_true")
    args = ap.parse_args()
    if not args.no_speed:
        speed()
    quality(args.eval, args.rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
