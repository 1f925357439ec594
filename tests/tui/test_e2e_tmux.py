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
        # the server (started by the first command) passes its environment to the app: without
        # COLUMNS and LINES, which pytest's environment holds (80 and 24) and which Textual would
        # take for the terminal's size whatever the window's size is
        env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
        proc = subprocess.run(
            ["tmux", "-L", self.socket, *args], capture_output=True, text=True, timeout=10, env=env
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
    # 120 columns: three panes, the chat's column wraps the question
    assert "You  How does the KV cache grow with long" in screen
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


def _start_app(tmux: Tmux, tmp_path: Path, width: int, height: int) -> None:
    """The real executable, offline, its history in tmp_path/e2e-data, in a width x height window."""
    exe = _executable()
    if exe is None:
        pytest.skip("the panelbot console script is not installed (pip install -e .)")
    env = {
        "PANELBOT_DATA_DIR": str(tmp_path / "e2e-data"),
        "PANELBOT_CONFIG": os.devnull,
        "PANELBOT_BACKEND": "offline",
        "TERM": "xterm-256color",
    }
    env_args = [item for k, v in env.items() for item in ("-e", f"{k}={v}")]
    size = ["-x", str(width), "-y", str(height)]
    command = f"{exe}; echo PANELBOT-EXITED-$?; sleep 60"
    tmux.run("new-session", "-d", "-s", tmux.session, *size, *env_args, command)
    tmux.wait_for(lambda s: "Ask Dan and Olive anything" in s)


def _user_messages(tmp_path: Path) -> list[str]:
    store = ConversationStore(tmp_path / "e2e-data" / "history.sqlite3")
    try:
        (conv,) = store.list_conversations()
        return [m.text for m in store.messages(conv.id) if m.role == "user"]
    finally:
        store.close()


def test_new_lines_typed_in_one_burst_land_where_they_were_typed(
    tmux: Tmux, tmp_path: Path
) -> None:
    """Ctrl+J (a priority binding, like Enter) inserts its new line after the keys typed before it in
    the same burst (a paste, ssh, a fast typist), not ahead of them."""
    _start_app(tmux, tmp_path, 100, 30)
    tmux.run("send-keys", "-t", tmux.session, "first line", "C-j", "second line", "C-j", "third")
    tmux.wait_for(lambda s: "third" in s)
    tmux.run("send-keys", "-t", tmux.session, "Enter")
    tmux.wait_for(lambda s: "You  first line" in s)
    tmux.run("send-keys", "-t", tmux.session, "C-q")
    tmux.wait_for(lambda s: "PANELBOT-EXITED-0" in s)
    assert _user_messages(tmp_path) == ["first line\nsecond line\nthird"]


def _storm_sizes(count: int) -> list[tuple[int, int]]:
    """``count`` terminal sizes that swing between the app's layouts and the degenerate: widths 1-5
    and heights 1-3 beside the narrow/wide threshold, 80x24 and 160x45 (a fixed cycle, not random)."""
    tiny = [(w, h) for w in (1, 2, 3, 4, 5) for h in (1, 2, 3)]
    sizes = [(80, 24), *tiny[:5], (160, 45), *tiny[5:10], (110, 36), (109, 3), *tiny[10:], (40, 12)]
    return [sizes[i % len(sizes)] for i in range(count)]


def test_the_app_survives_a_resize_storm_and_answers_after_it(tmux: Tmux, tmp_path: Path) -> None:
    """60 resizes 50 ms apart, down to 1x1, with a draft in the input, an answer in the chat and then
    the command palette open (its option list wrapped at 0 columns crashed the app): the app is still
    running afterwards, has kept the draft, and answers a question (the draft finished by it)."""
    _start_app(tmux, tmp_path, 120, 36)
    tmux.run("send-keys", "-t", tmux.session, "How does the KV cache grow?", "Enter")
    tmux.wait_for(lambda s: re.search(r"\[dan-\d+\]", s) is not None)
    draft = "a draft that wraps in the input " * 3
    tmux.run("send-keys", "-t", tmux.session, "-l", draft)

    def storm(count: int) -> None:
        for width, height in _storm_sizes(count):
            tmux.run("resize-window", "-t", tmux.session, "-x", str(width), "-y", str(height))
            time.sleep(0.05)
        tmux.run("resize-window", "-t", tmux.session, "-x", "100", "-y", "30")

    storm(30)  # the chat, the input and the footer
    tmux.run("send-keys", "-t", tmux.session, "C-p")
    tmux.wait_for(lambda s: "Search for commands" in s)
    storm(30)  # Textual's command palette over them
    assert tmux.run("display-message", "-p", "-t", tmux.session, "#{window_width}").strip() == "100"
    screen = tmux.wait_for(lambda s: "Search for commands" in s or "PANELBOT-EXITED" in s)
    assert "PANELBOT-EXITED" not in screen and "Traceback" not in screen
    tmux.run("send-keys", "-t", tmux.session, "Escape")
    screen = tmux.wait_for(lambda s: "a draft that wraps" in s)  # the draft survived
    # the question finishes the draft: what is sent is the draft, whole, and the question
    tmux.run("send-keys", "-t", tmux.session, "-l", "What is MiniMax's mission?")
    tmux.run("send-keys", "-t", tmux.session, "Enter")
    screen = tmux.wait_for(lambda s: re.search(r"\[olive-\d+\]", s) is not None)
    assert "PANELBOT-EXITED" not in screen
    tmux.run("send-keys", "-t", tmux.session, "C-q")
    tmux.wait_for(lambda s: "PANELBOT-EXITED-0" in s)
    assert _user_messages(tmp_path) == [
        "How does the KV cache grow?",
        draft + "What is MiniMax's mission?",
    ]
