"""Pilot tests for what a first user ran into: the current panel picked again, all-talks follow-ups and
sources, the header in all-talks mode, the chat staying on the latest answer through a resize, F1 at 80x24,
the input's placeholder in the 3-pane layout, and a conversation held in all-talks mode reopened."""

from __future__ import annotations

import pytest

from panelbot.tui.widgets.chat import AnswerBlock

from .conftest import chat_text, palette, type_and_send

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


async def test_help_fits_80x24_without_scrolling_and_names_the_loaded_panelists(
    make_app, monkeypatch
) -> None:
    from panelbot.tui.screens.help import HelpScreen

    from .conftest import HERE, LIBRARY

    for panel, ask in (("tiny", "/ask auto|dan|olive|both"), ("gardens", "/ask auto|sam|ivy|both")):
        monkeypatch.setenv(
            "PANELBOT_PANELS", str(LIBRARY if panel == "gardens" else HERE / "panels")
        )
        app = make_app(panel)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("f1")
            await pilot.pause()
            assert isinstance(app.screen, HelpScreen)
            body = app.screen.query_one("#help-body")
            assert body.max_scroll_y == 0 and not body.show_vertical_scrollbar
            screen = app.export_screenshot().replace("&#160;", " ")
            for shown in (
                ask,
                "/panel NAME",
                "/quote QUERY",
                "/source ID",
                "/clear",
                "/export [PATH]",
                "/history",
                "/regenerate",
                "Ctrl+Q",
                "tui.keys",
            ):
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
        assert chat.max_scroll_y > 0 and chat.scroll_y == chat.max_scroll_y, (
            chat.virtual_size,
            chat.size,
            len(chat.children),
        )
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


async def test_all_talks_follow_up_source_header_and_toast(make_app, talks_installed) -> None:
    from .conftest import header_text

    app = make_app()
    async with app.run_test(size=(130, 36)) as pilot:
        await palette(pilot, "Ask: all talks")
        assert "Questions now go to all 4 talks." in _toasts(app)
        assert "All talks (4): " in header_text(app) and "Tiny Panel" not in header_text(app)
        await type_and_send(pilot, "Do bees need water in a small garden?")
        first = list(app.query(AnswerBlock))
        await type_and_send(pilot, "tell me more")
        blocks = list(app.query(AnswerBlock))[len(first) :]
        assert blocks, chat_text(app)
        assert "None of the talks" not in chat_text(app)
        assert all(
            b.panel.name == "gardens" and "from the talk gardens" in b.status for b in blocks
        )
        # an id from that talk opens in it (not "no quote with id ... in this panel")
        qid = blocks[0].quotes[0].quote.id if blocks[0].quotes else "ivy-02"
        await type_and_send(pilot, f"/source {qid}")
        assert (
            app.screen.__class__.__name__ == "ContextScreen" and app.screen.panel.name == "gardens"
        )
        app.pop_screen()
        await pilot.pause()
        await palette(pilot, "Ask: this talk only")
        assert "Tiny Panel" in header_text(app) and "All talks" not in header_text(app)


async def test_all_talks_toast_with_one_talk(make_app) -> None:
    from panelbot.retrieval.library import Library

    from .conftest import header_text
    from .fakes import KeywordRouter

    app = make_app()
    async with app.run_test(size=(130, 36)) as pilot:
        app._library = Library([KeywordRouter(app.panel)])  # only this talk is installed
        app.set_all_talks(True)
        await pilot.pause()
        assert "all 1 talks" not in _toasts(app) and "(1 is installed)" in _toasts(app)
        assert "All talks (1): tiny" in header_text(app)


async def test_all_talks_follow_up_after_an_answer_from_two_talks_says_which_to_pick(
    make_app, talks_installed
) -> None:
    app = make_app()
    async with app.run_test(size=(130, 36)) as pilot:
        await palette(pilot, "Ask: all talks")
        await type_and_send(pilot, "Do bees need water in a small garden?")
        await type_and_send(pilot, "How does erasure coding protect data?")
        assert app._last_talks[0] == "storage" and {"gardens", "storage"} <= set(app._talk_turns)
        app._last_talks = ["gardens", "storage"]  # as after one answer from both talks
        await type_and_send(pilot, "tell me more")
        last = list(app.query(AnswerBlock))[-1]
        assert last.kind == "decline" and last.label == "All talks"
        assert "2 talks (gardens, storage)" in last.text and "Pick one" in last.text


async def test_a_conversation_held_in_all_talks_mode_reopens_and_exports_as_shown(
    make_app, talks_installed, tmp_path
) -> None:
    app = make_app()
    async with app.run_test(size=(130, 36)) as pilot:
        await palette(pilot, "Ask: all talks")
        await type_and_send(pilot, "Do bees need water in a small garden?")
        await type_and_send(pilot, "What is the best pizza in Naples?")
        shown = [(b.label, b.kind, b.status, b.text) for b in app.query(AnswerBlock)]
        assert shown[-1][0] == "All talks" and "from the talk gardens" in shown[0][2]
        cid = app.conversation_id
        await type_and_send(pilot, "/clear")
        assert app.open_conversation(cid)
        await pilot.pause()
        again = [(b.label, b.kind, b.status, b.text) for b in app.query(AnswerBlock)]
        assert again == shown
        # the quotes behind the answer are the gardens talk's, not this panel's
        answer = list(app.query(AnswerBlock))[0]
        assert answer.panel.name == "gardens" and answer.quotes
        out = tmp_path / "all.md"
        await type_and_send(pilot, f"/export {out}")
        text = out.read_text()
        assert "### All talks (declines)" in text and "### panel" not in text
        assert f"### {shown[0][0]}" in text and "*(from the talk gardens)*" in text
        ivy = answer.quotes[0].quote
        assert f"`{ivy.id}`" in text and "Ivy" in text
        # and it goes on where it was: a follow-up continues with the talk of the last answer
        assert app._last_talks == ["gardens"]
        before = len(app.query(AnswerBlock))
        await type_and_send(pilot, "tell me more")
        blocks = list(app.query(AnswerBlock))[before:]
        assert blocks and all(b.panel.name == "gardens" for b in blocks), chat_text(app)
        assert "None of the talks" not in blocks[-1].text
