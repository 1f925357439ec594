"""End to end: the real ``panelbot`` executable in tmux, driven with send-keys and read with capture-pane."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from panelbot.conversation.store import ConversationStore

pytestmark = pytest.mark.tmux


def _executable() -> str | None:
    beside = Path(sys.executable).parent / "panelbot"
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    return shutil.which("panelbot")


class Tmux:
    def __init__(self, tmp: Path) -> None:
        self.socket = f"panelbot-test-{uuid.uuid4().hex[:8]}"
        self.session = "e2e"
        self.tmp = tmp

    def run(self, *args: str) -> str:
        proc = subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True, timeout=10)
        return proc.stdout

    def screen(self) -> str:
        return self.run("capture-pane", "-p", "-t", self.session)

    def wait_for(self, found: Callable[[str], bool], timeout: float = 20.0) -> str:
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if found(screen):
                return screen
            time.sleep(0.1)
        raise AssertionError(f"not on screen within {timeout}s:\n{screen}")

    def kill(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True, timeout=10)


@pytest.fixture
def tmux(tmp_path: Path):
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed (.ci/run installs it)")
    t = Tmux(tmp_path)
    yield t
    t.kill()


def test_ask_a_question_in_the_real_app(tmux: Tmux, tmp_path: Path) -> None:
    exe = _executable()
    if exe is None:
        pytest.skip("the panelbot console script is not installed (pip install -e .)")
    data = tmp_path / "e2e-data"
    env = {
        "PANELBOT_DATA_DIR": str(data),
        "PANELBOT_CONFIG": os.devnull,
        "PANELBOT_BACKEND": "offline",
        "TERM": "xterm-256color",
        "COLORTERM": "truecolor",
    }
    env_args = [item for k, v in env.items() for item in ("-e", f"{k}={v}")]
    tmux.run("new-session", "-d", "-s", tmux.session, "-x", "120", "-y", "36", *env_args,
             f"{exe}; echo PANELBOT-EXITED-$?; sleep 60")
    tmux.wait_for(lambda s: "Ask Dan and Olive anything" in s)
    # text and Enter in one burst, as a fast typist, a paste or ssh delivers them: Enter must send the
    # whole question, not whatever part of it had been inserted when the Enter binding ran
    tmux.run("send-keys", "-t", tmux.session, "How does the KV cache grow with long context?", "Enter")
    screen = tmux.wait_for(lambda s: re.search(r"\[(dan|olive)-\d+\]", s) is not None)
    assert "You  How does the KV cache grow with long context?" in screen
    assert "Dan" in screen
    tmux.run("send-keys", "-t", tmux.session, "C-q")
    tmux.wait_for(lambda s: "PANELBOT-EXITED-0" in s)
    store = ConversationStore(data / "history.sqlite3")
    (conv,) = store.list_conversations()
    roles = [m.role for m in store.messages(conv.id)]
    assert roles[0] == "user" and "assistant" in roles
