"""The shipped rows (panelbot/data/vectors, scripts/seed_vectors.py): a first start on the shipped panel
embeds only the user's messages, never the bank, the banks of examples or the quotes of a discussion."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from panelbot.retrieval.meaning import SEED_DIR


def test_a_first_start_finds_every_row_it_needs_shipped(tmp_path: Path, isolated_env) -> None:
    env = {**isolated_env, "PANELBOT_CACHE_DIR": str(tmp_path / "cache")}
    for args in (
        ["ask", "--offline", "what is this talk about?"],
        ["ask", "--offline", "How do they stop the model from gaming its tests?"],
        ["ask", "--offline", "-c", "why does that matter?"],
        ["discuss", "open source"],
    ):
        done = subprocess.run(
            [sys.executable, "-m", "panelbot", *args],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr
    made = sorted(p.name for p in (tmp_path / "cache" / "index").glob("meaning-*.qvec"))
    assert not made, f"rows embedded at a first start (re-run scripts/seed_vectors.py): {made}"


def test_the_seeds_are_few_and_small() -> None:
    files = list(SEED_DIR.glob("meaning-*.qvec"))
    assert 3 <= len(files) <= 12
    assert sum(p.stat().st_size for p in files) < 6_000_000
