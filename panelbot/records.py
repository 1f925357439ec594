"""Plain record classes for the modules every ``panelbot ask`` loads: a small subset of :mod:`dataclasses`.

``@record`` (or ``@record(frozen=True)``) reads a class's annotated fields and defaults and gives it
``__init__``, ``__repr__`` and ``__eq__`` (and, frozen, ``__hash__`` and read-only attributes), as
``@dataclass`` does; ``field``, ``fields``, ``replace`` and ``asdict`` work as theirs do. It exists for start-up
time alone: importing :mod:`dataclasses` imports :mod:`inspect` (and with it ``ast``, ``dis`` and
``tokenize``), and ``@dataclass`` compiles each generated method; together ~20 ms of a warm start for the two
dozen classes the ``ask`` path defines. Here the methods are shared functions that read the class's field list:
nothing is compiled and nothing else is imported, and an instance is made as fast (``benchmarks/startup.py``).

What is supported, and nothing more: fields in annotation order (``from __future__ import annotations`` style,
``ClassVar`` annotations skipped), defaults and ``field(default=..., default_factory=..., repr=False,
compare=False)``, ``__post_init__``, ``frozen``, and subclassing a record (the parent's fields come first).
Code outside the start-up path (the app, the servers, ingest) uses :mod:`dataclasses` as usual.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter

TYPE_CHECKING = (
    False  # as typing.TYPE_CHECKING, without importing typing at run time (start-up time)
)
if TYPE_CHECKING:
    from typing import Any, TypeVar, dataclass_transform

    T = TypeVar("T")
else:

    def dataclass_transform(**_: object) -> Callable[[T], T]:
        """typing.dataclass_transform at run time: nothing to do (it only tells type checkers that
        ``record`` makes dataclass-like classes, so they know each one's ``__init__``)."""
        return lambda decorated: decorated


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

    def __init__(
        self,
        default: Any = MISSING,
        default_factory: Callable[[], Any] | Any = MISSING,
        repr: bool = True,
        compare: bool = True,
    ) -> None:  # noqa: A002 - dataclasses' own name
        if default is not MISSING and default_factory is not MISSING:
            raise ValueError("cannot specify both default and default_factory")
        self.name = ""
        self.default, self.default_factory, self.repr, self.compare = (
            default,
            default_factory,
            repr,
            compare,
        )

    def __repr__(self) -> str:
        return f"Field(name={self.name!r})"


def field(
    *,
    default: Any = MISSING,
    default_factory: Callable[[], Any] | Any = MISSING,
    repr: bool = True,  # noqa: A002
    compare: bool = True,
) -> Any:
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
            raise TypeError(
                f"non-default field {f.name!r} follows a default field in {cls.__name__}"
            )
        seen_default = seen_default or has_default

    names = tuple(f.name for f in all_fields)
    shown = tuple(f.name for f in all_fields if f.repr)
    compared = tuple(f.name for f in all_fields if f.compare)
    key = _key_of(compared)

    def __eq__(self: Any, other: Any) -> Any:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return key(self) == key(other)

    methods: dict[str, Any] = {
        "__init__": _make_init(cls, all_fields),
        "__repr__": _make_repr(shown),
        "__eq__": __eq__,
    }
    if frozen:
        fixed = frozenset(names)

        def __hash__(self: Any) -> int:
            return hash(key(self))

        def __setattr__(self: Any, name: str, value: Any) -> None:
            if type(self) is cls or name in fixed:
                raise FrozenRecordError(f"cannot assign to field {name!r}")
            object.__setattr__(self, name, value)

        def __delattr__(self: Any, name: str) -> None:
            if type(self) is cls or name in fixed:
                raise FrozenRecordError(f"cannot delete field {name!r}")
            object.__delattr__(self, name)

        methods.update(__hash__=__hash__, __setattr__=__setattr__, __delattr__=__delattr__)
    for name, fn in methods.items():
        fn.__qualname__ = f"{cls.__qualname__}.{name}"
        setattr(cls, name, fn)
    if not frozen:
        cls.__hash__ = None  # type: ignore[assignment] # like a dataclass with eq and not frozen
    setattr(cls, _FIELDS, all_fields)
    setattr(cls, "__match_args__", tuple(f.name for f in all_fields))  # noqa: B010
    return cls


def _fill(f: Field) -> tuple[int, Any]:
    """How an omitted argument is filled: (0, None) required, (1, value) a default, (2, factory) a factory."""
    if f.default_factory is not MISSING:
        return 2, f.default_factory
    if f.default is not MISSING:
        return 1, f.default
    return 0, None


def _make_init(cls: type, all_fields: tuple[Field, ...]) -> Callable[..., None]:
    """One ``__init__`` for any record, reading the field list (no code generated: compiling a method per
    class costs more at start-up than this loop does per instance). Values go straight into the instance's
    ``__dict__``, as a frozen dataclass's ``object.__setattr__`` would put them."""
    names = tuple(f.name for f in all_fields)
    fills = tuple(_fill(f) for f in all_fields)
    post = getattr(cls, "__post_init__", None) is not None
    width = len(names)
    title = cls.__name__

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        given = len(args)
        if given > width:
            raise TypeError(f"{title}() takes {width} positional arguments but {given} were given")
        d = self.__dict__
        for i, name in enumerate(names):
            if i < given:
                if kwargs and name in kwargs:
                    raise TypeError(f"{title}() got multiple values for argument {name!r}")
                d[name] = args[i]
            elif name in kwargs:
                d[name] = kwargs.pop(name)
            else:
                kind, value = fills[i]
                if kind == 0:
                    raise TypeError(f"{title}() missing required argument: {name!r}")
                d[name] = value() if kind == 2 else value
        if kwargs:
            raise TypeError(f"{title}() got an unexpected keyword argument {next(iter(kwargs))!r}")
        if post:
            self.__post_init__()

    return __init__


def _make_repr(shown: tuple[str, ...]) -> Callable[[Any], str]:
    def __repr__(self: Any) -> str:
        inner = ", ".join(f"{n}={getattr(self, n)!r}" for n in shown)
        return f"{type(self).__qualname__}({inner})"

    return __repr__


def _key_of(names: tuple[str, ...]) -> Callable[[Any], tuple]:
    """The values == and hash compare, as a tuple."""
    if len(names) > 1:
        return attrgetter(*names)
    if names:
        one = attrgetter(names[0])
        return lambda obj: (one(obj),)
    return lambda obj: ()


@dataclass_transform(field_specifiers=(field, Field))
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
