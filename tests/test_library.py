"""Across talks: routing, search and abstention over two fixture panels (tests/fixtures/library), in process
and through the real ``panelbot ask --all`` / ``quote --all``."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from panelbot.retrieval.library import Library

LIBRARY = Path(__file__).resolve().parent / "fixtures" / "library"
TWO = [LIBRARY / "gardens", LIBRARY / "storage"]


@pytest.fixture(scope="module")
def library(tmp_path_factory) -> Iterator[Library]:
    before = os.environ.get("PANELBOT_CACHE_DIR")
    os.environ["PANELBOT_CACHE_DIR"] = str(tmp_path_factory.mktemp("library-cache"))
    try:
        lib, notes = Library.open(directories=TWO)
    finally:
        if before is not None:
            os.environ["PANELBOT_CACHE_DIR"] = before
    assert notes == [] and [p.name for p in lib.panels] == ["gardens", "storage"]
    yield lib


@pytest.mark.parametrize(
    "question, panel, speaker",
    [
        ("Do bees need water in a small garden?", "gardens", "ivy"),
        ("What goes into a good compost heap?", "gardens", "sam"),
        ("Is erasure coding better than replication for durability?", "storage", "sam"),
        ("Have you ever restored a backup?", "storage", "kai"),
    ],
)
def test_the_talk_that_covered_it_answers(
    library: Library, question: str, panel: str, speaker: str
) -> None:
    answer = library.route(question)
    assert not answer.abstained
    assert answer.talks[0].panel.name == panel
    assert answer.talks[0].result.speakers == [speaker]
    d = answer.to_dict()
    assert (
        d["panels"][0] == panel
        and d["quotes"]
        and all(q["panel"] in ("gardens", "storage") for q in d["quotes"])
    )
    assert d["quotes"][0]["panel"] == panel


@pytest.mark.parametrize(
    "question",
    [
        "What is the best pizza in Naples?",
        "Who won the 1998 World Cup?",
        "How do I renew my passport?",
    ],
)
def test_a_question_no_talk_touched_is_declined(library: Library, question: str) -> None:
    answer = library.route(question)
    assert answer.abstained and answer.talks == []
    d = answer.to_dict()
    assert d["speakers"] == [] and d["quotes"] == [] and d["panels"] == []
    assert d["reason"] == "off-topic: none of the 2 talks touched this"
    assert "compost (gardens)" in d["suggestions"] and "replication (storage)" in d["suggestions"]


def test_both_talks_answer_a_question_about_both(library: Library) -> None:
    answer = library.route("compost heaps for the garden, and disk replication for durability")
    names = [t.panel.name for t in answer.talks]
    assert set(names) <= {"gardens", "storage"} and names
    for t in answer.talks:  # each talk's quotes are its own, named with it
        assert all(t.panel.quote(sq.quote.id) is sq.quote for sq in t.result.quotes)


def test_search_names_the_talk_and_ranks_across_talks(library: Library) -> None:
    hits = library.search("repair bandwidth when a disk fails", 3)
    assert hits[0].panel.name == "storage" and hits[0].scored.quote.id == "sam-02"
    # the same id exists in both talks: the panel tells them apart
    both = library.search("compost replication", 6)
    ids = {(h.panel.name, h.scored.quote.id) for h in both}
    assert ("gardens", "sam-02") in ids or ("gardens", "sam-01") in ids
    assert any(n == "storage" for n, _ in ids)
    assert [h.score for h in both] == sorted((h.score for h in both), reverse=True)
    assert all(0 <= h.score <= 100 for h in both)
    assert {h.to_dict()["panel"] for h in both} == {"gardens", "storage"}


def test_a_talk_sharing_one_word_does_not_outrank_the_talk_that_covered_it(
    library: Library,
) -> None:
    # "water" is only in gardens; "disk", "fails", "repair" only in storage
    hits = library.search("how fast does the disk repair after it fails, water", 2)
    assert hits[0].panel.name == "storage"


def test_targets_across_talks(library: Library) -> None:
    with pytest.raises(ValueError):
        library.route("compost", "sam")
    both = library.route("Do bees need water in a small garden?", "both")
    assert not both.abstained and both.talks[0].panel.name == "gardens"


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=80))
def test_any_text_routes_without_error(library: Library, text: str) -> None:
    answer = library.route(text)
    d = answer.to_dict()
    assert d["abstained"] == (d["panels"] == [])
    json.dumps(d)
    for h in library.search(text, 3):
        assert 0 <= h.score <= 100


# ------------------------------------------------------------------------------------------- the CLI


def _env(tmp_path: Path) -> dict[str, str]:
    return {"PANELBOT_PANELS": str(LIBRARY), "PANELBOT_CACHE_DIR": str(tmp_path / "cli-cache")}


def test_ask_all_cli(run_cli, tmp_path: Path) -> None:
    env = _env(tmp_path)
    r = run_cli(
        "ask", "--all", "Is erasure coding better than replication for durability?", env=env
    )
    assert r.returncode == 0 and r.stderr == ""
    assert r.stdout.startswith(
        "== Disks Fail: Storage at Scale [storage]\nSamir (Storage engineer):"
    )
    assert "[sam-01]" in r.stdout
    r = run_cli("ask", "--all", "--json", "Do bees need water in a small garden?", env=env)
    d = json.loads(r.stdout)
    assert d["panels"][0] == "gardens" and d["quotes"][0]["panel"] == "gardens"
    assert set(d) >= {"question", "speakers", "abstained", "quotes", "reason", "panels", "answers"}
    r = run_cli(
        "ask",
        "--all",
        "--json",
        "-",
        stdin="best pizza in Naples?\nHave you ever restored a backup?\n",
        env=env,
    )
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    assert [x["abstained"] for x in lines] == [True, False]
    assert lines[1]["panels"][0] == "storage"
    r = run_cli("ask", "--all", "best pizza in Naples?", env={**env, "COLUMNS": "60"})
    assert r.returncode == 0 and r.stdout.startswith("None of the talks got into that")
    assert max(map(len, r.stdout.splitlines())) <= 60  # wrapped to the terminal, like every answer
    # no blank line dangling after the last talk's answer
    r = run_cli(
        "ask", "--all", "Is erasure coding better than replication for durability?", env=env
    )
    assert r.stdout.startswith("== Disks Fail") and r.stdout.endswith("\n")
    assert not r.stdout.endswith("\n\n")


def test_quote_all_cli(run_cli, tmp_path: Path) -> None:
    env = _env(tmp_path)
    r = run_cli("quote", "--all", "-n", "2", "repair bandwidth disk", env=env)
    assert r.returncode == 0
    assert r.stdout.splitlines()[0].startswith("[storage] [sam-02] Samir (")
    r = run_cli("quote", "--all", "--json", "-n", "3", "compost", env=env)
    hits = json.loads(r.stdout)
    assert hits and all(h["panel"] == "gardens" for h in hits)
    assert set(hits[0]) == {"id", "speaker", "text", "score", "start", "panel"}


@pytest.mark.parametrize(
    "args, expect",
    [
        (["ask", "--all", "--to", "sam", "compost"], "with --all, --to expects auto or both"),
        (["ask", "--all", "--llm", "compost"], "cannot be combined with --llm"),
        (
            ["quote", "--all", "--speaker", "sam", "compost"],
            "--speaker names a panelist of one talk",
        ),
    ],
)
def test_all_usage_errors(run_cli, tmp_path: Path, args: list[str], expect: str) -> None:
    r = run_cli(*args, env=_env(tmp_path))
    assert r.returncode == 2 and r.stdout == ""
    assert len(r.stderr.splitlines()) == 1 and expect in r.stderr and "Traceback" not in r.stderr


def test_a_broken_talk_is_skipped_with_a_note(run_cli, tmp_path: Path) -> None:
    import shutil

    root = tmp_path / "panels"
    shutil.copytree(LIBRARY, root)
    (root / "storage" / "quotes.yaml").write_text("- id: x\n  speaker: [oops\n")
    r = run_cli(
        "ask",
        "--all",
        "--json",
        "Do bees need water in a small garden?",
        env={"PANELBOT_PANELS": str(root), "PANELBOT_CACHE_DIR": str(tmp_path / "c")},
    )
    assert r.returncode == 0 and json.loads(r.stdout)["panels"] == ["gardens"]
    assert (
        r.stderr.startswith("panelbot: note: skipped panel 'storage':")
        and len(r.stderr.splitlines()) == 1
    )


def test_the_talk_that_covered_it_answers_first_among_all(
    tmp_path: Path, monkeypatch, shipped_panel
) -> None:
    """With the shipped talk installed too, the storage talk (erasure coding and replication are its
    subject) answers first; any other talk answers only as it would when asked alone."""
    monkeypatch.setenv("PANELBOT_CACHE_DIR", str(tmp_path / "c"))
    lib, _ = Library.open(directories=[*TWO, shipped_panel.path])
    question = "Is erasure coding better than replication?"
    answer = lib.route(question)
    assert answer.talks[0].panel.name == "storage"
    alone = {r.panel.name for r in lib.routers if not r.route(question).abstained}
    assert {t.panel.name for t in answer.talks} == alone


def test_every_talk_that_would_answer_alone_answers_across_talks(library: Library) -> None:
    """`ask --all` gives the union of the talks' own answers: a talk that keeps the question when asked
    alone is never left out because another talk spoke to it more."""
    for question in (
        "Do bees need water in a small garden?",
        "Is erasure coding better than replication for durability?",
        "How do you keep things from getting lost?",
        "What would you tell someone just starting out?",
    ):
        alone = [r.panel.name for r in library.routers if not r.route(question).abstained]
        answer = library.route(question)
        assert sorted(t.panel.name for t in answer.talks) == sorted(alone), question
