"""Backends by name: built-ins, third-party entry points in 'panelbot.backends', unknown names."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from panelbot.answer.backends.offline import OfflineBackend
from panelbot.answer.backends.openai_compat import OpenAICompatBackend
from panelbot.answer.backends.registry import available_backends, get_backend
from panelbot.errors import ConfigError, UsageError

from .conftest import config_for, make_panel

PLUGIN = """
from panelbot.answer.backends.base import SpeakerDone, TextDelta

class EchoBackend:
    name = "echo"
    def __init__(self, config, panel):
        self.config, self.panel = config, panel
    @property
    def label(self):
        return "echo"
    async def answer(self, request):
        yield TextDelta("dan", request.question)
        yield SpeakerDone("dan", request.question, [])
    async def aclose(self):
        pass
"""


@pytest.fixture
def plugin_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "echo_plugin.py").write_text(PLUGIN)
    dist = tmp_path / "echo_plugin-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: echo-plugin\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(
        "[panelbot.backends]\necho = echo_plugin:EchoBackend\nbroken = echo_plugin:NoSuchClass\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    sys.modules.pop("echo_plugin", None)


def test_builtins() -> None:
    panel = make_panel()
    assert isinstance(get_backend("offline", config_for(""), panel), OfflineBackend)
    assert isinstance(
        get_backend("openai", config_for("http://127.0.0.1:9/v1"), panel), OpenAICompatBackend
    )


def test_openai_without_a_url_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="--base-url"):
        get_backend("openai", config_for(""), make_panel())


def test_unknown_name_lists_the_available(plugin_on_path: Path) -> None:
    with pytest.raises(UsageError) as info:
        get_backend("nope", config_for(""), make_panel())
    assert "available: broken, echo, offline, openai" in str(info.value)


def test_third_party_entry_point(plugin_on_path: Path) -> None:
    assert "echo" in available_backends()
    backend = get_backend("echo", config_for(""), make_panel())
    assert type(backend).__name__ == "EchoBackend" and backend.label == "echo"


def test_broken_plugin_is_one_line(plugin_on_path: Path) -> None:
    with pytest.raises(UsageError, match="failed to load"):
        get_backend("broken", config_for(""), make_panel())
