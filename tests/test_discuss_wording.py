"""What ``panelbot discuss`` says of itself and of what it is given, from a new user's trial: an empty subject
was called "the question"."""

from __future__ import annotations

import io
import sys

import pytest

from panelbot.cli.main import main as cli


@pytest.mark.parametrize(
    "argv",
    [["discuss", ""], ["discuss", "  "], ["discuss", "--all", ""]],
    ids=["empty", "blank", "all-talks"],
)
def test_an_empty_subject_is_called_a_subject(isolated_env, capsys, argv) -> None:
    assert cli(argv) == 2
    err = capsys.readouterr().err
    assert err == "panelbot: error: the subject is empty\n"


def test_no_subject_on_stdin_and_a_long_one_are_called_subjects(
    isolated_env, capsys, monkeypatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n\n"))
    assert cli(["discuss", "-"]) == 2
    assert (
        "no subject on stdin ('-' reads one subject per non-empty line)" in capsys.readouterr().err
    )
    assert cli(["discuss", "x" * 5000]) == 2
    assert "the subject is 5,000 characters long" in capsys.readouterr().err


def test_ask_still_says_question(isolated_env, capsys) -> None:
    assert cli(["ask", ""]) == 2
    assert "the question is empty" in capsys.readouterr().err


def _help(argv: list[str], capsys) -> str:
    with pytest.raises(SystemExit):
        cli(argv)
    return " ".join(capsys.readouterr().out.split())


def test_help_and_readme_claim_no_verdict_that_is_not_measured(capsys) -> None:
    """``discuss --help`` said "where they agree and differ" and the README "(agree / differ, measured)",
    while every point of the shipped talk reads "whether they agree is not measured"."""
    from pathlib import Path

    listing, own = _help(["--help"], capsys), _help(["discuss", "--help"], capsys)
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    for text in (listing, own, readme):
        assert "agree and differ" not in text and "agree / differ" not in text
    assert "whether they agree where that is measured" in listing
    assert "whether they agree is not measured" in own
    assert "whether they agree where that is measured" in readme
