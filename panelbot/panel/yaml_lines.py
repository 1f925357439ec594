"""YAML loading that reports file and line for every error, and remembers where each mapping began."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from panelbot.errors import DataError

LINE_KEY = "__line__"


_Base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when available: ~10x faster


class _LineLoader(_Base):  # type: ignore[misc,valid-type]
    pass


def _construct_mapping(loader: _LineLoader, node: yaml.MappingNode, deep: bool = False) -> dict:
    mapping = yaml.constructor.SafeConstructor.construct_mapping(loader, node, deep=True)
    seen: set = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=True)
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r}", key_node.start_mark
            )
        seen.add(key)
    mapping[LINE_KEY] = node.start_mark.line + 1
    return mapping


_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def load_yaml(path: Path, *, with_lines: bool = True) -> Any:
    """Load one YAML file; raise DataError naming the file and line on any problem."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DataError("file not found", str(path)) from None
    except UnicodeDecodeError as exc:
        raise DataError(f"not UTF-8 text ({exc.reason} at byte {exc.start})", str(path)) from None
    except OSError as exc:
        raise DataError(exc.strerror or str(exc), str(path)) from None
    try:
        return yaml.load(text, Loader=_LineLoader if with_lines else yaml.SafeLoader)  # noqa: S506
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else None
        problem = " ".join((exc.problem or exc.context or "invalid YAML").split())
        raise DataError(f"invalid YAML: {problem}", str(path), line) from None
    except yaml.YAMLError as exc:
        raise DataError(f"invalid YAML: {' '.join(str(exc).split())}", str(path)) from None
    except ValueError as exc:  # an integer of more than 4,300 digits (int() refuses it)
        if "digits" in str(exc):
            raise DataError("invalid YAML: a number is too long (over 4,300 digits)", str(path)) from None
        raise DataError(f"invalid YAML: {exc}", str(path)) from None
    except RecursionError:
        raise DataError("invalid YAML: nested too deeply", str(path)) from None


def line_of(obj: Any) -> int | None:
    return obj.get(LINE_KEY) if isinstance(obj, dict) else None


def strip_lines(obj: Any) -> Any:
    """A copy without the line markers (for dumping or comparing)."""
    if isinstance(obj, dict):
        return {k: strip_lines(v) for k, v in obj.items() if k != LINE_KEY}
    if isinstance(obj, list):
        return [strip_lines(v) for v in obj]
    return obj
