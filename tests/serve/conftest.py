"""Fixtures for the server tests: the real ``panelbot serve`` / ``panelbot mcp`` executables as subprocesses on
free loopback ports, and the scripted OpenAI-compatible model server the LLM tests use."""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

TESTS = Path(__file__).resolve().parents[1]
REPO = TESTS.parent


def _load_fakeserver():
    spec = importlib.util.spec_from_file_location(
        "panelbot_test_fakeserver", TESTS / "llm" / "fakeserver.py"
    )
    mod = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


fakeserver = _load_fakeserver()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ServerProcess:
    """``python -m panelbot ARGS`` running in the background; ``stop()`` ends it and returns its output."""

    def __init__(self, args: list[str], env: dict[str, str], port: int, cwd: Path) -> None:
        self.port = port
        self.url = f"http://127.0.0.1:{port}"
        self.base_url = f"{self.url}/v1"
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "panelbot", *args],
            env=env,
            cwd=str(cwd),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.output = ""

    def wait_ready(
        self, path: str = "/health", timeout: float = 60.0, headers: dict | None = None
    ) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                out, err = self.proc.communicate()
                raise AssertionError(f"server exited {self.proc.returncode}: {err}{out}")
            try:
                r = httpx.get(self.url + path, timeout=2, headers=headers)
                if r.status_code < 500:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.1)
        raise AssertionError(f"server on {self.url} not ready in {timeout} s")

    def stop(self) -> str:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        out, err = self.proc.communicate()
        self.output = (out or "") + (err or "")
        return self.output


@pytest.fixture
def start_server(
    isolated_env: dict[str, str], tmp_path: Path
) -> Iterator[Callable[..., ServerProcess]]:
    """Start ``panelbot serve --port <free> EXTRA...`` and wait until it answers; stopped after the test."""
    started: list[ServerProcess] = []

    def start(
        *extra: str, env: dict[str, str] | None = None, ready_headers: dict | None = None
    ) -> ServerProcess:
        port = free_port()
        srv = ServerProcess(
            ["serve", "--port", str(port), *extra], {**isolated_env, **(env or {})}, port, tmp_path
        )
        started.append(srv)
        srv.wait_ready(headers=ready_headers)
        return srv

    yield start
    for srv in started:
        srv.stop()


@pytest.fixture(scope="module")
def offline_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """One offline server shared by a module's read-only tests (isolated data dir and config)."""
    tmp = tmp_path_factory.mktemp("serve")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PANELBOT_", "OPENAI_"))}
    env.update(
        PANELBOT_DATA_DIR=str(tmp / "data"), PANELBOT_CONFIG=os.devnull, PYTHONIOENCODING="utf-8"
    )
    port = free_port()
    srv = ServerProcess(["serve", "--port", str(port)], env, port, tmp)
    try:
        srv.wait_ready()
        yield srv
    finally:
        srv.stop()


@pytest.fixture(scope="module")
def fake_model() -> Iterator:
    srv = fakeserver.FakeHTTPServer().start()
    yield srv
    srv.close()
