"""What a new user's trial (round 3) found in the app: a discussion exported is headed as one."""

from __future__ import annotations

import pytest

from .conftest import settle, type_and_send
from .test_discussion_tui import WIDE, discussing, real

pytestmark = pytest.mark.asyncio


async def test_an_exported_discussion_is_headed_discussion_not_quote_search(
    make_app, tmp_path
) -> None:  # noqa: ANN001
    """/discuss open source, then /export: the host's question and "Where they meet" were headed
    "### Quote search" (the heading of /quote's results); ``history show`` calls them "Discussion"."""
    app = real(make_app)
    async with app.run_test(size=WIDE) as pilot:
        await discussing("/discuss open source")(pilot)
        await type_and_send(pilot, f"/export {tmp_path / 'out.md'}")
        exported = (tmp_path / "out.md").read_text(encoding="utf-8")
    assert "Where they meet:" in exported, exported
    assert "### Quote search" not in exported, exported
    assert "### Discussion" in exported, exported


async def test_a_resumed_discussions_points_hang_under_their_bullet_as_live(make_app) -> None:  # noqa: ANN001
    """Live, a point's wrapped lines hang under its text after "- "; resumed (``panelbot --resume``) at
    80x24 they went on at the pane's edge: the saved host lines are drawn the same way."""
    from panelbot.config import Config
    from panelbot.tui import engine
    from panelbot.tui.widgets.chat import Notice

    from .test_discussion_tui import SMALL, chat_visual

    app = real(make_app)
    async with app.run_test(size=SMALL) as pilot:
        await discussing("/discuss open source")(pilot)
    again = make_app(
        "minimax-m3",
        router_factory=engine.make_router,
        config=Config(panel="minimax-m3"),
        resume=True,
    )
    again.animation_level = "none"
    async with again.run_test(size=SMALL) as pilot:
        await settle(pilot)
        (meet,) = [n for n in again.query(Notice) if "Where they meet:" in chat_visual(n)]
        drawn = [meet.render_line(y).text.rstrip() for y in range(meet.size.height)]
    bullets = [i for i, line in enumerate(drawn) if line.lstrip().startswith("- ")]
    assert bullets, drawn
    indent = drawn[bullets[0]].index("- ") + 2
    continued = [line for i, line in enumerate(drawn) if line.strip() and i > bullets[0]]
    continued = [line for i, line in enumerate(continued) if not line.lstrip().startswith("- ")]
    assert continued, drawn  # at 80 columns a point takes more than one line
    assert all(line[:indent].strip() == "" and line[indent] != " " for line in continued), drawn


async def test_a_conversation_begun_with_quote_is_titled_by_the_search_and_counted_right(
    make_app, isolated_env
) -> None:  # noqa: ANN001
    """/quote as the first thing asked titled the conversation with the results' text ("Quotes matching
    sparse attention [dan-19] Dan: “Yeah, so there there's definitel"), and Ctrl+O listed it as
    "1 messages": it is titled by what was typed, and one message is "1 message"."""
    from panelbot.tui.screens.conversations import ConversationsScreen

    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await type_and_send(pilot, "/quote kernels")
        await pilot.press("ctrl+o")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ConversationsScreen)
        listing = screen.query_one("#conversations-list")
        head, detail = str(listing.get_option_at_index(0).prompt).split("\n")[:2]
    assert head.startswith("/quote kernels"), head
    assert "1 message " in detail + " " and "1 messages" not in detail, detail
