"""panelbot.records: the dataclasses subset the start-up path uses, behaving as dataclasses does."""

from __future__ import annotations

import dataclasses
from typing import ClassVar

import pytest
from hypothesis import given
from hypothesis import strategies as st

from panelbot.config import BackendSettings, Config
from panelbot.panel.model import Quote
from panelbot.records import FrozenRecordError, asdict, field, fields, record, replace


@record(frozen=True)
class Point:
    x: int
    y: int = 0
    tags: tuple[str, ...] = ()
    secret: str = field(default="", repr=False)
    note: str = field(default="", compare=False)
    KIND: ClassVar[str] = "point"


@record
class Bag:
    name: str
    items: list[int] = field(default_factory=list)
    seen: bool = False

    def __post_init__(self) -> None:
        self.seen = True


@dataclasses.dataclass(frozen=True)
class PointDC:
    x: int
    y: int = 0
    tags: tuple[str, ...] = ()
    secret: str = dataclasses.field(default="", repr=False)
    note: str = dataclasses.field(default="", compare=False)


@given(
    st.integers(),
    st.integers(),
    st.lists(st.text(max_size=3), max_size=3),
    st.text(max_size=5),
    st.text(max_size=5),
)
def test_like_a_frozen_dataclass(x: int, y: int, tags: list[str], secret: str, note: str) -> None:
    p, d = Point(x, y, tuple(tags), secret, note), PointDC(x, y, tuple(tags), secret, note)
    assert repr(p).replace("Point(", "") == repr(d).replace("PointDC(", "")
    assert hash(p) == hash(
        Point(x, y, tuple(tags), secret, "other note")
    )  # compare=False: not in ==/hash
    assert p == Point(x, y, tuple(tags), secret, "other note")
    assert (p == Point(x + 1, y)) is False
    assert asdict(p) == dataclasses.asdict(d)


def test_frozen() -> None:
    p = Point(1)
    with pytest.raises(FrozenRecordError):
        p.x = 2  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del p.y
    assert Point.KIND == "point" and "KIND" not in {f.name for f in fields(Point)}


def test_repr_false_hides_a_key() -> None:
    cfg = Config(backend=BackendSettings(api_key="sk-never-shown-12345"))
    assert "sk-never-shown" not in repr(cfg) and "sk-never-shown" not in repr(cfg.backend)


def test_mutable_record() -> None:
    a, b = Bag("a"), Bag("a")
    assert a.seen and a == b and a.items is not b.items  # a fresh list each
    a.items.append(1)
    assert a != b
    with pytest.raises(TypeError):
        hash(a)
    assert Bag("x", [1]) == Bag(name="x", items=[1])
    with pytest.raises(TypeError):
        Bag()  # type: ignore[call-arg]
    assert (Bag("a") == "a") is False


def test_replace_fields_asdict() -> None:
    q = Quote("dan-01", "dan", "text", topics=("kv",))
    r = replace(q, id="dan-02")
    assert (r.id, r.text, r.topics, q.id) == ("dan-02", "text", ("kv",), "dan-01")
    assert [f.name for f in fields(Quote)][:3] == ["id", "speaker", "text"]
    assert [f.name for f in fields(q)] == [f.name for f in fields(Quote)]
    with pytest.raises(TypeError):
        replace(q, nope=1)
    with pytest.raises(TypeError):
        fields(object())
    nested = Config()
    d = asdict(nested)
    assert d["retrieval"]["top_k"] == nested.retrieval.top_k and isinstance(d["tui"]["keys"], dict)


def test_inheritance_and_order_checks() -> None:
    @record(frozen=True)
    class Child(Point):
        z: int = 3

    c = Child(1, 2)
    assert (c.x, c.y, c.z) == (1, 2, 3) and [f.name for f in fields(c)][-1] == "z"
    assert c != Point(1, 2)

    with pytest.raises(TypeError):

        @record
        class Bad:
            a: int = 1
            b: int
