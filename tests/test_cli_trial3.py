"""What a new user's third trial found on the command line, through the real CLI in this process (``main``)
on the shipped panel, with the history in a tmp dir (``isolated_env``)."""

from __future__ import annotations

import json
from typing import Any

import pytest


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    from panelbot.cli.main import main

    assert main(list(argv)) == 0
    return capsys.readouterr().out


def _ask_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    return json.loads(_run(capsys, "ask", "--json", *argv))


# ------------------------------------------------------------------------- "and Dan?" after a "why"


@pytest.mark.parametrize(
    "question",
    [
        pytest.param(
            "Why open source the model?",
            marks=pytest.mark.xfail(
                strict=True,
                reason="with the relevance model Dan answers beside Olive (dan-03, dan-02); 'and Dan?' "
                "then gives more from Dan, his partnership story, not more on open source",
            ),
        ),
        "Why give away your best model for free?",
    ],
)
def test_and_dan_after_olives_why_answer_is_dans_answer_on_that_subject(
    question: str, isolated_env, capsys, shipped_panel
) -> None:  # noqa: ANN001
    """Olive answers why MiniMax opened M3 (the host's "Why open source it? What's the idea behind that as
    a company ..."); "and Dan?" gives what Dan said on open source -- never a quote of his on something
    else that shares only the host's phrasing ("behind the scenes" of a launch: dan-10)."""
    first = _ask_json(capsys, question)
    assert first["speakers"] == ["olive"], first
    follow = _ask_json(capsys, "-c", "and Dan?")
    ids = [q["id"] for q in follow["quotes"]]
    assert follow["speakers"] == ["dan"] and ids, follow
    for qid in ids:
        topics = shipped_panel.quote(qid).topics
        assert any("open" in t for t in topics), (qid, topics, ids)


# ------------------------------------------------------------------------- history show: the notes


def _words(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize(
    "turns",
    [
        [
            "Olive, how do you deal with a KV cache that keeps growing?"
        ],  # handed over: "...; Dan did"
        ["who is Dan?"],  # a framing note
        ["what is this talk about?"],
        ["How do you deal with a KV cache that keeps growing?", "tell me more"],
    ],
)
def test_history_show_prints_the_notes_the_answers_had(
    turns: list[str], isolated_env, capsys, monkeypatch
) -> None:  # noqa: ANN001
    monkeypatch.setenv("COLUMNS", "100")
    notes = []
    for i, question in enumerate(turns):
        live = _run(capsys, "ask", *(["-c"] if i else []), question)
        note = live.rstrip().rsplit("\n\n", 1)[-1]
        assert note.startswith("(") and note.endswith(")"), live
        notes.append(_words(note))
    shown = _words(_run(capsys, "history", "show", "1"))
    for note in notes:
        assert note in shown, (note, shown)
    assert shown.count(notes[-1]) == 1


# ------------------------------------------------------------------------- suggestions answerable


def test_suggestions_after_a_declined_and_olive_are_answered_as_asked(
    isolated_env, capsys, tmp_path, monkeypatch
) -> None:  # noqa: ANN001
    """With the question put to Olive (``--to olive``, the app's target selector), her decline ("Olive
    didn't speak to KV cache storage") offers only what is answered when asked of her in that state -- not
    "Tell me more", which is hers to answer there and declined the same way."""
    import shutil

    kv = "How do you deal with a KV cache that keeps growing?"
    assert _ask_json(capsys, "--to", "olive", kv)["speakers"] == ["dan"]  # handed over
    declined = _ask_json(capsys, "-c", "--to", "olive", "and Olive?")
    assert declined["abstained"] and declined["suggestions"], declined
    assert "Tell me more" not in declined["suggestions"]
    data = isolated_env["PANELBOT_DATA_DIR"]
    for n, suggestion in enumerate(declined["suggestions"]):
        copy = tmp_path / f"state-{n}"
        shutil.copytree(data, copy)  # the same conversation, for each suggestion
        monkeypatch.setenv("PANELBOT_DATA_DIR", str(copy))
        got = _ask_json(capsys, "-c", "--to", "olive", suggestion)
        assert not got["abstained"] and got["quotes"], (suggestion, got["reason"])


# ------------------------------------------------------------------------- naming who spoke to it too


def test_nothing_more_names_the_other_panelist_and_the_question_that_asks_them(
    isolated_env, capsys
) -> None:  # noqa: ANN001
    """ "Dan had nothing more to say about ... Olive spoke to this too — ask “and Olive?”": the panel's
    display name, no "they" for one person, and the question it names is answered by her."""
    _run(capsys, "ask", "How did the partnership between Together and MiniMax start?")
    out = ""
    for _ in range(3):
        out = _run(capsys, "ask", "-c", "tell me more")
        if "nothing more" in out:
            break
    text = " ".join(out.split())
    assert "Olive spoke to this too \u2014 ask \u201cand Olive?\u201d" in text, text
    assert " they " not in f" {text} " and "what they think" not in text
    assert "\u201d." not in text  # the sentence ends with the question
    olive = _ask_json(capsys, "-c", "and Olive?")
    assert olive["speakers"] == ["olive"] and olive["quotes"], olive


def test_no_reason_names_the_panelist_not_they(isolated_env, capsys) -> None:  # noqa: ANN001
    _run(capsys, "ask", "How do you deal with a KV cache that keeps growing?")
    for _ in range(2):
        _run(capsys, "ask", "-c", "tell me more")
    text = " ".join(_run(capsys, "ask", "-c", "why?").split())
    assert "gave no reason" in text and " they " not in text, text


# ------------------------------------------------------------------------- the same title twice


def test_history_list_tells_conversations_with_the_same_title_apart(isolated_env, capsys) -> None:  # noqa: ANN001
    from panelbot import paths
    from panelbot.conversation.store import ConversationStore

    kv = "How do you deal with a KV cache that keeps growing?"
    for question in (kv, "who is Dan?", kv, kv):
        _run(capsys, "ask", question)
    rows = _run(capsys, "history").splitlines()
    titles = [row.split("minimax-m3", 1)[1].strip() for row in rows]  # newest first
    assert titles == [f"{kv} (3)", f"{kv} (2)", "who is Dan?", kv], rows
    with ConversationStore(paths.history_db_path()) as store:  # stored as they were
        assert [c.title for c in store.list_conversations()] == [kv, kv, "who is Dan?", kv]
    listed = json.loads(_run(capsys, "history", "--json"))
    assert [c["title"] for c in listed] == [kv, kv, "who is Dan?", kv]


# ------------------------------------------------------------------------- did not reproduce: guards


def test_ask_json_carries_each_quotes_start_and_link(isolated_env, capsys, tmp_path) -> None:  # noqa: ANN001
    """Reported as ``"start": null`` for timed quotes; the shipped panel has no times (its captions have
    none), and a timed panel's quotes carry theirs, first question and follow-up alike: kept so."""
    from pathlib import Path

    from panelbot.ingest.draft import build_draft, write_draft
    from panelbot.panel import load_panel

    caps = (Path(__file__).parent / "fixtures" / "bread_panel.vtt").read_text(encoding="utf-8")
    out = tmp_path / "bread"
    write_draft(build_draft(caps, "bread"), caps, out)
    meta = out / "panel.yaml"
    meta.write_text(
        meta.read_text(encoding="utf-8") + "source_url: https://www.youtube.com/watch?v=abc\n",
        encoding="utf-8",
    )
    panel = load_panel(out)
    got = [_ask_json(capsys, "--panel", str(out), "Why did sourdough suddenly get so popular?")]
    got.append(_ask_json(capsys, "-c", "and Rafał?"))
    quotes = [q for d in got for q in d["quotes"]]
    assert quotes
    for q in quotes:
        mine = panel.quote(q["id"])
        assert mine.start is not None and q["start"] == mine.start, q
        assert q["url"] == mine.url and "t=" in q["url"], q


# ------------------------------------------------------------------------- a new question after an introduction


@pytest.mark.parametrize(
    "first, then",
    [
        ("who is Olive?", "why would a lab give its best model away for nothing?"),
        ("what does Dan do?", "how do you deal with a KV cache that keeps growing?"),
    ],
)
def test_a_new_question_after_an_introduction_is_not_read_as_its_follow_up(
    first: str, then: str, isolated_env, capsys
) -> None:  # noqa: ANN001
    """The answer it would get on its own is the answer, and no "follow-up to your question about Olive's
    role" is claimed; a real follow-up on the introduction still reads as one."""
    _ask_json(capsys, first)
    new = _ask_json(capsys, "-c", then)
    assert new["quotes"] and not new.get("context"), new
    _ask_json(capsys, "who is Olive?")
    more = _ask_json(capsys, "-c", "tell me more")
    assert (more.get("context") or {}).get("kind") == "continuation", more


def test_a_subject_label_writes_an_organisation_as_the_panel_does(isolated_env, capsys) -> None:  # noqa: ANN001
    """The topic "together's view on open source" is shown with the organisation as written: "Together's"."""
    _run(capsys, "ask", "what does Dan think about open source?")
    out = _run(capsys, "ask", "-c", "and why does that help him?")
    assert "together's" not in out and "Together's view" in out, out
