"""Plain record classes for the modules every ``panelbot ask`` loads: a small subset of :mod:`dataclasses`.

``@record`` (or ``@record(frozen=True)``) reads a class's annotated fields and defaults and gives it
``__init__``, ``__repr__`` and ``__eq__`` (and, frozen, ``__hash__`` and read-only attributes), as
``@dataclass`` does; ``field``, ``fields``, ``replace`` and ``asdict`` work as theirs do. It exists for start-up
time alone: importing :mod:`dataclasses` imports :mod:`inspect` (and with it ``ast``, ``dis`` and
``tokenize``), and ``@dataclass`` compiles each method separately; together ~20 ms of a ~60 ms warm start.
Here a class's methods are compiled in one go and nothing else is imported (``benchmarks/startup.py``).

What is supported, and nothing more: fields in annotation order (``from __future__ import annotations`` style,
``ClassVar`` annotations skipped), defaults and ``field(default=..., default_factory=..., repr=False,
compare=False)``, ``__post_init__``, ``frozen``, and subclassing a record (the parent's fields come first).
Code outside the start-up path (the app, the servers, ingest) uses :mod:`dataclasses` as usual.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

_FIELDS = "__record_fields__"


class FrozenRecordError(AttributeError):
    """Assigning to (or deleting) a field of a frozen record."""


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


class Field:
    """One field of a record: its name, default (or default factory) and whether repr and == use it."""

    __slots__ = ("name", "default", "default_factory", "repr", "compare")

    def __init__(self, default: Any = MISSING, default_factory: Callable[[], Any] | Any = MISSING,
                 repr: bool = True, compare: bool = True) -> None:  # noqa: A002 - dataclasses' own name
        if default is not MISSING and default_factory is not MISSING:
            raise ValueError("cannot specify both default and default_factory")
        self.name = ""
        self.default, self.default_factory, self.repr, self.compare = default, default_factory, repr, compare

    def __repr__(self) -> str:
        return f"Field(name={self.name!r})"


def field(*, default: Any = MISSING, default_factory: Callable[[], Any] | Any = MISSING, repr: bool = True,  # noqa: A002
          compare: bool = True) -> Any:
    """A field with a default factory (``field(default_factory=list)``) or left out of repr or ==."""
    return Field(default, default_factory, repr, compare)


def _build(cls: type, frozen: bool) -> type:
    own: list[Field] = []
    annotations = cls.__dict__.get("__annotations__", {})
    for name, kind in annotations.items():
        text = kind if isinstance(kind, str) else getattr(kind, "__name__", "")
        if text.startswith(("ClassVar", "typing.ClassVar")):
            continue
        value = cls.__dict__.get(name, MISSING)
        f = value if isinstance(value, Field) else Field(default=value)
        f.name = name
        if isinstance(value, Field):
            if f.default is MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, f.default)
        own.append(f)
    inherited = [f for base in reversed(cls.__mro__[1:]) for f in getattr(base, _FIELDS, ())]
    by_name = {f.name: f for f in inherited}
    by_name.update((f.name, f) for f in own)
    all_fields = tuple(by_name.values())
    seen_default = False
    for f in all_fields:
        has_default = f.default is not MISSING or f.default_factory is not MISSING
        if seen_default and not has_default:
            raise TypeError(f"non-default field {f.name!r} follows a default field in {cls.__name__}")
        seen_default = seen_default or has_default

    env: dict[str, Any] = {"MISSING": MISSING, "FrozenRecordError": FrozenRecordError, "cls": cls}
    params, body = [], []
    setter = "object.__setattr__(self, {0!r}, {1})" if frozen else "self.{0} = {1}"
    for f in all_fields:
        if f.default_factory is not MISSING:
            env[f"_factory_{f.name}"] = f.default_factory
            params.append(f"{f.name}=MISSING")
            body.append(setter.format(f.name, f"_factory_{f.name}() if {f.name} is MISSING else {f.name}"))
        else:
            if f.default is not MISSING:
                env[f"_default_{f.name}"] = f.default
                params.append(f"{f.name}=_default_{f.name}")
            else:
                params.append(f.name)
            body.append(setter.format(f.name, f.name))
    if hasattr(cls, "__post_init__"):
        body.append("self.__post_init__()")
    shown = [f.name for f in all_fields if f.repr]
    compared = [f.name for f in all_fields if f.compare]
    own_tuple = "(" + "".join(f"self.{n}," for n in compared) + ")"
    other_tuple = "(" + "".join(f"other.{n}," for n in compared) + ")"
    repr_parts = ", ".join(f"{n}={{self.{n}!r}}" for n in shown)
    src = [
        f"def __init__(self, {', '.join(params)}):" if params else "def __init__(self):",
        *(f"    {line}" for line in body or ["pass"]),
        "def __repr__(self):",
        f"    return f'{{type(self).__qualname__}}({repr_parts})'",
        "def __eq__(self, other):",
        "    if other.__class__ is not self.__class__:",
        "        return NotImplemented",
        f"    return {own_tuple} == {other_tuple}",
    ]
    if frozen:
        src += [
            f"def __hash__(self):\n    return hash({own_tuple})",
            "def __setattr__(self, name, value):",
            "    if type(self) is cls or name in cls.__record_fields_names__:",
            "        raise FrozenRecordError(f'cannot assign to field {name!r}')",
            "    object.__setattr__(self, name, value)",
            "def __delattr__(self, name):",
            "    if type(self) is cls or name in cls.__record_fields_names__:",
            "        raise FrozenRecordError(f'cannot delete field {name!r}')",
            "    object.__delattr__(self, name)",
        ]
    exec("\n".join(src), env)  # noqa: S102 - source made above from the class's own field names
    for name in ("__init__", "__repr__", "__eq__", *(("__hash__", "__setattr__", "__delattr__") if frozen else ())):
        fn = env[name]
        fn.__qualname__ = f"{cls.__qualname__}.{name}"
        setattr(cls, name, fn)
    if not frozen:
        cls.__hash__ = None  # type: ignore[assignment] # like a dataclass with eq and not frozen
    setattr(cls, _FIELDS, all_fields)
    cls.__record_fields_names__ = frozenset(f.name for f in all_fields)  # type: ignore[attr-defined]
    cls.__match_args__ = tuple(f.name for f in all_fields)  # type: ignore[attr-defined]
    return cls


def record(cls: type[T] | None = None, *, frozen: bool = False) -> Any:
    """Make ``cls`` a record (``@record`` or ``@record(frozen=True)``)."""
    def wrap(c: type[T]) -> type[T]:
        return _build(c, frozen)  # type: ignore[return-value]

    return wrap if cls is None else wrap(cls)


def is_record(obj: object) -> bool:
    return hasattr(obj if isinstance(obj, type) else type(obj), _FIELDS)


def fields(obj: Any) -> tuple[Field, ...]:
    """The fields of a record (class or instance), in order."""
    try:
        return getattr(obj, _FIELDS)
    except AttributeError:
        raise TypeError(f"{obj!r} is not a record") from None


def replace(obj: T, /, **changes: Any) -> T:
    """A copy of a record with some fields changed (as ``dataclasses.replace``)."""
    names = fields(obj)
    unknown = set(changes) - {f.name for f in names}
    if unknown:
        raise TypeError(f"{type(obj).__name__} has no field {sorted(unknown)[0]!r}")
    for f in names:
        if f.name not in changes:
            changes[f.name] = getattr(obj, f.name)
    return type(obj)(**changes)


def asdict(obj: Any) -> Any:
    """A record as a dict, recursively through records, lists, tuples and dicts (as ``dataclasses.asdict``)."""
    if is_record(obj) and not isinstance(obj, type):
        return {f.name: asdict(getattr(obj, f.name)) for f in fields(obj)}
    if isinstance(obj, (list, tuple)):
        return type(obj)(asdict(v) for v in obj)
    if isinstance(obj, dict):
        return type(obj)((asdict(k), asdict(v)) for k, v in obj.items())
    return obj
