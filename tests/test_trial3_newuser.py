"""What a new user's trial (round 3, after the relevance model) found, through the real CLI in this process
(``main``) with the history in a tmp dir (``isolated_env``)."""

from __future__ import annotations

import pytest


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    from panelbot.cli.main import main

    assert main(list(argv)) == 0
    return capsys.readouterr().out


# ------------------------------------------------------------------ history show: who declined


def test_history_show_never_puts_a_decline_in_the_hosts_mouth(
    isolated_env, capsys, shipped_panel
) -> None:  # noqa: ANN001
    """A decline is panelbot's own voice (the app labels it "panelbot", as its export does); ``history
    show`` named the talk's host (a real person on an ingested talk: "Sally Pennington (declined):")."""
    live = _run(capsys, "ask", "best pizza in Naples?")
    assert "Not something the panel got into" in live
    shown = _run(capsys, "history", "show", "1")
    host = shipped_panel.host.name
    assert f"{host} (declined)" not in shown, shown
    assert "panelbot (declined):" in shown, shown
