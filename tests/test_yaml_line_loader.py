"""The line-remembering YAML loader takes a few of PyYAML's steps in fewer steps (resolving plain scalars that
can only be text, constructing text, looking for duplicate keys): it reads every document exactly as PyYAML's
own steps do, the same data or the same error at the same place."""

from __future__ import annotations

import math

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from panelbot.panel import yaml_lines


def _reference_loader() -> type:
    """The loader as it was, every step PyYAML's own (the duplicate check looks at every key)."""

    def construct_mapping(loader, node, deep=False):  # noqa: ANN001, ANN202
        mapping = yaml.constructor.SafeConstructor.construct_mapping(loader, node, deep=True)
        seen: set = set()
        for key_node, _ in node.value:
            key = loader.construct_object(key_node, deep=True)
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {key!r}", key_node.start_mark
                )
            seen.add(key)
        mapping[yaml_lines.LINE_KEY] = node.start_mark.line + 1 + loader.line_offset
        return mapping

    loader = type(
        "_Reference", (getattr(yaml, "CSafeLoader", yaml.SafeLoader),), {"line_offset": 0}
    )
    loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, construct_mapping)
    return loader


REFERENCE = _reference_loader()


def _exact(value: object) -> object:
    if isinstance(value, dict):
        return ("dict", [(_exact(k), _exact(v)) for k, v in value.items()])
    if isinstance(value, (list, tuple, set)):
        items = sorted(map(repr, value)) if isinstance(value, set) else [_exact(v) for v in value]
        return (type(value).__name__, items)
    if isinstance(value, float) and math.isnan(value):
        return ("float", "nan")
    return (type(value).__name__, repr(value))


def _read(text: str, loader: type) -> object:
    try:
        return ("data", _exact(yaml.load(text, Loader=loader)))  # noqa: S506 - safe loaders only
    except yaml.YAMLError as exc:
        return ("error", type(exc).__name__, str(exc))
    except (ValueError, RecursionError, TypeError) as exc:
        return ("exception", type(exc).__name__, str(exc))


def _same(text: str) -> object:
    got, want = _read(text, yaml_lines._line_loader()), _read(text, REFERENCE)
    assert got == want, text
    return got


SCALARS = [
    "text",
    "Text",
    "yes",
    "Yes",
    "no",
    "NO",
    "on",
    "Off",
    "true",
    "False",
    "y",
    "n",
    "~",
    "null",
    "Null",
    "",
    "1",
    "-1",
    "+1",
    "0x1F",
    "0o17",
    "017",
    "0b101",
    "1_000",
    "1e5",
    "1.5e5",
    "1.0",
    ".5",
    "-.inf",
    ".NaN",
    "12:30:45",
    "1:20",
    "2024-01-02",
    "2024-01-02 10:11:12",
    "<<",
    "=",
    "-x",
    ".x",
    "_x",
    "éclair",
    "über",
    "a b",
    "a: b",
    "tab\there",
    "'quoted'",
    '"dq"',
    '"esc\\n\\u00e9"',
    "'it''s'",
    "!!str 5",
    "!!int '7'",
    "!!float 3",
    "!!bool yes",
    "!!null ''",
    "!!binary aGk=",
    "[a, 1, yes]",
    "{a: 1, b: no}",
    "*a",
    "&a anchored",
    "&b {x: 1, y: two}",
    "*b",
    "|\n  block\n  text",
    ">-\n  folded",
]
KEYS = [
    "id",
    "text",
    "speaker",
    "t",
    "y",
    "1",
    "1.0",
    "true",
    "yes",
    "null",
    "~",
    "<<",
    "=",
    "2024-01-02",
    "'id'",
    '"text"',
    "? complex",
    "[a]",
    "*a",
    "&c key",
    "*c",
    "é",
]


@st.composite
def _document(draw: st.DrawFn) -> str:
    """A block mapping or list of them, from keys and values of every kind (anchors, aliases, merges,
    duplicate keys, tags) in any order: many are not valid YAML, and then the error must be the same."""
    lines = []
    for _ in range(draw(st.integers(1, 8))):
        key, value = draw(st.sampled_from(KEYS)), draw(st.sampled_from(SCALARS))
        indent = "  " if value.startswith(("|", ">")) else ""
        lines.append(f"{key}: {value.replace(chr(10), chr(10) + indent)}")
    body = "\n".join(lines) + "\n"
    if draw(st.booleans()):
        body = (
            "- "
            + body.replace("\n", "\n  ").rstrip()
            + "\n- "
            + draw(st.sampled_from(SCALARS))
            + "\n"
        )
    return body


@settings(max_examples=600, deadline=None)
@given(text=_document())
def test_any_document_reads_as_pyyamls_own_steps_read_it(text: str) -> None:
    _same(text)


@settings(max_examples=300, deadline=None)
@given(
    value=st.recursive(
        st.one_of(
            st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), st.text(max_size=8)
        ),
        lambda inner: st.one_of(
            st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=5), inner, max_size=4)
        ),
        max_leaves=15,
    ),
    flow=st.sampled_from([None, False, True]),
    unicode=st.booleans(),
)
def test_any_dumped_value_reads_as_pyyamls_own_steps_read_it(
    value: object, flow: bool | None, unicode: bool
) -> None:
    _same(yaml.safe_dump(value, default_flow_style=flow, allow_unicode=unicode))


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("a: 1\nb: 2\na: 3\n", "duplicate key 'a'"),
        ("1: x\ntrue: y\n", "duplicate key True"),
        (
            "base: &b {x: 1}\nm:\n  <<: *b\n  x: 2\n",
            "duplicate key 'x'",
        ),  # a merged key given again
        ("- {id: a, id: b}\n", "duplicate key 'id'"),
    ],
)
def test_duplicate_keys_are_refused_at_the_same_place(text: str, problem: str) -> None:
    kind, _, message = _same(text)
    assert kind == "error" and problem in message and "line" in message


def test_merges_anchors_and_tags_read_alike() -> None:
    kind, data = _same(
        "base: &b {x: 1, y: [a, b]}\nm:\n  <<: *b\n  z: !!str 3\nn: *b\ns: !!set {a, b}\n"
        "t: &t text\nu: *t\nv: !!binary aGk=\nw: 2024-01-02\n"
    )
    assert kind == "data" and "'z'" in repr(data)
