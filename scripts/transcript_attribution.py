"""Attribution per quote of ``panelbot ingest`` on the transcript-tool fixtures (tests/fixtures/transcripts).

    python scripts/transcript_attribution.py [-v]

Each file is ingested as a user would (the real CLI in this interpreter, into a temporary directory), with
the ``--speaker`` mapping listed below for the anonymous whisperX labels and without it. Every quote of the
draft is matched to the true turn of ``<talk>_truth.json`` holding most of its words, and counts as right
when the quote's speaker is that turn's. Prints one line per file and mapping.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
import tempfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from panelbot.cli.main import main  # noqa: E402
from panelbot.text import words  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures" / "transcripts"
BEES_MAP = ["--speaker", "SPEAKER_01=Ines", "--speaker", "SPEAKER_02=Tobi", "--host", "SPEAKER_00"]
RUNS = [
    ("whisperx_diarized.json", "bees", BEES_MAP),
    ("whisperx_diarized.json", "bees", []),
    ("whisperx_diarized.srt", "bees", BEES_MAP),
    ("whisperx_diarized.vtt", "bees", BEES_MAP),
    ("whisperx_diarized.txt", "bees", BEES_MAP),
    ("podcast_transcript.json", "rivers", []),
    ("podcast_labelled.srt", "rivers", []),
    ("voice_tags.vtt", "bindery", []),
    ("youtube_transcript.json", "wind", []),
]


def quote_accuracy(panel_dir: Path, truth: list[dict]) -> tuple[int, int, list[str]]:
    """(quotes, right, notes) of a written draft against the talk's true turns."""
    quotes = yaml.safe_load((panel_dir / "quotes.yaml").read_text(encoding="utf-8")) or []
    truth_words = [(t["speaker"], set(words(t["text"]))) for t in truth]
    right, notes = 0, []
    for q in quotes:
        qw = set(words(q["text"]))
        want, _ = max(truth_words, key=lambda tw: len(qw & tw[1]))
        if q["speaker"] == want:
            right += 1
        else:
            notes.append(f"{q['id']}: said by {want}: {q['text'][:70]}")
    return len(quotes), right, notes


def ingest(path: Path, out: Path, mapping: list[str]) -> tuple[int, str]:
    sink = io.StringIO()
    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        code = main(["ingest", str(path), "--out", str(out), "--force", *mapping])
    return code, sink.getvalue()


def run(verbose: bool) -> list[tuple[str, str, int, int]]:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for k, (name, talk, mapping) in enumerate(RUNS):
            truth = json.loads((FIXTURES / f"{talk}_truth.json").read_text(encoding="utf-8"))
            out = Path(tmp) / f"p{k}"
            code, said = ingest(FIXTURES / name, out, mapping)
            how = "mapped" if mapping else "as is"
            if code != 0:
                print(f"{name:26} {how:7} ingest failed: {said.strip()[-200:]}")
                continue
            n, right, notes = quote_accuracy(out, truth)
            rows.append((name, how, n, right))
            print(f"{name:26} {how:7} {right:3}/{n:<3} quotes right ({right / max(n, 1):.0%})")
            if verbose:
                for note in notes:
                    print(f"    {note}")
    return rows


if __name__ == "__main__":
    run("-v" in sys.argv[1:])
