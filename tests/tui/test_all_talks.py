"""The app's "all talks" mode: switched from the palette, answers name their talk, off-topic is declined."""

from __future__ import annotations

import pytest

from panelbot.tui.widgets.chat import AnswerBlock
from panelbot.tui.widgets.sources import SourcesList

from .conftest import chat_text, palette, type_and_send

pytestmark = pytest.mark.asyncio


async def test_palette_switches_to_all_talks_and_back(make_app, talks_installed) -> None:
    app = make_app()
    async with app.run_test(size=(130, 36)) as pilot:
        await palette(pilot, "Ask: all talks")
        assert app.all_talks is True
        await type_and_send(pilot, "Do bees need water in a small garden?")
        blocks = list(app.query(AnswerBlock))
        assert blocks and {b.panel.name for b in blocks} == {"gardens"}
        assert "Soil First" in blocks[0].label and "from the talk gardens" in blocks[0].status
        assert "[ivy-02]" in blocks[0].text
        sources = app.query_one(SourcesList)
        assert sources.panel.name == "gardens" and sources.quotes
        # a source from another talk opens in that talk, even though ids repeat across talks
        app.open_source(sources.quotes[0].quote.id, sources.panel)
        await pilot.pause()
        assert app.screen.__class__.__name__ == "ContextScreen"
        app.pop_screen()
        await pilot.pause()

        await type_and_send(pilot, "What is the best pizza in Naples?")
        last = list(app.query(AnswerBlock))[-1]
        assert last.kind == "decline" and "None of the talks" in last.text

        await palette(pilot, "Ask: this talk only")
        assert app.all_talks is False
        await type_and_send(pilot, "how do you make kernels fast")
        assert list(app.query(AnswerBlock))[-1].panel.name == "tiny"
        assert "Questions now go" not in chat_text(app)  # told in a toast, not the chat


async def test_small_talk_across_all_talks_gets_a_reply(make_app, talks_installed) -> None:
    app = make_app()
    async with app.run_test(size=(130, 36)) as pilot:
        await palette(pilot, "Ask: all talks")
        await type_and_send(pilot, "hello everyone!")
        (hello,) = list(app.query(AnswerBlock))
        assert hello.kind == "reply" and hello.text.startswith("Hi! You're asking across")
        assert "None of the talks" not in hello.text and "gardens" in hello.text
        await type_and_send(pilot, "Do bees need water in a small garden?")
        await type_and_send(pilot, "thanks!")  # after an answer: the reply comes from that talk
        last = list(app.query(AnswerBlock))[-1]
        assert last.kind == "reply" and last.text.startswith("You're welcome")
