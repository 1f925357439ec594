"""Pilot tests: the app's controls show the truth (issue 8) -- the target selector, one-off targets, the
keyboard never stuck in a side pane, scrolling from the input, /clear, the sources pane, /export, declines
with questions to pick, and no empty panelist section."""

from __future__ import annotations

from pathlib import Path

import pytest

from panelbot.tui import engine
from panelbot.tui.widgets.chat import AnswerBlock, ChatLog
from panelbot.tui.widgets.panelists import PanelistsPane
from panelbot.tui.widgets.prompt import Prompt
from panelbot.tui.widgets.sources import SourcesList
from panelbot.tui.widgets.suggestions import DeclineChoices, SuggestionsList

from .conftest import chat_text, settle, type_and_send

pytestmark = pytest.mark.asyncio
WIDE = (130, 36)


def shipped(make_app):  # the real router on the shipped panel
    return make_app("minimax-m3", router_factory=engine.make_router)


async def test_exactly_one_target_is_selected_whatever_chose_it(make_app) -> None:
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        pane = app.query_one(PanelistsPane)
        assert pane.selected() == ["auto"]
        for target in ("dan", "olive", "both", "auto", "olive"):
            await type_and_send(pilot, f"/ask {target}")
            assert app.target == target
            assert pane.selected() == [target]
        await pilot.click("#target-dan")
        await pilot.pause()
        assert app.target == "dan" and pane.selected() == ["dan"]
        await type_and_send(pilot, "/ask both")
        assert pane.selected() == ["both"]
        await pilot.click("#target-olive")
        await pilot.pause()
        assert app.target == "olive" and pane.selected() == ["olive"]
        app.query_one("#target").focus()  # the keyboard: move and press Enter
        await pilot.press("down", "enter")
        await pilot.pause()
        assert len(pane.selected()) == 1 and pane.selected() == [app.target]
        await type_and_send(pilot, "/ask auto")
        assert pane.selected() == ["auto"]


async def test_one_off_ask_keeps_the_selected_target(make_app) -> None:
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await type_and_send(pilot, "/ask olive")
        await type_and_send(pilot, "/ask dan how do you make kernels fast")
        assert [b.speaker for b in app.query(AnswerBlock)] == ["dan"]
        assert app.target == "olive" and app.query_one(PanelistsPane).selected() == ["olive"]


@pytest.mark.parametrize("pane", ["#target", "#panelists", "#suggestions", "#sources"])
async def test_typing_in_a_side_pane_goes_to_the_input(make_app, pane: str) -> None:
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await pilot.pause()
        app.query_one(pane).focus()
        await pilot.press("k", "v")
        await pilot.pause()
        prompt = app.query_one(Prompt)
        assert prompt.has_focus
        assert prompt.text == "kv"
        app.query_one(pane).focus()
        await pilot.press("escape")  # Esc returns to the input
        await pilot.pause()
        assert prompt.has_focus and prompt.text == "kv"


async def test_typing_in_the_narrow_panes_brings_the_chat_back(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("ctrl+b")
        await pilot.pause()
        assert not app.query_one("#main").display
        await pilot.press("w")
        await pilot.pause()
        assert app.query_one("#main").display and app.query_one(Prompt).text == "w"


async def test_the_layout_follows_a_resize_both_ways(make_app) -> None:
    """Started narrow then widened: the three columns come back (and fold again when narrowed)."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        body = app.query_one("#body")
        await pilot.pause()
        assert body.has_class("-narrow")
        await pilot.resize_terminal(150, 45)
        await pilot.pause()
        assert not body.has_class("-narrow") and body.has_class("-panes")
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert body.has_class("-narrow") and not body.has_class("-panes")


async def test_page_up_and_down_scroll_the_chat_from_the_input(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        chat = app.query_one(ChatLog)
        for i in range(40):
            chat.add_notice(f"line {i}")
        await pilot.pause()
        chat.scroll_end(animate=False)
        await pilot.pause()
        bottom = chat.scroll_y
        assert bottom > 0
        app.query_one(Prompt).focus()
        await pilot.press("pageup")
        await pilot.pause()
        assert chat.scroll_y < bottom
        assert app.query_one(Prompt).has_focus
        await pilot.press("pagedown")
        await pilot.pause()
        assert chat.scroll_y == bottom


async def test_clear_says_a_new_conversation_started(make_app) -> None:
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await type_and_send(pilot, "how do you make kernels fast")
        await type_and_send(pilot, "/clear")
        await pilot.pause()
        text = chat_text(app)
        assert "New conversation started" in text
        assert "kernels fast" not in text


async def test_sources_pane_labels_scores_and_names_host_questions(make_app) -> None:
    app = shipped(make_app)
    async with app.run_test(size=WIDE) as pilot:
        await type_and_send(pilot, "How do you deal with a KV cache that keeps growing?")
        sources = app.query_one(SourcesList)
        assert sources.quotes
        shown = str(sources.get_option_at_index(0).prompt)
        assert "match " in shown and "/100" in shown
        assert "answers the host's \u201cWith concurrent requests" in shown
        assert "q15" not in shown


async def test_export_refuses_a_missing_directory(make_app, tmp_path: Path) -> None:
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await type_and_send(pilot, "how do you make kernels fast")
        await type_and_send(pilot, f"/export {tmp_path / 'no-such-dir' / 'out.md'}")
        assert "no such directory" in chat_text(app)
        assert not (tmp_path / "no-such-dir").exists()


async def test_export_writes_each_quote_once(make_app, tmp_path: Path) -> None:
    app = shipped(make_app)
    target = tmp_path / "out.md"
    async with app.run_test(size=WIDE) as pilot:
        await type_and_send(pilot, "How do you deal with a KV cache that keeps growing?")
        await type_and_send(pilot, f"/export {target}")
        md = target.read_text()
    for qid in (
        "dan-22",
        "dan-23",
        "dan-24",
    ):  # in the answer, and listed by id (not written again)
        assert md.count(app.panel.quote(qid).text[:60]) == 1
        assert f"- `{qid}` (Dan)" in md


async def test_both_never_shows_an_empty_section(make_app) -> None:
    app = shipped(make_app)
    async with app.run_test(size=WIDE) as pilot:
        await type_and_send(pilot, "/ask both sparse attention")
        blocks = list(app.query(AnswerBlock))
        assert [b.speaker for b in blocks] == ["dan"]  # Olive never spoke to it: no empty block
        assert all(b.text and b.text != "\u2026" for b in blocks)
        assert "Olive didn't speak to this on the panel." in chat_text(app)  # and the app says why


async def test_decline_offers_questions_that_can_be_picked(make_app) -> None:
    app = shipped(make_app)
    async with app.run_test(size=WIDE) as pilot:
        await type_and_send(pilot, "best pizza in Naples?")
        (decline,) = app.query(AnswerBlock)
        assert decline.kind == "decline"
        assert len(decline.text.splitlines()) <= 2
        choices = app.query_one(DeclineChoices)
        assert 2 <= len(choices.questions) <= 3
        choices.focus()
        await pilot.press("enter")
        await settle(pilot)
        answers = [b for b in app.query(AnswerBlock) if b.kind == "answer"]
        assert answers and answers[0].quotes  # a suggested question always has an answer
        assert f"You  {choices.questions[0]}" in chat_text(app)


async def test_side_pane_suggestions_are_in_a_users_words_and_answered(make_app) -> None:
    app = shipped(make_app)
    async with app.run_test(size=WIDE) as pilot:
        await pilot.pause()
        questions = app.query_one(SuggestionsList).questions
        assert len(questions) >= 10
        assert not any("Maybe Dan" in q or "throw it over" in q for q in questions)
        for q in questions[:4]:
            assert not app.router.route(q).abstained


async def test_a_specific_never_given_says_so_and_offers_what_was_said_nearby(make_app) -> None:
    app = shipped(make_app)
    async with app.run_test(size=WIDE) as pilot:
        await type_and_send(pilot, "How much does it cost to serve M3?")
        (decline,) = app.query(AnswerBlock)
        assert decline.text.startswith("The talk never gave a price")
        sources = app.query_one(SourcesList)
        assert [sq.quote.id for sq in sources.quotes] == [
            sq.quote.id for sq in app.router.route("How much does it cost to serve M3?").nearby
        ]
        assert f"[{sources.quotes[0].quote.id}]" in decline.text
