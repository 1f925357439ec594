"""A saved index per panel, so that a start after the first needs neither the YAML nor an index build.

One file per panel directory in ``paths.index_cache_dir()`` (``~/.cache/panelbot/index`` on Linux). It holds
the validated panel, the normaliser's vocabulary and the index's postings, and it is used only when its key
matches: a hash of the panel's files (their bytes), panelbot's version, the settings that shape an index
(``index.index_settings()``: field weights, BM25 parameters, format), the fields of the panel model, and the
size and time of the code and word lists an index is built from (so a changed checkout never reuses an
index built by other code). Query-time settings (``top_k``, ``scope_floor``, ...) do not change an index and
so do not invalidate it.

The format is plain data, never executed: a magic line, a JSON header (key, layout, CRC-32 of the payload),
then sections that are either UTF-8 JSON or raw little/big-endian typed arrays (read back zero-copy with
``memoryview.cast``). Nothing is unpickled or evaluated. A file that is stale (key differs), truncated,
damaged (checksum), foreign (not ours, another format or byte order) or inconsistent (lengths that do not line
up) is reported in one line and rebuilt; it is never trusted.

Writes are atomic (a temporary file in the same directory, then ``os.replace``), and a build holds an
exclusive lock (``fcntl.flock`` where available), so several processes starting at once build once and never
read a half-written file; a reader that finds the index rebuilt while it waited for the lock uses it.

A large bank (``FORK_SAVE_FROM`` quotes or more) is saved by a forked child while the process that built it
goes on answering (Linux, with no other thread running, not in the app; elsewhere it is saved in process). The child shares
the index's memory copy-on-write, holds the build lock until the file is in place, and is waited for before
the process exits (``finish_saves``; an exit handler at the latest), so a command that has returned has
saved its index. A save that failed is told in one line then; one whose process was killed leaves its
temporary file (emptied when the command outlived its child), which the next start that rebuilds the
index removes, saying so.
"""

from __future__ import annotations

import json
import operator
import os
import struct
import sys
import time
import zlib
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from itertools import accumulate, islice, repeat
from operator import attrgetter, methodcaller
from pathlib import Path

from panelbot import __version__, paths
from panelbot.panel import HostQuestion, Panel, Persona, Quote, Turn
from panelbot.panel.loader import find_panel_dir, load_panel
from panelbot.records import fields
from panelbot.retrieval.index import ARRAY_TYPES, QuoteIndex, index_settings
from panelbot.retrieval.vocabulary import Normalizer

TYPE_CHECKING = (
    False  # as typing.TYPE_CHECKING, without importing typing at run time (start-up time)
)
if TYPE_CHECKING:
    from typing import Any

MAGIC = b"PANELBOT-INDEX\n\x00"  # 16 bytes
# 2: the common stems are no longer saved (they ship as data/common_stems.txt); 3: a quote's text is saved
# as raw UTF-8 beside its other fields' JSON record (JSON-escaping the texts was most of a save's time)
FILE_FORMAT = 3
SUFFIX = ".pbidx"
_LEN = struct.Struct("<Q")
_QUOTE_ARRAYS = {"quote_ends": "q", "quote_text_ends": "q", "quote_speakers": "i"}
_SECTIONS = [
    ("meta", "json"),
    ("quotes", "bytes"),
    ("quote_texts", "bytes"),
    *_QUOTE_ARRAYS.items(),
    *ARRAY_TYPES.items(),
]
_ITEMSIZES = {
    code: struct.calcsize(code) for code in {*ARRAY_TYPES.values(), *_QUOTE_ARRAYS.values()}
}
_PANEL_FILES = ("panel.yaml", "quotes.yaml", "questions.yaml", "turns.yaml")
# what an index is built from: when one of these changes, saved indexes are rebuilt
_CODE = (
    "retrieval/index.py",
    "retrieval/vocabulary.py",
    "retrieval/lexicon.py",
    "retrieval/cache.py",
    "panel/loader.py",
    "panel/model.py",
    "text.py",
    "data",
)
_RECORDS: dict[str, type] = {
    "persona": Persona,
    "question": HostQuestion,
    "turn": Turn,
    "quote": Quote,
}
_PANEL_KNOWN = {
    "name",
    "title",
    "path",
    "status",
    "host",
    "panelists",
    "quotes",
    "questions",
    "turns",
    "vocabulary",
    "topics",
    "source",
}
LOCK_WAIT = 120.0  # seconds to wait for another process's build before building anyway


class CacheProblem(Exception):
    """A saved index that must not be used; the message says why, in a few words."""


class Opened:
    """A panel and its index, and how they were obtained: ``source`` is "cache" (read from the saved
    index) or "built" (from the YAML); ``note`` is one line for the user when a saved index was unusable or
    could not be saved. (A plain class: it needs no generated methods.)"""

    def __init__(
        self, panel: Panel, index: QuoteIndex, source: str, note: str | None = None
    ) -> None:
        self.panel, self.index, self.source, self.note = panel, index, source, note


# ------------------------------------------------------------------------------------------- keys


_CODE_PRINT: list | None = None


def _code_fingerprint() -> list:
    """Size and time of the code and word lists an index is built from: read once per process (the code
    this process runs does not change under it), not once per panel (``--all`` opens every talk)."""
    global _CODE_PRINT
    if _CODE_PRINT is None:
        _CODE_PRINT = _read_code_fingerprint()
    return _CODE_PRINT


def _read_code_fingerprint() -> list:
    root = Path(__file__).resolve().parent.parent
    out = []
    for rel in _CODE:
        p = root / rel
        targets = sorted(p.iterdir()) if p.is_dir() else [p]
        for t in targets:
            try:
                st = t.stat()
            except OSError:
                continue
            if t.is_file():
                out.append([str(t.relative_to(root)), st.st_size, st.st_mtime_ns])
    return out


def _hasher() -> Any:
    """BLAKE2b from CPython's built-in module (importing hashlib loads OpenSSL: milliseconds per start)."""
    try:
        from _blake2 import blake2b
    except ImportError:  # pragma: no cover - a Python without it
        from hashlib import blake2b
    return blake2b(digest_size=32)


def panel_hash(directory: Path) -> str:
    """A hash of the panel's files (their bytes): what decides whether a saved index is current."""
    h = _hasher()
    for name in _PANEL_FILES:
        p = directory / name
        try:
            data = p.read_bytes()
        except FileNotFoundError:
            h.update(f"{name}\0-\0".encode())
            continue
        except OSError:
            data = b""
        h.update(f"{name}\0{len(data)}\0".encode())
        h.update(data)
    return h.hexdigest()


def cache_key(directory: Path, panel_digest: str | None = None) -> str:
    """The key a saved index of this panel directory must carry to be used (``panel_digest``: the panel's
    ``panel_hash`` when the caller has it)."""
    parts = {
        "panel": panel_digest if panel_digest is not None else panel_hash(directory),
        "panelbot": __version__,
        "index": index_settings(),
        "model": {**_FIELDS, "panel": [f.name for f in fields(Panel)]},
        "code": _code_fingerprint(),
        "file_format": FILE_FORMAT,
    }
    h = _hasher()
    h.update(json.dumps(parts, sort_keys=True).encode())
    return h.hexdigest()


# A file whose modification or change time is this close to when it was last hashed may change again
# without its times showing it (file systems with coarse times, clock skew): it is hashed again.
RACY_NS = 2_000_000_000
FILES_SUFFIX = ".files"


def _file_signature(directory: Path) -> dict[str, list[int] | None] | None:
    """Size, modification and change times, inode and device of each panel file (None: absent); None when
    one cannot be read."""
    sig: dict[str, list[int] | None] = {}
    for name in _PANEL_FILES:
        try:
            st = os.stat(directory / name)
        except FileNotFoundError:
            sig[name] = None
            continue
        except OSError:
            return None
        sig[name] = [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev]
    return sig


def current_panel_hash(directory: Path, record: Path) -> str:
    """``panel_hash(directory)``, without reading the panel's files when none has changed since they were
    last hashed (as git checks its index): ``record`` keeps the files' sizes, times and inodes with the
    hash. A file changed since, or changed within ``RACY_NS`` of that hashing, is hashed again (and the
    record renewed), so the hash is never taken on trust for a file that may have changed unseen."""
    taken = time.time_ns()
    sig = _file_signature(directory)
    try:
        rec = json.loads(paths.read_cache_bytes(record) or b"")
        if (
            sig is not None
            and isinstance(rec, dict)
            and rec.get("files") == sig
            and isinstance(rec.get("taken"), int)
            and isinstance(rec.get("hash"), str)
            and all(
                s[1] < rec["taken"] - RACY_NS and s[2] < rec["taken"] - RACY_NS
                for s in sig.values()
                if s
            )
        ):
            return str(rec["hash"])
    except (OSError, ValueError, TypeError, IndexError):
        pass
    digest = panel_hash(directory)
    if sig is not None:  # an unwritable cache costs only this hashing, at every start
        paths.write_cache_text(record, json.dumps({"files": sig, "taken": taken, "hash": digest}))
    return digest


def cache_path(directory: Path) -> Path:
    """The saved index of a panel directory: named after the panel, plus a hash of its full path."""
    h = _hasher()
    h.update(str(directory.resolve()).encode())
    tag = h.hexdigest()[:16]
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in directory.name)[:40] or "panel"
    return paths.index_cache_dir() / f"{safe}-{tag}{SUFFIX}"


# ------------------------------------------------------------------------------------------- panel <-> data


_FIELDS = {kind: tuple(f.name for f in fields(cls)) for kind, cls in _RECORDS.items()}
# a saved quote: its speaker (a number), its text (raw UTF-8) and a JSON record of the rest, id first
_QUOTE_REST = tuple(f for f in _FIELDS["quote"] if f not in ("speaker", "text"))
_SPEAKER_OF = attrgetter("speaker")
_UTF8 = methodcaller(
    "encode", "utf-8", "surrogatepass"
)  # lone surrogates round-trip (json.loads reads them)


def _record(obj: Any, kind: str) -> list:
    return [getattr(obj, name) for name in _FIELDS[kind]]


def _restore_all(recs: Any, kind: str) -> list:
    """Records -> model objects (lists back to tuples: the model holds no lists)."""
    cls, width = _RECORDS[kind], len(_FIELDS[kind])
    if not isinstance(recs, list):
        raise CacheProblem(f"inconsistent ({kind} records)")
    out = []
    for rec in recs:
        if type(rec) is not list or len(rec) != width:
            raise CacheProblem(f"inconsistent ({kind} record)")
        out.append(cls(*[tuple(v) if type(v) is list else v for v in rec]))
    return out


def _restore(rec: Any, kind: str) -> Any:
    return _restore_all([rec], kind)[0]


class LazyQuotes(Sequence):
    """A saved panel's quotes, decoded one by one when used: a warm start of a 100,000-quote panel builds
    the few quotes an answer shows, not all of them. Quote i's fields but its speaker and text are the JSON
    array (``_QUOTE_REST``, id first) between ``ends[i - 1]`` and ``ends[i]`` of ``blob``; its text the
    UTF-8 between ``text_ends[i - 1]`` and ``text_ends[i]`` of ``texts``; ``speakers`` (every quote's
    speaker) is read up front, since routing filters by speaker."""

    def __init__(
        self,
        blob: Any,
        ends: Sequence[int],
        speakers: list[str],
        texts: Any,
        text_ends: Sequence[int],
    ) -> None:
        self._blob, self._ends, self.speakers = blob, ends, speakers
        self._texts, self._text_ends = texts, text_ends
        self._made: dict[int, Quote] = {}
        self._where: dict[str, int] = {}  # id -> position of every quote decoded so far
        self._ids: dict[str, int] | None = (
            None  # id -> position of every quote, read when first needed
        )

    def __len__(self) -> int:
        return len(self._ends)

    def _make(self, i: int) -> Quote:
        q = self._made.get(i)
        if q is None:
            start = self._ends[i - 1] if i else 0
            rest = json.loads(bytes(self._blob[start : self._ends[i]]))
            t0, t1 = self._text_ends[i - 1] if i else 0, self._text_ends[i]
            if not (
                type(rest) is list
                and len(rest) == len(_QUOTE_REST)
                and 0 <= t0 <= t1 <= len(self._texts)
            ):
                raise CacheProblem("inconsistent (quote record)")
            got = dict(zip(_QUOTE_REST, rest, strict=True))
            got["speaker"], got["text"] = (
                self.speakers[i],
                str(self._texts[t0:t1], "utf-8", "surrogatepass"),
            )
            q = _restore([got[name] for name in _FIELDS["quote"]], "quote")
            self._made[i] = q
            self._where.setdefault(q.id, i)
        return q

    def find(self, quote_id: str) -> Quote | None:
        """The quote with this id (decoding only it; the ids of all are read once, from each record's head)."""
        i = self._where.get(quote_id)
        if i is None:
            if self._ids is None:
                self._ids = self._read_ids()
            i = self._ids.get(quote_id)
            if i is None:
                return None
        return self._make(i)

    def _read_ids(self) -> dict[str, int]:
        """Every quote's id and position, from the start of its record (``["id",...``) without decoding the
        rest of it (a record whose id is not plain is decoded whole)."""
        ids: dict[str, int] = {}
        start = 0
        for i, end in enumerate(self._ends):
            head = bytes(self._blob[start : min(start + 96, end)])
            close = head.find(b'"', 2)
            if head.startswith(b'["') and close > 2 and b"\\" not in head[2:close]:
                qid = head[2:close].decode("utf-8", "replace")
            else:
                qid = self._make(i).id
            ids.setdefault(qid, i)
            start = end
        return ids

    def position(self, quote_id: str) -> int | None:
        """Where the quote with this id is, if it has been decoded (every quote handed out has been);
        None otherwise, without decoding the rest."""
        return self._where.get(quote_id)

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self._make(j) for j in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError("quote index out of range")
        return self._make(i)

    def __iter__(self) -> Iterator[Quote]:
        return (self._make(i) for i in range(len(self)))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and list(self) == list(other)

    __hash__ = None  # type: ignore[assignment]


def panel_to_data(panel: Panel) -> dict[str, Any]:
    """The panel as JSON-ready plain data (everything but its directory, which the caller knows)."""
    source = None
    if panel.source is not None:
        try:
            source = str(panel.source.relative_to(panel.path))
        except ValueError:
            source = str(panel.source)
    extra = {f.name: getattr(panel, f.name) for f in fields(Panel) if f.name not in _PANEL_KNOWN}
    return {
        "name": panel.name,
        "title": panel.title,
        "status": panel.status,
        "host": _record(panel.host, "persona") if panel.host else None,
        "panelists": [_record(p, "persona") for p in panel.panelists.values()],
        "speakers": sorted(set(map(_SPEAKER_OF, panel.quotes))),
        "questions": [_record(q, "question") for q in panel.questions],
        "turns": [_record(t, "turn") for t in panel.turns],
        "vocabulary": panel.vocabulary,
        "topics": panel.topics,
        "source": source,
        "extra": extra,
    }


_QUOTE_CHUNK = 4096  # quotes encoded together (each step below runs in C over a chunk)


def _quote_rests(quotes: Sequence[Quote]) -> Iterator[list[bytes]]:
    """The JSON records (UTF-8) of the quotes' fields but speaker and text, a chunk of quotes at a time."""
    encode, rest_of = _json_each(), attrgetter(*_QUOTE_REST)
    for lo in range(0, len(quotes), _QUOTE_CHUNK):
        yield list(map(_UTF8, encode(map(rest_of, quotes[lo : lo + _QUOTE_CHUNK]))))


def _quote_texts(quotes: Sequence[Quote]) -> Iterator[list[bytes]]:
    """The quotes' texts (UTF-8), a chunk of quotes at a time."""
    text_of = attrgetter("text")
    for lo in range(0, len(quotes), _QUOTE_CHUNK):
        yield list(map(_UTF8, map(text_of, quotes[lo : lo + _QUOTE_CHUNK])))


def _json_each() -> Callable[[Iterable[Any]], Iterator[str]]:
    """Values -> ``json.dumps(value, ensure_ascii=False, separators=(",", ":"))`` of each, without building
    an encoder per value (json.dumps with options does) and without a Python call per value."""
    from json import encoder

    plain = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
    try:  # the C encoder json.dumps itself makes, made once (its arguments as json.encoder passes them)
        c_encode = encoder.c_make_encoder(
            None, None, encoder.encode_basestring, None, ":", ",", False, False, True
        )
        sample = ["q-1", 'é\u2028"\\\x00', None, 7, (0, 2), ("a", "b"), 1.5, True]
        if "".join(c_encode(sample, 0)) == plain(sample):
            return lambda values: map("".join, map(c_encode, values, repeat(0)))
    except (AttributeError, TypeError):  # pragma: no cover - another Python's json
        pass
    return lambda values: map(plain, values)  # pragma: no cover


def panel_from_data(data: dict[str, Any], directory: Path, quotes: Sequence[Quote]) -> Panel:
    source = directory / data["source"] if data["source"] else None
    if source is not None and not source.is_file():
        raise CacheProblem("stale (the panel's source file is gone)")
    panelists = _restore_all(data["panelists"], "persona")
    vocabulary = data["vocabulary"]
    if not isinstance(vocabulary, dict):
        raise CacheProblem("inconsistent (vocabulary)")
    extra = {k: tuple(v) if type(v) is list else v for k, v in data["extra"].items()}
    return Panel(
        name=data["name"],
        title=data["title"],
        path=directory,
        status=data["status"],
        host=_restore(data["host"], "persona") if data["host"] is not None else None,
        panelists={p.id: p for p in panelists},
        quotes=quotes,  # type: ignore[arg-type]
        questions=_restore_all(data["questions"], "question"),
        turns=_restore_all(data["turns"], "turn"),
        vocabulary={str(k): tuple(v) for k, v in vocabulary.items()},
        topics=tuple(data["topics"]),
        source=source,
        **extra,
    )


# ------------------------------------------------------------------------------------------- file format


def _pad(n: int) -> int:
    return (-n) % 8


_JOIN = 2048  # pieces of a section joined for one write


class _Payload:
    """Writes a saved index's sections one after another into ``f``, each padded to 8 bytes, keeping the
    layout and the CRC-32 of everything written."""

    def __init__(self, f: Any) -> None:
        self.f, self.offset, self.crc, self.layout = f, 0, 0, {}
        self._start = 0
        self._open: tuple[str, str] | None = None  # the section being written: (name, kind)

    def write(self, data: Any) -> None:
        raw = memoryview(data).cast("B")
        self.f.write(raw)
        self.crc = zlib.crc32(raw, self.crc)
        self.offset += len(raw)

    def section(self, name: str, kind: str, pieces: Sequence[Any] = ()) -> None:
        """Start section ``name`` (what follows until the next one is in it), writing ``pieces``."""
        self.end()
        self._start, self._open = self.offset, (name, kind)
        for lo in range(
            0, len(pieces), _JOIN
        ):  # many small pieces (a term's postings): joined in C, then one
            group = pieces[
                lo : lo + _JOIN
            ]  # write and one CRC-32 step (cheaper than a step per piece)
            self.write(group[0] if len(group) == 1 else b"".join(group))

    def records(self, name: str, chunks: Iterable[list[bytes]]) -> array:
        """Section ``name``: records (bytes), a chunk at a time; returns where each ends in the section."""
        self.section(name, "bytes")
        ends = array("q")
        for chunk in chunks:
            ends.extend(
                islice(accumulate(map(len, chunk), initial=self.offset - self._start), 1, None)
            )
            self.write(b"".join(chunk))
        return ends

    def end(self) -> None:
        if self._open is not None:
            name, kind = self._open
            self.layout[name] = [kind, self._start, self.offset - self._start]
            self.write(b"\0" * _pad(self.offset))
            self._open = None


def write_index(
    path: Path, key: str, panel: Panel, normalizer: Normalizer, index: QuoteIndex
) -> None:
    """Save atomically, in this process: write a temporary file next to ``path``, then rename it over
    ``path``. (``open_indexed`` saves a large bank in a forked child instead: :func:`save`.)"""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = _temp_file(path)
    _write_file(fd, tmp, path, key, panel, normalizer, index)


def _write_file(
    fd: int, tmp: str, path: Path, key: str, panel: Panel, normalizer: Normalizer, index: QuoteIndex
) -> None:
    """Write the saved index into ``fd`` (the new temporary file ``tmp``, closed here), then rename it over
    ``path``; on any failure ``tmp`` is removed and the error raised.

    Sections are written as they are made (a 100,000-quote bank's records are never held together: peak
    memory); the header, which holds their layout and checksum, goes last into room kept for it at the
    start, padded with spaces (JSON ignores them). The cyclic garbage collector is paused meanwhile: what
    is made here holds no cycles, and a full collection over a large bank's objects (~0.1 s at 100,000
    quotes) would otherwise be triggered by the allocations."""
    import gc

    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        with os.fdopen(fd, "wb") as f:
            meta, arrays = index.parts()
            data = panel_to_data(panel)
            code = {n: i for i, n in enumerate(data["speakers"])}
            blob = _UTF8(
                json.dumps(
                    {"panel": data, "normalizer": normalizer.state(), "index": meta},
                    ensure_ascii=False,
                    separators=(",", ":"),
                )
            )
            del data
            fixed = {
                "format": FILE_FORMAT,
                "key": key,
                "panelbot": __version__,
                "byteorder": sys.byteorder,
                "itemsizes": _ITEMSIZES,
                "panel": panel.name,
                "directory": str(panel.path.resolve()),
                "quotes": len(panel.quotes),
                "created": time.time(),
            }
            widest = 2**64  # no offset, size or checksum has more digits
            names = [name for name, _ in _SECTIONS]
            room = len(
                json.dumps(
                    {
                        **fixed,
                        "sections": {n: ["bytes", widest, widest] for n in names},
                        "payload": widest,
                        "crc32": widest,
                    }
                ).encode("utf-8")
            )
            start = len(MAGIC) + _LEN.size + room
            start += _pad(start)
            f.write(b"\0" * start)
            out = _Payload(f)
            out.section("meta", "json", [blob])
            del blob
            quotes = panel.quotes
            ends = out.records("quotes", _quote_rests(quotes))
            text_ends = out.records("quote_texts", _quote_texts(quotes))
            out.section("quote_ends", "q", [ends])
            out.section("quote_text_ends", "q", [text_ends])
            out.section(
                "quote_speakers", "i", [array("i", map(code.__getitem__, map(_SPEAKER_OF, quotes)))]
            )
            for name in ARRAY_TYPES:
                data = arrays[name]
                out.section(name, ARRAY_TYPES[name], data if isinstance(data, list) else [data])
            out.end()
            header = json.dumps(
                {**fixed, "sections": out.layout, "payload": out.offset, "crc32": out.crc}
            ).encode("utf-8")
            f.seek(0)
            f.write(MAGIC + _LEN.pack(room) + header + b" " * (room - len(header)))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    finally:
        if gc_was_enabled:
            gc.enable()


def _temp_file(path: Path) -> tuple[int, str]:
    """A new file beside ``path`` (as ``tempfile.mkstemp`` makes one: exclusive, 0600, a random name),
    without importing tempfile (which loads shutil and random: milliseconds of a first start)."""
    for _ in range(100):
        name = str(path.parent / f"{_temp_prefix(path)}{os.urandom(6).hex()}.tmp")
        try:
            return os.open(
                name, os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o600
            ), name
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name in {path.parent}")


def _temp_prefix(path: Path) -> str:
    """How the names of ``path``'s temporary files begin."""
    return f".{path.stem}."


def read_header(data: bytes) -> tuple[dict[str, Any], int]:
    """The header of a saved index and where its payload starts; CacheProblem when it is not one."""
    if len(data) < len(MAGIC) + _LEN.size:
        if MAGIC.startswith(data[: len(MAGIC)]):
            raise CacheProblem("truncated")
        raise CacheProblem("not a panelbot index")
    if data[: len(MAGIC)] != MAGIC:
        raise CacheProblem("not a panelbot index")
    (hlen,) = _LEN.unpack_from(data, len(MAGIC))
    start = len(MAGIC) + _LEN.size
    if start + hlen > len(data):
        raise CacheProblem("truncated")
    try:
        header = json.loads(data[start : start + hlen])
    except (ValueError, UnicodeDecodeError):
        raise CacheProblem("damaged (unreadable header)") from None
    if not isinstance(header, dict):
        raise CacheProblem("damaged (unreadable header)")
    payload = start + hlen + _pad(start + hlen)
    return header, payload


def _map(path: Path) -> Any:
    """The file's bytes: memory-mapped read-only on POSIX (pages are read as they are used and never copied;
    the postings and quotes are used in place), else read. Saved indexes are only ever replaced whole
    (``os.replace``), never rewritten in place, so a mapping always sees one complete file."""
    fd = paths.open_regular(path)  # never a FIFO: opening one waits for a writer
    if os.name != "posix":
        with os.fdopen(fd, "rb") as f:
            return f.read()
    import mmap

    try:
        if os.fstat(fd).st_size == 0:
            return b""
        return mmap.mmap(fd, 0, access=mmap.ACCESS_READ)
    finally:
        os.close(fd)


def read_index(path: Path, key: str, directory: Path) -> Opened | None:
    """The saved index at ``path`` if it is current and sound; None when there is none; CacheProblem when
    there is one that must not be used."""
    try:
        data = _map(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except paths.NotRegularFile:
        raise CacheProblem("not a regular file") from None
    except OSError as exc:
        raise CacheProblem(f"unreadable ({exc.strerror or exc})") from None
    header, payload = read_header(data)
    if (
        header.get("format") != FILE_FORMAT
        or header.get("byteorder") != sys.byteorder
        or header.get("itemsizes") != _ITEMSIZES
    ):
        raise CacheProblem("from another panelbot version or machine")
    if header.get("key") != key:
        raise CacheProblem("stale (the panel or panelbot changed)")
    size = header.get("payload")
    if not isinstance(size, int) or payload + size > len(data):
        raise CacheProblem("truncated")
    if payload + size != len(data):
        raise CacheProblem("damaged (unexpected length)")
    body = memoryview(data)[payload:]
    if zlib.crc32(body) != header.get("crc32"):
        raise CacheProblem("damaged (checksum mismatch)")
    try:
        sections = header["sections"]
        views: dict[str, Any] = {}
        for name, kind in _SECTIONS:
            k, off, length = sections[name]
            if (
                k != kind
                or not (isinstance(off, int) and isinstance(length, int))
                or off < 0
                or length < 0
                or off + length > size
            ):
                raise CacheProblem("inconsistent (section table)")
            view = body[off : off + length]
            views[name] = (
                json.loads(bytes(view))
                if kind == "json"
                else view
                if kind == "bytes"
                else view.cast(kind)
            )
        meta = views.pop("meta")
        names, codes, ends = (
            meta["panel"]["speakers"],
            views.pop("quote_speakers"),
            views.pop("quote_ends"),
        )
        blob, texts, text_ends = (
            views.pop("quotes"),
            views.pop("quote_texts"),
            views.pop("quote_text_ends"),
        )
        if (
            not isinstance(names, list)
            or len(codes) != len(ends)
            or len(text_ends) != len(ends)
            or (
                len(ends)
                and (
                    ends[-1] != len(blob)
                    or min(codes) < 0
                    or max(codes) >= len(names)
                    or not all(map(operator.lt, ends[:-1], ends[1:]))
                    or ends[0] <= 0
                    or text_ends[-1] != len(texts)
                )
            )
        ):
            raise CacheProblem(
                "inconsistent (quote table)"
            )  # (a text's own bounds: checked when decoded)
        speaker_of = [names[c] for c in codes]
        panel = panel_from_data(
            meta["panel"], directory, LazyQuotes(blob, ends, speaker_of, texts, text_ends)
        )
        normalizer = Normalizer.from_state(meta["normalizer"])
        index = QuoteIndex.from_parts(
            panel, normalizer, meta["index"], views, speaker_of=speaker_of
        )
    except CacheProblem:
        raise
    except (KeyError, TypeError, ValueError, IndexError, AttributeError, UnicodeDecodeError) as exc:
        raise CacheProblem(f"inconsistent ({type(exc).__name__})") from None
    return Opened(panel, index, "cache")


@contextmanager
def _build_lock(path: Path) -> Iterator[bool]:
    """Exclusive while one process builds a panel's index and saves it (others wait, then read what it
    wrote); yields whether the lock is held (False: no locking here, or a stuck holder was waited out).

    The lock is ``flock`` on a file beside the index: it belongs to the open file, which a save's forked
    child shares, so it stays held until that child has put the file in place (or failed), even after
    this process has let go of it."""
    try:
        import fcntl
    except (
        ImportError
    ):  # not POSIX: atomic replace alone keeps readers safe; builds may be repeated
        yield False
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path.with_suffix(".lock"), os.O_RDWR | os.O_CREAT, 0o644)
    except OSError:
        yield False
        return
    try:
        deadline = time.monotonic() + LOCK_WAIT
        locked = False
        while not locked:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                locked = True
            except BlockingIOError:
                if time.monotonic() > deadline:
                    break  # a stuck builder: build anyway (the write is still atomic)
                time.sleep(0.05)
        yield locked
    finally:
        os.close(fd)  # releases the lock, unless a save's child still holds it


def _remove_leftovers(path: Path) -> bool:
    """Remove the temporary files of saves of ``path`` that never finished (their process was killed; or
    the save's child was, and its command emptied the file); True when there were any. Only called with
    the build lock held: no save of ``path`` is under way."""
    prefix, found = _temp_prefix(path), False
    try:
        with os.scandir(path.parent) as found_files:
            for entry in found_files:
                if entry.name.startswith(prefix) and entry.name.endswith(".tmp"):
                    try:
                        os.unlink(entry.path)
                        found = True
                    except OSError:
                        pass
    except OSError:
        pass
    return found


# ------------------------------------------------------------------------------------------- saving aside

# A bank this large is saved by a forked child while this process goes on (routing, answering): its save
# takes a large part of a second, and the child shares the index's memory (copy-on-write) instead of a copy.
# A smaller one is saved here: it takes milliseconds, less than a fork costs.
FORK_SAVE_FROM = 10_000


class _Saving:
    """A saved index being written by a forked child, which holds the panel's build lock until it is done."""

    def __init__(
        self, pid: int, path: Path, tmp: str, ident: tuple[int, int], why_fd: int, name: str
    ) -> None:
        self.pid, self.path, self.tmp, self.ident, self.why_fd, self.name = (
            pid,
            path,
            tmp,
            ident,
            why_fd,
            name,
        )
        self.stopped = False  # stopped by this process (a Ctrl-C)
        self.note: str | None = None  # set when waited for

    def stop(self) -> None:
        import signal

        self.stopped = True
        with suppress(OSError):
            os.kill(self.pid, signal.SIGKILL)

    def wait(self) -> str | None:
        """Reap the child; a one-line note when the file was not saved (also kept as ``note``). Its
        temporary file never outlives it; a Ctrl-C while waiting stops the child, and is raised once the
        child is reaped."""
        code: int | None = None
        try:
            try:
                code = os.waitstatus_to_exitcode(os.waitpid(self.pid, 0)[1])
            except ChildProcessError:  # reaped already (e.g. SIGCHLD ignored): the file tells
                pass
            except BaseException:
                self.stop()
                with suppress(ChildProcessError):
                    code = os.waitstatus_to_exitcode(os.waitpid(self.pid, 0)[1])
                raise
        finally:
            self.note = self._outcome(code)
        return self.note

    def _outcome(self, code: int | None) -> str | None:
        why = self._why()
        if code == 0 or (code is None and self._in_place()):
            return None
        try:
            if (
                code is not None and code < 0 and not self.stopped
            ):  # killed from outside: emptied, and
                os.truncate(
                    self.tmp, 0
                )  # left for the next start to find (and say) as a save cut short
            else:
                os.unlink(self.tmp)
        except OSError:
            Path(self.tmp).unlink(missing_ok=True)
        if why.startswith(
            "error: "
        ):  # the child's OSError: as a failed save in this process says it
            return (
                f"could not save the index of panel {self.name!r} ({why[7:]}); "
                "it is rebuilt at every start"
            )
        if not why:
            why = (
                "its saving process was stopped"
                if self.stopped
                else f"its saving process was killed by signal {-code}"
                if code is not None and code < 0
                else "its saving process ended early"
            )
        return f"the index of panel {self.name!r} was not saved ({why}); it is rebuilt at the next start"

    def _why(self) -> str:
        """What the child said about its failure ("" when nothing), read without waiting."""
        try:
            return os.read(self.why_fd, 4096).decode("utf-8", "replace")
        except OSError:
            return ""
        finally:
            os.close(self.why_fd)

    def _in_place(self) -> bool:
        try:
            st = os.stat(self.path)
        except OSError:
            return False
        return (st.st_dev, st.st_ino) == self.ident


_saving: dict[Path, _Saving] = {}


def saves_under_way() -> list[Path]:
    """The saved indexes forked children of this process are writing."""
    return list(_saving)


def finish_saves(path: Path | None = None) -> list[str]:
    """Wait for the saves under way in forked children (all, or that of ``path``); one-line notes for those
    that failed. An exit handler waits for any left (a command returns only when its index is saved)."""
    notes = []
    for p in list(_saving) if path is None else [path]:
        saving = _saving.get(p)
        if saving is not None:
            try:
                note = saving.wait()
            finally:
                _saving.pop(p, None)
            if note:
                notes.append(note)
    return notes


def _finish_at_exit() -> None:
    """At exit: what was printed goes out first (the answer must not wait for the file), then the saves
    under way are waited for and their notes written. A Ctrl-C meanwhile stops them at once, with no
    traceback (it is handled here instead of raised: it could come at any point of this handler)."""
    import signal

    def stop_all(signum: int, frame: Any) -> None:
        for saving in list(_saving.values()):
            saving.stop()

    with suppress(ValueError, OSError):  # (ValueError: not the main thread)
        signal.signal(signal.SIGINT, stop_all)
    for stream in (sys.stdout, sys.stderr):
        with suppress(OSError, ValueError, AttributeError):
            stream.flush()
    for note in finish_saves():
        try:
            sys.stderr.write(f"panelbot: note: {note}\n")
            sys.stderr.flush()
        except (OSError, ValueError, AttributeError):
            pass


def save(path: Path, key: str, panel: Panel, index: QuoteIndex) -> None:
    """Save the index at ``path``: in a forked child when the bank is large and forking is safe (Linux, no
    other thread running; this process goes on at once, and waits for the child at exit at the latest),
    else here. Call it holding the build lock: the child keeps it until the file is in place. Raises
    OSError when even the temporary file cannot be made (nothing was started)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = _temp_file(path)
    if len(panel.quotes) >= FORK_SAVE_FROM and path not in _saving and not _in_app():
        from panelbot.retrieval.index import _can_fork

        if _can_fork():
            try:
                st = os.fstat(fd)
                why_r, why_w = os.pipe()
            except OSError:
                pass
            else:
                try:
                    pid = os.fork()
                except OSError:
                    os.close(why_r)
                    os.close(why_w)
                else:
                    if pid == 0:
                        _save_in_child(fd, tmp, path, key, panel, index, why_w)
                    os.close(why_w)
                    os.close(fd)
                    os.set_blocking(why_r, False)
                    _saving[path] = _Saving(
                        pid, path, tmp, (st.st_dev, st.st_ino), why_r, panel.name
                    )
                    if not _exit_handler:
                        import atexit

                        atexit.register(_finish_at_exit)  # once: it finishes every save left
                        _exit_handler.append(_finish_at_exit)
                    return
    _write_file(fd, tmp, path, key, panel, index.norm, index)


_exit_handler: list[Callable[[], None]] = []  # the exit handler, once registered


def _in_app() -> bool:
    """This process runs the app (Textual is loaded): it saves in process. The app starts threads (a fork
    copies one thread only) and runs long, so a finished child would stay a zombie until it exits."""
    return "textual" in sys.modules


def _save_in_child(
    fd: int, tmp: str, path: Path, key: str, panel: Panel, index: QuoteIndex, why_w: int
) -> None:
    """The forked child: write the file, say why not on the pipe, and leave without running anything of
    the parent's (no exit handlers, no flushing of its output buffers)."""
    code = 1
    try:
        try:
            _write_file(fd, tmp, path, key, panel, index.norm, index)
            code = 0
        except OSError as exc:
            os.write(why_w, _UTF8(f"error: {exc.strerror or exc}")[:4000])
        except KeyboardInterrupt:
            os.write(why_w, b"interrupted")
        except BaseException as exc:
            os.write(why_w, _UTF8(f"{type(exc).__name__} while writing it")[:4000])
    finally:
        os._exit(code)


# ------------------------------------------------------------------------------------------- API


def save_meanings(panel: Panel, directory: Path) -> None:
    """The quote vectors, made with the index and kept beside it (``panelbot.retrieval.meaning``), for a bank
    the semantic step serves (``meaning.MAX_QUOTES``)."""
    from panelbot.retrieval.meaning import MAX_QUOTES, QuoteMeanings

    if len(panel.quotes) <= MAX_QUOTES:
        QuoteMeanings.for_panel_files(panel_hash(directory), panel.quotes, _host_text(panel))


def _host_text(panel: Panel) -> Any:
    def host(qid: str) -> str | None:
        hq = panel.question(qid)
        return hq.text if hq else None

    return host


def open_indexed(name_or_dir: str | Path, *, use_cache: bool = True) -> Opened:
    """A panel (by name or directory) with its index: from the saved index when it is current, else built
    from the YAML and saved (a large bank by a forked child: see :func:`save`). Raises the loader's
    DataError / PanelNotFound for a bad or unknown panel."""
    directory = name_or_dir if isinstance(name_or_dir, Path) else find_panel_dir(name_or_dir)
    if not use_cache:
        return _build(directory)
    path = cache_path(directory)
    earlier = finish_saves(path) if path in _saving else []  # this process saving it already: wait
    opened = _open_or_build(directory, path)
    if earlier and not opened.note:
        opened.note = earlier[0]
    return opened


def _open_or_build(directory: Path, path: Path) -> Opened:
    key = cache_key(directory, current_panel_hash(directory, path.with_suffix(FILES_SUFFIX)))
    problem: str | None = None
    try:
        hit = read_index(path, key, directory)
        if hit is not None:
            return hit
    except CacheProblem as exc:
        problem = str(exc)
    with _build_lock(path) as locked:
        try:  # another process may have built it while this one waited
            hit = read_index(path, key, directory)
            if hit is not None:
                return hit
        except CacheProblem:
            pass
        unfinished = locked and _remove_leftovers(path)
        opened = _build(directory)
        name = opened.panel.name
        try:
            save(path, key, opened.panel, opened.index)
            save_meanings(opened.panel, directory)
        except OSError as exc:
            why = exc.strerror or str(exc)
            opened.note = (
                f"the saved index of panel {name!r} was {problem} and could not be replaced "
                f"({why}); rebuilt it for this run"
                if problem
                else f"could not save the index of panel {name!r} ({why}); it is rebuilt at every start"
            )
            return opened
    if problem:
        opened.note = f"the saved index of panel {name!r} was {problem}; rebuilt it"
    elif unfinished:
        opened.note = f"the last save of the index of panel {name!r} did not finish; rebuilt it"
    return opened


def _build(directory: Path) -> Opened:
    panel = load_panel(directory)
    return Opened(panel, QuoteIndex(panel, Normalizer(panel.vocabulary)), "built")


class CacheEntry:
    """One saved index: ``panel`` is its panel's name ("?" when unreadable); ``state`` is "current",
    "stale", "orphaned" (its panel directory is gone) or what is wrong with the file."""

    def __init__(
        self,
        path: Path,
        size: int,
        panel: str,
        directory: str,
        quotes: int,
        created: float,
        state: str,
    ) -> None:
        self.path, self.size, self.panel, self.directory = path, size, panel, directory
        self.quotes, self.created, self.state = quotes, created, state


def entries() -> list[CacheEntry]:
    """Every saved index, with whether it is still current for its panel."""
    d = paths.index_cache_dir()
    if not d.is_dir():
        return []
    out = []
    for p in sorted(d.glob(f"*{SUFFIX}")):
        try:
            size = p.stat().st_size
            with os.fdopen(paths.open_regular(p), "rb") as f:
                head = f.read(64 * 1024)
            header, _ = read_header(head)
            directory = str(header.get("directory", ""))
            state = "current"
            if not (Path(directory) / "panel.yaml").is_file():
                state = "orphaned"
            elif header.get("key") != cache_key(
                Path(directory), current_panel_hash(Path(directory), p.with_suffix(FILES_SUFFIX))
            ):
                state = "stale"
            out.append(
                CacheEntry(
                    p,
                    size,
                    str(header.get("panel", "?")),
                    directory,
                    int(header.get("quotes", 0)),
                    float(header.get("created", 0.0)),
                    state,
                )
            )
        except (CacheProblem, OSError, ValueError, TypeError) as exc:
            out.append(
                CacheEntry(
                    p,
                    p.stat().st_size if p.exists() else 0,
                    "?",
                    "",
                    0,
                    0.0,
                    str(exc) or type(exc).__name__,
                )
            )
    return out


def clear() -> tuple[int, int]:
    """Delete every saved index (and lock and leftover temporary files): (files removed, bytes freed)."""
    d = paths.index_cache_dir()
    if not d.is_dir():
        return 0, 0
    n = freed = 0
    for p in d.iterdir():
        if p.is_file() and (p.suffix in (SUFFIX, ".lock", FILES_SUFFIX) or p.name.endswith(".tmp")):
            try:
                size = p.stat().st_size
                p.unlink()
            except OSError:
                continue
            n += p.suffix == SUFFIX
            freed += size
    return n, freed
