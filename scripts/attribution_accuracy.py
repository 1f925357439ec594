"""Speaker attribution accuracy of ``panelbot ingest`` on the seed talk and the test fixtures.

    python scripts/attribution_accuracy.py [-v]

Seed: each substantive panelist answer (15+ words) of the hand-curated persona_data/minimax-m3/turns.yaml is
matched to the draft turn that shares most of its words; right / unknown / wrong are counted over those.
Fixtures: the true speaker of every raw turn (between two `>>`) is listed in tests/fixtures/truth.yaml; each
panelist's raw turn counts once, whatever ingest merged it with (host turns are not counted, but a host turn
given to a panelist is listed with -v).
"""

from __future__ import annotations

import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from panelbot.ingest.basis import doubtful_part  # noqa: E402
from panelbot.ingest.draft import segment  # noqa: E402
from panelbot.panel import load_panel  # noqa: E402
from panelbot.text import words  # noqa: E402


def seed(verbose: bool) -> tuple[int, int, int, int]:
    panel = load_panel(ROOT / "persona_data" / "minimax-m3")
    _, turns, _ = segment((panel.path / "captions.txt").read_text(encoding="utf-8"))
    drafted = [(t, set(words(t.text))) for t in turns]
    right = unknown = wrong = 0
    answers = [t for t in panel.turns if t.speaker in panel.panelists and len(t.text.split()) >= 15]
    for truth in answers:
        w = set(words(truth.text))
        got, _ = max(drafted, key=lambda d: len(w & d[1]) / (len(w | d[1]) or 1))
        if got.speaker == truth.speaker:
            right += 1
        elif got.speaker == "unknown":
            unknown += 1
        else:
            wrong += 1
        if verbose and got.speaker != truth.speaker:
            print(f"  seed: {truth.speaker} -> {got.speaker} ({got.why}): {truth.text[:60]}")
    return len(answers), right, unknown, wrong


def score(turns: list, truth: list[str]) -> tuple[int, int, int, int, list[str]]:
    """(answers, right, unknown, wrong, notes) over the raw turns each attributed turn is made of."""
    n = right = unknown = wrong = 0
    notes = []
    for t in turns:
        for i in t.sources:
            want = truth[i] if i < len(truth) else "-"
            if want in ("-", "host"):
                if want == "host" and t.speaker not in ("host", "unknown"):
                    notes.append(f"raw turn {i}: host -> {t.speaker} ({t.why}){_flag(t)}")
                continue
            n += 1
            if t.speaker == want:
                right += 1
            elif t.speaker == "unknown":
                unknown += 1
                notes.append(f"raw turn {i}: {want} -> unknown ({t.why})")
            else:
                wrong += 1
                notes.append(f"raw turn {i}: {want} -> {t.speaker} ({t.why}){_flag(t)}")
    return n, right, unknown, wrong, notes


def _flag(t) -> str:  # noqa: ANN001 - a SpeakerTurn
    """Whether the health report points at this turn (its speaker rests only on order or field)."""
    flagged = t.speaker == "unknown" or doubtful_part(t.reasons()) is not None
    return " [flagged]" if flagged else " [MISSED by the health report]"


def fixtures(verbose: bool) -> dict[str, tuple[int, int, int, int]]:
    truth = yaml.safe_load((ROOT / "tests" / "fixtures" / "truth.yaml").read_text(encoding="utf-8"))
    out = {}
    for name, speakers in truth.items():
        _, turns, _ = segment((ROOT / "tests" / "fixtures" / name).read_text(encoding="utf-8"))
        n, r, u, w, notes = score(turns, speakers)
        out[name] = (n, r, u, w)
        missed = sum("MISSED" in note for note in notes)
        out[name] = (n, r, u, w)
        wrong_turns = sum("-> unknown" not in note for note in notes)
        if wrong_turns:
            print(f"  {name}: {wrong_turns - missed} of {wrong_turns} wrong turns flagged")
        if verbose:
            for note in notes:
                print(f"  {name} {note}")
    return out


def main() -> None:
    verbose = "-v" in sys.argv
    rows = [("seed (minimax-m3)", seed(verbose)), *fixtures(verbose).items()]
    print(f"{'talk':<34} {'answers':>7} {'right':>6} {'unknown':>8} {'wrong':>6}")
    tot = [0, 0, 0, 0]
    for name, (n, r, u, w) in rows:
        print(f"{name:<34} {n:>7} {r:>6} {u:>8} {w:>6}")
        tot = [a + b for a, b in zip(tot, (n, r, u, w), strict=True)]
    n, r, u, w = tot
    print(f"{'all':<34} {n:>7} {r:>6} {u:>8} {w:>6}   ({r / n:.0%} right)")


if __name__ == "__main__":
    main()
