"""Honest attribution without labels (issue 21 §2): the health report points at every turn whose speaker
rests only on order or field, and a doubtful turn is fixed by number without editing YAML."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
import yaml

from panelbot.cli.check import walk_doubtful
from panelbot.ingest.basis import attribution_basis, doubtful_part, is_doubtful
from panelbot.ingest.draft import build_draft, segment, write_draft
from panelbot.ingest.health import doubtful_turns, near_verbatim, panel_health
from panelbot.ingest.names import speaker_for
from panelbot.ingest.segments import split_unmarked
from panelbot.panel import load_panel

FIXTURES = Path(__file__).parent / "fixtures"
TRUTH = yaml.safe_load((FIXTURES / "truth.yaml").read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", sorted(TRUTH))
def test_every_wrong_turn_of_the_fixtures_rests_on_order_or_field(name: str) -> None:
    """A turn given to the wrong person (a panelist's to another, or the host's to a panelist) is never
    one whose speaker came from a name, a hand-over or a label: the report would not point at it."""
    _, turns, _ = segment((FIXTURES / name).read_text(encoding="utf-8"))
    truth = TRUTH[name]
    missed = [
        (i, t.speaker, t.why)
        for t in turns
        for i in t.sources
        if i < len(truth)
        and truth[i] not in ("-", t.speaker)
        and t.speaker != "unknown"
        and doubtful_part(t.reasons()) is None
    ]
    assert missed == []


def test_basis_of_reasons() -> None:
    assert attribution_basis("introduces themselves") == "name"
    assert attribution_basis("labelled in the captions") == "label"
    assert attribution_basis("hands over to the next introduction") == "hand-over"
    assert is_doubtful("their field (evidence 3.1 vs 0.0)")
    assert is_doubtful("the last one in the round")
    assert is_doubtful("continues after a back-channel")
    assert not is_doubtful("the host asked them")
    # a merged turn is doubtful when any part is, from that part's first word
    assert doubtful_part([(0, "the host asked them"), (40, "continues after a back-channel")]) == (
        40,
        "continues after a back-channel",
    )
    assert doubtful_part([(0, "set by hand"), (40, "their field")]) is None


@pytest.fixture
def lake(tmp_path: Path) -> Path:
    caps = (FIXTURES / "lake_talk.srt").read_text(encoding="utf-8")
    out = tmp_path / "lake"
    write_draft(build_draft(caps, "lake"), caps, out)
    return out


def test_report_lists_each_doubtful_turn_with_its_first_words(lake: Path) -> None:
    panel = load_panel(lake)
    h = panel_health(panel)
    by_turn = {d["turn"]: d for d in h.doubtful}
    # "Most of it washes off farm fields …" was Aurélie's, given to Kwabena by field alone
    field = next(d for d in h.doubtful if d["first_words"].startswith("Most of it washes off"))
    assert field["speaker"] == "kwabena" and field["why"].startswith("their field")
    assert panel.turns[field["index"]].text.startswith("Most of it washes off")
    assert all(by_turn[n]["index"] == n - 1 for n in by_turn)
    assert any("--fix" in w for w in h.warnings)
    # a turn whose speaker came from a self-introduction or a question by name is not listed
    firm = [i for i, t in enumerate(panel.turns) if t.speaker == "host" and t.text.endswith("?")]
    assert not {i for i in firm} & {d["index"] for d in h.doubtful if d["speaker"] == "host"}


def test_a_panel_written_by_hand_has_no_doubtful_turns(panel_dir: Path) -> None:
    assert doubtful_turns(load_panel(panel_dir)) == []


def test_check_speaker_sets_a_turn_and_derives_the_draft_again(run_cli, lake: Path) -> None:
    before = json.loads(run_cli("check", str(lake), "--json").stdout)
    turn = next(d for d in before["doubtful"] if d["first_words"].startswith("Most of it washes"))
    r = run_cli("check", str(lake), "--speaker", f"{turn['turn']}=Aurélie", "--json")
    assert r.returncode == 0, r.stderr
    after = json.loads(r.stdout)
    assert turn["turn"] not in {d["turn"] for d in after["doubtful"]}
    panel = load_panel(lake)
    assert panel.turns[turn["index"]].speaker == "aurelie"
    moved = [q for q in panel.quotes if q.turn == turn["index"]]
    assert moved and {q.speaker for q in moved} == {"aurelie"}  # its quotes are hers now
    # a second fix keeps the first (by the id as spelt without accents this time)
    other = next(d for d in after["doubtful"] if d["speaker"] != "aurelie")
    r = run_cli("check", str(lake), "--speaker", f"{other['turn']}=aurelie")
    assert r.returncode == 0, r.stderr
    panel = load_panel(lake)
    assert panel.turns[turn["index"]].speaker == "aurelie"
    assert panel.turns[other["index"]].speaker == "aurelie"
    # still an untouched draft: ingest's manifest was written again
    assert "--force" in run_cli("ingest", str(lake / "captions.txt"), "--out", str(lake)).stderr


def test_check_speaker_refuses_bad_input_and_a_curated_panel(run_cli, lake: Path) -> None:
    for bad in ("12", "x=host", "999=host", "5=nobody"):
        r = run_cli("check", str(lake), "--speaker", bad)
        assert r.returncode == 2 and r.stderr.count("\n") == 1, (bad, r.stderr)
        assert "Traceback" not in r.stderr
    turns = lake / "turns.yaml"
    turns.write_text(turns.read_text(encoding="utf-8") + "\n# curated\n", encoding="utf-8")
    r = run_cli("check", str(lake), "--speaker", "5=host")
    assert r.returncode == 2 and "--force" in r.stderr
    assert turns.read_text(encoding="utf-8").endswith("# curated\n")  # untouched
    r = run_cli("check", str(lake), "--speaker", "5=host", "--force")
    assert r.returncode == 0, r.stderr
    assert load_panel(lake).turns[4].speaker == "host"


def test_fix_needs_a_terminal(run_cli, lake: Path) -> None:
    r = run_cli("check", str(lake), "--fix", stdin="")
    assert r.returncode == 2 and "--speaker TURN=NAME" in r.stderr


def test_walk_asks_about_each_doubtful_turn(lake: Path) -> None:
    panel = load_panel(lake)
    doubtful = panel_health(panel).doubtful
    answers = iter(["", "nobody", "Aurélie", "q"])
    out = io.StringIO()
    chosen = walk_doubtful(panel, doubtful, lambda _prompt: next(answers), out)
    # the first kept, the second asked twice (an unknown name first), then stopped
    assert chosen == {doubtful[1]["turn"]: "Aurélie"}
    assert "not on the panel: 'nobody'" in out.getvalue()
    assert f"turn {doubtful[0]['turn']}" in out.getvalue()


def test_near_verbatim_question() -> None:
    assert near_verbatim("So, Joost, what can you do about that?", {"joost"}) == (
        "what can you do about that?"
    )
    assert near_verbatim("Great. How many speakers are we talking about?", set()) == (
        "How many speakers are we talking about?"
    )


def test_a_person_in_the_displayed_spelling_or_without_accents() -> None:
    ids, names = ["joaquin", "joost"], ["Joaquín", "Joost"]
    assert speaker_for("joaquín", ids, names) == "joaquin"
    assert speaker_for("Joaquin", ids, names) == "joaquin"
    assert speaker_for("HOST", ids, names) == "host"
    assert speaker_for("nobody", ids, names) is None


def test_to_accepts_the_displayed_spelling(run_cli, tmp_path: Path) -> None:
    caps = (FIXTURES / "accents_panel.vtt").read_text(encoding="utf-8")
    out = tmp_path / "accents"
    write_draft(build_draft(caps, "accents"), caps, out)
    for spelt in ("josé", "José", "jose"):
        r = run_cli("ask", "--offline", "--panel", str(out), "--to", spelt, "--json", "Hi?")
        assert r.returncode == 0, (spelt, r.stderr)
    r = run_cli("ask", "--offline", "--panel", str(out), "--to", "nobody", "Hi?")
    assert r.returncode == 2 and "--to expects" in r.stderr


def test_try_line_names_a_panel_in_the_working_directory_by_its_full_path(
    run_cli, tmp_path: Path
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    r = run_cli("ingest", str(FIXTURES / "lake_talk.srt"), "--out", "lake", cwd=work)
    assert r.returncode == 0, r.stderr
    tried = next(ln for ln in r.stdout.splitlines() if ln.startswith("Try: "))
    assert f"--panel {work.resolve() / 'lake'} " in tried


def test_title_and_host_from_the_introduction_and_surnames_with_particles() -> None:
    captions = (
        "Good evening and welcome to Night Market Economics, a conversation about street food. My name is "
        "Kofi Mensah and I'll be your moderator. Wilhelmina, would you start? >> Sure. I'm Wilhelmina van der "
        "Berg, I run a food truck cooperative in Rotterdam and we license forty vendors. >> And next to "
        "her. >> Hi, I'm Tariq ibn Rashid. I'm an economist at a university in Amman and I study informal "
        "markets and their prices. >> Wilhelmina, how do vendors pay for their licence? >> Most pay "
        "monthly, because the cooperative lends them the fee and they pay it back from their sales. "
        ">> Tariq, are informal markets bad for the economy? >> No, informal markets feed most of the "
        "city, and their prices fall when the rent on a pitch is low."
    )
    d = build_draft(captions, "market", title_guessed=True)
    assert d.panel["title"] == "Night Market Economics"
    assert d.panel["host"]["name"] == "Kofi Mensah"
    names = [p["name"] for p in d.panel["panelists"]]
    assert names == ["Wilhelmina van der Berg", "Tariq ibn Rashid"]
    # a title the file carries stays
    titled = "Street Food Panel\n\n" + captions
    assert build_draft(titled, "market").panel["title"] == "Street Food Panel"


def _unmarked(clean: str, *drop: str) -> str:
    """A clean transcript with the '>>' before each of ``drop`` missing, as auto-captions lose them."""
    for d in drop:
        assert f">> {d}" in clean, d
        clean = clean.replace(f">> {d}", d)
    return clean


def test_a_missed_speaker_mark_does_not_merge_two_people() -> None:
    clean = (FIXTURES / "three_panel_clean.txt").read_text(encoding="utf-8")
    captions = _unmarked(
        clean,
        "Hey folks, I'm Miguel.",  # after the host's "Thanks Sarah. Miguel?"
        "Hi, I'm Priti and",  # after the host's "And Priti, over to you."
        "I think laptops got really fast.",  # after "Miguel, … Why now?"
        "Honestly for small collections",  # after "Priti, … still needed?"
    )
    _, turns, _ = segment(captions)
    who = {
        "I lead the storage team at DuckFlow": "miguel",
        "We make a vector database": "priti",
        "laptops got really fast": "miguel",
        "for small collections you can use an extension": "priti",
        "Miguel, embedded engines are having a moment": "host",
        "Priti, everybody is bolting vector search": "host",
    }
    for words_, speaker in who.items():
        (t,) = [t for t in turns if words_ in t.text]
        assert t.speaker == speaker, (words_, t.speaker, t.text[:80])


def test_captions_that_mark_every_change_are_not_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    """On the fixtures (every change of speaker marked, greetings before introductions) nothing is cut."""
    import panelbot.ingest.speakers as speakers

    cuts = []

    def counting(kept, *fns):  # noqa: ANN001, ANN202
        out = split_unmarked(kept, *fns)
        cuts.append(len(out) - len(kept))
        return out

    monkeypatch.setattr(speakers, "split_unmarked", counting)
    for name in TRUTH:
        cuts.clear()
        segment((FIXTURES / name).read_text(encoding="utf-8"))
        assert cuts == [0], name


# ------------------------------------------------------------------ ingest --llm, against a real local server


def _ingest_llm(run_cli, url: str, out: Path):  # noqa: ANN001, ANN202
    """``panelbot ingest lake_talk.srt --out OUT --llm`` against the endpoint at ``url``."""
    env = {"PANELBOT_BASE_URL": url, "PANELBOT_MODEL": "fake", "PANELBOT_API_KEY": "sk-test"}
    return run_cli("ingest", str(FIXTURES / "lake_talk.srt"), "--out", str(out), "--llm", env=env)


def test_ingest_llm_takes_only_answers_it_can_check(run_cli, fake_model_server, tmp_path) -> None:
    out = tmp_path / "lake"
    # the server says the same for every turn: only the turn holding that evidence is changed by it
    fake_model_server.state.answer = (
        'Sure: {"speaker": "aurelie", "evidence": "Most of it washes off farm fields"}'
    )
    r = _ingest_llm(run_cli, fake_model_server.url("ok"), out)
    assert r.returncode == 0, r.stderr
    panel = load_panel(out)
    (washes,) = [t for t in panel.turns if t.text.startswith("Most of it washes off")]
    assert washes.speaker == "aurelie"  # was kwabena offline, by field alone
    assert "evidence is not in the turn's text" in r.stderr
    assert "changed the speaker of 1 of" in r.stdout
    asked = [
        req for req in fake_model_server.state.requests if req.path.endswith("/chat/completions")
    ]
    assert asked and "aurelie" in json.dumps(asked[0].body)  # the people on the panel were given
    # the model's turn is still listed as doubtful (a model, not a name), and a fix by hand keeps it
    h = panel_health(panel)
    mine = next(d for d in h.doubtful if d["index"] == panel.turns.index(washes))
    assert mine["why"] == "the model read the turn"
    r = run_cli("check", str(out), "--speaker", "2=host")
    assert r.returncode == 0, r.stderr
    again = load_panel(out)
    assert again.turns[panel.turns.index(washes)].speaker == "aurelie"


def test_ingest_llm_falls_back_to_offline(run_cli, fake_model_server, tmp_path) -> None:
    offline = tmp_path / "offline"
    assert run_cli("ingest", str(FIXTURES / "lake_talk.srt"), "--out", str(offline)).returncode == 0
    for behaviour in ("500", "ok"):
        out = tmp_path / behaviour
        fake_model_server.state.answer = "I think it was probably the farmer."  # no JSON
        r = _ingest_llm(run_cli, fake_model_server.url(behaviour), out)
        assert r.returncode == 0, (behaviour, r.stderr)
        assert "Traceback" not in r.stderr
        assert (out / "turns.yaml").read_text(encoding="utf-8") == (
            offline / "turns.yaml"
        ).read_text(encoding="utf-8")


def test_ingest_llm_needs_an_endpoint(run_cli, tmp_path) -> None:
    r = run_cli("ingest", str(FIXTURES / "lake_talk.srt"), "--out", str(tmp_path / "p"), "--llm")
    assert r.returncode == 2 and "--llm needs a model endpoint" in r.stderr
    assert not (tmp_path / "p").exists()


def test_fix_walks_the_doubtful_turns_on_a_terminal(isolated_env, lake: Path) -> None:
    """The real command on a pseudo-terminal: the first doubtful turn given to the host, then 'q'."""
    import os
    import subprocess
    import sys

    first = panel_health(load_panel(lake)).doubtful[0]
    master, slave = os.openpty()
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "panelbot", "check", str(lake), "--fix"],
            stdin=slave,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=isolated_env,
            text=True,
        )
        os.write(master, b"host\nq\n")
        out, err = proc.communicate(timeout=120)
    finally:
        os.close(master)
        os.close(slave)
    assert proc.returncode == 0, err
    assert f"turn {first['turn']}, taken as {first['speaker']}" in out
    assert f"turn {first['turn']} -> host" in out
    assert load_panel(lake).turns[first["index"]].speaker == "host"
