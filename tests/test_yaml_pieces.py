"""A long block list (a quote bank) is parsed a piece at a time: the result, the line of every mapping and
every error are exactly what parsing the whole file gives."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from panelbot.errors import DataError
from panelbot.panel import yaml_lines
from panelbot.panel.yaml_lines import load_yaml, load_yaml_list


@pytest.fixture(autouse=True)
def _small_pieces(monkeypatch) -> None:
    monkeypatch.setattr(yaml_lines, "PIECE", 2)


def _same(tmp_path: Path, text: str) -> object:
    p = tmp_path / "f.yaml"
    p.write_text(text, encoding="utf-8")
    try:
        whole = load_yaml(p)
    except DataError as exc:
        with pytest.raises(DataError) as info:
            load_yaml_list(p)
        assert (str(info.value), info.value.line) == (str(exc), exc.line)
        return exc
    assert load_yaml_list(p) == whole  # lines included (every mapping carries its own)
    return whole


BANK = "".join(
    f"# quote {i}\n- id: q{i}\n  text: |\n    line one of {i}\n    - not an entry\n  keywords: [a, b]\n"
    for i in range(7)
)


@pytest.mark.parametrize(
    "text",
    [
        BANK,
        "# a bank\n\n" + BANK,
        BANK.replace("- id: q5", "- id: q1"),  # validation's business: parsed alike
        BANK
        + "- id: q7\n  id: again\n",  # a duplicate key in the last piece: the same error, same line
        BANK.replace("- id: q1\n", "- &first\n  id: q1\n")
        + "- *first\n",  # an alias to another piece
        BANK.replace("- id: q4\n", "- id: q4\n  also: *nowhere\n"),  # an undefined alias
        BANK.replace(
            "keywords: [a, b]\n", "keywords: [a,\n- b]\n", 1
        ),  # a flow list across an entry start
        BANK.replace(
            "- id: q3\n", '- id: "q3\n- still the id"\n'
        ),  # a quoted scalar across an entry start
        "%YAML 1.1\n---\n" + BANK,
        BANK + "---\n- id: other\n",
        BANK.replace("\n", "\r\n"),
        "title: x\n" + BANK,
        BANK + "x: 1\n",
        BANK.replace(
            "- id: q6\n", "- id: q6\n  n: 1e5\n  when: 2024-01-02\n  big: " + "9" * 5000 + "\n"
        ),
        "- a\n- b\n- - c\n  - d\n-\n- e: {f: [g, h]}\n",
    ],
)
def test_pieces_read_as_the_whole_file(tmp_path: Path, text: str) -> None:
    _same(tmp_path, text)


def test_lines_of_later_pieces_count_from_the_file_start(tmp_path: Path) -> None:
    data = _same(tmp_path, BANK)
    assert [q["__line__"] for q in data] == [2 + 6 * i for i in range(7)]


_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.text(max_size=20), st.floats(allow_nan=False)
)
_entries = st.recursive(
    _scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    entries=st.lists(_entries, min_size=3, max_size=12),
    width=st.sampled_from([20, 80]),
    flow=st.sampled_from([False, None]),
)
def test_any_dumped_list_reads_alike(tmp_path: Path, entries, width, flow) -> None:
    _same(
        tmp_path, yaml.safe_dump(entries, default_flow_style=flow, width=width, allow_unicode=True)
    )
