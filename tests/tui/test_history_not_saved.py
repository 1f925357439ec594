"""The app on a history that cannot be written: the answer is shown, one notice line says it was not saved,
and nothing is lost (the conversation goes on: a follow-up still reads the turn before it). A real full disk:
a small tmpfs mounted over the data directory, when this test may mount one."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import fill_disk

from panelbot.config import Config
from panelbot.tui import engine
from panelbot.tui.widgets.chat import AnswerBlock

from .conftest import chat_text, type_and_send

pytestmark = pytest.mark.asyncio

KV = "How do you deal with a KV cache that keeps growing?"


@pytest.fixture
def small_disk(isolated_env: Path) -> Iterator[Path]:
    """A 256 KB tmpfs at the app's data directory."""
    isolated_env.mkdir(parents=True, exist_ok=True)
    if (
        sys.platform != "linux"
        or subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(isolated_env)],
            capture_output=True,
        ).returncode
    ):
        pytest.skip("cannot mount a tmpfs here")
    try:
        yield isolated_env
    finally:
        subprocess.run(["umount", "-l", str(isolated_env)], capture_output=True)


def _app(make_app: Any) -> Any:
    app = make_app(
        "minimax-m3", router_factory=engine.make_router, config=Config(panel="minimax-m3")
    )
    app.animation_level = "none"
    return app


async def test_a_full_disk_shows_the_answer_and_one_line_saying_it_was_not_saved(
    make_app, small_disk: Path
) -> None:
    app = _app(make_app)
    async with app.run_test(size=(100, 40)) as pilot:
        await type_and_send(pilot, KV)  # saved: the database is made while there is room
        assert "not save" not in chat_text(app).lower()
        fill_disk(small_disk / "fill")
        await type_and_send(pilot, "tell me more")
        blocks = list(app.query(AnswerBlock))
        assert len(blocks) == 2 and blocks[-1].kind == "answer" and blocks[-1].quotes
        notices = [line for line in chat_text(app).splitlines() if "Could not save" in line]
        assert len(notices) == 1, chat_text(app)
        assert "full" in notices[0].lower()
        assert len(app.turns) == 2  # kept in memory: the conversation goes on
        await type_and_send(pilot, "tell me more")
        third = list(app.query(AnswerBlock))[-1]
        shown = {q.quote.id for b in blocks for q in b.quotes}
        if third.quotes:  # more on the subject: nothing shown twice
            assert not {q.quote.id for q in third.quotes} & shown
        else:  # all was said: the decline names what was shown in both earlier turns
            assert third.kind == "decline" and all(i in third.text for i in shown), third.text
