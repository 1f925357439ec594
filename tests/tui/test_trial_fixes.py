"""Pilot tests for what a first user ran into: the current panel picked again, all-talks follow-ups and
sources, the header in all-talks mode, the chat staying on the latest answer through a resize, F1 at 80x24,
the input's placeholder in the 3-pane layout, and a conversation held in all-talks mode reopened."""

from __future__ import annotations

import pytest

from panelbot.tui.widgets.chat import AnswerBlock

from .conftest import chat_text, type_and_send

pytestmark = pytest.mark.asyncio


def _toasts(app) -> str:
    return " ".join(str(n.message) for n in app._notifications)


async def test_picking_the_loaded_panel_keeps_the_conversation(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(130, 36)) as pilot:
        await type_and_send(pilot, "how do you make kernels fast")
        before = [b.text for b in app.query(AnswerBlock)]
        cid = app.conversation_id
        await type_and_send(pilot, "/panel tiny")
        await pilot.pause()
        assert before and [b.text for b in app.query(AnswerBlock)] == before
        assert "Ask Dan" not in chat_text(app).split("You ")[-1]  # no welcome again
        assert app.conversation_id == cid
        assert "tiny is already the panel." in _toasts(app)


@pytest.mark.parametrize("size", [(80, 24), (120, 36), (160, 48), (200, 50)])
async def test_the_input_placeholder_fits_the_input(make_app, size) -> None:
    from panelbot.tui.widgets.prompt import Prompt

    app = make_app()
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        prompt = app.query_one(Prompt)
        shown = str(prompt.placeholder)
        assert shown.startswith("Ask the panel") and len(shown) < prompt.content_size.width
        if size[0] in (80, 200):  # the chat is wide enough for the keys
            assert "Enter send" in shown and "/help" in shown


async def test_help_fits_80x24_without_scrolling_and_names_the_loaded_panelists(make_app, monkeypatch) -> None:
    from panelbot.tui.screens.help import HelpScreen

    from .conftest import HERE

    for panel, ask in (("tiny", "/ask auto|dan|olive|both"), ("gardens", "/ask auto|sam|ivy|both")):
        monkeypatch.setenv("PANELBOT_PANELS", str(HERE.parent / "fixtures" / "library" if panel == "gardens"
                                                  else HERE / "panels"))
        app = make_app(panel)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("f1")
            await pilot.pause()
            assert isinstance(app.screen, HelpScreen)
            body = app.screen.query_one("#help-body")
            assert body.max_scroll_y == 0 and not body.show_vertical_scrollbar
            screen = app.export_screenshot().replace("&#160;", " ")
            for shown in (ask, "/panel NAME", "/quote QUERY", "/source ID", "/clear", "/export [PATH]",
                          "/history", "/regenerate", "Ctrl+Q", "tui.keys"):
                assert shown in screen, shown
            if panel == "gardens":
                assert "dan" not in screen


async def test_a_resize_keeps_the_chat_on_the_latest_answer(make_app) -> None:
    from panelbot.tui.widgets.chat import ChatLog

    app = make_app()
    async with app.run_test(size=(160, 48)) as pilot:
        for question in ["/ask both how do you make kernels fast"] * 7:
            await type_and_send(pilot, question)
        chat = app.query_one(ChatLog)
        await pilot.pause()
        assert chat.max_scroll_y > 0 and chat.scroll_y == chat.max_scroll_y, (chat.virtual_size, chat.size, len(chat.children))
        for size in ((80, 24), (160, 48), (100, 30)):
            await pilot.resize_terminal(*size)
            await pilot.pause()
            await pilot.pause()
            assert chat.max_scroll_y > 0 and chat.scroll_y == chat.max_scroll_y, size
        # scrolled up by the reader: a resize leaves it where it was read, not at the end
        chat.scroll_to(y=0, animate=False)
        await pilot.pause()
        await pilot.resize_terminal(120, 36)
        await pilot.pause()
        assert chat.scroll_y < chat.max_scroll_y
