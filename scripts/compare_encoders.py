"""How well each sentence encoder ranks, with nothing refitted: the shipped all-MiniLM-L6-v2 against the
static tables ``scripts/distil_static.py`` distils from it (128 / 256 / 384 dims).

    python scripts/distil_static.py            # first: writes the static tables
    python scripts/compare_encoders.py [--dims 128 256 384] [--tables DIR]

Measures, per encoder (dev data only, never eval/heldout/):

- quotes r@3: for every in-scope question of each question set, a right quote among the three whose rows
  (the quote's words, and each of its ``asks`` for "+asks") are nearest by cosine (a quote scores its best
  row); "para" is the paraphrase questions alone;
- scope AUC: how well (best quote cosine - best everyday-question cosine) separates the in-scope from the
  off-topic questions of every set (rows: words + asks; the background bank of panelbot/data);
- kinds: the turns after the first of the dev conversation sets whose nearest example in the message-kind
  bank (panelbot/data/message_kinds.yaml) names a kind that fits them (fit_message_kinds' FITS), with no
  floor; "kinds@floor" is right - 2 x wrong at the best floor for that encoder (the one number fitted, as
  fit_message_kinds would), with how many turns that floor reads;
- discuss: the labelled discussion requests (eval/discussion_requests_dev.yaml) whose frame's nearest example
  is a discussion's exactly when they are one (no floor).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy  # noqa: E402

from panelbot import paths  # noqa: E402
from panelbot.conversation import kind_bank  # noqa: E402
from panelbot.conversation.evaluation import load_conversations  # noqa: E402
from panelbot.discussion.evaluation import load_requests  # noqa: E402
from panelbot.panel import load_panel  # noqa: E402
from panelbot.retrieval import encoder  # noqa: E402
from panelbot.retrieval.evaluation import load_eval_set  # noqa: E402
from panelbot.retrieval.meaning import background_questions  # noqa: E402

sys.path.insert(0, str(ROOT / "scripts"))
from fit_message_kinds import DEV, FITS, QUESTION_SETS, WRONG_COST  # noqa: E402

PANEL = ROOT / "persona_data" / "minimax-m3"


class StaticTable:
    """A distilled table read as the shipped encoder is used: ``embed`` / ``embed_many`` / ``dims``."""

    def __init__(self, path: Path, dims: int) -> None:
        self.dims = dims
        self.matrix = numpy.fromfile(path, dtype="<f2").astype(numpy.float32).reshape(-1, dims)
        self.tokenizer = encoder.shipped_model().tokenizer
        self.unk = self.tokenizer.vocab["[UNK]"]
        self.config = {"model": f"static-{dims}", "dims": dims}
        self.fingerprint = repr(sorted(self.config.items())).encode()

    def embed(self, text: str):  # noqa: ANN201
        ids = [i for i in self.tokenizer.encode(text)[:510] if i != self.unk]
        if not ids:
            return numpy.zeros(self.dims, dtype=numpy.float32)
        v = self.matrix[ids].mean(0)
        return v / max(float(numpy.linalg.norm(v)), 1e-12)

    def embed_many(self, texts):  # noqa: ANN001, ANN201
        return [self.embed(t) for t in texts]


def _matrix(model, texts) -> numpy.ndarray:  # noqa: ANN001
    return numpy.array(model.embed_many(list(texts)), dtype=numpy.float32).reshape(-1, model.dims)


def retrieval(model, panel, with_asks: bool) -> tuple[dict[str, tuple[int, int, int, int]], float]:  # noqa: ANN001
    """Per question set: (hits, in-scope, paraphrase hits, paraphrases); and the scope AUC over all sets."""
    texts, owners = [], []
    for n, q in enumerate(panel.quotes):
        for t in dict.fromkeys([q.text, *(q.asks if with_asks else ())]):
            texts.append(t)
            owners.append(n)
    rows = _matrix(model, texts)
    background = _matrix(model, background_questions())
    owners_a = numpy.array(owners)
    out: dict[str, tuple[int, int, int, int]] = {}
    inside, outside = [], []
    for f in QUESTION_SETS:
        hits = total = phits = ptotal = 0
        for it in load_eval_set(str(ROOT / f), panel):
            v = numpy.asarray(model.embed(it.question), dtype=numpy.float32)
            sims = rows @ v
            best = numpy.full(len(panel.quotes), -2.0, dtype=numpy.float32)
            numpy.maximum.at(best, owners_a, sims)
            margin = float(best.max() - (background @ v).max())
            if not it.speakers or not it.quotes:
                outside.append(margin)
                continue
            inside.append(margin)
            top = numpy.argsort(-best, kind="stable")[:3]
            hit = any(panel.quotes[i].id in it.quotes for i in top)
            hits += hit
            total += 1
            if it.kind == "paraphrase":
                phits += hit
                ptotal += 1
        out[f] = (hits, total, phits, ptotal)
    a, b = numpy.array(inside), numpy.array(outside)
    auc = float(
        ((a[:, None] > b[None, :]).sum() + 0.5 * (a[:, None] == b[None, :]).sum())
        / (a.size * b.size)
    )
    return out, auc


def kinds(panel) -> tuple[int, int, int, int, int, int]:  # noqa: ANN001
    """(fitting, turns, best right - 2 wrong, turns read at that floor) over the dev conversations; discuss
    requests right."""
    bank = kind_bank.MessageKinds(panel)
    seen = []
    for f in DEV:
        if (ROOT / f).exists():
            for conv in load_conversations(str(ROOT / f), panel):
                for it in conv.turns[1:]:
                    hit = bank.nearest(it.question)
                    seen.append((hit.similarity, hit.kind in FITS.get(it.kind or "other", set())))
    best_value, best_read = 0.0, 0
    for floor in sorted({s for s, _ in seen}):
        read = [ok for s, ok in seen if s >= floor]
        value = sum(read) - WRONG_COST * (len(read) - sum(read))
        if value > best_value:
            best_value, best_read = value, len(read)
    requests = load_requests(ROOT / "eval" / "discussion_requests_dev.yaml")
    right = 0
    for it in requests:
        hit = bank.nearest(bank.framed(it.message)[0], discussions=True)
        right += (hit.kind == kind_bank.DISCUSS) == it.discussion
    return sum(ok for _, ok in seen), len(seen), int(best_value), best_read, right, len(requests)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dims", type=int, nargs="*", default=[128, 256, 384])
    ap.add_argument(
        "--also", nargs="*", default=[], help="more tables by name (static-384-none-nopca)"
    )
    ap.add_argument("--no-minilm", action="store_true")
    ap.add_argument("--tables", type=Path, default=paths.user_cache_dir() / "static-distil")
    args = ap.parse_args()
    panel = load_panel(PANEL)
    minilm = encoder.shipped_model()
    models = {} if args.no_minilm else {"MiniLM": minilm}
    for name in [f"static-{d}" for d in args.dims] + args.also:
        dims = json.loads((args.tables / f"{name}.json").read_text())["dims"]
        models[name] = StaticTable(args.tables / f"{name}.f16", dims)
    short = {f: Path(f).stem.replace("questions", "shared") for f in QUESTION_SETS}
    head = ["encoder"]
    for rows in ("words", "+asks"):
        head += [f"{short[f]} {rows}" for f in QUESTION_SETS] + [f"all {rows}", f"para {rows}"]
    head += ["scope AUC", "kinds", "kinds@floor", "discuss"]
    print("| " + " | ".join(head) + " |")
    print("|" + " --- |" * len(head))
    results = {}
    for name, model in models.items():
        encoder._SHIPPED = model  # type: ignore[assignment]  # what kind_bank embeds with
        cells = [name]
        auc = 0.0
        for with_asks in (False, True):
            per, auc = retrieval(model, panel, with_asks)
            for f in QUESTION_SETS:
                h, t, _, _ = per[f]
                cells.append(f"{100 * h / t:.1f}")
            h, t = sum(v[0] for v in per.values()), sum(v[1] for v in per.values())
            ph, pt = sum(v[2] for v in per.values()), sum(v[3] for v in per.values())
            cells += [f"{100 * h / t:.1f} ({h}/{t})", f"{100 * ph / pt:.1f} ({ph}/{pt})"]
        fitting, turns, value, read, right, requests = kinds(panel)
        cells += [
            f"{auc:.3f}",
            f"{100 * fitting / turns:.1f} ({fitting}/{turns})",
            f"{value} ({read} read)",
            f"{100 * right / requests:.1f} ({right}/{requests})",
        ]
        results[name] = cells
        print("| " + " | ".join(cells) + " |", flush=True)
    encoder._SHIPPED = minilm
    if os.environ.get("COMPARE_JSON"):
        Path(os.environ["COMPARE_JSON"]).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
