"""``panelbot`` with no command (the app) from a new user's trial: with no terminal (``panelbot --resume 999
< /dev/null > out.txt``, or stdout a pipe) it started Textual anyway, painted escape codes into the file and
spun; and ``--resume ID`` of no conversation started a new one while ``ask --cid ID`` was a usage error.
Both are now one line and exit 2 before the app starts."""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path

import pytest

from panelbot.cli.main import main as cli
from panelbot.conversation.store import ConversationStore


class Terminal(io.StringIO):
    """A stream that says it is a terminal (what a real one says), keeping what is written."""

    def isatty(self) -> bool:
        return True


@pytest.fixture
def app_runs(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Each app started (the app itself is not run)."""
    from panelbot.tui import app as app_module

    started: list[object] = []

    def fake_run(self) -> None:
        started.append(self)

    monkeypatch.setattr(app_module.PanelbotApp, "run", fake_run)
    return started


def terminal(monkeypatch: pytest.MonkeyPatch) -> tuple[Terminal, Terminal]:
    """stdin, stdout and stderr are a terminal; returns (stdout, stderr). Called in the test itself:
    pytest's capture puts its own streams back after a fixture's setup."""
    out, err = Terminal(), Terminal()
    monkeypatch.setattr(sys, "stdin", Terminal())
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    return out, err


def _history_with_one() -> int:
    path = Path(os.environ["PANELBOT_DATA_DIR"]) / "history.sqlite3"
    path.parent.mkdir(parents=True, exist_ok=True)
    with ConversationStore(path) as store:
        return store.new_conversation("tiny", "kept")


@pytest.mark.parametrize("argv", [[], ["--resume"], ["--resume", "1"]])
def test_no_terminal_is_one_line_pointing_at_ask(isolated_env, capsys, app_runs, argv) -> None:
    # under pytest stdin and stdout are not terminals, as with < /dev/null > out.txt
    assert cli(argv) == 2
    captured = capsys.readouterr()
    assert app_runs == [] and captured.out == ""
    assert captured.err.count("\n") == 1 and "terminal" in captured.err
    assert "panelbot ask" in captured.err


def test_stdout_a_pipe_is_refused_too(isolated_env, monkeypatch, app_runs) -> None:
    _, err = terminal(monkeypatch)
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    assert cli([]) == 2
    assert app_runs == [] and "stdout is not one" in err.getvalue()


def test_an_app_given_a_driver_of_its_own_starts_over_pipes(
    isolated_env, monkeypatch, app_runs
) -> None:
    """``panelbot web`` runs each tab's app with textual-serve's web driver (``TEXTUAL_DRIVER``), over pipes:
    that app starts (the headless-browser test caught the refusal)."""
    monkeypatch.setenv("TEXTUAL_DRIVER", "textual.drivers.web_driver:WebDriver")
    assert cli([]) == 0
    assert len(app_runs) == 1


@pytest.mark.parametrize("history", [False, True], ids=["no-history", "other-conversation"])
def test_resume_of_no_conversation_is_a_usage_error(
    isolated_env, monkeypatch, app_runs, history: bool
) -> None:
    if history:
        _history_with_one()
    out, err = terminal(monkeypatch)
    assert cli(["--resume", "999"]) == 2
    assert app_runs == [] and out.getvalue() == ""
    assert err.getvalue().count("\n") == 1 and "no conversation 999" in err.getvalue()
    # the same as ask --cid 999 says
    assert cli(["ask", "--offline", "--cid", "999", "kv cache"]) == 2


def test_resume_of_a_saved_conversation_or_the_last_still_opens_the_app(
    isolated_env, monkeypatch, app_runs
) -> None:
    cid = _history_with_one()
    terminal(monkeypatch)
    assert cli(["--resume", str(cid)]) == 0
    assert cli(["--resume"]) == 0  # the most recent one (none needed: the app says so)
    assert cli([]) == 0
    assert len(app_runs) == 3
