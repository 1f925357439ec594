"""Distil a static (model2vec-style) embedding table from the shipped all-MiniLM-L6-v2, with panelbot's own
numpy encoder (:mod:`panelbot.retrieval.encoder`) -- no torch.

    python scripts/distil_static.py [--dims 128 256 384] [--out DIR]

model2vec's own ``distill`` does the same steps but runs the transformer through torch (and
sentence-transformers / transformers); panelbot ships the weights and a numpy forward pass, so this script
runs that instead. The steps are model2vec's:

1. every vocabulary token alone, as ``[CLS] token [SEP]``, through the transformer; its vector is the mean of
   the three output rows (sentence-transformers' mean pooling, what ``SentenceEncoder`` computes, before the
   unit norm);
2. PCA (centred, by SVD) of the 30522 token vectors to ``--dims`` dimensions;
3. each row weighted by SIF on a Zipf estimate of the token's frequency from its rank in the vocabulary
   (model2vec's ``sif_coefficient=1e-4``: weight = 1e-4 / (1e-4 + p(rank)), p proportional to 1/rank);
4. a sentence's vector is the mean of its tokens' rows, unit-normalised (no [CLS]/[SEP], [UNK] dropped).

Writes ``static-{dims}.f16`` (little-endian float16 rows, one per token id) and ``static-{dims}.json`` (dims,
rows, provenance) into ``--out`` (default: a scratch directory beside the cache). The full token vectors
(before PCA) are kept in ``tokens-384.f32.npy`` there so another ``--dims`` needs no second pass.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from panelbot import paths  # noqa: E402
from panelbot.retrieval.encoder import SentenceEncoder  # noqa: E402

SIF = 1e-4
BATCH = 512


class _TokenEncoder(SentenceEncoder):
    """The shipped encoder fed token ids directly: a "text" is a token id as a string."""

    def token_ids(self, text: str) -> list[int]:
        vocab = self.tokenizer.vocab
        return [vocab["[CLS]"], int(text), vocab["[SEP]"]]


def token_vectors(out: Path):  # noqa: ANN201 - a numpy array
    """Every token's mean-pooled transformer output (unnormalised), 30522 x 384, cached in ``out``."""
    import numpy

    cached = out / "tokens-384.f32.npy"
    if cached.is_file():
        return numpy.load(cached)
    model = _TokenEncoder.load()
    n = len(model.tokenizer.vocab)
    rows = numpy.zeros((n, model.dims), dtype=numpy.float32)
    started = time.perf_counter()
    for at in range(0, n, BATCH):
        ids = [str(i) for i in range(at, min(n, at + BATCH))]
        rows[at : at + len(ids)] = _pooled(model, ids)
        if at % (BATCH * 10) == 0:
            print(f"  {at}/{n} tokens, {time.perf_counter() - started:.0f} s", flush=True)
    numpy.save(cached, rows)
    return rows


def _pooled(model: _TokenEncoder, texts: list[str]):  # noqa: ANN202
    """The encoder's forward pass up to the mean pooling (its ``_forward`` without the unit norm)."""
    import numpy

    from panelbot.retrieval.encoder import DIMS, LAYERS, _layer_norm

    ids = numpy.array([model.token_ids(t) for t in texts], dtype=numpy.int64)
    b, n = ids.shape
    w = model.weights
    x = (
        w["embeddings.word_embeddings.weight"][ids]
        + w["embeddings.position_embeddings.weight"][:n]
        + w["embeddings.token_type_embeddings.weight"][0]
    ).reshape(b * n, DIMS)
    x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
    blocked = numpy.zeros((b, 1, 1, n), dtype=numpy.float32)
    for layer in range(LAYERS):
        x = model._layer(x, b, blocked, f"encoder.layer.{layer}.")
    return x.reshape(b, n, DIMS).mean(1)


def distil(tokens, dims: int, weighting: str = "sif", pca: bool = True):  # noqa: ANN001, ANN201
    """PCA to ``dims`` then weights by Zipf rank (model2vec's SIF, its older log-rank "zipf", or none): the
    static table, float32."""
    import numpy

    table = tokens
    if pca:
        centred = tokens - tokens.mean(0)
        _, _, vt = numpy.linalg.svd(centred.astype(numpy.float64), full_matrices=False)
        table = centred @ vt[:dims].T.astype(numpy.float32)
    rank = numpy.arange(len(table), dtype=numpy.float64)
    if weighting == "sif":
        inv_rank = 1.0 / (rank + 2)
        proba = inv_rank / inv_rank.sum()
        table = table * (SIF / (SIF + proba))[:, None]
    elif weighting == "zipf":
        table = table * numpy.log1p(rank)[:, None]
    return numpy.asarray(table, dtype=numpy.float32)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dims", type=int, nargs="+", default=[128, 256, 384])
    ap.add_argument("--out", type=Path, default=paths.user_cache_dir() / "static-distil")
    ap.add_argument("--weighting", choices=["sif", "zipf", "none"], default="sif")
    ap.add_argument(
        "--no-pca", action="store_true", help="the raw 384-dim token vectors (--dims ignored)"
    )
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    tokens = token_vectors(args.out)
    for dims in [384] if args.no_pca else args.dims:
        table = distil(tokens, dims, args.weighting, not args.no_pca)
        name = f"static-{dims}" + ("" if args.weighting == "sif" else f"-{args.weighting}")
        name += "-nopca" if args.no_pca else ""
        (args.out / f"{name}.f16").write_bytes(table.astype("<f2").tobytes())
        meta = {
            "dims": dims,
            "rows": len(table),
            "derived_from": "sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0)",
            "method": "model2vec-style: token outputs, PCA, SIF 1e-4 on Zipf rank; scripts/distil_static.py",
        }
        meta["method"] += f" (weighting {args.weighting}{', no PCA' if args.no_pca else ''})"
        (args.out / f"{name}.json").write_text(json.dumps(meta, indent=2) + "\n")
        print(f"{name}: {len(table)} rows -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
