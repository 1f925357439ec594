"""Config files are parsed once and remembered (with their text) in the cache dir: a warm start needs no
YAML parser. The record is used only while the file's text is the same, and never holds an API key."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from panelbot import paths
from panelbot.config import load_config
from panelbot.errors import DataError
from panelbot.panel import yaml_lines
from panelbot.panel.yaml_lines import LINE_KEY, load_yaml_remembered


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PANELBOT_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def _no_parse(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*a: object, **k: object) -> None:
        raise AssertionError("parsed again")

    monkeypatch.setattr(yaml_lines, "_parse", refuse)


def test_parsed_once_then_remembered(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    f = tmp_path / "c.yaml"
    f.write_text("retrieval:\n  top_k: 4\n", encoding="utf-8")
    first = load_yaml_remembered(f)
    assert first == {"retrieval": {"top_k": 4, LINE_KEY: 2}, LINE_KEY: 1}
    records = list(paths.parsed_cache_dir().glob("*.json"))
    assert len(records) == 1
    assert oct(records[0].stat().st_mode & 0o777) == "0o600"
    _no_parse(monkeypatch)
    assert load_yaml_remembered(f) == first


def test_a_changed_file_is_parsed_again(cache: Path, tmp_path: Path) -> None:
    f = tmp_path / "c.yaml"
    f.write_text("panel: one\n", encoding="utf-8")
    assert load_yaml_remembered(f)["panel"] == "one"
    f.write_text(
        "panel: two\n", encoding="utf-8"
    )  # same size, maybe the same mtime: the text decides
    assert load_yaml_remembered(f)["panel"] == "two"


@pytest.mark.parametrize(
    "damage",
    [
        "",
        "not json",
        "[]",
        '{"format": 1}',
        '{"format": 99, "text": "", "data": 1}',
        '{"format": 1, "text": 5, "data": {}}',
    ],
)
def test_a_damaged_record_is_ignored(cache: Path, tmp_path: Path, damage: str) -> None:
    f = tmp_path / "c.yaml"
    f.write_text("panel: one\n", encoding="utf-8")
    load_yaml_remembered(f)
    (record,) = paths.parsed_cache_dir().glob("*.json")
    record.write_text(damage, encoding="utf-8")
    assert load_yaml_remembered(f)["panel"] == "one"
    assert json.loads(record.read_text(encoding="utf-8"))["data"]["panel"] == "one"  # written anew


def test_a_record_for_other_text_is_never_used(cache: Path, tmp_path: Path) -> None:
    """Someone else's parse (or a forged one) under this file's name: the text does not match, so not used."""
    f = tmp_path / "c.yaml"
    f.write_text("panel: one\n", encoding="utf-8")
    load_yaml_remembered(f)
    (record,) = paths.parsed_cache_dir().glob("*.json")
    record.write_text(
        json.dumps({"format": 1, "text": "panel: evil\n", "data": {"panel": "evil"}}),
        encoding="utf-8",
    )
    assert load_yaml_remembered(f)["panel"] == "one"


def test_bad_yaml_still_says_file_and_line(cache: Path, tmp_path: Path) -> None:
    f = tmp_path / "c.yaml"
    f.write_text("panel: one\n", encoding="utf-8")
    load_yaml_remembered(f)
    f.write_text("panel: one\nretrieval: [\n", encoding="utf-8")
    with pytest.raises(DataError) as e:
        load_yaml_remembered(f)
    assert str(e.value).startswith(f"{f}:3: invalid YAML")


@pytest.mark.parametrize(
    "text", ["when: 2026-11-30\n", "1: one\n", "x: .nan\n", "b: !!binary aGk=\n"]
)
def test_data_json_cannot_hold_exactly_is_not_remembered(
    cache: Path, tmp_path: Path, text: str
) -> None:
    f = tmp_path / "c.yaml"
    f.write_text(text, encoding="utf-8")
    first = load_yaml_remembered(f)
    assert not paths.parsed_cache_dir().exists() or not list(
        paths.parsed_cache_dir().glob("*.json")
    )
    again = load_yaml_remembered(f)
    assert type(next(iter(again.values()))) is type(next(iter(first.values())))


def test_a_config_with_an_api_key_is_never_copied(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    f = tmp_path / "c.yaml"
    f.write_text("backend:\n  api_key: sk-remember-me-not-123456\n", encoding="utf-8")
    f.chmod(0o600)
    monkeypatch.setenv("PANELBOT_CONFIG", str(f))
    cfg = load_config()
    assert cfg.backend.api_key == "sk-remember-me-not-123456"
    for p in cache.rglob("*"):
        if p.is_file():
            assert b"remember-me-not" not in p.read_bytes(), p
    # the bundled config, which holds no key, is remembered
    assert any(paths.parsed_cache_dir().glob("*.json"))


def test_an_unwritable_cache_costs_only_the_parse(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("", encoding="utf-8")
    monkeypatch.setenv(
        "PANELBOT_CACHE_DIR", str(blocker / "cache")
    )  # under a file: cannot be created
    f = tmp_path / "c.yaml"
    f.write_text("panel: one\n", encoding="utf-8")
    assert load_yaml_remembered(f)["panel"] == "one"
    assert load_yaml_remembered(f)["panel"] == "one"
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_config_the_same_from_a_record(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    f = tmp_path / "c.yaml"
    f.write_text("retrieval:\n  top_k: 5\ntui:\n  keys:\n    export: f2\n", encoding="utf-8")
    monkeypatch.setenv("PANELBOT_CONFIG", str(f))
    parsed = load_config()
    _no_parse(monkeypatch)
    remembered = load_config()
    assert remembered == parsed
    assert remembered.retrieval.top_k == 5 and remembered.tui.keys["export"] == "f2"
    assert os.environ["PANELBOT_CONFIG"] == str(f)
