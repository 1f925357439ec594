"""Snapshots of the shipped panel (minimax-m3, offline backend, routing pinned by PinnedRouter).

Cursor blink and animations are off so the SVGs are stable. Update with ``pytest --snapshot-update``
after checking the new pictures in snapshot_report.html.
"""

from __future__ import annotations

from typing import Any

import pytest

from panelbot.config import Config, TuiSettings
from panelbot.records import replace
from panelbot.tui.widgets.prompt import Prompt

from .conftest import settle, type_and_send
from .fakes import PinnedRouter

WIDE = (130, 36)
SMALL = (80, 24)


@pytest.fixture
def shipped_app() -> Any:
    from panelbot.tui.app import PanelbotApp

    def factory() -> PanelbotApp:
        app = PanelbotApp(
            Config(panel="minimax-m3"), "minimax-m3", False, router_factory=PinnedRouter
        )
        app.animation_level = "none"
        return app

    return factory


async def still(pilot: Any) -> None:
    """No blinking cursor, no pending work."""
    for prompt in pilot.app.query(Prompt):
        prompt.cursor_blink = False
    await settle(pilot)
    pilot.app.clear_notifications()
    await pilot.pause()


def asking(question: str, *then: str) -> Any:
    """run_before: ask a question on the shipped panel, then press keys (with the sources pane focused)."""

    async def run_before(pilot: Any) -> None:
        await still(pilot)
        await type_and_send(pilot, question)
        if then:
            pilot.app.query_one("#sources").focus()
            await pilot.press(*then)
        await still(pilot)

    return run_before


def test_start_screen(snap_compare, shipped_app) -> None:
    assert snap_compare(shipped_app(), run_before=still, terminal_size=WIDE)


def test_start_screen_80x24(snap_compare, shipped_app) -> None:
    assert snap_compare(shipped_app(), run_before=still, terminal_size=SMALL)


def test_answer_with_sources(snap_compare, shipped_app) -> None:
    run_before = asking("How does the KV cache grow with long context?")
    assert snap_compare(shipped_app(), run_before=run_before, terminal_size=WIDE)


def test_answer_with_sources_light_theme(snap_compare, shipped_app) -> None:
    app = shipped_app()
    app.config = replace(app.config, tui=TuiSettings(theme="textual-light"))
    run_before = asking("How does the KV cache grow with long context?")
    assert snap_compare(app, run_before=run_before, terminal_size=WIDE)


def test_context_view(snap_compare, shipped_app) -> None:
    run_before = asking("How does the KV cache grow with long context?", "enter")
    assert snap_compare(shipped_app(), run_before=run_before, terminal_size=WIDE)


def test_abstention(snap_compare, shipped_app) -> None:
    run_before = asking("What's your favourite pizza topping?")
    assert snap_compare(shipped_app(), run_before=run_before, terminal_size=WIDE)


def test_help(snap_compare, shipped_app) -> None:
    async def run_before(pilot: Any) -> None:
        await still(pilot)
        await pilot.press("f1")
        await still(pilot)

    assert snap_compare(shipped_app(), run_before=run_before, terminal_size=WIDE)


def test_help_80x24(snap_compare, shipped_app) -> None:
    # every key, PageUp / PageDown included, above the fold at 80x24
    async def run_before(pilot: Any) -> None:
        await still(pilot)
        await pilot.press("f1")
        await still(pilot)

    assert snap_compare(shipped_app(), run_before=run_before, terminal_size=SMALL)
