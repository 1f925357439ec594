"""A discussion in the app's all-talks mode: /discuss SUBJECT and a typed request are staged on every talk whose
panel spoke to the subject (each talk's host lines and panelists, labelled with the talk), the app says which
talks and why, a follow-up goes on with that talk, and a subject no talk's panel spoke to is declined."""

from __future__ import annotations

import pytest

from panelbot.tui.widgets.chat import AnswerBlock

from .conftest import chat_text, palette, type_and_send
from .test_snapshots import still

pytestmark = pytest.mark.asyncio


async def test_slash_discuss_across_all_talks_stages_it_on_the_talk_that_spoke_to_it(
    make_app, talks_installed
) -> None:
    app = make_app()
    async with app.run_test(size=(130, 40)) as pilot:
        await palette(pilot, "Ask: all talks")
        assert app.all_talks is True
        await type_and_send(pilot, "/discuss compost")
        await still(pilot)
        text = chat_text(app)
        assert "discussed on the talk whose panel spoke to it: gardens" in text
        assert "Discussion: compost" in text and "The host asked [q1]" in text
        # never a made-up opposite
        assert "Only Sam spoke to this on the panel; Ivy did not." in text
        blocks = list(app.query(AnswerBlock))
        assert [b.panel.name for b in blocks] == ["gardens"] and blocks[0].speaker == "sam"
        assert "Soil First" in blocks[0].label and "[sam-01]" in blocks[0].text
        assert "from the talk gardens" in blocks[0].status

        await type_and_send(pilot, "/discuss the best pizza in Naples")
        await still(pilot)
        last = list(app.query(AnswerBlock))[-1]
        assert last.kind == "decline" and "No talk's panel spoke to" in last.text


async def test_a_typed_discussion_across_all_talks_and_its_follow_up(
    make_app, talks_installed
) -> None:
    app = make_app()
    async with app.run_test(size=(130, 40)) as pilot:
        await palette(pilot, "Ask: all talks")
        await type_and_send(pilot, "discuss open source")
        await still(pilot)
        text = chat_text(app)
        assert "discussed on the talk whose panel spoke to it: minimax-m3" in text
        assert "Discussion: open source" in text and "Where they meet:" in text
        blocks = list(app.query(AnswerBlock))
        assert [(b.panel.name, b.speaker) for b in blocks] == [
            ("minimax-m3", "dan"),
            ("minimax-m3", "olive"),
        ]
        # goes on with the talk it was staged on
        await type_and_send(pilot, "why do they disagree?")
        await still(pilot)
        assert "No difference is measured on this" in chat_text(app)
        await type_and_send(pilot, "Olive, respond to that")
        await still(pilot)
        last = list(app.query(AnswerBlock))[-1]
        assert (last.panel.name, last.speaker) == ("minimax-m3", "olive")
