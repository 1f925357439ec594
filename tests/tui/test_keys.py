"""Pilot tests: every key binding, remapping through config, input history, Esc cancelling an answer."""

from __future__ import annotations

from pathlib import Path

import pytest

from panelbot.config import Config, TuiSettings
from panelbot.conversation.store import ConversationStore
from panelbot.records import replace
from panelbot.tui.widgets.chat import AnswerBlock
from panelbot.tui.widgets.prompt import Prompt
from panelbot.tui.widgets.sources import SourcesList

from .conftest import chat_text, header_text, settle, type_and_send
from .fakes import DownBackend, SlowBackend

pytestmark = pytest.mark.asyncio


def config_with_keys(**keys: str) -> Config:
    cfg = Config(panel="tiny")
    return replace(cfg, tui=TuiSettings(keys={**cfg.tui.keys, **keys}))


async def test_newline_key_does_not_send(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(130, 36)) as pilot:
        prompt = app.query_one(Prompt)
        prompt.focus()
        await pilot.press("a", "ctrl+j", "b")
        assert prompt.text == "a\nb"
        assert not app.query(AnswerBlock)
        await pilot.press("enter")
        await settle(pilot)
        assert "You  a\nb" in chat_text(app)
        assert prompt.text == ""


async def test_input_history_up_down(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(130, 36)) as pilot:
        await type_and_send(pilot, "how do you make kernels fast")
        await type_and_send(pilot, "how do you train agents")
        prompt = app.query_one(Prompt)
        await pilot.press("d", "r", "a", "f", "t")
        await pilot.press("up")
        assert prompt.text == "how do you train agents"
        await pilot.press("up")
        assert prompt.text == "how do you make kernels fast"
        await pilot.press("up")
        assert prompt.text == "how do you make kernels fast"
        await pilot.press("down")
        assert prompt.text == "how do you train agents"
        await pilot.press("down")
        assert prompt.text == "draft"


async def test_escape_cancels_a_streaming_answer(make_app, isolated_env: Path) -> None:
    backend = SlowBackend()
    app = make_app(backend=backend)
    async with app.run_test(size=(130, 36)) as pilot:
        assert "test-model-7b" in header_text(app)
        prompt = app.query_one(Prompt)
        prompt.load_text("how do you make kernels fast")
        await pilot.press("enter")
        await backend.started.wait()
        await pilot.pause()
        assert app.answering
        (block,) = app.query(AnswerBlock)
        assert block.text == "Memory is the [bold]game[/bold] "
        await pilot.press("escape")
        await settle(pilot)
        assert not app.answering
        assert block.text == "Memory is the [bold]game[/bold] "  # what came is kept
        assert block.status == "(stopped)"
        assert prompt.text == "how do you make kernels fast"  # the question is back
    store = ConversationStore(isolated_env / "history.sqlite3")
    msgs = store.messages(store.last_conversation_id())
    assert [m.role for m in msgs] == ["user", "assistant"]
    assert msgs[1].meta == {"cancelled": True}


async def test_streamed_answer_gets_final_full_update(make_app) -> None:
    backend = SlowBackend()
    app = make_app(backend=backend)
    async with app.run_test(size=(130, 36)) as pilot:
        app.query_one(Prompt).load_text("how do you make kernels fast")
        await pilot.press("enter")
        await backend.started.wait()
        backend.release.set()
        await settle(pilot)
        (block,) = app.query(AnswerBlock)
        assert block.text == "Memory is the [bold]game[/bold] done."
        assert block.status == ""
        assert "Memory is the [bold]game[/bold] done." in chat_text(app)


async def test_backend_down_is_a_message(make_app) -> None:
    app = make_app(backend=DownBackend())
    async with app.run_test(size=(130, 36)) as pilot:
        await type_and_send(pilot, "how do you make kernels fast")
        text = chat_text(app)
        assert "The answer failed: http://127.0.0.1:9/v1: connection refused [/]" in text
        assert app.is_running


async def test_help_key(make_app) -> None:
    from panelbot.tui.screens.help import HelpScreen

    app = make_app()
    async with app.run_test(size=(130, 36)) as pilot:
        for key, is_open in (("f1", True), ("f1", False), ("f1", True), ("escape", False)):
            await pilot.press(key)
            await pilot.pause()
            assert isinstance(app.screen, HelpScreen) is is_open


async def test_every_footer_key_fits_at_80_columns(make_app) -> None:
    # a key cut off at the edge is a key nobody sees: every one shown fits, whatever has the focus
    from textual.widgets import Footer
    from textual.widgets._footer import FooterKey

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for focus in ("#prompt", "#chat"):
            app.query_one(focus).focus()
            await settle(pilot)
            footer = app.query_one(Footer)
            shown = [k for k in footer.query(FooterKey) if k.display]
            assert {k.description for k in shown} >= {
                "Send",
                "Help",
                "Quit",
                "Export",
                "History",
            } or focus != "#prompt"
            for key in shown:
                assert key.region.width > 0 and key.region.right <= footer.region.right, (
                    key.description
                )


async def test_help_shows_every_key_at_80x24_without_scrolling(make_app) -> None:
    from panelbot.tui.screens.help import KEY_HELP, HelpScreen

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f1")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        body = app.screen.query_one("#help-body")
        screen = app.export_screenshot()  # SVG: what is on screen, spaces as &#160;
        for name in ("PageUp / PageDown", "Up / Down", "Ctrl+Q", "Ctrl+Y", "Ctrl+O"):
            assert name.replace(" ", "&#160;") in screen, name
        # the keys are all above the fold: no scrolling needed to see the last one
        keys_height = len(KEY_HELP) + 1
        assert body.scroll_offset.y == 0 and body.content_region.height >= keys_height


async def test_quit_key(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(130, 36)) as pilot:
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert not app.is_running


async def test_remapped_keys(make_app, tmp_path: Path) -> None:
    from panelbot.tui.screens.help import HelpScreen

    app = make_app(
        config=config_with_keys(help="f2", quit="ctrl+x", export="ctrl+s", newline="ctrl+n")
    )
    async with app.run_test(size=(130, 36)) as pilot:
        prompt = app.query_one(Prompt)
        await pilot.press("a", "ctrl+n", "b")
        assert prompt.text == "a\nb"
        prompt.clear()
        await pilot.press("f1")
        await pilot.pause()
        assert not isinstance(app.screen, HelpScreen)
        await pilot.press("f2")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        await type_and_send(pilot, "how do you make kernels fast")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert list(tmp_path.glob("panelbot-*.md"))
        await pilot.press("ctrl+x")
        await pilot.pause()
        assert not app.is_running


async def test_copy_answer_source_and_context(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(130, 36)) as pilot:
        await pilot.press("ctrl+y")
        await type_and_send(pilot, "how do you make kernels fast")
        await pilot.press("ctrl+y")
        assert app.clipboard == app.query(AnswerBlock).last().text
        sources = app.query_one(SourcesList)
        sources.focus()
        await pilot.press("ctrl+y")
        assert app.clipboard == sources.quotes[0].quote.text
        await type_and_send(pilot, "/source olive-002")
        await pilot.press("ctrl+y")
        assert (
            app.clipboard
            == "The reward has to come from real environments, not from a judge model."
        )


async def test_copy_without_a_terminal_does_not_crash(make_app, monkeypatch) -> None:
    app = make_app()

    def broken(text: str) -> None:
        raise OSError("no clipboard here")

    async with app.run_test(size=(130, 36)) as pilot:
        await type_and_send(pilot, "how do you make kernels fast")
        monkeypatch.setattr(app, "copy_to_clipboard", broken)
        await pilot.press("ctrl+y")
        await pilot.pause()
        assert app.is_running
        assert any("Could not copy" in str(n.message) for n in app._notifications)


async def test_toggle_side_panes_wide_and_narrow(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(130, 36)) as pilot:
        sidebar, sources, main = (
            app.query_one("#sidebar"),
            app.query_one("#sources"),
            app.query_one("#main"),
        )
        assert sidebar.display and sources.display and main.display
        await pilot.press("ctrl+b")
        await pilot.pause()
        assert not sidebar.display and not sources.display and main.display
        await pilot.press("ctrl+b")
        await pilot.pause()
        assert sidebar.display and sources.display
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        sidebar, sources, main = (
            app.query_one("#sidebar"),
            app.query_one("#sources"),
            app.query_one("#main"),
        )
        assert not sidebar.display and not sources.display and main.display
        await pilot.press("ctrl+b")
        await pilot.pause()
        assert sidebar.display and sources.display and not main.display
        assert app.query_one("#target").has_focus
        await pilot.press("ctrl+b")
        await pilot.pause()
        assert main.display and app.query_one(Prompt).has_focus
        # Asking a suggested question from the panes brings the conversation back.
        await pilot.press("ctrl+b")
        app.query_one("#suggestions").focus()
        await pilot.press("enter")
        await settle(pilot)
        assert main.display and not sidebar.display
        assert app.query(AnswerBlock)


async def test_command_palette(make_app) -> None:
    from textual.command import CommandPalette

    app = make_app()
    async with app.run_test(size=(130, 36)) as pilot:
        await pilot.press("ctrl+p")
        await pilot.pause()
        assert isinstance(app.screen, CommandPalette)
        await pilot.press(*"Ask: Olive")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause()
        assert app.target == "olive"
        assert app.query_one("#target-olive").value is True


async def test_command_palette_runs_commands(make_app, tmp_path: Path) -> None:
    app = make_app()
    async with app.run_test(size=(130, 36)) as pilot:
        await type_and_send(pilot, "how do you make kernels fast")
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"Export conversation")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause()
        assert list(tmp_path.glob("panelbot-*.md"))
        dark = app.current_theme.dark
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"Toggle light")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause()
        assert app.current_theme.dark is not dark


async def test_up_recalls_questions_from_earlier_sessions(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(130, 36)) as pilot:
        await type_and_send(pilot, "how do you make kernels fast")
    app = make_app()
    async with app.run_test(size=(130, 36)) as pilot:
        await pilot.pause()
        prompt = app.query_one(Prompt)
        prompt.focus()
        await pilot.press("up")
        assert prompt.text == "how do you make kernels fast"
        assert app.conversation_id is None  # a new conversation all the same


async def test_sources_show_the_moment_and_copy_its_link(make_app, tmp_path, monkeypatch) -> None:
    """A panel with source_url and timed quotes: the source list shows the time beside the id and the
    link, and Ctrl+Y copies the quote with its link."""
    import shutil

    from .conftest import HERE

    panels = tmp_path / "panels"
    shutil.copytree(HERE / "panels" / "tiny", panels / "tiny")
    pf = panels / "tiny" / "panel.yaml"
    pf.write_text(
        pf.read_text(encoding="utf-8").replace(
            "status: curated", "status: curated\nsource_url: https://youtu.be/VID"
        ),
        encoding="utf-8",
    )
    qf = panels / "tiny" / "quotes.yaml"
    qf.write_text(
        qf.read_text(encoding="utf-8").replace(
            "  question: q1\n", "  question: q1\n  start: 754.2\n"
        ),
        encoding="utf-8",
    )
    monkeypatch.setenv("PANELBOT_PANELS", str(panels))
    app = make_app()
    async with app.run_test(size=(130, 36)) as pilot:
        await type_and_send(pilot, "how do you make kernels fast")
        sources = app.query_one(SourcesList)
        first = sources.quotes[0].quote
        assert first.id == "dan-001" and first.url == "https://youtu.be/VID?t=754s"
        shown = str(sources.get_option_at_index(0).prompt)
        assert "dan-001" in shown and "12:34" in shown and "https://youtu.be/VID?t=754s" in shown
        sources.focus()
        await pilot.press("ctrl+y")
        assert app.clipboard == f"{first.text}\nhttps://youtu.be/VID?t=754s"


async def test_context_view_shows_the_moment_and_opens_the_link(
    make_app, tmp_path, monkeypatch
) -> None:
    import shutil

    from .conftest import HERE

    panels = tmp_path / "panels"
    shutil.copytree(HERE / "panels" / "tiny", panels / "tiny")
    pf = panels / "tiny" / "panel.yaml"
    pf.write_text(
        pf.read_text(encoding="utf-8").replace(
            "status: curated", "status: curated\nsource_url: https://example.org/talk.mp4"
        ),
        encoding="utf-8",
    )
    qf = panels / "tiny" / "quotes.yaml"
    qf.write_text(
        qf.read_text(encoding="utf-8").replace("  question: q2\n", "  question: q2\n  start: 61\n"),
        encoding="utf-8",
    )
    monkeypatch.setenv("PANELBOT_PANELS", str(panels))
    opened: list[str] = []
    app = make_app()
    monkeypatch.setattr(app, "open_url", lambda url, **kw: opened.append(url))
    async with app.run_test(size=(130, 36)) as pilot:
        await type_and_send(pilot, "/source olive-002")
        await pilot.pause()
        shown = " ".join(str(w.render()) for w in app.screen.query(".context-time"))
        assert "Said at 1:01" in shown and "https://example.org/talk.mp4#t=61" in shown
        await pilot.press("o")
        assert opened == ["https://example.org/talk.mp4#t=61"]
        await pilot.press("ctrl+y")
        assert app.clipboard.endswith("\nhttps://example.org/talk.mp4#t=61")
