"""Config validation, message by message: the exact line a person sees for each kind of bad value (file,
line, setting, what is expected, what was found), the boundaries of every range, and the key handling."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from panelbot.config import as_dict, clean_api_key, load_config
from panelbot.errors import ConfigError

BAD = [
    ("- a\n- b\n", "F:1: the config must be a mapping of settings"),
    ("serve: 3\n", "F: serve must be a mapping"),
    (
        "serve:\n  max_body: 10\n",
        "F:2: serve.max_body must be a whole number between 1024 and 100000000, got 10",
    ),
    (
        "serve:\n  header_timeout: 0\n",
        "F:2: serve.header_timeout must be a number between 0.1 and 3600.0, got 0",
    ),
    (
        "serve:\n  max_connections: .inf\n",
        "F:2: serve.max_connections must be a whole number between 1 and 100000, got inf",
    ),
    (
        "serve:\n  slowloris: 1\n",
        "F:2: unknown setting serve.slowloris (known: body_timeout, header_timeout, keep_alive, "
        "max_body, max_connections, max_header_bytes, max_json_depth, max_message, max_messages, "
        "max_question)",
    ),
    ("retrieval: 3\n", "F: retrieval must be a mapping"),
    ("tui: 3\n", "F:1: tui must be a mapping"),
    ("backend: [1]\n", "F: backend must be a mapping"),
    (
        "colour: red\n",
        "F:1: unknown section 'colour' (known: backend, history, panel, retrieval, serve, tui)",
    ),
    ("panel: ''\n", "F:1: panel must be a panel name"),
    ("panel: 3\n", "F:1: panel must be a panel name"),
    (
        "retrieval:\n  top_k: 0\n",
        "F:2: retrieval.top_k must be a whole number between 1 and 50, got 0",
    ),
    (
        "retrieval:\n  top_k: 51\n",
        "F:2: retrieval.top_k must be a whole number between 1 and 50, got 51",
    ),
    (
        "retrieval:\n  both_ratio: 1.01\n",
        "F:2: retrieval.both_ratio must be a number between 0.0 and 1.0, got 1.01",
    ),
    (
        "retrieval:\n  both_ratio: -0.01\n",
        "F:2: retrieval.both_ratio must be a number between 0.0 and 1.0, got -0.01",
    ),
    (
        "retrieval:\n  typo_ratio: 49.9\n",
        "F:2: retrieval.typo_ratio must be a number between 50.0 and 100.0, got 49.9",
    ),
    (
        "retrieval:\n  colour: 1\n",
        "F:2: unknown setting retrieval.colour (known: both_ratio, min_quote_score, scope_floor, top_k, typo_ratio)",
    ),
    ("backend:\n  seed: 1.5\n", "F:2: backend.seed must be a whole number, got 1.5"),
    ("backend:\n  seed: '7'\n", "F:2: backend.seed must be a whole number, got '7'"),
    ("backend:\n  model: 3\n", "F:2: backend.model must be text, got 3"),
    ("backend:\n  stream: 'yes'\n", "F:2: backend.stream must be true or false, got 'yes'"),
    (
        "backend:\n  max_retries: 11\n",
        "F:2: backend.max_retries must be a whole number between 0 and 10, got 11",
    ),
    (
        "backend:\n  temperature: .nan\n",
        "F:2: backend.temperature must be a number between 0.0 and 2.0, got nan",
    ),
    ("tui:\n  theme: ''\n", "F:2: tui.theme must be a theme name"),
    ("tui:\n  theme: 3\n", "F:2: tui.theme must be a theme name"),
    ("tui:\n  keys: [1]\n", "F:2: tui.keys must map binding ids to keys"),
    (
        "tui:\n  keys:\n    launch: f2\n",
        "F:3: unknown key binding id 'launch' (known: send, newline, cancel, export, help, quit, copy, toggle_sidebar, command_palette, regenerate, conversations, followups)",
    ),
    (
        "tui:\n  keys:\n    send: 3\n",
        "F:3: tui.keys.send must be a key name like 'ctrl+e', 'f2' or 'enter', got 3",
    ),
    ("tui:\n  colour: x\n", "F:2: unknown setting tui.colour (known: keys, theme)"),
]


def _load(tmp_path: Path, text: str, **env: str):  # noqa: ANN202
    f = tmp_path / "c.yaml"
    f.write_text(text, encoding="utf-8")
    return f, load_config(f, environ=env)


@pytest.mark.parametrize(("text", "message"), BAD)
def test_each_bad_value_has_its_exact_message(
    tmp_path: Path, isolated_env, text: str, message: str
) -> None:  # noqa: ANN001
    f = tmp_path / "c.yaml"
    f.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_config(f, environ={})
    assert str(info.value) == message.replace("F", str(f), 1)


@pytest.mark.parametrize(
    ("section", "key", "lo", "hi"),
    [
        ("retrieval", "top_k", 1, 50),
        ("retrieval", "scope_floor", 0.0, 100.0),
        ("retrieval", "both_ratio", 0.0, 1.0),
        ("retrieval", "min_quote_score", 0.0, 100.0),
        ("retrieval", "typo_ratio", 50.0, 100.0),
        ("backend", "connect_timeout", 0.01, 600.0),
        ("backend", "read_timeout", 0.01, 3600.0),
        ("backend", "total_timeout", 0.01, 7200.0),
        ("backend", "max_tokens", 1, 1_000_000),
        ("backend", "temperature", 0.0, 2.0),
        ("backend", "max_retries", 0, 10),
    ],
)
def test_range_limits_are_inclusive(
    tmp_path: Path,
    isolated_env,
    section: str,
    key: str,
    lo: float,  # noqa: ANN001
    hi: float,
) -> None:
    for value in (lo, hi):
        _, cfg = _load(tmp_path, f"{section}:\n  {key}: {value}\n")
        got = getattr(getattr(cfg, section), key)
        assert got == value and type(got) is type(value)
    step = 1 if isinstance(lo, int) else 0.001
    for value in (lo - step, hi + step):
        with pytest.raises(ConfigError, match=f"between {lo} and {hi}, got"):
            _load(tmp_path, f"{section}:\n  {key}: {value}\n")


def test_empty_text_settings_and_a_null_seed(tmp_path: Path, isolated_env) -> None:  # noqa: ANN001
    _, cfg = _load(tmp_path, "backend:\n  model: null\n  base_url: ''\n  seed: null\n")
    assert cfg.backend.model == "" and cfg.backend.base_url == "" and cfg.backend.seed is None
    _, cfg = _load(tmp_path, "backend:\n  seed: 7\n  stream: false\n  name: openai\n")
    assert cfg.backend.seed == 7 and cfg.backend.stream is False and cfg.backend.name == "openai"
    _, cfg = _load(tmp_path, "panel: '  other  '\ntui:\n  theme: nord\n  keys:\n    help: F2\n")
    assert cfg.panel == "other" and cfg.tui.theme == "nord" and cfg.tui.keys["help"] == "f2"
    assert cfg.tui.keys["send"] == "enter"  # the others keep their defaults


def test_a_key_in_a_config_file_is_cleaned_named_and_warned_about(
    tmp_path: Path, isolated_env
) -> None:  # noqa: ANN001
    f, cfg = _load(tmp_path, 'backend:\n  api_key: "  sk-abc123def456\\r\\n"\n')
    assert cfg.backend.api_key == "sk-abc123def456"
    assert cfg.backend.api_key_source == f"config file {f}"
    os.chmod(f, 0o644)
    _, cfg = _load(tmp_path, "backend:\n  api_key: sk-abc123def456\n")
    assert cfg.warnings == (
        f"{f} holds an API key and is readable by other users; run: chmod 600 {f}",
    )
    os.chmod(f, stat.S_IRUSR | stat.S_IWUSR)
    _, cfg = _load(tmp_path, "backend:\n  api_key: sk-abc123def456\n")
    assert cfg.warnings == ()
    assert as_dict(cfg)["backend"]["api_key"] == "***"
    with pytest.raises(ConfigError) as info:
        _load(tmp_path, 'backend:\n  api_key: "sk-abc\\x01def456"\n')
    assert str(info.value) == (
        f"the API key from config file {f} holds a control character, a space or a "
        "non-ASCII character; check for a stray character or a pasted line break"
    )
    assert "sk-abc" not in str(info.value)


def test_clean_api_key() -> None:
    assert clean_api_key("  k-123\r\n") == "k-123" and clean_api_key("") == ""
    for bad in ("a b", "a\tb", "ab\x7f", "caf\u00e9", "a\u200bb"):
        with pytest.raises(ConfigError, match="^the API key holds a control character"):
            clean_api_key(bad)
    with pytest.raises(ConfigError, match="^the API key from \\$X holds"):
        clean_api_key("a b", "$X")


def test_environment_wins_and_names_its_source(tmp_path: Path, isolated_env) -> None:  # noqa: ANN001
    text = "backend:\n  base_url: http://file/v1\n  model: file-model\n  api_key: file-key-123\n  name: offline\n"
    _, cfg = _load(
        tmp_path,
        text,
        PANELBOT_BASE_URL="http://a/v1",
        OPENAI_BASE_URL="http://b/v1",
        PANELBOT_MODEL="env-model",
        PANELBOT_API_KEY=" env-key-1\n",
        OPENAI_API_KEY="other",
        PANELBOT_BACKEND="openai",
    )
    b = cfg.backend
    assert (b.base_url, b.model, b.api_key, b.api_key_source, b.name) == (
        "http://a/v1",
        "env-model",
        "env-key-1",
        "$PANELBOT_API_KEY",
        "openai",
    )
    _, cfg = _load(
        tmp_path, text, OPENAI_BASE_URL="http://b/v1", PANELBOT_API_KEY="  ", OPENAI_API_KEY="o-key"
    )
    assert (cfg.backend.base_url, cfg.backend.api_key, cfg.backend.api_key_source) == (
        "http://b/v1",
        "o-key",
        "$OPENAI_API_KEY",
    )
    _, cfg = _load(tmp_path, text)
    assert (cfg.backend.base_url, cfg.backend.model, cfg.backend.api_key) == (
        "http://file/v1",
        "file-model",
        "file-key-123",
    )
