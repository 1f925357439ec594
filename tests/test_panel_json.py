"""Panel files written as JSON take the JSON fast path: the panel loaded is exactly the one the YAML loader
gives, and a problem still names its file and line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_panel_loading import load_error, make_panel

from panelbot.panel import find_panel_dir, load_panel
from panelbot.panel.loader import list_panels
from panelbot.panel.yaml_lines import NOT_JSON, load_json_shaped, load_yaml, strip_lines


def _as_json(src: Path, dst: Path, **dump: object) -> None:
    """A copy of a panel with its lists (quotes, questions, turns) rewritten as JSON."""
    shutil.copytree(src, dst)
    for name in ("quotes.yaml", "questions.yaml", "turns.yaml"):
        p = dst / name
        if p.is_file():
            p.write_text(json.dumps(strip_lines(load_yaml(p)), **dump), encoding="utf-8")


@pytest.mark.parametrize(
    "dump", [{}, {"indent": 1}, {"ensure_ascii": False}, {"separators": (",", ":")}]
)
def test_the_shipped_panel_as_json_loads_the_same(tmp_path: Path, dump: dict) -> None:
    src = find_panel_dir("minimax-m3")
    _as_json(src, tmp_path / "minimax-m3", **dump)
    assert load_json_shaped(tmp_path / "minimax-m3" / "quotes.yaml") is not NOT_JSON
    a, b = load_panel(src), load_panel(tmp_path / "minimax-m3")
    assert (a.quotes, a.questions, a.turns) == (b.quotes, b.questions, b.turns)
    assert a.panelists == b.panelists and a.vocabulary == b.vocabulary


PANEL = "format: 1\ntitle: T\npanelists:\n  - {id: ann, name: Ann}\n  - {id: bob, name: Bob}\n"


def _panel(tmp_path: Path, quotes: str) -> Path:
    return make_panel(tmp_path, PANEL, quotes)


def test_a_problem_in_a_json_bank_names_its_line(tmp_path: Path) -> None:
    quotes = (
        '[\n{"id": "a1", "speaker": "ann", "text": "One."},\n{"id": "b1", "speaker": "bob", "text": "Two."},\n'
        '{"id": "c1", "speaker": "cy", "text": "Three."}\n]\n'
    )
    err = load_error(_panel(tmp_path, quotes))
    assert "unknown speaker 'cy'" in str(err) and err.line == 4 and err.path.endswith("quotes.yaml")


def test_a_duplicate_key_in_a_json_bank_is_the_yaml_error(tmp_path: Path) -> None:
    quotes = '[\n{"id": "a1", "speaker": "ann", "text": "One."},\n{"id": "b1", "speaker": "bob", "id": "x"}\n]\n'
    d = _panel(tmp_path, quotes)
    assert load_json_shaped(d / "quotes.yaml") is NOT_JSON
    err = load_error(d)
    assert "duplicate key 'id'" in str(err) and err.line == 3


def test_a_json_bank_is_counted_for_the_panel_list(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("PANELBOT_PANELS", str(tmp_path))
    d = _panel(
        tmp_path, json.dumps([{"id": f"a{i}", "speaker": "ann", "text": "Hi."} for i in range(7)])
    )
    (info,) = [p for p in list_panels() if p.name == d.name]
    assert info.quotes == 7


@pytest.mark.parametrize(
    "text",
    [
        "[1e5]",
        "[1.5e5]",
        '{"a": 1, "a": 2}',
        '["\\ud83d\\ude00"]',
        '{"a"\n: 1}',
        "[\t1]",
        "[NaN]",
        '["a\u2028b"]',
        '["\x85"]',
        '["\x7f"]',
        "\ufeff[1]",
        "- 1\n",
        "x: [1]",
        "[1] # c",
        "",
    ],
)
def test_texts_yaml_could_read_otherwise_go_to_the_yaml_loader(tmp_path: Path, text: str) -> None:
    p = tmp_path / "f.yaml"
    p.write_text(text, encoding="utf-8")
    assert load_json_shaped(p) is NOT_JSON


_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**20), 10**20),
    st.text(max_size=12),
    st.floats(allow_nan=True, allow_infinity=True),
)
_values = st.recursive(
    _scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    value=st.one_of(
        st.lists(_values, max_size=4), st.dictionaries(st.text(max_size=6), _values, max_size=4)
    ),
    indent=st.sampled_from([None, 0, 2]),
    ascii_only=st.booleans(),
)
def test_json_read_fast_is_what_yaml_reads(tmp_path: Path, value, indent, ascii_only) -> None:
    p = tmp_path / "f.yaml"
    p.write_text(json.dumps(value, indent=indent, ensure_ascii=ascii_only), encoding="utf-8")
    fast = load_json_shaped(p)
    if fast is NOT_JSON:
        return
    try:
        slow = yaml.load(
            p.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        )
    except yaml.YAMLError:
        pytest.fail("the fast path read a file YAML refuses")
    assert fast == slow
    assert strip_lines(load_yaml(p)) == fast
