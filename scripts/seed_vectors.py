"""Embed ahead of time the rows every install needs, so a first start embeds only the question.

    python scripts/seed_vectors.py        # rewrites panelbot/data/vectors/

The shipped panel's quote rows and the general banks (everyday questions, message kinds, framing questions)
are embedded by panelbot's own code into an empty cache directory -- by asking the shipped panel a question,
a follow-up and a framing question, and staging a discussion -- and the row files it writes are copied into
``panelbot/data/vectors/`` (``panelbot.retrieval.meaning.SEED_DIR``), replacing what was there. Each file is
named by the sentence model and the exact texts it holds, so a seed that no longer matches (a quote or a bank
edited since) is simply not used, and tests/test_seed_vectors.py fails until this is re-run.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SEED_DIR = ROOT / "panelbot" / "data" / "vectors"
SESSION = [
    ["ask", "--offline", "what is this talk about?"],
    ["ask", "--offline", "How do you deal with a KV cache that keeps growing?"],
    ["ask", "--offline", "-c", "tell me more"],
    ["ask", "--offline", "-c", "why?"],
    ["discuss", "open source"],
]


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        env = {
            **os.environ,
            "PANELBOT_CACHE_DIR": str(Path(tmp) / "cache"),
            "PANELBOT_DATA_DIR": str(Path(tmp) / "data"),
            "PANELBOT_CONFIG": os.devnull,
            "PANELBOT_NO_SEED_VECTORS": "1",
            "PYTHONPATH": str(ROOT),
        }
        for args in SESSION:
            subprocess.run(
                [sys.executable, "-m", "panelbot", *args],
                env=env,
                check=True,
                cwd=tmp,
                stdout=subprocess.DEVNULL,
            )
        made = sorted((Path(tmp) / "cache" / "index").glob("meaning-*.qvec"))
        shutil.rmtree(SEED_DIR, ignore_errors=True)
        SEED_DIR.mkdir(parents=True)
        for path in made:
            shutil.copyfile(path, SEED_DIR / path.name)
    size = sum(p.stat().st_size for p in SEED_DIR.iterdir())
    print(f"wrote {len(made)} row files ({size / 1e6:.1f} MB) to {SEED_DIR.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
