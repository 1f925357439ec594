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


# ------------------------------------------------------------------ discuss: wrapped items hang


@pytest.mark.parametrize(
    "argv", [("discuss", "--no-log", "open source"), ("ask", "--no-log", "discuss open source")]
)
def test_a_wrapped_point_of_a_discussion_hangs_under_its_text(
    argv: tuple[str, ...], isolated_env, capsys, monkeypatch
) -> None:  # noqa: ANN001
    """ "  - Both spoke to it: ... whether they agree" went on at the dash's column ("  is not
    measured."), reading as a new paragraph: a point's later lines start under its first word (in
    ``discuss`` and in ``ask "discuss ..."``, which lays the host's lines out on its own)."""
    monkeypatch.setenv("COLUMNS", "80")
    out = _run(capsys, *argv)
    lines = out.splitlines()
    start = lines.index("Where they meet:")
    points = [line for line in lines[start + 1 :] if line.strip()]
    assert points and points[0].startswith("  - "), out
    assert len(points) > 1, out  # a point this long wraps at 80 columns
    for line in points[1:]:
        assert line.startswith("  - ") or line.startswith("    "), out


def test_a_wrapped_subject_of_the_map_hangs_under_its_text(
    isolated_env, capsys, monkeypatch
) -> None:  # noqa: ANN001
    """ "   1. MiniMax M3 is your strongest model yet. Why open source it? ..." went on at the number's
    column: an entry's later lines start under its text, not under its number (a narrow terminal: the
    subjects are short titles now)."""
    monkeypatch.setenv("COLUMNS", "40")
    out = _run(capsys, "discuss", "--map")
    lines = out.splitlines()
    entries = lines[1 : next(i for i, x in enumerate(lines) if x.startswith("Discuss one"))]
    wrapped = False
    for line in entries:
        head = line.lstrip()
        if head[:1].isdigit() and ". " in head[:4]:
            hang = len(line) - len(head) + head.index(". ") + 2
            continue
        wrapped = True
        assert line.startswith(" " * hang) and not line[hang].isspace(), out
    assert wrapped, out


# ------------------------------------------------------------------ a discussion saved: whole lines


def test_a_saved_discussion_keeps_its_host_lines_whole_and_history_show_hangs_them(
    isolated_env, capsys, monkeypatch
) -> None:  # noqa: ANN001
    """The host's lines of a discussion were saved filled at 100 columns, so the app, resumed in 80,
    broke "... What's the idea" / "behind that ..." mid-line, and ``history show`` filled the filled
    lines again ("whether they" / "agree" / "is not measured."): they are saved whole, as the app
    shows them live, and each front end wraps them."""
    from panelbot import paths
    from panelbot.conversation.store import ConversationStore

    monkeypatch.setenv("COLUMNS", "100")
    _run(capsys, "discuss", "open source")
    store = ConversationStore(paths.history_db_path())
    try:
        saved = [m.text for m in store.messages(1) if m.role == "search"]
    finally:
        store.close()
    lines = [line for text in saved for line in text.splitlines()]
    asked = [line for line in lines if line.startswith("The host asked")]
    assert asked and asked[0].endswith("\u201d"), saved
    assert "Where they meet:" in lines, saved
    shown = _run(capsys, "history", "show", "1").splitlines()
    start = shown.index("  Where they meet:")
    points = [line for line in shown[start + 1 :] if line.strip()][:2]
    assert points[0].startswith("    - "), shown
    assert points[1].startswith("      ") and points[1].strip(), shown  # under the point's text
