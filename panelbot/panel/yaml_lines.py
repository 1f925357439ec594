"""YAML loading that reports file and line for every error, and remembers where each mapping began.

``load_yaml_remembered`` also keeps a file's parse between runs (for config files, read at every start):
importing a YAML parser is ~20 ms, more than the rest of a warm ``panelbot ask``."""

from __future__ import annotations

import json
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from panelbot.errors import DataError

if TYPE_CHECKING:
    from typing import Any

LINE_KEY = "__line__"
REMEMBERED_FORMAT = 1


def _line_loader() -> Any:
    """The loader class: libyaml's when available (~10x faster), noting where each mapping began and refusing
    duplicate keys. Made on first use, so that importing this module does not import yaml."""
    global _LINE_LOADER
    if _LINE_LOADER is None:
        import yaml

        base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        safe_mapping = yaml.constructor.SafeConstructor.construct_mapping

        def construct_mapping(loader: Any, node: yaml.MappingNode, deep: bool = False) -> dict:
            mapping = safe_mapping(loader, node, deep=True)
            if len(mapping) != len(
                node.value
            ):  # a key twice: name the first one repeated, at its line
                seen: set = set()
                for key_node, _ in node.value:
                    key = loader.construct_object(key_node, deep=True)
                    if key in seen:
                        raise yaml.constructor.ConstructorError(
                            None, None, f"duplicate key {key!r}", key_node.start_mark
                        )
                    seen.add(key)
            mapping[LINE_KEY] = node.start_mark.line + 1 + loader.line_offset
            return mapping

        loader = type("_LineLoader", (base,), {"line_offset": 0})  # lines before the text (pieces)
        loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, construct_mapping)
        _LINE_LOADER = loader
    return _LINE_LOADER


_LINE_LOADER: Any = None


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DataError("file not found", str(path)) from None
    except UnicodeDecodeError as exc:
        raise DataError(f"not UTF-8 text ({exc.reason} at byte {exc.start})", str(path)) from None
    except OSError as exc:
        raise DataError(exc.strerror or str(exc), str(path)) from None


def _parse(text: str, path: Path, with_lines: bool) -> Any:
    import yaml

    try:
        return yaml.load(text, Loader=_line_loader() if with_lines else yaml.SafeLoader)  # noqa: S506
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else None
        problem = " ".join((exc.problem or exc.context or "invalid YAML").split())
        raise DataError(f"invalid YAML: {problem}", str(path), line) from None
    except yaml.YAMLError as exc:
        raise DataError(f"invalid YAML: {' '.join(str(exc).split())}", str(path)) from None
    except ValueError as exc:  # an integer of more than 4,300 digits (int() refuses it)
        if "digits" in str(exc):
            raise DataError(
                "invalid YAML: a number is too long (over 4,300 digits)", str(path)
            ) from None
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
    """json's ``object_pairs_hook``: each mapping, a duplicate key refused (the YAML loader reports it, with
    its line)."""
    d = dict(pairs)
    if len(d) != len(pairs):
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
        with path.open("rb") as f:  # a glance first: a block-YAML bank is not read twice
            head = f.read(4096).lstrip(b" \r\n")
        if head and head[:1] not in (b"[", b"{"):
            return NOT_JSON
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return NOT_JSON  # load_yaml says what is wrong
    if text.lstrip(" \r\n")[:1] not in ("[", "{") or "\t" in text or "\x7f" in text:
        return NOT_JSON
    import re

    if not _checks:
        _checks.extend(
            (
                re.compile(r"-?[0-9]+\.[0-9]*(?:[eE][-+][0-9]+)?\Z"),  # a float to YAML 1.1
                re.compile(r"\\u[dD][89a-fA-F]"),  # half of a surrogate pair
                re.compile(r"\n[ \r\n]*:"),  # a key's colon on the next line
                re.compile("[\x80-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]"),
            )
        )
    _, surrogate, colon, chars = _checks
    if (
        ("\\" in text and surrogate.search(text))
        or colon.search(text)  # ("\\" is found ~40x faster than "\\u")
        or (not text.isascii() and chars.search(text))
    ):
        return NOT_JSON
    try:
        return json.loads(
            text,
            object_pairs_hook=_mapping,
            parse_float=_float,
            parse_constant=_not_yaml_alike,
        )
    except (ValueError, RecursionError):
        return NOT_JSON


def load_yaml(path: Path, *, with_lines: bool = True) -> Any:
    """Load one YAML file; raise DataError naming the file and line on any problem."""
    return _parse(_read_text(path), path, with_lines)


PIECE = 2000  # entries of a top-level list parsed at a time by load_yaml_list


def load_yaml_list(path: Path) -> Any:
    """``load_yaml(path)`` (with lines) for a file that is one long block list, such as a quote bank: parsed
    ``PIECE`` entries at a time, so that the parser's node tree (~8 KB per quote) is never held for the
    whole file (a 100,000-quote bank: ~880 MB). An entry starts with "-" at the start of a line; any text
    a piece might read otherwise (directives, document markers, something before the list, an alias to an
    anchor in another piece, anything spanning an entry start) makes a piece fail or miscount, and then
    the whole file is parsed as ``load_yaml`` does: the same data, or the same error."""
    import re

    text = _read_text(path)
    starts = [
        m.start() + 1 for m in re.finditer(r"\n-(?=[ \t\n]|\Z)", text)
    ]  # a literal to search for: fast
    if re.match(r"-(?:[ \t\n]|\Z)", text):
        starts.insert(0, 0)
    if (
        len(starts) <= PIECE
        or any(m in text for m in ("\n---", "\n...", "\n%"))
        or text.startswith(("---", "...", "%"))
        or any(
            c in text for c in ("\r", "\x85", "\u2028", "\u2029")
        )  # line breaks "\n" does not count
        or any(
            line.strip() and not line.lstrip().startswith("#")
            for line in text[: starts[0]].splitlines()
        )
    ):
        return _parse(text, path, with_lines=True)
    loader_class = _line_loader()
    out: list = []
    line = at = 0  # lines before ``at``
    try:
        for k in range(0, len(starts), PIECE):
            lo, hi = starts[k], starts[k + PIECE] if k + PIECE < len(starts) else len(text)
            line += text.count("\n", at, lo)
            at = lo
            loader = loader_class(text[lo:hi])
            loader.line_offset = line
            try:
                piece = loader.get_single_data()
            finally:
                loader.dispose()
            if type(piece) is not list or len(piece) != min(PIECE, len(starts) - k):
                raise ValueError("a piece read otherwise")
            out += piece
    except Exception:  # noqa: BLE001 - any doubt: the whole file, as load_yaml reads it
        return _parse(text, path, with_lines=True)
    return out


def _remembered_at(path: Path) -> Path:
    from panelbot import paths

    try:
        where = str(path.resolve())
    except (OSError, RuntimeError):
        where = str(path)
    return (
        paths.parsed_cache_dir() / f"{zlib.crc32(where.encode('utf-8', 'surrogatepass')):08x}.json"
    )


# A settings file has a few hundred values; one whose aliases expand to more is refused before anything
# walks it (copying, searching or dumping a billion-laughs document takes exponential time).
MAX_EXPANDED_VALUES = 100_000


def expanded_size(data: Any, limit: int) -> int:
    """How many values ``data`` holds with every alias expanded (a list or mapping shared by several
    parents counts at each): exact up to ``limit``, and just over ``limit`` beyond it. Linear in the
    number of distinct objects (each shared one is measured once)."""
    sizes: dict[int, int] = {}

    def size(obj: Any) -> int:
        if not isinstance(obj, (dict, list)):
            return 1
        known = sizes.get(id(obj))
        if known is not None:
            return known
        sizes[id(obj)] = limit + 1  # a cycle (YAML can make one) is as bad as a bomb
        children = obj.values() if isinstance(obj, dict) else obj
        total = 1
        for child in children:
            total += size(child)
            if total > limit:
                total = limit + 1
                break
        sizes[id(obj)] = total
        return total

    return size(data)


def load_yaml_remembered(path: Path, *, keep: Callable[[Any], bool] = lambda data: True) -> Any:
    """``load_yaml`` (with lines) for a file read at every start, such as a config file.

    The parse is kept as JSON beside the file's whole text in the user cache dir, and used again only while
    the file's text is exactly the same: nothing is trusted that the text does not match, and a missing,
    foreign or damaged record just means parsing again. Only data JSON holds exactly (string keys, no dates,
    no NaN) is kept, and only when ``keep(data)`` says so (a config holding an API key is never copied)."""
    from panelbot import paths

    text = _read_text(path)
    spot = _remembered_at(path)
    try:  # a FIFO or device where the record belongs is no record (never waited on)
        rec = json.loads(paths.read_cache_bytes(spot) or b"")
        if rec["format"] == REMEMBERED_FORMAT and rec["text"] == text:
            return rec["data"]
    except (ValueError, KeyError, TypeError):
        pass
    data = _parse(text, path, with_lines=True)
    try:
        too_big = expanded_size(data, MAX_EXPANDED_VALUES) > MAX_EXPANDED_VALUES
    except RecursionError:  # nested deeper than any settings file
        too_big = True
    if too_big:
        raise DataError(
            f"YAML aliases expand to more than {MAX_EXPANDED_VALUES:,} values (an alias bomb?)",
            str(path),
        )
    try:
        exact = json.loads(json.dumps(data)) == data
    except (TypeError, ValueError, RecursionError):
        exact = False
    if exact and keep(data):
        paths.write_cache_text(
            spot, json.dumps({"format": REMEMBERED_FORMAT, "text": text, "data": data})
        )
    return data


def remembered_files() -> list[Path]:
    """The remembered parses in the cache dir (``panelbot cache info|clear``)."""
    from panelbot import paths

    d = paths.parsed_cache_dir()
    try:
        return sorted(p for p in d.iterdir() if p.is_file() and p.suffix in (".json", ".tmp"))
    except OSError:
        return []


def line_of(obj: Any) -> int | None:
    return obj.get(LINE_KEY) if isinstance(obj, dict) else None


def strip_lines(obj: Any) -> Any:
    """A copy without the line markers (for dumping or comparing)."""
    if isinstance(obj, dict):
        return {k: strip_lines(v) for k, v in obj.items() if k != LINE_KEY}
    if isinstance(obj, list):
        return [strip_lines(v) for v in obj]
    return obj
