"""The app (``panelbot`` with no command) takes no flag for a model: given one of ask's (``--llm``,
``--model``, ``--base-url``), it says how the app answers with a model instead of "unrecognized arguments"
(issue 19, "Also": turning the model on in the app was only implied)."""

from __future__ import annotations

import pytest

from panelbot.cli.main import main as cli


@pytest.mark.parametrize(
    "argv", [["--llm"], ["--model", "m"], ["--resume", "--base-url=http://127.0.0.1:1/v1"]]
)
def test_a_models_flag_given_to_the_app_says_how(isolated_env, capsys, argv: list[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        cli(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "PANELBOT_BACKEND=openai panelbot" in err and "ask --llm" in err
    assert err.count("\n") == 1


def test_asks_own_flags_still_go_to_ask(isolated_env, capsys) -> None:
    assert cli(["ask", "--offline", "--model", "m", "--no-log", "kv cache"]) == 0
    assert "PANELBOT_BACKEND" not in capsys.readouterr().err
