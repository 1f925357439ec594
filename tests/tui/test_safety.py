"""Untrusted text is never markup, control characters never reach the terminal, errors are messages."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from panelbot.tui.widgets.chat import AnswerBlock

from .conftest import chat_text, header_text, type_and_send

MARKUP = "[bold]loud[/bold] [/] [link=https://evil.example]click[/link] [red]x"


@pytest.mark.asyncio
async def test_markup_in_panel_data_and_input_is_literal(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(130, 36)) as pilot:
        assert "Tiny Panel [bold]Test[/bold]" in header_text(app)
        assert "offline quotes" in header_text(app, 40)  # the mode stays when the title is cut
        await type_and_send(pilot, "/ask dan whole game really " + MARKUP + "\x1b[31m\x07")
        text = chat_text(app)
        assert "You  whole game really " + MARKUP in text
        assert "\x1b" not in text and "\x07" not in text
        assert any("[bold]really[/bold]" in b.text for b in app.query(AnswerBlock))
        assert "[bold]really[/bold]" in text
        await type_and_send(pilot, "/quote " + MARKUP)
        assert "Quotes matching " + MARKUP in chat_text(app)
        await type_and_send(pilot, "/source " + MARKUP)
        assert "No quote with id" in chat_text(app)


@pytest.mark.asyncio
async def test_markup_in_answer_stream_is_literal(make_app) -> None:
    from .fakes import SlowBackend

    backend = SlowBackend()
    backend.release.set()
    app = make_app(backend=backend)
    async with app.run_test(size=(130, 36)) as pilot:
        await type_and_send(pilot, "how do you make kernels fast")
        assert "Memory is the [bold]game[/bold] done." in chat_text(app)


@pytest.mark.asyncio
async def test_context_view_shows_markup_literally(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(130, 36)) as pilot:
        await type_and_send(pilot, "/source dan-002")
        body = "\n".join(str(w.render()) for w in app.screen.query("Static"))
        assert "That is the whole game [bold]really[/bold]." in body


@pytest.mark.asyncio
async def test_missing_panel_is_a_message(make_app) -> None:
    app = make_app(panel_name="no-such-panel")
    async with app.run_test(size=(100, 30)) as pilot:
        assert app.panel is None
        assert "Cannot load panel 'no-such-panel'" in chat_text(app)
        await type_and_send(pilot, "hello?")
        assert "No panel is loaded" in chat_text(app)
        assert app.is_running


@pytest.mark.asyncio
async def test_bad_config_is_a_message(make_app) -> None:
    app = make_app(config_error="config.yaml:3: retrieval.top_k must be a whole number [bold]")
    async with app.run_test(size=(100, 30)):
        assert (
            "Config problem: config.yaml:3: retrieval.top_k must be a whole number [bold]"
            in chat_text(app)
        )


def test_run_turns_a_bad_config_file_into_a_message(tmp_path: Path, monkeypatch) -> None:
    """panelbot.tui.run(None, ...) loads the config itself; a broken file becomes an in-app message."""
    bad = tmp_path / "bad.yaml"
    bad.write_text("retrieval:\n  top_k: lots\n")
    monkeypatch.setenv("PANELBOT_CONFIG", str(bad))
    from panelbot.tui import app as app_module

    seen = {}

    def fake_run(self) -> None:
        seen["notices"] = list(self._startup_notices)

    monkeypatch.setattr(app_module.PanelbotApp, "run", fake_run)
    from panelbot.tui import run

    assert run(None, "tiny", False) == 0
    assert any("top_k" in text and kind == "error" for text, kind in seen["notices"])


@pytest.mark.asyncio
async def test_unknown_theme_is_a_warning(make_app) -> None:
    from panelbot.config import Config, TuiSettings
    from panelbot.records import replace

    cfg = replace(Config(panel="tiny"), tui=TuiSettings(theme="no-such-theme"))
    app = make_app(config=cfg)
    async with app.run_test(size=(100, 30)):
        assert "unknown theme 'no-such-theme'" in chat_text(app)
        assert app.theme == "textual-dark"


def _no_modules_after(imports: str, forbidden: str) -> None:
    """Import ``imports`` in a fresh interpreter; fail if any module matching ``forbidden`` got loaded."""
    code = f"import sys\nimport {imports}\nbad = [m for m in sys.modules if {forbidden}]\nassert not bad, bad\n"
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=Path(__file__).parents[2]
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_textual_is_imported_only_for_the_tui() -> None:
    _no_modules_after(
        "panelbot.config, panelbot.conversation.store, panelbot.conversation.export, panelbot.panel, panelbot.tui, panelbot.tui.engine",
        "m.split('.')[0] in ('textual', 'rich')",
    )


def test_screens_are_loaded_lazily() -> None:
    _no_modules_after(
        "panelbot.tui.app",
        "m.startswith(('panelbot.tui.screens.', 'panelbot.tui.palette', 'panelbot.conversation.export'))",
    )


@pytest.mark.asyncio
async def test_key_names_in_the_input_placeholder_are_literal() -> None:
    """The placeholder names the send and new-line keys (from config): markup in them shows as typed."""
    from textual.app import App, ComposeResult

    from panelbot.tui.widgets.prompt import Prompt

    class OnlyPrompt(App[None]):
        def compose(self) -> ComposeResult:
            yield Prompt("[bold]x[/]", "[link=https://evil.example]j[/link]")

    for width in (130, 40):  # the long placeholder, and a shorter one picked to fit
        app = OnlyPrompt()
        async with app.run_test(size=(width, 5)) as pilot:
            await pilot.pause()
            prompt = app.query_one(Prompt)
            shown = "".join(segment.text for segment in prompt.render_line(0))
            assert "([bold]x[/] send" in shown, shown
            if width == 130:
                assert "[link=https://evil.example]j[/link] new line" in shown
