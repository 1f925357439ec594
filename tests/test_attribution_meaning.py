"""Attribution without labels of guests the host presents (issue 21 §2): names the host gives them, hand-overs
inside a line, evidence by meaning of how each was presented, and a confidence per turn that the health
report's fitted threshold turns into flags. Small made-up talks, written for these tests."""

from __future__ import annotations

from pathlib import Path

import pytest

import panelbot.retrieval.tuning as tuning_module
from panelbot.ingest.confidence import FEATURES, confidence, features
from panelbot.ingest.draft import build_draft, segment, write_draft
from panelbot.ingest.health import panel_health
from panelbot.ingest.presented import Presented
from panelbot.ingest.speakers import HOST
from panelbot.panel import load_panel

# two guests presented by the host, never introducing themselves; no question names who answers it
PRESENTED = """Glaciers and Grapes - An Evening Talk

>> Good evening and thanks for coming. I'm Tom Reyes from the alpine club. With me are Dr. Ines Rocha, a
glaciologist at the polar institute who measures how fast the ice sheets are melting, and Jean-Paul
Marchetti, who grows grapes for wine on steep slopes in the Alps and has moved his vines uphill twice. So,
first, how fast is the ice going?
>> Faster than any of our models said twenty years ago. We drill cores and fly radar over the ice sheets,
and the big glaciers in Greenland are losing mass at three times the rate of the nineteen nineties. The
meltwater runs under the ice and lubricates it, so the glaciers slide into the sea faster.
>> And on the slopes, what have you noticed?
>> The harvest comes three weeks earlier than when my father picked the grapes. The sugar in the fruit goes
up too fast, the wine gets heavy, so I planted new vines higher on the mountain where the nights are cool
and the soil is poor. The wine from the old vineyard is not what my customers want any more.
>> Will the sea really rise as much as people say?
>> The ice in Antarctica is the big unknown. If the ice shelves that hold the glaciers back break up, the
sea could rise by a metre this century. We see the ice shelves thinning from below, where warm ocean water
reaches them, and our satellite measurements show it getting worse every year.
>> Thank you both, Ines and Jean-Paul.
"""

HANDOVER = """Quiet Streets

>> Welcome to Quiet Streets, a series about noise in cities. I'm Dana, your host. Let me ask each guest to
introduce themselves. Priya?
>> Hi, I'm Priya Nair. I'm an acoustic engineer, I design sound barriers and quiet road surfaces for
motorways and railways.
>> Thanks. And next?
>> Hello, I'm Bruno Lindqvist. I'm a sleep doctor, I run a clinic that treats people whose sleep is ruined
by night-time noise from traffic and aircraft.
>> Bruno, how bad is it for health?
>> Worse than most people think. People who sleep near a busy road wake up many times a night without
remembering it, and over years that raises the blood pressure and the risk of a heart attack.
>> So it's the roads. Priya, that sounds like your area.
>> It is, and the cheapest fix is the surface itself. A porous asphalt swallows much of the tyre noise, and
a barrier three metres high next to the houses takes away a good part of what is left, if it is built
close to the road.
>> Thank you both.
"""


def test_a_hyphenated_name_is_one_guest_and_no_name_comes_from_the_talks_title() -> None:
    _, _, names = segment(PRESENTED)
    assert names == ["Ines", "Jean-Paul"]  # not "Paul", and not the host
    _, _, names = segment(HANDOVER)
    assert "Quiet" not in names  # "Welcome to Quiet Streets, a series …" presents no one


def test_a_hand_over_closing_a_short_line_is_the_hosts_and_the_one_named_answers() -> None:
    _, turns, _ = segment(HANDOVER)
    (over,) = [t for t in turns if t.text.startswith("So it's the roads.")]
    assert over.speaker == HOST
    (answer,) = [t for t in turns if t.text.startswith("It is, and the cheapest fix")]
    assert answer.speaker == "priya" and answer.why == "the host asked them"


def test_guests_the_host_presents_are_told_apart_by_what_they_do() -> None:
    _, turns, _ = segment(PRESENTED)
    who = {
        "Faster than any of our models": "ines",
        "The harvest comes three weeks earlier": "jean-paul",
        "The ice in Antarctica is the big unknown": "ines",
    }
    for opening, speaker in who.items():
        (t,) = [t for t in turns if t.text.startswith(opening)]
        assert t.speaker == speaker, (opening, t.speaker, t.why)
    # the opening question names both guests in the sentence presenting them: it is put to neither
    first = next(t for t in turns if t.text.startswith("Faster than"))
    assert first.why != "the host asked them"


def test_presentation_evidence_goes_to_the_one_the_text_means() -> None:
    pres = Presented(
        {
            "a": "a glaciologist who measures how fast the ice sheets are melting",
            "b": "grows grapes for wine on steep slopes and moved his vines uphill",
        },
        scale=20.0,
        floor=0.03,
    )
    ice = "The glaciers in Greenland are losing their ice three times faster than they did before."
    scores = pres.scores(ice, ["a", "b"])
    assert scores["a"] > 0 and scores["b"] == 0
    vines = "My vines ripen earlier every summer now, and the harvest is already over in August."
    assert pres.margin(vines, "a", ["a", "b"]) < 0
    assert pres.scores("Mostly the ice, yes.", ["a", "b"]) == {
        "a": 0.0,
        "b": 0.0,
    }  # too short to judge
    # nothing to compare with: no evidence, never an error
    alone = Presented({"a": "a glaciologist who measures ice"}, scale=20.0, floor=0.03)
    assert alone.scores(ice, ["a", "b"]) == {"a": 0.0, "b": 0.0}


def test_a_turn_whose_ending_sounds_like_someone_else_is_less_sure() -> None:
    _, turns, _ = segment(PRESENTED)
    ines = next(t for t in turns if t.text.startswith("Faster than any"))
    pres = Presented(
        {
            "ines": "a glaciologist at the polar institute who measures how fast the ice sheets are melting",
            "jean-paul": "who grows grapes for wine on steep slopes in the Alps and has moved his vines uphill",
        },
        scale=20.0,
        floor=0.03,
    )
    ids = ["ines", "jean-paul"]
    alone = features(ines, ids, pres)
    ines.text += (
        " The harvest comes three weeks earlier than when my father picked the grapes, so I planted new vines"
        " higher up where the nights are cool."
    )
    glued = features(ines, ids, pres)
    assert glued["weakest"] < 0 < alone["weakest"]
    weights = dict.fromkeys(FEATURES, 0.0) | {"weakest": 5.0, "meaning": 5.0}
    assert confidence(glued, weights, 0.0) < confidence(alone, weights, 0.0)


@pytest.fixture
def presented_panel(tmp_path: Path) -> Path:
    out = tmp_path / "glaciers"
    write_draft(build_draft(PRESENTED, "glaciers"), PRESENTED, out)
    return out


def test_every_turn_records_a_confidence_and_the_report_flags_the_weak_ones(
    presented_panel: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    manifest = json.loads((presented_panel / ".ingest.json").read_text(encoding="utf-8"))
    confs = [t["confidence"] for t in manifest["turns"]]
    assert all(0.0 <= c <= 1.0 for c in confs)
    panel = load_panel(presented_panel)
    shipped = panel_health(panel)
    # under a threshold above every confidence, every turn is flagged, the firm ones as weak evidence
    tune = {**tuning_module.attribution_tuning(), "flag_below": 1.01}
    monkeypatch.setattr(tuning_module, "attribution_tuning", lambda: tune)
    strict = panel_health(panel)
    assert len(strict.doubtful) == len(panel.turns) >= len(shipped.doubtful)
    weak = [d for d in strict.doubtful if d["why"].startswith("weak evidence")]
    assert weak and all(isinstance(d["confidence"], float) for d in weak)
    assert all(d["first_words"] for d in weak)


def test_without_the_sentence_model_meaning_gives_no_evidence(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import panelbot.retrieval.encoder as encoder

    def broken():  # noqa: ANN202
        raise encoder.ModelError("not installed")

    monkeypatch.setattr(encoder, "shipped_model", broken)
    pres = Presented(
        {"a": "a glaciologist who measures ice sheets", "b": "a winemaker in the Alps"}
    )
    text = "The glaciers in Greenland are losing their ice three times faster than they did before."
    assert pres.scores(text, ["a", "b"]) == {"a": 0.0, "b": 0.0}
    assert pres.margin(text, "a", ["a", "b"]) is None


def test_a_flagged_firm_turn_says_whom_part_of_it_sounds_like(
    presented_panel: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    path = presented_panel / ".ingest.json"
    manifest = json.loads(path.read_text(encoding="utf-8"))
    rec = next(t for t in manifest["turns"] if t["speaker"] == "ines")
    # as if a name had decided it (firm by its reason) and part of it sounded like the other guest
    rec["reasons"], rec["confidence"], rec["sounds_like"] = (
        [[0, "the host asked them"]],
        0.2,
        "jean-paul",
    )
    path.write_text(json.dumps(manifest), encoding="utf-8")
    tune = {**tuning_module.attribution_tuning(), "flag_below": 0.5}
    monkeypatch.setattr(tuning_module, "attribution_tuning", lambda: tune)
    h = panel_health(load_panel(presented_panel))
    (weak,) = [d for d in h.doubtful if d["why"].startswith("weak evidence")]
    assert weak["speaker"] == "ines" and "sounds more like jean-paul" in weak["why"]
