"""The app under hostile conditions: escapes in panel data never reach the clipboard, an impossible data
directory or a damaged history is a message, a key echoed by the server reaches no screen, file or
clipboard, and /export never replaces a device."""

from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path

import pytest

from panelbot.config import Config
from panelbot.conversation.store import ConversationStore
from panelbot.tui import engine
from panelbot.tui.widgets.chat import AnswerBlock

from .conftest import HERE, chat_text, settle, type_and_send
from .test_backends import _fakeserver

pytestmark = pytest.mark.asyncio

SECRET = "sk-live-4f9a7c2e81b3d6f0a5c9e7b2d4f6a8c0"
UNDER_A_FILE = "/etc/hostname/x" if Path("/etc/hostname").is_file() else "/proc/version/x"


def leaked(text: str) -> list[str]:
    low = text.lower()
    return [SECRET[i : i + 6] for i in range(len(SECRET) - 5) if SECRET[i : i + 6].lower() in low]


def hostile_panel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    panels = tmp_path / "panels"
    shutil.copytree(HERE / "panels" / "tiny", panels / "tiny")
    quotes = panels / "tiny" / "quotes.yaml"
    quotes.write_text(
        quotes.read_text(encoding="utf-8").replace(
            '"The reward has to come from real environments, not from a judge model."',
            '"The reward\\e]52;c;ZXZpbA==\\a has to come\\e[2J from real\\u202e environments."',
        ),
        encoding="utf-8",
    )
    monkeypatch.setenv("PANELBOT_PANELS", str(panels))


async def test_ctrl_y_copies_no_escape_sequence(make_app, tmp_path: Path, monkeypatch) -> None:
    hostile_panel(tmp_path, monkeypatch)
    app = make_app()
    async with app.run_test(size=(130, 36)) as pilot:
        await type_and_send(pilot, "/source olive-002")
        await pilot.press("ctrl+y")
        assert app.clipboard == "The reward has to come from real environments."
    app.copy_text("a\x1b]52;c;ZXZpbA==\x07b\x9b2Jc\u202ed", "x")
    assert app.clipboard == "abcd"


async def test_a_data_dir_that_cannot_be_created_turns_history_off(make_app, monkeypatch) -> None:
    monkeypatch.setenv("PANELBOT_DATA_DIR", UNDER_A_FILE)
    app = make_app()
    async with app.run_test(size=(130, 36)) as pilot:
        await type_and_send(pilot, "how do you make kernels fast")
        assert app.is_running and app.query(AnswerBlock)
        text = chat_text(app)
        assert "History is off" in text and "cannot create the data directory" in text
        assert "Traceback" not in text


@pytest.mark.parametrize("damage", ["missing-table", "not-a-database"])
async def test_resume_on_a_damaged_history_is_a_message(
    make_app, isolated_env: Path, damage: str
) -> None:
    path = isolated_env / "history.sqlite3"
    path.parent.mkdir(parents=True, exist_ok=True)
    if damage == "missing-table":
        with ConversationStore(path) as store:
            cid = store.new_conversation("tiny", "t")
            store.add_message(cid, "user", "", "q")
        with sqlite3.connect(path) as db:
            db.execute("DROP TABLE messages")
    else:
        path.write_bytes(os.urandom(4096))
    app = make_app(resume=True)
    async with app.run_test(size=(130, 36)) as pilot:
        await settle(pilot)
        text = chat_text(app)
        assert app.is_running and "Traceback" not in text
        assert "Cannot resume" in text or "History is off" in text
        await type_and_send(pilot, "how do you make kernels fast")  # still answers
        assert app.query(AnswerBlock)


async def test_a_key_echoed_by_the_server_reaches_no_screen_file_or_clipboard(
    make_app, isolated_env: Path, tmp_path: Path
) -> None:
    srv = _fakeserver().FakeHTTPServer().start()
    try:
        cfg = Config(panel="minimax-m3").with_backend(
            name="openai",
            base_url=srv.url("echo-key"),
            model="m",
            api_key=SECRET,
            max_retries=0,
            connect_timeout=2,
            read_timeout=5,
            total_timeout=10,
        )
        app = make_app("minimax-m3", config=cfg, router_factory=engine.make_router)
        async with app.run_test(size=(130, 36)) as pilot:
            await type_and_send(pilot, "How does the KV cache grow with long context?")
            blocks = list(app.query(AnswerBlock))
            assert blocks and "Your key is ***" in blocks[0].text
            await pilot.press("ctrl+y")
            out = tmp_path / "conv.md"
            await type_and_send(pilot, f"/export {out}")
            shown = chat_text(app)
            assert not leaked(shown) and not leaked(app.clipboard)
            assert not leaked(out.read_text(encoding="utf-8"))
        for f in isolated_env.glob("history.sqlite3*"):
            assert not leaked(f.read_bytes().decode("latin-1")), f
    finally:
        srv.close()


async def test_export_to_a_device_is_refused_and_says_why(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(130, 36)) as pilot:
        await type_and_send(pilot, "how do you make kernels fast")
        await type_and_send(pilot, f"/export {os.devnull}")
        text = chat_text(app)
        assert "Export failed" in text and "character device" in text and "left untouched" in text
        assert Path(os.devnull).is_char_device()
