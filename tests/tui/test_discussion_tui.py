"""The discussion in the app: /discuss SUBJECT in the chat, the map screen (/discuss, the palette), the
follow-ups to a discussion; snapshots of the shipped panel at 80x24 and wide."""

from __future__ import annotations

import re
from typing import Any

import pytest

from panelbot.tui.widgets.chat import AnswerBlock
from panelbot.tui.widgets.sources import SourcesList

from .conftest import chat_text, type_and_send
from .test_snapshots import SMALL, WIDE, shipped_app, still  # noqa: F401  (shipped_app: a fixture)


def discussing(*lines: str) -> Any:
    async def run_before(pilot: Any) -> None:
        await still(pilot)
        for line in lines:
            await type_and_send(pilot, line)
            await still(pilot)

    return run_before


def test_discuss_subject_wide(snap_compare, shipped_app) -> None:  # noqa: F811
    run_before = discussing("/discuss open source")
    assert snap_compare(shipped_app(), run_before=run_before, terminal_size=WIDE)


def test_discuss_subject_80x24(snap_compare, shipped_app) -> None:  # noqa: F811
    run_before = discussing("/discuss open source")
    assert snap_compare(shipped_app(), run_before=run_before, terminal_size=SMALL)


def test_discussion_map_wide(snap_compare, shipped_app) -> None:  # noqa: F811
    run_before = discussing("/discuss")
    assert snap_compare(shipped_app(), run_before=run_before, terminal_size=WIDE)


def test_discussion_map_80x24(snap_compare, shipped_app) -> None:  # noqa: F811
    run_before = discussing("/discuss")
    assert snap_compare(shipped_app(), run_before=run_before, terminal_size=SMALL)


def real(make_app: Any) -> Any:
    """The shipped panel with the real router: the resolver reads the follow-ups with it."""
    from panelbot.config import Config
    from panelbot.tui import engine

    app = make_app(
        "minimax-m3", router_factory=engine.make_router, config=Config(panel="minimax-m3")
    )
    app.animation_level = "none"
    return app


def stored(app: Any) -> list[Any]:
    """The messages of the app's conversation, read back from the history's SQLite file."""
    from panelbot import paths
    from panelbot.conversation.store import ConversationStore

    store = ConversationStore(paths.history_db_path())
    try:
        return store.messages(app.conversation_id)
    finally:
        store.close()


@pytest.mark.asyncio
async def test_discussion_then_followups(make_app) -> None:
    app = real(make_app)
    async with app.run_test(size=WIDE) as pilot:
        await discussing("/discuss open source")(pilot)
        text = chat_text(app)
        assert "Discussion: open source" in text and "The host asked [q03]" in text
        assert re.search(r"Dan \[dan-\d+\] and Olive \[olive-\d+\]", text)  # a measured point
        assert {sq.quote.id for sq in app.query_one(SourcesList).quotes} >= {"dan-02", "olive-02"}
        assert app.turns[-1].speakers == ["dan", "olive"]
        assert app.turns[-1].discussed == "open source"
        await type_and_send(pilot, "why do they disagree?")
        await still(pilot)
        text = chat_text(app)
        assert "No difference is measured on this" in text  # never an invented disagreement
        await type_and_send(pilot, "Olive, respond to that")
        await still(pilot)
        assert [b.speaker for b in app.query(AnswerBlock)][-1] == "olive"
        assert app.turns[-1].speakers == ["olive"] and "olive-02" in app.turns[-1].quote_ids
        # every turn is in the history file, the discussion marked with its subject
        messages = stored(app)
        users = [m for m in messages if m.role == "user"]
        assert [m.text for m in users] == [
            "/discuss open source",
            "why do they disagree?",
            "Olive, respond to that",
        ]
        assert all(m.meta["discussion"] == {"subject": "open source"} for m in users)
        said = [(m.role, m.speaker) for m in messages if m.role == "assistant"]
        assert said == [("assistant", "dan"), ("assistant", "olive"), ("assistant", "olive")]
        assert any("Where they meet:" in m.text for m in messages if m.role == "search")


@pytest.mark.asyncio
async def test_a_discussion_typed_as_a_question_is_one(make_app) -> None:
    """'discuss open weights' typed in the input is staged as /discuss is, through the same turn."""
    app = real(make_app)
    async with app.run_test(size=WIDE) as pilot:
        await still(pilot)
        await type_and_send(pilot, "discuss open source")
        await still(pilot)
        text = chat_text(app)
        assert "Discussion: open source" in text and "Where they meet:" in text
        assert app.turns[-1].discussed == "open source"
        await type_and_send(pilot, "and Dan?")
        await still(pilot)
        assert [b.speaker for b in app.query(AnswerBlock)][-1] == "dan"
        assert app.turns[-1].discussed == "open source"


@pytest.mark.asyncio
async def test_map_screen_enter_discusses_the_subject(shipped_app) -> None:  # noqa: F811
    from panelbot.tui.discussion import DiscussionMapScreen

    app = shipped_app()
    async with app.run_test(size=WIDE) as pilot:
        await discussing("/discuss")(pilot)
        screen = app.screen
        assert isinstance(screen, DiscussionMapScreen) and screen.entries
        first = screen.entries[0]
        await pilot.press("enter")
        await still(pilot)
        assert not isinstance(app.screen, DiscussionMapScreen)
        text = chat_text(app)
        assert all(f"[{i}]" in text for p in first.points for i in p.ids)


@pytest.mark.asyncio
async def test_palette_offers_the_map(shipped_app) -> None:  # noqa: F811
    from panelbot.tui.palette import PanelbotCommands

    app = shipped_app()
    async with app.run_test(size=WIDE) as pilot:
        await still(pilot)
        provider = PanelbotCommands(app.screen)
        names = [name for name, _, _ in provider._commands()]
        assert "Discuss: subjects both spoke to" in names


@pytest.mark.asyncio
async def test_answering_a_discussion_again_shows_it_once(make_app) -> None:
    """Ctrl+R after a discussion: its host lines and turns are taken back and shown again, once; the
    history keeps the one turn."""
    app = real(make_app)
    async with app.run_test(size=WIDE) as pilot:
        await discussing("/discuss open source")(pilot)
        app.action_regenerate()
        await still(pilot)
        text = chat_text(app)
        assert text.count("Discussion: open source") == 1 and text.count("Where they meet:") == 1
        assert [b.speaker for b in app.query(AnswerBlock)] == ["dan", "olive"]
        users = [m for m in stored(app) if m.role == "user"]
        assert len(users) == 1 and len(app.turns) == 1


@pytest.mark.asyncio
async def test_a_points_continuation_lines_hang_under_its_bullet(make_app) -> None:
    """In a pane too narrow for a point's line, its wrapped lines start under the text after "- ", not at
    the pane's edge (the host lines as the chat pane draws them)."""
    from panelbot.tui.widgets.chat import Notice

    app = real(make_app)
    async with app.run_test(size=SMALL) as pilot:
        await discussing("/discuss open source")(pilot)
        (meet,) = [n for n in app.query(Notice) if "Where they meet:" in chat_visual(n)]
        drawn = [meet.render_line(y).text.rstrip() for y in range(meet.size.height)]
        bullets = [i for i, line in enumerate(drawn) if line.lstrip().startswith("- ")]
        assert bullets, drawn
        indent = drawn[bullets[0]].index("- ") + 2
        continued = [
            line
            for i, line in enumerate(drawn)
            if line.strip() and i > bullets[0] and i not in bullets
        ]
        assert continued, drawn  # at 80 columns a point takes more than one line
        assert all(line[:indent].strip() == "" and line[indent] != " " for line in continued), drawn


def chat_visual(widget: Any) -> str:
    visual = widget.render()
    return getattr(visual, "plain", str(visual))
