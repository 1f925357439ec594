"""The static embedding model (panelbot/retrieval/semantic.py): its costs and its retrieval quality.

Speed: model load (config only), the first embed (vocabulary read + matrix mapped), embed per question,
similarities over 44 / 10k / 100k rows in pure Python and with numpy (and where numpy starts to win),
numpy's import time, the memory of a 100k-row table. Quality, per eval file: recall@3 of pure semantic
retrieval over the shipped quote bank (in-scope items), with each quote embedded as its text alone, with
its ``asks`` as extra rows (a quote scores its best row), with its host question as one more row, and as
text + host question in one embedding; then the best similarity of in-scope vs off-topic (``speaker:
none``) items as quantiles and as a threshold sweep, for the scope decision.

    python benchmarks/semantic.py                                  # the shipped model
    python benchmarks/semantic.py --model /tmp/static_128_int8 --no-speed
    python benchmarks/semantic.py --eval ../shared/eval/questions.yaml eval/final.yaml

By default the eval files are eval/final.yaml and the independent set shared/eval/questions.yaml when a
``shared`` directory is found beside the repository or one of its parents.
"""

from __future__ import annotations

import argparse
import array
import math
import random
import statistics
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from panelbot.retrieval import semantic  # noqa: E402
from panelbot.retrieval.semantic import StaticModel, VectorTable  # noqa: E402

PANEL = ROOT / "persona_data" / "minimax-m3"


def best_of(fn: Callable[[], object], repeat: int) -> float:
    """Fastest of `repeat` runs, in milliseconds."""
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return min(times) * 1000


def random_table(rows: int, dims: int) -> VectorTable:
    rng = random.Random(1)
    flat = array.array("f", (rng.gauss(0, 1) for _ in range(rows * dims)))
    for at in range(0, len(flat), dims):
        norm = math.sqrt(sum(x * x for x in flat[at : at + dims]))
        flat[at : at + dims] = array.array("f", (x / norm for x in flat[at : at + dims]))
    return VectorTable.from_bytes(flat.tobytes(), dims)


def speed(model_dir: Path | None, questions: list[str]) -> None:
    started = time.perf_counter()
    model = StaticModel.load(model_dir)
    load_ms = (time.perf_counter() - started) * 1000
    started = time.perf_counter()
    model.embed(questions[0])
    first_ms = (time.perf_counter() - started) * 1000
    per = []
    for question in questions:
        started = time.perf_counter()
        model.embed(question)
        per.append((time.perf_counter() - started) * 1000)
    model.tokenizer._word_ids.clear()
    cold = []
    for question in questions:  # without the per-word WordPiece cache
        model.tokenizer._word_ids.clear()
        started = time.perf_counter()
        model.embed(question)
        cold.append((time.perf_counter() - started) * 1000)
    print(f"model load (config): {load_ms:.2f} ms; first embed (vocab + mmap): {first_ms:.1f} ms")
    print(
        f"embed per question ({len(questions)}): median {statistics.median(per):.3f} ms, "
        f"max {max(per):.3f} ms; with no word cache median {statistics.median(cold):.3f} ms"
    )
    code = "import time; t = time.perf_counter(); import numpy; print(time.perf_counter() - t)"
    imports = [
        float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout)
        for _ in range(3)
    ]
    print(f"import numpy in a fresh process: {min(imports) * 1000:.0f} ms")
    query = model.embed(questions[0])
    print("rows      pure Python    numpy (imported)   auto path")
    for rows in (44, 256, 1024, 4096, 10_000, 100_000):
        table = random_table(rows, model.dims)
        repeat = 20 if rows <= 4096 else 3
        python = best_of(lambda t=table: t._python_similarities(query), repeat)
        table._numpy_similarities(query)
        numpy_ms = best_of(lambda t=table: t._numpy_similarities(query).tolist(), repeat)
        path = "numpy" if semantic._use_numpy(rows) else "python"
        print(f"{rows:>7}   {python:>9.3f} ms   {numpy_ms:>9.3f} ms        {path}")
    tracemalloc.start()
    table = random_table(100_000, model.dims)
    table.similarities(query)
    current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(
        f"100k-row table: {len(table.to_bytes()) / 2**20:.1f} MiB of float32; traced after a search "
        f"{current / 2**20:.1f} MiB (peak {peak / 2**20:.1f} MiB)"
    )


def load_items(path: Path) -> list[dict]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    return [item for item in data if isinstance(item, dict) and "question" in item]


def quote_rows(model: StaticModel, variant: str) -> tuple[VectorTable, list[str]]:
    """A table of rows and, per row, the id of the quote it stands for."""
    quotes = yaml.safe_load((PANEL / "quotes.yaml").read_text(encoding="utf-8"))
    hosts = {q["id"]: q["text"] for q in yaml.safe_load((PANEL / "questions.yaml").read_text())}
    texts, owners = [], []
    for quote in quotes:
        host = hosts.get(quote.get("question"), "")
        if variant == "text + host question (one text)":
            rows = [f"{host} {quote['text']}"]
        else:
            rows = [quote["text"]]
            if variant != "text":
                rows += quote.get("asks") or []
            if variant == "text | asks | host question (max)" and host:
                rows.append(host)
        texts += rows
        owners += [quote["id"]] * len(rows)
    return VectorTable(model.embed_many(texts), model.dims), owners


def ranked_quotes(table: VectorTable, owners: list[str], query) -> list[tuple[str, float]]:
    best: dict[str, float] = {}
    for owner, similarity in zip(owners, table.similarities(query), strict=True):
        best[owner] = max(similarity, best.get(owner, -1.0))
    return sorted(best.items(), key=lambda item: -item[1])


def quantiles(values: list[float]) -> str:
    if not values:
        return "-"
    cuts = (
        statistics.quantiles(values, n=20, method="inclusive") if len(values) > 1 else values * 19
    )
    picks = {"min": min(values), "p10": cuts[1], "p25": cuts[4], "p50": cuts[9]}
    picks |= {"p75": cuts[14], "p90": cuts[17], "max": max(values)}
    return "  ".join(f"{name} {value:.3f}" for name, value in picks.items())


def quality(model: StaticModel, eval_path: Path) -> None:
    items = load_items(eval_path)
    inscope = [item for item in items if item.get("speaker") != "none" and item.get("quotes")]
    offtopic = [item for item in items if item.get("speaker") == "none"]
    print(f"\n{eval_path}: {len(inscope)} in scope, {len(offtopic)} off-topic")
    queries = {item["question"]: model.embed(item["question"]) for item in items}
    variants = (
        "text",
        "text | asks (max)",
        "text | asks | host question (max)",
        "text + host question (one text)",
    )
    for variant in variants:
        table, owners = quote_rows(model, variant)
        hits, recall, best_in, best_off = 0, 0.0, [], []
        for item in inscope:
            ranked = ranked_quotes(table, owners, queries[item["question"]])
            top = {quote for quote, _ in ranked[:3]}
            gold = set(item["quotes"])
            hits += bool(top & gold)
            recall += len(top & gold) / min(len(gold), 3)
            best_in.append(ranked[0][1])
        for item in offtopic:
            best_off.append(ranked_quotes(table, owners, queries[item["question"]])[0][1])
        print(
            f"  {variant:<36} rows {len(table):>4}: hit@3 {hits / len(inscope):.3f}  "
            f"recall@3 {recall / len(inscope):.3f}"
        )
        print(f"      best similarity, in scope:  {quantiles(best_in)}")
        print(f"      best similarity, off-topic: {quantiles(best_off)}")
        sweep = []
        for threshold in (0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6):
            kept = sum(s >= threshold for s in best_in) / len(best_in)
            rejected = sum(s < threshold for s in best_off) / max(len(best_off), 1)
            sweep.append(f"{threshold:.2f}: {kept:.2f}/{rejected:.2f}")
        print("      threshold: in-scope kept / off-topic rejected  " + "  ".join(sweep))


def default_evals() -> list[Path]:
    paths = [ROOT / "eval" / "final.yaml"]
    for parent in ROOT.parents:
        shared = parent / "shared" / "eval" / "questions.yaml"
        if shared.exists():
            return [shared, *paths]
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", type=Path, help="a model directory (default: the shipped one)")
    parser.add_argument("--eval", type=Path, nargs="*", help="eval files (question/speaker/quotes)")
    parser.add_argument("--no-speed", action="store_true")
    parser.add_argument("--no-quality", action="store_true")
    args = parser.parse_args()
    evals = args.eval or default_evals()
    model = StaticModel.load(args.model)
    print(f"model {model.path}: {model.dims} dims, {model.dtype}; Python {sys.version.split()[0]}")
    if not args.no_speed:
        speed(args.model, [item["question"] for path in evals for item in load_items(path)])
    if not args.no_quality:
        for path in evals:
            quality(model, path)


if __name__ == "__main__":
    main()
