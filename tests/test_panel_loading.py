"""The validating panel loader: every problem names the file (and line / quote), nothing is half-loaded."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from panelbot.errors import DataError, PanelNotFound
from panelbot.panel import find_panel_dir, list_panels, load_panel

PANEL_YAML = """\
format: 1
title: Tiny test panel
status: curated
host: {id: host, name: Host}
panelists:
  - id: ann
    name: Ann
    role: Storage lead
    organisation: Foo
  - id: bob
    name: Bob
"""
QUOTES_YAML = """\
- id: ann-01
  speaker: ann
  text: We replicate every block three times across racks.
  keywords: [replication, storage]
- id: bob-01
  speaker: bob
  text: Our robots learn to grasp parcels in simulation first.
"""


def make_panel(
    root: Path, panel: str = PANEL_YAML, quotes: str = QUOTES_YAML, **extra: str
) -> Path:
    d = root / "tiny"
    d.mkdir(parents=True, exist_ok=True)
    (d / "panel.yaml").write_text(panel, encoding="utf-8")
    (d / "quotes.yaml").write_text(quotes, encoding="utf-8")
    for name, text in extra.items():
        (d / f"{name}.yaml").write_text(text, encoding="utf-8")
    return d


def load_error(d: Path) -> DataError:
    with pytest.raises(DataError) as info:
        load_panel(d)
    return info.value


def test_good_panel_loads(tmp_path: Path) -> None:
    p = load_panel(make_panel(tmp_path))
    assert p.title == "Tiny test panel" and p.status == "curated"
    assert list(p.panelists) == ["ann", "bob"]
    assert p.panelists["ann"].title == "Storage lead, Foo"
    assert [q.id for q in p.quotes] == ["ann-01", "bob-01"]
    assert p.quote("ann-01").keywords == ("replication", "storage")
    assert p.display_name("bob") == "Bob" and p.display_name("host") == "Host"


def test_shipped_panel_loads(shipped_panel) -> None:
    assert shipped_panel.status == "curated"
    assert set(shipped_panel.panelists) == {"dan", "olive"}
    assert shipped_panel.panelists["dan"].organisation == "Together AI"
    assert shipped_panel.panelists["olive"].organisation == "MiniMax"
    assert len(shipped_panel.quotes) >= 30
    assert {q.speaker for q in shipped_panel.quotes} == {"dan", "olive"}
    assert shipped_panel.source is not None and shipped_panel.source.name == "captions.txt"
    for q in shipped_panel.quotes:
        assert len(q.text.split()) <= 100, q.id
        hq, turn, quote = shipped_panel.context(q.id)
        assert quote is q
        if q.question:
            assert hq is not None
        if turn is not None:
            assert turn.speaker == q.speaker


def test_bad_yaml_names_file_and_line(tmp_path: Path) -> None:
    bad = QUOTES_YAML + "- id: bob-02\n  speaker: [unclosed\n  text: x\n"
    err = load_error(make_panel(tmp_path, quotes=bad))
    assert err.path and err.path.endswith("quotes.yaml")
    assert err.line is not None and 9 <= err.line <= 12
    assert f"quotes.yaml:{err.line}:" in str(err)
    assert "invalid YAML" in str(err)


def test_bad_yaml_in_panel_yaml(tmp_path: Path) -> None:
    err = load_error(
        make_panel(tmp_path, panel=PANEL_YAML.replace("  - id: bob", "  - id: bob\n   name:: :"))
    )
    assert err.path.endswith("panel.yaml") and err.line is not None


def test_duplicate_yaml_key_is_an_error(tmp_path: Path) -> None:
    err = load_error(
        make_panel(
            tmp_path,
            quotes=QUOTES_YAML.replace("  speaker: bob\n", "  speaker: bob\n  speaker: ann\n"),
        )
    )
    assert "duplicate key" in str(err) and err.path.endswith("quotes.yaml") and err.line == 7


def test_missing_field_names_file_and_quote(tmp_path: Path) -> None:
    err = load_error(
        make_panel(tmp_path, quotes=QUOTES_YAML.replace("  text: Our robots", "  txt: Our robots"))
    )
    msg = str(err)
    assert "quotes.yaml" in msg and "'bob-01'" in msg and "'text'" in msg
    assert err.line == 5


def test_missing_quote_id(tmp_path: Path) -> None:
    err = load_error(
        make_panel(tmp_path, quotes=QUOTES_YAML.replace("- id: bob-01\n  speaker", "- speaker"))
    )
    assert "quotes.yaml" in str(err) and "quote #2" in str(err) and "'id'" in str(err)


def test_duplicate_quote_id(tmp_path: Path) -> None:
    err = load_error(make_panel(tmp_path, quotes=QUOTES_YAML.replace("bob-01", "ann-01")))
    assert "quotes.yaml" in str(err) and "duplicate quote id 'ann-01'" in str(err) and err.line == 5


def test_unknown_speaker(tmp_path: Path) -> None:
    err = load_error(
        make_panel(tmp_path, quotes=QUOTES_YAML.replace("speaker: bob", "speaker: carol"))
    )
    msg = str(err)
    assert "quotes.yaml" in msg and "'bob-01'" in msg and "'carol'" in msg and "ann" in msg


def test_host_cannot_own_quotes(tmp_path: Path) -> None:
    err = load_error(
        make_panel(tmp_path, quotes=QUOTES_YAML.replace("speaker: bob", "speaker: host"))
    )
    assert "unknown speaker 'host'" in str(err)


@pytest.mark.parametrize("quotes", ["", "[]\n", "# nothing yet\n"])
def test_empty_bank(tmp_path: Path, quotes: str) -> None:
    err = load_error(make_panel(tmp_path, quotes=quotes))
    assert "quotes.yaml" in str(err) and "empty" in str(err)


def test_missing_bank(tmp_path: Path) -> None:
    d = make_panel(tmp_path)
    (d / "quotes.yaml").unlink()
    assert "quotes.yaml" in str(load_error(d))


def test_duplicate_panelist_id(tmp_path: Path) -> None:
    err = load_error(make_panel(tmp_path, panel=PANEL_YAML.replace("id: bob", "id: ann")))
    assert "panel.yaml" in str(err) and "duplicate speaker id 'ann'" in str(err) and err.line == 10


def test_missing_title_and_no_panelists(tmp_path: Path) -> None:
    err = load_error(make_panel(tmp_path, panel=PANEL_YAML.replace("title: Tiny test panel\n", "")))
    assert "panel.yaml" in str(err) and "'title'" in str(err)
    head = PANEL_YAML.split("panelists:")[0] + "panelists: []\n"
    err = load_error(make_panel(tmp_path, panel=head))
    assert "no panelists" in str(err)


@pytest.mark.parametrize(
    "change, expect",
    [
        (("status: curated", "status: done"), "status"),
        (("format: 1", "format: 7"), "format"),
        (("id: bob", "id: Bob Smith"), "lowercase"),
        (("status: curated", "status: curated\nsource: nowhere.txt"), "nowhere.txt"),
    ],
)
def test_panel_yaml_value_errors(tmp_path: Path, change: tuple[str, str], expect: str) -> None:
    err = load_error(make_panel(tmp_path, panel=PANEL_YAML.replace(*change)))
    assert "panel.yaml" in str(err) and expect in str(err)


def test_panel_yaml_not_a_mapping(tmp_path: Path) -> None:
    err = load_error(make_panel(tmp_path, panel="- just\n- a list\n"))
    assert "panel.yaml:1:" in str(err) and "mapping" in str(err)


@pytest.mark.parametrize(
    "quotes, expect",
    [
        (QUOTES_YAML + "  turn: -1\n", "turn"),
        (QUOTES_YAML + "  sentences: [3, 1]\n", "sentences"),
        (QUOTES_YAML + "  keywords: {a: b}\n", "keywords"),
        (
            QUOTES_YAML.replace(
                "text: Our robots learn to grasp parcels in simulation first.", "text: [1, 2]"
            ),
            "text",
        ),
        ("- just a string\n", "quote #1"),
    ],
)
def test_quote_value_errors(tmp_path: Path, quotes: str, expect: str) -> None:
    err = load_error(make_panel(tmp_path, quotes=quotes))
    assert "quotes.yaml" in str(err) and expect in str(err)


def test_questions_and_turns_are_checked(tmp_path: Path) -> None:
    turns = "- {speaker: host, text: 'What is new?'}\n- {speaker: ann, text: Racks.}\n"
    questions = "- {id: q01, text: 'What is new?', turn: 0, asked_to: [ann], answered_by: [ann]}\n"
    quotes = QUOTES_YAML.replace("  keywords: [replication, storage]", "  question: q01\n  turn: 1")
    p = load_panel(make_panel(tmp_path, quotes=quotes, turns=turns, questions=questions))
    assert p.context("ann-01")[0].text == "What is new?"
    assert p.context("ann-01")[1].text == "Racks."
    err = load_error(
        make_panel(
            tmp_path,
            quotes=quotes.replace("question: q01", "question: q09"),
            turns=turns,
            questions=questions,
        )
    )
    assert "quotes.yaml" in str(err) and "'ann-01'" in str(err) and "q09" in str(err)
    err = load_error(
        make_panel(
            tmp_path,
            quotes=quotes,
            turns=turns.replace("speaker: ann", "speaker: zed"),
            questions=questions,
        )
    )
    assert "turns.yaml" in str(err) and "'zed'" in str(err)
    err = load_error(
        make_panel(
            tmp_path,
            quotes=quotes,
            turns=turns,
            questions=questions.replace("asked_to: [ann]", "asked_to: [zed]"),
        )
    )
    assert "questions.yaml" in str(err) and "'q01'" in str(err) and "zed" in str(err)
    err = load_error(
        make_panel(tmp_path, quotes=quotes, turns=turns, questions=questions + questions)
    )
    assert "questions.yaml" in str(err) and "duplicate question id" in str(err)


def test_not_utf8(tmp_path: Path) -> None:
    d = make_panel(tmp_path)
    (d / "quotes.yaml").write_bytes(b"- id: a\n  text: \xff\xfe\n")
    err = load_error(d)
    assert "quotes.yaml" in str(err) and "UTF-8" in str(err)


def test_find_panel_by_name_path_and_unknown(tmp_path: Path, isolated_env, monkeypatch) -> None:
    d = make_panel(tmp_path / "panels")
    monkeypatch.setenv("PANELBOT_PANELS", str(tmp_path / "panels"))
    assert find_panel_dir("tiny") == d
    assert find_panel_dir(str(d)) == d
    assert load_panel("minimax-m3").name == "minimax-m3"
    with pytest.raises(PanelNotFound, match="nope"):
        find_panel_dir("nope")
    with pytest.raises(PanelNotFound):
        find_panel_dir("")
    with pytest.raises(PanelNotFound):
        find_panel_dir("./no/such/panel")


def test_list_panels_reports_broken_ones(tmp_path: Path, isolated_env, monkeypatch) -> None:
    root = tmp_path / "panels"
    make_panel(root)
    broken = root / "broken"
    shutil.copytree(root / "tiny", broken)
    (broken / "quotes.yaml").write_text("", encoding="utf-8")
    monkeypatch.setenv("PANELBOT_PANELS", str(root))
    infos = {i.name: i for i in list_panels()}
    assert infos["tiny"].status == "curated" and infos["tiny"].quotes == 2
    assert infos["broken"].status == "error" and "empty" in infos["broken"].title
    assert "minimax-m3" in infos


# ----------------------------------------------------------------------------------------------- through the CLI


@pytest.mark.parametrize(
    "quotes, expect",
    [
        (QUOTES_YAML + "- id: x\n  speaker: [oops\n", "quotes.yaml:"),
        (QUOTES_YAML.replace("bob-01", "ann-01"), "duplicate quote id"),
        (QUOTES_YAML.replace("speaker: bob", "speaker: carol"), "unknown speaker"),
        ("[]\n", "empty"),
    ],
)
def test_cli_reports_one_line_and_exits_2(
    run_cli, tmp_path: Path, quotes: str, expect: str
) -> None:
    d = make_panel(tmp_path / "bad", quotes=quotes)
    for args in (
        ["ask", "--panel", str(d), "replication"],
        ["quote", "--panel", str(d), "replication"],
    ):
        r = run_cli(*args)
        assert r.returncode == 2
        assert r.stdout == ""
        assert "Traceback" not in r.stderr
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1, r.stderr
        assert (
            lines[0].startswith("panelbot: error:")
            and expect in lines[0]
            and "quotes.yaml" in lines[0]
        )


def test_list_panels_reads_metadata_and_counts_without_loading(
    tmp_path: Path, isolated_env, monkeypatch
) -> None:
    """Listing validates panel.yaml and counts the quote bank; a bank that is only counted is not parsed
    (a bad entry further down shows when the panel is used, not in the list)."""
    root = tmp_path / "panels"
    make_panel(root)
    flow = root / "flow"
    shutil.copytree(root / "tiny", flow)
    (flow / "quotes.yaml").write_text(
        '[{id: a-1, speaker: ann, text: "One."}, {id: a-2, speaker: ann, text: "Two."},'
        ' {id: a-3, speaker: ann, text: "Three."}]\n'
    )
    counted = root / "counted"
    shutil.copytree(root / "tiny", counted)
    (counted / "quotes.yaml").write_text(
        (counted / "quotes.yaml").read_text() + "- id: x\n  speaker: nobody\n"
    )
    badmeta = root / "badmeta"
    shutil.copytree(root / "tiny", badmeta)
    (badmeta / "panel.yaml").write_text("title: [unclosed\n")
    monkeypatch.setenv("PANELBOT_PANELS", str(root))
    infos = {i.name: i for i in list_panels()}
    assert infos["tiny"].quotes == 2 and infos["tiny"].status == "curated"
    assert infos["flow"].quotes == 3  # not a block list: parsed to count
    assert infos["counted"].quotes == 3 and infos["counted"].status == "curated"
    assert infos["badmeta"].status == "error" and "panel.yaml" in infos["badmeta"].title
    with pytest.raises(DataError, match="unknown speaker"):
        load_panel(counted)
