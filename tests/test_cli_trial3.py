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
    "question", ["Why open source the model?", "Why give away your best model for free?"]
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
