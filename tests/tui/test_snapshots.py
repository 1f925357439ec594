"""Snapshots of the shipped panel (minimax-m3, real router, offline backend).

Cursor blink and animations are off so the SVGs are stable. Update with ``pytest --snapshot-update``
after checking the new pictures in snapshot_report.html.
"""

from __future__ import annotations

from typing import Any

import pytest

from panelbot.config import Config
from panelbot.tui.widgets.prompt import Prompt

from .conftest import settle, type_and_send

WIDE = (130, 36)
SMALL = (80, 24)


@pytest.fixture
def shipped_app() -> Any:
    from panelbot.tui.app import PanelbotApp

    def factory() -> PanelbotApp:
        app = PanelbotApp(Config(panel="minimax-m3"), "minimax-m3", False)
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


def test_start_screen(snap_compare, shipped_app) -> None:
    assert snap_compare(shipped_app(), run_before=still, terminal_size=WIDE)


def test_start_screen_80x24(snap_compare, shipped_app) -> None:
    assert snap_compare(shipped_app(), run_before=still, terminal_size=SMALL)


def test_answer_with_sources(snap_compare, shipped_app) -> None:
    async def run_before(pilot: Any) -> None:
        await still(pilot)
        await type_and_send(pilot, "How does the KV cache grow with long context?")
        await still(pilot)

    assert snap_compare(shipped_app(), run_before=run_before, terminal_size=WIDE)


def test_context_view(snap_compare, shipped_app) -> None:
    async def run_before(pilot: Any) -> None:
        await still(pilot)
        await type_and_send(pilot, "How does the KV cache grow with long context?")
        pilot.app.query_one("#sources").focus()
        await pilot.press("enter")
        await still(pilot)

    assert snap_compare(shipped_app(), run_before=run_before, terminal_size=WIDE)


def test_abstention(snap_compare, shipped_app) -> None:
    async def run_before(pilot: Any) -> None:
        await still(pilot)
        await type_and_send(pilot, "What's your favourite pizza topping?")
        await still(pilot)

    assert snap_compare(shipped_app(), run_before=run_before, terminal_size=WIDE)


def test_help(snap_compare, shipped_app) -> None:
    async def run_before(pilot: Any) -> None:
        await still(pilot)
        await pilot.press("f1")
        await still(pilot)

    assert snap_compare(shipped_app(), run_before=run_before, terminal_size=WIDE)
