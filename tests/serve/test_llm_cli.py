"""``panelbot serve`` driven by Simon Willison's ``llm`` CLI (a subprocess, its config in a tmp LLM_USER_PATH):
the README's extra-openai-models.yaml snippet works as written, streamed and not, and ``llm -c`` continues the
conversation through the server."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

LLM = shutil.which("llm", path=str(Path(sys.executable).parent)) or shutil.which("llm")
pytestmark = pytest.mark.skipif(
    LLM is None, reason="the llm CLI is not installed (pip install -e '.[dev]')"
)

ID_RE = re.compile(r"\[([a-z]+-\d+)\]")


def llm_config(base_url: str) -> str:
    """The snippet from the README, pointed at the test server."""
    return "".join(
        f'- model_id: {mid}\n  model_name: {name}\n  api_base: "{base_url}"\n'
        for mid, name in (
            ("panelbot-dan", "dan"),
            ("panelbot-olive", "olive"),
            ("panelbot", "panel"),
        )
    )


def run_llm(
    tmp_path: Path, isolated_env: dict[str, str], *args: str
) -> subprocess.CompletedProcess:
    env = {**isolated_env, "LLM_USER_PATH": str(tmp_path / "llm")}
    return subprocess.run([LLM, *args], capture_output=True, text=True, env=env, timeout=120)


def test_llm_cli_chats_with_the_panel(offline_server, tmp_path: Path, isolated_env) -> None:
    (tmp_path / "llm").mkdir()
    (tmp_path / "llm" / "extra-openai-models.yaml").write_text(llm_config(offline_server.base_url))
    r = run_llm(tmp_path, isolated_env, "models", "list")
    assert r.returncode == 0 and "panelbot-dan" in r.stdout, r.stderr

    r = run_llm(
        tmp_path,
        isolated_env,
        "-m",
        "panelbot-dan",
        "How do you deal with a KV cache that keeps growing?",
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("Dan (VP of Kernels, Together AI):")
    assert all(i.startswith("dan-") for i in ID_RE.findall(r.stdout)) and ID_RE.findall(r.stdout)

    r = run_llm(
        tmp_path,
        isolated_env,
        "-m",
        "panelbot",
        "--no-stream",
        "Olive, how do you evaluate long runs?",
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("Olive (") and ID_RE.findall(r.stdout)

    # -c sends the logged conversation back: the server reads three turns and answers the last
    r = run_llm(tmp_path, isolated_env, "-c", "what about sparse attention?")
    assert r.returncode == 0, r.stderr
    assert ID_RE.findall(r.stdout)


def test_llm_cli_unknown_model_reports_the_servers_error(
    offline_server, tmp_path: Path, isolated_env
) -> None:
    (tmp_path / "llm").mkdir()
    (tmp_path / "llm" / "extra-openai-models.yaml").write_text(
        f'- model_id: carol\n  model_name: carol\n  api_base: "{offline_server.base_url}"\n'
    )
    r = run_llm(tmp_path, isolated_env, "-m", "carol", "hello")
    assert r.returncode != 0
    assert "does not exist" in r.stderr and "olive" in r.stderr
