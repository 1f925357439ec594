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
        proc = subprocess.run(
            ["tmux", "-L", self.socket, *args], capture_output=True, text=True, timeout=10
        )
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
        "PANELBOT_CACHE_DIR": str(tmp_path / "e2e-cache"),
        "PANELBOT_CONFIG": os.devnull,
        "PANELBOT_BACKEND": "offline",
        "TERM": "xterm-256color",
        "COLORTERM": "truecolor",
    }
    env_args = [item for k, v in env.items() for item in ("-e", f"{k}={v}")]
    tmux.run(
        "new-session",
        "-d",
        "-s",
        tmux.session,
        "-x",
        "120",
        "-y",
        "36",
        *env_args,
        f"{exe}; echo PANELBOT-EXITED-$?; sleep 60",
    )
    tmux.wait_for(lambda s: "Ask Dan and Olive anything" in s)
    # text and Enter in one burst, as a fast typist, a paste or ssh delivers them: Enter must send the
    # whole question, not whatever part of it had been inserted when the Enter binding ran
    tmux.run(
        "send-keys", "-t", tmux.session, "How does the KV cache grow with long context?", "Enter"
    )
    screen = tmux.wait_for(lambda s: re.search(r"\[(dan|olive)-\d+\]", s) is not None)
    assert "You  How does the KV cache grow with long context?" in screen
    assert "Dan" in screen
    tmux.run("send-keys", "-t", tmux.session, "C-q")
    tmux.wait_for(lambda s: "PANELBOT-EXITED-0" in s)
    store = ConversationStore(data / "history.sqlite3")
    (conv,) = store.list_conversations()
    roles = [m.role for m in store.messages(conv.id)]
    assert roles[0] == "user" and "assistant" in roles


def test_three_turn_conversation_in_the_real_app(tmux: Tmux, tmp_path: Path) -> None:
    """A question, a continuation and the other panelist, at 80x24, then --resume ID brings it back."""
    exe = _executable()
    if exe is None:
        pytest.skip("the panelbot console script is not installed (pip install -e .)")
    data = tmp_path / "e2e-data"
    env = {
        "PANELBOT_DATA_DIR": str(data),
        "PANELBOT_CONFIG": os.devnull,
        "PANELBOT_BACKEND": "offline",
        "TERM": "xterm-256color",
    }
    env_args = [item for k, v in env.items() for item in ("-e", f"{k}={v}")]
    tmux.run(
        "new-session",
        "-d",
        "-s",
        tmux.session,
        "-x",
        "80",
        "-y",
        "24",
        *env_args,
        f"{exe}; echo PANELBOT-EXITED-$?; sleep 60",
    )
    tmux.wait_for(lambda s: "Ask Dan and Olive anything" in s)

    def ask(text: str, done: Callable[[str], bool]) -> str:
        tmux.run("send-keys", "-t", tmux.session, text, "Enter")
        return tmux.wait_for(done)

    kv = "How do you deal with a KV cache that keeps growing?"
    ask(kv, lambda s: "[dan-22]" in s or "[dan-23]" in s)
    # the continuation: more from Dan on the same subject, quotes not shown yet
    screen = ask("tell me more", lambda s: "[dan-13]" in s or "[dan-15]" in s)
    assert "\u21b3 Tell me more" in screen or "\u21b3" in screen  # follow-ups under the answer
    # the other panelist never spoke to it: said so, naming who did -- never a random quote
    screen = ask("what does Olive think?", lambda s: "Dan did" in s)
    assert "You  what does Olive think?" in screen and "[olive-" not in screen
    tmux.run("send-keys", "-t", tmux.session, "C-q")
    tmux.wait_for(lambda s: "PANELBOT-EXITED-0" in s)

    store = ConversationStore(data / "history.sqlite3")
    (conv,) = store.list_conversations()
    messages = store.messages(conv.id)
    users = [m for m in messages if m.role == "user"]
    assert [m.text for m in users] == [kv, "tell me more", "what does Olive think?"]
    assert users[0].meta.get("context") is None
    assert users[1].meta["context"]["kind"] == "continuation"
    assert users[2].meta["context"]["kind"] == "other_panelist"
    assert [m.role for m in messages if m.role != "user"] == ["assistant", "assistant", "decline"]
    first, more = (set(m.quote_ids) for m in messages if m.role == "assistant")
    assert more and not first & more
    store.close()

    tmux.run("kill-session", "-t", tmux.session)
    tmux.run(
        "new-session",
        "-d",
        "-s",
        tmux.session,
        "-x",
        "80",
        "-y",
        "24",
        *env_args,
        f"{exe} --resume {conv.id}; echo PANELBOT-EXITED-$?; sleep 60",
    )
    tmux.wait_for(lambda s: "Dan did" in s)  # where it left off
    tmux.run("send-keys", "-t", tmux.session, "C-q")
    tmux.wait_for(lambda s: "PANELBOT-EXITED-0" in s)
