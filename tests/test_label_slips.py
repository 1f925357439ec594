"""A diarizer's labels that slip: a label changing mid-sentence, or a short unasked turn cut into another
panelist's answer, is pointed at by the health report (the labels still decide who speaks; issue 21)."""

from __future__ import annotations

import json
from pathlib import Path

from panelbot.cli.main import main as cli
from panelbot.ingest.health import panel_health
from panelbot.panel import load_panel

FIXTURES = Path(__file__).parent / "fixtures"

SEGMENTS = [
    (
        "SPEAKER_00",
        "Welcome to the cellar talk. With me are two winemakers. Could you introduce yourselves?",
    ),
    ("SPEAKER_01", "Hi, I'm Marta Ruiz and I make red wine in Rioja."),
    ("SPEAKER_02", "And I'm Kofi Mensah, I run a small cellar in Stellenbosch."),
    ("SPEAKER_00", "Marta, why do you age your wine in old barrels rather than new ones?"),
    (
        "SPEAKER_01",
        "New oak gives a lot of vanilla and sweetness, and for years that is what sold, so we",
    ),
    # the label slips mid-sentence: still Marta's words
    (
        "SPEAKER_02",
        "moved away from it slowly, about one barrel in ten each year, until the cellar was old wood.",
    ),
    ("SPEAKER_00", "Kofi, does the climate change what you can do in the cellar?"),
    (
        "SPEAKER_02",
        "It changes everything. Our harvest comes three weeks earlier than it did twenty years ago.",
    ),
    # a sentence of Kofi's answer given to Marta's label, asked by no one, naming no one
    ("SPEAKER_01", "The grapes arrive hotter too, so we pick at night now."),
    (
        "SPEAKER_02",
        "And we cool the must before anything else happens, which costs a lot of power.",
    ),
    ("SPEAKER_00", "Thank you both, that is all we have time for tonight."),
]


def whisperx(segments: list[tuple[str, str]]) -> dict:
    out, t = [], 0.0
    for speaker, text in segments:
        words = []
        for w in text.split():
            words.append(
                {"word": w, "start": round(t, 3), "end": round(t + 0.3, 3), "speaker": speaker}
            )
            t += 0.35
        out.append(
            {
                "start": words[0]["start"],
                "end": words[-1]["end"],
                "text": " " + text,
                "speaker": speaker,
                "words": words,
            }
        )
        t += 0.8
    return {"segments": out}


def doubtful(tmp_path: Path, name: str, data: dict) -> dict[int, str]:
    src = tmp_path / f"{name}.json"
    src.write_text(json.dumps(data), encoding="utf-8")
    assert cli(["ingest", str(src), "--out", str(tmp_path / name)]) == 0
    health = panel_health(load_panel(tmp_path / name))
    return {d["index"]: d["why"] for d in health.doubtful}


def test_a_label_that_changes_mid_sentence_and_an_unasked_cut_are_flagged(tmp_path: Path) -> None:
    flags = doubtful(tmp_path, "cellar", whisperx(SEGMENTS))
    panel = load_panel(tmp_path / "cellar")
    mid = next(i for i, t in enumerate(panel.turns) if t.text.lower().startswith("moved away"))
    cut = next(i for i, t in enumerate(panel.turns) if t.text.startswith("The grapes"))
    assert "middle of a sentence" in flags[mid]
    assert "Kofi Mensah's answer that no one asked for" in flags[cut]
    # the labels still say who speaks: nothing is moved, only pointed at
    assert panel.turns[mid].speaker == "kofi" and panel.turns[cut].speaker == "marta"
    # turns that follow a question, or a finished sentence, are not flagged
    answer = next(i for i, t in enumerate(panel.turns) if t.text.startswith("It changes"))
    assert answer not in flags


def test_a_clean_diarized_talk_gets_no_slip_flags(tmp_path: Path) -> None:
    data = json.loads(
        (FIXTURES / "transcripts" / "whisperx_diarized.json").read_text(encoding="utf-8")
    )
    flags = doubtful(tmp_path, "bees", data)
    assert not [w for w in flags.values() if "label" in w or "no one asked" in w]
