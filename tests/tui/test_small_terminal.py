"""Every screen of the app laid out at 1-6 columns by 1-5 rows and back (a window dragged small, a
resize storm): nothing that wraps or lays out text may raise. The tmux storm in test_e2e_tmux.py runs
the real executable through the same; this sweeps every screen and every small size in-process."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from .conftest import type_and_send

pytestmark = pytest.mark.asyncio

SMALL = [(w, h) for w in range(1, 7) for h in range(1, 6)]


def _open_palette(app: Any) -> None:
    app.action_command_palette()


def _open_help(app: Any) -> None:
    app.action_help()


def _open_history(app: Any) -> None:
    app.action_conversations()


def _open_source(app: Any) -> None:
    app.open_source(app.last_quotes[0].quote.id)


def _open_confirm(app: Any) -> None:
    from panelbot.tui.screens.confirm import ConfirmScreen

    app.push_screen(ConfirmScreen("A question long enough to wrap at any width? " * 3))


def _show_panes(app: Any) -> None:
    app.action_toggle_sidebar()


OPENERS: dict[str, Callable[[Any], None] | None] = {
    "chat": None,
    "panes": _show_panes,
    "command palette": _open_palette,
    "help": _open_help,
    "history": _open_history,
    "source in context": _open_source,
    "confirm": _open_confirm,
}


@pytest.mark.parametrize("where", list(OPENERS))
async def test_every_screen_survives_1_to_6_columns_and_1_to_5_rows(make_app, where) -> None:
    from panelbot.tui.widgets.prompt import Prompt

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await type_and_send(pilot, "how do you make kernels fast")
        app.query_one(Prompt).load_text("a draft\twith a tab, 漢字 and 🙂 that wraps " * 2)
        opener = OPENERS[where]
        if opener is not None:
            opener(app)
            await pilot.pause()
        screen = type(app.screen)
        app.notify("A toast long enough to wrap in a window this small")
        for size in SMALL:
            await pilot.resize_terminal(*size)
            await pilot.pause()
            assert app._exception is None, (where, size)
        await pilot.resize_terminal(100, 30)
        await pilot.pause()
        assert app.is_running and app._exception is None
        assert type(app.screen) is screen  # still where the user was
        assert app.query_one(Prompt).text.startswith("a draft\twith a tab")  # the draft kept
