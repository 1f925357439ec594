"""Pilot tests: every slash command, and the target selector."""

from __future__ import annotations

from pathlib import Path

import pytest

from panelbot.conversation.store import ConversationStore
from panelbot.tui.widgets.chat import AnswerBlock
from panelbot.tui.widgets.panelists import PanelistsPane
from panelbot.tui.widgets.sources import SourcesList

from .conftest import chat_text, header_text, settle, type_and_send

pytestmark = pytest.mark.asyncio


async def test_question_gets_an_answer_with_sources(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(130, 36)) as pilot:
        await type_and_send(pilot, "how do you make kernels fast")
        (block,) = app.query(AnswerBlock)
        assert block.speaker == "dan"
        assert "[dan-001]" in block.text
        sources = app.query_one(SourcesList)
        assert [sq.quote.id for sq in sources.quotes][0] == "dan-001"
        assert "matched:" in sources.quotes[0].reason


async def test_ask_sets_target(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(130, 36)) as pilot:
        await type_and_send(pilot, "/ask olive")
        assert app.target == "olive"
        assert app.query_one("#target-olive").value is True
        await type_and_send(pilot, "how do you make kernels fast")
        assert [b.speaker for b in app.query(AnswerBlock)] == ["olive"]


async def test_ask_with_question_and_both(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(130, 36)) as pilot:
        await type_and_send(pilot, "/ask both kernels and agents")
        assert [b.speaker for b in app.query(AnswerBlock)] == ["dan", "olive"]
        # a one-off: later questions still go to the selected target, and the selector says so
        assert app.target == "auto"
        assert app.query_one(PanelistsPane).selected() == ["auto"]
        await type_and_send(pilot, "how do you make kernels fast")
        assert [b.speaker for b in app.query(AnswerBlock)][2:] == ["dan"]


async def test_ask_unknown_target_is_a_message(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(130, 36)) as pilot:
        await type_and_send(pilot, "/ask zed")
        assert app.target == "auto"
        assert "Usage: /ask auto|dan|olive|both" in chat_text(app)


async def test_target_selector_click(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(130, 36)) as pilot:
        labels = [str(b.label) for b in app.query("#target RadioButton")]
        assert labels == ["Auto", "Dan", "Olive", "Both"]
        await pilot.click("#target-dan")
        await pilot.pause()
        assert app.target == "dan"
        assert app.query_one(PanelistsPane).target == "dan"
        await type_and_send(pilot, "how do you train agents")
        assert [b.speaker for b in app.query(AnswerBlock)] == ["dan"]
        await pilot.click("#target-both")
        await pilot.pause()
        assert app.target == "both"


async def test_quote_search(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(130, 36)) as pilot:
        await type_and_send(pilot, "/quote reward environments")
        text = chat_text(app)
        assert "[olive-002] Olive:" in text
        assert app.query_one(SourcesList).quotes[0].quote.id == "olive-002"
        await type_and_send(pilot, "/quote")
        assert "Usage: /quote QUERY" in chat_text(app)


async def test_source_opens_context_and_so_does_choosing_a_source(make_app) -> None:
    from panelbot.tui.screens.context import ContextScreen

    app = make_app()
    async with app.run_test(size=(130, 36)) as pilot:
        await type_and_send(pilot, "/source dan-001")
        assert isinstance(app.screen, ContextScreen)
        body = "\n".join(str(w.render()) for w in app.screen.query("Static"))
        assert "How do you make kernels fast?" in body
        assert "Well, it starts with memory." in body  # the whole answer, not just the quote
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, ContextScreen)
        await type_and_send(pilot, "/source nope-9")
        assert "No quote with id 'nope-9'" in chat_text(app)
        # From the sources pane: highlight and Enter.
        await type_and_send(pilot, "how do you train agents")
        sources = app.query_one(SourcesList)
        sources.focus()
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ContextScreen)
        assert app.screen.quote_id == sources.quotes[0].quote.id


async def test_export_writes_markdown_and_asks_before_overwriting(make_app, tmp_path: Path) -> None:
    app = make_app()
    target = tmp_path / "out.md"
    async with app.run_test(size=(130, 36)) as pilot:
        await type_and_send(pilot, "/export")
        assert "Nothing to export" in " ".join(str(n.message) for n in app._notifications)
        await type_and_send(pilot, "how do you make kernels fast")
        await type_and_send(pilot, f"/export {target}")
        md = target.read_text()
        assert "## You" in md and "how do you make kernels fast" in md
        assert "### Dan" in md and "`dan-001`" in md
        target.write_text("precious")
        await type_and_send(pilot, f"/export {target}")
        from panelbot.tui.screens.confirm import ConfirmScreen

        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        await pilot.pause()
        assert target.read_text() == "precious"
        await type_and_send(pilot, f"/export {target}")
        await pilot.press("y")
        await pilot.pause()
        assert "### Dan" in target.read_text()


async def test_export_default_path_in_cwd(make_app, tmp_path: Path) -> None:
    app = make_app()
    async with app.run_test(size=(130, 36)) as pilot:
        await type_and_send(pilot, "how do you make kernels fast")
        await pilot.press("ctrl+e")
        await pilot.pause()
        (written,) = tmp_path.glob("panelbot-*.md")
        assert "dan-001" in written.read_text()


async def test_clear_starts_a_new_conversation(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(130, 36)) as pilot:
        await type_and_send(pilot, "how do you make kernels fast")
        first = app.conversation_id
        await type_and_send(pilot, "/clear")
        await pilot.pause()
        assert not app.query(AnswerBlock)
        assert app.conversation_id is None
        await type_and_send(pilot, "how do you train agents")
        assert app.conversation_id not in (None, first)


async def test_panel_switch_and_missing_panel(make_app, tmp_path: Path, monkeypatch) -> None:
    import shutil

    from .conftest import HERE

    panels = tmp_path / "panels"
    shutil.copytree(HERE / "panels" / "tiny", panels / "tiny")
    shutil.copytree(HERE / "panels" / "tiny", panels / "other")
    (panels / "other" / "panel.yaml").write_text(
        (panels / "other" / "panel.yaml").read_text().replace("Tiny Panel", "Other Panel")
    )
    monkeypatch.setenv("PANELBOT_PANELS", str(panels))
    app = make_app()
    async with app.run_test(size=(130, 36)) as pilot:
        await type_and_send(pilot, "/panel nosuch")
        assert "Cannot load panel 'nosuch'" in chat_text(app)
        assert app.panel.name == "tiny"
        await type_and_send(pilot, "/panel other")
        await pilot.pause()
        assert app.panel.name == "other"
        assert "Other Panel" in header_text(app)
        await type_and_send(pilot, "how do you make kernels fast")
        assert app.query(AnswerBlock)


async def test_help_command_and_unknown_command(make_app) -> None:
    from panelbot.tui.screens.help import HelpScreen

    app = make_app()
    async with app.run_test(size=(130, 36)) as pilot:
        await type_and_send(pilot, "/help")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        await pilot.pause()
        await type_and_send(pilot, "/frobnicate")
        assert "Unknown command /frobnicate" in chat_text(app)


async def test_suggested_question_is_asked(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(130, 36)) as pilot:
        await pilot.pause()  # the suggestions are filled after the first frame
        suggestions = app.query_one("#suggestions")
        suggestions.focus()
        await pilot.press(
            "down", "enter"
        )  # the second suggestion (this router has only host questions)
        await settle(pilot)
        text = chat_text(app)
        assert "You  How do you train agents with RL?" in text
        assert [b.speaker for b in app.query(AnswerBlock)] == ["olive"]


async def test_abstention_is_a_polite_decline(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(130, 36)) as pilot:
        await type_and_send(pilot, "what's your favourite pizza")
        (block,) = app.query(AnswerBlock)
        assert block.kind == "decline"
        assert block.label == "panelbot"  # the app's own voice, not the talk's host (Hannah)
        assert block.text  # the engine's decline, offering topics
        assert app.query_one(SourcesList).quotes == []


async def test_history_is_persisted_and_resumed(make_app, isolated_env: Path) -> None:
    app = make_app()
    async with app.run_test(size=(130, 36)) as pilot:
        await type_and_send(pilot, "how do you make kernels fast")
        await type_and_send(pilot, "what's your favourite pizza")
    store = ConversationStore(isolated_env / "history.sqlite3")
    (conv,) = store.list_conversations()
    assert conv.title == "how do you make kernels fast"
    assert [m.role for m in store.messages(conv.id)] == ["user", "assistant", "user", "decline"]
    store.close()
    app2 = make_app(resume=True)
    async with app2.run_test(size=(130, 36)) as pilot:
        await pilot.pause()
        assert app2.conversation_id == conv.id
        assert [b.speaker for b in app2.query(AnswerBlock)] == ["dan", "host"]
        assert "how do you make kernels fast" in chat_text(app2)
        await type_and_send(pilot, "how do you train agents")
    store = ConversationStore(isolated_env / "history.sqlite3")
    assert len(store.list_conversations()) == 1
    assert store.messages(conv.id)[-1].speaker == "olive"


async def test_clicking_an_earlier_answer_shows_its_sources(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(130, 36)) as pilot:
        await type_and_send(pilot, "how do you make kernels fast")
        await type_and_send(pilot, "how do you train agents")
        sources = app.query_one(SourcesList)
        assert sources.quotes[0].quote.speaker == "olive"
        first = app.query(AnswerBlock).first()
        await pilot.click(first)
        await pilot.pause()
        assert sources.quotes[0].quote.id == "dan-001"


async def test_clear_while_answering_keeps_the_partial_answer_in_its_conversation(
    make_app, isolated_env: Path
) -> None:
    from panelbot.tui.widgets.prompt import Prompt

    from .fakes import SlowBackend

    backend = SlowBackend()
    app = make_app(backend=backend)
    async with app.run_test(size=(130, 36)) as pilot:
        app.query_one(Prompt).load_text("how do you make kernels fast")
        await pilot.press("enter")
        await backend.started.wait()
        first = app.conversation_id
        await type_and_send(pilot, "/clear")
        assert not app.answering
        assert (
            app.query_one(Prompt).text == ""
        )  # /clear means a fresh start: the question isn't put back
    store = ConversationStore(isolated_env / "history.sqlite3")
    (conv,) = store.list_conversations()
    assert conv.id == first
    assert [m.meta.get("cancelled") for m in store.messages(first)] == [None, True]


async def test_unusable_history_database_is_a_message(make_app, isolated_env: Path) -> None:
    isolated_env.mkdir(parents=True, exist_ok=True)
    (isolated_env / "history.sqlite3").write_bytes(b"not a database" * 200)
    app = make_app()
    async with app.run_test(size=(130, 36)) as pilot:
        await type_and_send(pilot, "how do you make kernels fast")
        assert "History is off:" in chat_text(app)
        assert app.query(AnswerBlock)  # answering still works
        await type_and_send(pilot, "/export")
        assert app.is_running
