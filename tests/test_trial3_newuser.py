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


# ------------------------------------------------------------------ ingest: a role cut before "and who"


@pytest.mark.parametrize(
    ("presented", "role"),
    [
        (
            "Mara Lindqvist, who is a soil chemist in Uppsala and who once told me that she has never "
            "met a worm she didn't like",
            "Soil chemist",
        ),
        ("Tom Reyes, an archivist and who keeps the city's maps", "Archivist"),
        ("Ana Ruiz, a glaciologist in Quito but who grew up by the sea", "Glaciologist"),
    ],
)
def test_a_presented_role_never_ends_on_the_and_of_the_next_clause(
    presented: str, role: str
) -> None:
    """The host's "X, who is a dairy microbiologist in Copenhagen and who told me ..." gave the role
    "Dairy microbiologist in Copenhagen and" (the app shows it beside every answer of theirs): the role
    stops before a relative clause joined by "and"/"but" as it does before one on its own."""
    from panelbot.ingest.draft import _role_from_presentation

    assert _role_from_presentation(presented)[0] == role
