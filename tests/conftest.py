"""Shared fixtures for the core tests: an isolated environment and a subprocess CLI runner.

Kept generic on purpose; tests/tui and tests/llm have their own conftest files that override these names.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
SHIPPED_PANEL = REPO / "persona_data" / "minimax-m3"

# Variables that would let the developer's own setup leak into a test run.
_LEAKY_ENV = (
    "PANELBOT_PANELS",
    "PANELBOT_BACKEND",
    "PANELBOT_BASE_URL",
    "PANELBOT_MODEL",
    "PANELBOT_API_KEY",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "PANELBOT_DEBUG_SPEAKERS",
)


@pytest.fixture(autouse=True, scope="session")
def _private_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Saved indexes go to a directory of this test run, never the developer's cache (shared by the run's
    tests, so most start warm; tests of the cache itself point PANELBOT_CACHE_DIR elsewhere)."""
    os.environ["PANELBOT_CACHE_DIR"] = str(tmp_path_factory.mktemp("cache"))


@pytest.fixture
def isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """Point panelbot's data dir and user config at tmp paths; returns the environment for subprocesses."""
    data = tmp_path / "data"
    monkeypatch.setenv("PANELBOT_DATA_DIR", str(data))
    (tmp_path / "no-user-config.yaml").write_text("", encoding="utf-8")  # named, so it must exist
    monkeypatch.setenv("PANELBOT_CONFIG", str(tmp_path / "no-user-config.yaml"))
    for var in _LEAKY_ENV:
        monkeypatch.delenv(var, raising=False)
    env = dict(os.environ)
    env["PYTHONIOENCODING"] = "utf-8"
    return env


@pytest.fixture
def run_cli(
    isolated_env: dict[str, str], tmp_path: Path
) -> Callable[..., subprocess.CompletedProcess]:
    """Run ``python -m panelbot ARGS`` in a subprocess (cwd: a fresh tmp dir unless given)."""
    work = tmp_path / "cwd"
    work.mkdir(exist_ok=True)

    def run(
        *args: str,
        stdin: str | None = None,
        cwd: Path | None = None,
        env: dict[str, str] | None = None,
    ) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "panelbot", *args],
            input=stdin,
            capture_output=True,
            text=True,
            encoding="utf-8",
            cwd=str(cwd or work),
            env={**isolated_env, **(env or {})},
            timeout=120,
        )

    return run


def load_fakeserver() -> Any:
    """tests/llm/fakeserver.py (the scripted OpenAI-compatible server), loaded by path: ``tests`` is not a
    package, and the name ``llm`` belongs to the llm CLI."""
    import importlib.util

    name = "panelbot_tests_fakeserver"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, TESTS / "llm" / "fakeserver.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


@pytest.fixture
def fake_model_server() -> Iterator[Any]:
    """A scripted OpenAI-compatible server on 127.0.0.1 of this test's own (see tests/llm/fakeserver.py)."""
    srv = load_fakeserver().FakeHTTPServer().start()
    yield srv
    srv.state.stop.set()
    srv.close()


async def type_and_send(pilot: Any, text: str, *, wait: bool = True) -> None:
    """Put text in the app's input and press the send key (Enter), then (``wait``) let the answer finish."""
    from panelbot.tui.widgets.prompt import Prompt

    prompt = pilot.app.query_one(Prompt)
    prompt.focus()
    prompt.load_text(text)
    await pilot.press("enter")
    if wait:
        await settle(pilot)


async def settle(pilot: Any) -> None:
    """Let the app's workers (an answer being streamed) finish and the screen catch up."""
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def fill_disk(path: Path) -> None:
    """Write zeros to ``path`` until its disk is full (a small tmpfs a test mounted; ``/dev/full`` at once)."""
    try:
        with open(path, "wb") as fill:
            while True:
                fill.write(b"\0" * 4096)
                fill.flush()
    except OSError:
        pass


@pytest.fixture(scope="session")
def shipped_captions() -> str:
    return (SHIPPED_PANEL / "captions.txt").read_text(encoding="utf-8")


@pytest.fixture(scope="session")
def fixtures_dir() -> Path:
    return TESTS / "fixtures"


@pytest.fixture(scope="session")
def shipped_panel():
    from panelbot.panel import load_panel

    return load_panel(SHIPPED_PANEL)


@pytest.fixture(scope="session")
def router(shipped_panel):
    from panelbot.retrieval.router import Router

    return Router(shipped_panel)


@pytest.fixture(scope="session")
def bread_router(tmp_path_factory: pytest.TempPathFactory):
    """A router of the bread panel ingested from its captions (panelists "Zoë Achterberg", "Rafał Nowicki")."""
    from panelbot.ingest.draft import build_draft, write_draft
    from panelbot.panel import load_panel
    from panelbot.retrieval.router import Router

    caps = (Path(__file__).parent / "fixtures" / "bread_panel.vtt").read_text(encoding="utf-8")
    out = tmp_path_factory.mktemp("bread") / "bread"
    write_draft(build_draft(caps, "bread"), caps, out)
    return Router(load_panel(out))


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cache directory of this test's own (saved indexes, remembered config parses)."""
    d = tmp_path / "cache"
    monkeypatch.setenv("PANELBOT_CACHE_DIR", str(d))
    return d


@pytest.fixture
def panel_dir(tmp_path: Path) -> Path:
    """A copy of the "gardens" test talk (tests/fixtures/library) that a test may edit."""
    import shutil

    d = tmp_path / "panels" / "gardens"
    shutil.copytree(Path(__file__).resolve().parent / "fixtures" / "library" / "gardens", d)
    return d
