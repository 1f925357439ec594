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
