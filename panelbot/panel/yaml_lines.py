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


NOT_JSON = object()  # what load_json_shaped returns for a file it leaves to the YAML loader
_checks: list[Any] = []  # compiled on first use (start-up time): see load_json_shaped


def _not_yaml_alike(_: str) -> Any:
    raise ValueError("not read alike by YAML")


def _float(s: str) -> float:
    if not _checks[0].match(s):  # "1e5" is a float to JSON but text to YAML 1.1
        raise ValueError("not read alike by YAML")
    return float(s)


def _mapping(pairs: list[tuple[str, Any]]) -> dict:
    d = dict(pairs)
    if len(d) != len(pairs):  # a duplicate key: the YAML loader reports it, with its line
        raise ValueError("duplicate key")
    return d


def load_json_shaped(path: Path) -> Any:
    """A YAML file written as JSON (a bank of 100,000 quotes is read ~40x faster so), or NOT_JSON.

    JSON is YAML, but YAML 1.1 (PyYAML) reads a few valid JSON texts differently or not at all: floats
    without a dot or with an unsigned exponent, duplicate keys, surrogate-pair escapes, a key and its
    colon on two lines, tabs, and characters YAML forbids or takes as line breaks. A file with any of
    these, or that is not JSON at all, is NOT_JSON: the caller reads it with :func:`load_yaml`, which
    gives exactly what it always gave. Mappings read here carry no line numbers (``line_of`` is None):
    a caller that reports a problem reads the file again with :func:`load_yaml` to name the line."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return NOT_JSON  # load_yaml says what is wrong
    if text.lstrip(" \r\n")[:1] not in ("[", "{") or "\t" in text or "\x7f" in text:
        return NOT_JSON
    import json
    import re

    if not _checks:
        _checks.extend((re.compile(r"-?[0-9]+\.[0-9]*(?:[eE][-+][0-9]+)?\Z"),  # a float to YAML 1.1
                        re.compile(r"\\u[dD][89a-fA-F]"),  # half of a surrogate pair
                        re.compile(r"\n[ \r\n]*:"),  # a key's colon on the next line
                        re.compile("[\x80-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]")))
    _, surrogate, colon, chars = _checks
    if (("\\u" in text and surrogate.search(text)) or colon.search(text)
            or (not text.isascii() and chars.search(text))):
        return NOT_JSON
    try:
        return json.loads(text, object_pairs_hook=_mapping, parse_float=_float, parse_constant=_not_yaml_alike)
    except (ValueError, RecursionError):
        return NOT_JSON


def line_of(obj: Any) -> int | None:
    return obj.get(LINE_KEY) if isinstance(obj, dict) else None


def strip_lines(obj: Any) -> Any:
    """A copy without the line markers (for dumping or comparing)."""
    if isinstance(obj, dict):
        return {k: strip_lines(v) for k, v in obj.items() if k != LINE_KEY}
    if isinstance(obj, list):
        return [strip_lines(v) for v in obj]
    return obj
