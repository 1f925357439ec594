"""Configuration layering and validation (panelbot.config)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from panelbot.config import Config, ServeLimits, as_dict, load_config
from panelbot.errors import ConfigError, DataError


@pytest.fixture
def user_cfg(isolated_env, tmp_path: Path) -> Path:
    return Path(os.environ["PANELBOT_CONFIG"])


def test_shipped_defaults(user_cfg: Path) -> None:
    cfg = load_config(environ={})
    assert cfg.panel == "minimax-m3"
    assert cfg.retrieval.top_k == 3 and cfg.retrieval.scope_floor == 1.0
    assert cfg.backend.name == "offline" and cfg.backend.api_key == ""
    assert cfg.sources and cfg.sources[0].endswith("config.yaml")
    assert cfg.tui.keys["send"] == "enter"
    assert cfg.serve == ServeLimits()  # the shipped file says what the code defaults to


def test_user_then_explicit_then_env_override(user_cfg: Path, tmp_path: Path) -> None:
    user_cfg.write_text(
        "retrieval:\n  top_k: 5\n  scope_floor: 2\nbackend:\n  model: m-user\n", encoding="utf-8"
    )
    extra = tmp_path / "extra.yaml"
    extra.write_text("retrieval:\n  top_k: 7\n", encoding="utf-8")
    cfg = load_config(
        extra,
        environ={
            "PANELBOT_MODEL": "m-env",
            "PANELBOT_BACKEND": "openai",
            "OPENAI_API_KEY": "sk-test",
        },
    )
    assert cfg.retrieval.top_k == 7  # explicit file wins over user
    assert cfg.retrieval.scope_floor == 2.0 and isinstance(cfg.retrieval.scope_floor, float)
    assert (
        cfg.backend.model == "m-env"
    )  # the environment overrides config files (flags override both)
    assert cfg.backend.name == "openai"
    assert cfg.backend.api_key == "sk-test" and cfg.backend.api_key_source == "$OPENAI_API_KEY"
    assert str(user_cfg) in cfg.sources and str(extra) in cfg.sources
    assert as_dict(cfg)["backend"]["api_key"] == "***"
    assert "sk-test" not in repr(cfg)


@pytest.mark.parametrize(
    "text, expect, line",
    [
        ("retrieval:\n  top_k: 0\n", "retrieval.top_k", 2),
        ("retrieval:\n  top_k: lots\n", "retrieval.top_k", 2),
        ("retrieval:\n  both_ratio: 1.5\n", "retrieval.both_ratio", 2),
        ("retrieval:\n  top_k: true\n", "retrieval.top_k", 2),
        ("retrieval:\n  topk: 3\n", "unknown setting retrieval.topk", 2),
        ("colour: red\n", "unknown section 'colour'", 1),
        ("backend:\n  stream: maybe\n", "backend.stream", 2),
        ("tui:\n  keys:\n    launch: ctrl+x\n", "unknown key binding id 'launch'", 3),
        ("panel: ''\n", "panel must be a panel name", 1),
        ("- a list\n", "mapping", 1),
        ("retrieval: [1\n", "invalid YAML", None),
    ],
)
def test_bad_config_names_file_and_line(
    user_cfg: Path, text: str, expect: str, line: int | None
) -> None:
    user_cfg.write_text(text, encoding="utf-8")
    with pytest.raises(DataError) as info:  # ConfigError, or the YAML loader's DataError
        load_config(environ={})
    err = info.value
    assert expect in str(err)
    assert err.path == str(user_cfg)
    if line is not None:
        assert err.line == line
    else:
        assert err.line is not None


def test_empty_user_config_is_fine(user_cfg: Path) -> None:
    user_cfg.write_text("# nothing\n", encoding="utf-8")
    assert load_config(environ={}).retrieval == Config().retrieval


def test_missing_explicit_config(user_cfg: Path, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not found"):
        load_config(tmp_path / "nope.yaml", environ={})


def test_api_key_in_world_readable_file_warns(user_cfg: Path) -> None:
    user_cfg.write_text("backend:\n  api_key: sk-file\n", encoding="utf-8")
    user_cfg.chmod(0o644)
    cfg = load_config(environ={})
    assert cfg.backend.api_key == "sk-file"
    assert any("chmod 600" in w for w in cfg.warnings)
    user_cfg.chmod(0o600)
    assert not load_config(environ={}).warnings


def test_cli_bad_config_exit_2(run_cli, tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("retrieval:\n  top_k: -3\n", encoding="utf-8")
    r = run_cli("ask", "--config", str(bad), "kv cache")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert f"{bad}:2:" in r.stderr and "top_k" in r.stderr


def test_cli_config_changes_top_k(run_cli, tmp_path: Path) -> None:
    import json

    cfg = tmp_path / "k1.yaml"
    cfg.write_text("retrieval:\n  top_k: 1\n", encoding="utf-8")
    r = run_cli(
        "ask", "--json", "--config", str(cfg), "How do you make GPU kernels faster for inference?"
    )
    assert r.returncode == 0, r.stderr
    assert len(json.loads(r.stdout)["quotes"]) == 1
