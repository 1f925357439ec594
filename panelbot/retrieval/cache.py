"""A saved index per panel: one SQLite file, so that a start after the first needs neither the YAML nor a build.

One file per panel directory in ``paths.index_cache_dir()`` (``~/.cache/panelbot/index`` on Linux): the
index's tables (``panelbot.retrieval.index``: the FTS5 table, the quotes, the lexicon) and a ``saved``
table with the validated panel and the key the file was built for. It is used only when its key matches:
a hash of the panel's files (their bytes) and of the size and time of the code and word lists an index is
built from (its settings, panelbot's version and the panel model among them), so a changed checkout never
reuses an index built by other code. Query-time settings (``top_k``, ``scope_floor``, ...) do not change an
index and so do not invalidate it.

A file is only ever written whole: built into a temporary file beside it, then renamed over it, so a
reader never sees half of one; it is then opened read-only and immutable. Processes starting at once may
each build (the last rename wins; every one is complete). A file that is stale (key differs), not SQLite,
damaged, not a regular file or unreadable is reported in one line and rebuilt; it is never trusted.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from pathlib import Path
from typing import TYPE_CHECKING

from panelbot import __version__, paths
from panelbot.panel import HostQuestion, Panel, Persona, Quote, Turn
from panelbot.panel.loader import find_panel_dir, load_panel
from panelbot.records import fields
from panelbot.retrieval.index import (
    IndexDB,
    QuoteIndex,
    StoredQuotes,
    create_tables,
    fill,
    read_normalizer,
)
from panelbot.retrieval.vocabulary import Normalizer

if TYPE_CHECKING:
    from typing import Any

FILE_FORMAT = 4  # 4: SQLite (1-3: panelbot's own binary format, ``.pbidx``)
SUFFIX = ".sqlite"
_PANEL_FILES = ("panel.yaml", "quotes.yaml", "questions.yaml", "turns.yaml")
# what an index is built from: when one of these changes, saved indexes are rebuilt
_CODE = (
    "__init__.py",
    "retrieval/index.py",
    "retrieval/vocabulary.py",
    "retrieval/lexicon.py",
    "retrieval/cache.py",
    "panel/loader.py",
    "panel/model.py",
    "text.py",
    "data",
)
_ROOT = Path(__file__).resolve().parent.parent  # this install's package
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
QUICK_CHECK_UP_TO = 8 * 1024 * 1024  # a file this small is checked whole when opened (milliseconds)
LEFTOVER_AGE = (
    600.0  # seconds after which a temporary file of a build is taken as left by a killed one
)


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


_CODE_PRINTS: dict[Path, list] = {}


def _code_fingerprint(root: Path = _ROOT) -> list:
    """Size and time of the code and word lists an index is built from, in the install at ``root``: read
    once per process (the code this process runs does not change under it), not once per panel."""
    got = _CODE_PRINTS.get(root)
    if got is None:
        got = _CODE_PRINTS[root] = _read_code_fingerprint(root)
    return got


def _read_code_fingerprint(root: Path) -> list:
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


def cache_key(directory: Path, panel_digest: str | None = None, root: Path = _ROOT) -> str:
    """The key a saved index of this panel directory, built by the install at ``root`` (this one by
    default), must carry to be used (``panel_digest``: the panel's ``panel_hash`` when the caller has it)."""
    parts = {
        "panel": panel_digest if panel_digest is not None else panel_hash(directory),
        "code": _code_fingerprint(root),
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


def panel_to_data(panel: Panel) -> dict[str, Any]:
    """The panel but its quotes as JSON-ready plain data (and not its directory, which the caller knows)."""
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
        "questions": [_record(q, "question") for q in panel.questions],
        "turns": [_record(t, "turn") for t in panel.turns],
        "vocabulary": panel.vocabulary,
        "topics": panel.topics,
        "source": source,
        "extra": extra,
    }


def panel_from_data(data: dict[str, Any], directory: Path, quotes: Any) -> Panel:
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
        quotes=quotes,
        questions=_restore_all(data["questions"], "question"),
        turns=_restore_all(data["turns"], "turn"),
        vocabulary={str(k): tuple(v) for k, v in vocabulary.items()},
        topics=tuple(data["topics"]),
        source=source,
        **extra,
    )


# ------------------------------------------------------------------------------------------- the file


def write_index(path: Path, key: str, panel: Panel, normalizer: Normalizer) -> IndexDB:
    """Build the index of ``panel`` and save it at ``path``: built in memory, written whole into a new
    temporary file beside ``path`` (``VACUUM INTO``) and renamed over it. Returns the database in memory
    (this process goes on using it). Raises OSError or sqlite3.Error when the file cannot be written (the
    temporary file is then gone)."""
    db = IndexDB.in_memory()
    conn = db.conn
    create_tables(conn)
    conn.execute("BEGIN")
    fill(conn, panel, normalizer)
    conn.execute("CREATE TABLE saved (name TEXT PRIMARY KEY, value TEXT NOT NULL)")
    header = {
        "format": FILE_FORMAT,
        "key": key,
        "panelbot": __version__,
        "root": str(_ROOT),
        "panel": panel.name,
        "directory": str(panel.path.resolve()),
        "quotes": len(panel.quotes),
        "created": time.time(),
        "panel_data": panel_to_data(panel),
    }
    conn.executemany(
        "INSERT INTO saved VALUES (?, ?)",
        ((k, json.dumps(v, ensure_ascii=False)) for k, v in header.items()),
    )
    conn.execute("COMMIT")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{_temp_prefix(path)}{os.getpid()}.{os.urandom(4).hex()}.tmp")
    try:
        conn.execute("VACUUM INTO ?", (str(tmp),))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return db


def _temp_prefix(path: Path) -> str:
    """How the names of ``path``'s temporary files begin."""
    return f".{path.stem}."


def _connect_saved(path: Path) -> sqlite3.Connection:
    """The saved index at ``path``, read-only; FileNotFoundError when there is none, CacheProblem when
    what is there is not a regular file or cannot be read. A saved file is never changed in place (only
    replaced whole), so it is opened immutable: no locks, no journal to look for."""
    try:
        os.close(paths.open_regular(path))  # never a FIFO: opening one waits for a writer
    except (FileNotFoundError, NotADirectoryError):
        raise FileNotFoundError(str(path)) from None
    except paths.NotRegularFile:
        raise CacheProblem("not a regular file") from None
    except OSError as exc:
        raise CacheProblem(f"unreadable ({exc.strerror or exc})") from None
    uri = f"{path.resolve().as_uri()}?mode=ro&immutable=1"
    return sqlite3.connect(uri, uri=True, check_same_thread=False)


def read_header(conn: sqlite3.Connection) -> dict[str, Any]:
    """The ``saved`` table of a saved index; CacheProblem when the file is not one of ours."""
    try:
        rows = conn.execute("SELECT name, value FROM saved").fetchall()
    except sqlite3.DatabaseError as exc:
        if "no such table" in str(exc):
            raise CacheProblem("not a panelbot index") from None
        raise CacheProblem(_damaged(exc)) from None
    try:
        return {name: json.loads(value) for name, value in rows}
    except ValueError:
        raise CacheProblem("damaged (unreadable header)") from None


def _damaged(exc: sqlite3.Error) -> str:
    why = str(exc)
    if "not a database" in why:
        return "not a panelbot index"
    return f"damaged ({why})"


def read_index(path: Path, key: str, directory: Path) -> Opened | None:
    """The saved index at ``path`` if it is current and sound; None when there is none; CacheProblem when
    there is one that must not be used."""
    try:
        conn = _connect_saved(path)
    except FileNotFoundError:
        return None
    try:
        header = read_header(conn)
        if header.get("format") != FILE_FORMAT:
            raise CacheProblem("from another panelbot version")
        if header.get("key") != key:
            root = header.get("root")
            if root and Path(str(root)) != _ROOT:  # a checkout or environment sharing the cache
                raise CacheProblem(f"built by another install of panelbot ({root})")
            raise CacheProblem("stale (the panel or panelbot changed)")
        if os.stat(path).st_size <= QUICK_CHECK_UP_TO:
            (verdict,) = conn.execute("PRAGMA quick_check(1)").fetchone()
            if verdict != "ok":
                raise CacheProblem("damaged (the database check failed)")
        db = IndexDB(conn, path)
        panel = panel_from_data(header["panel_data"], directory, StoredQuotes(db))
        normalizer = read_normalizer(db)
        index = QuoteIndex(panel, normalizer, db)
    except CacheProblem:
        conn.close()
        raise
    except sqlite3.Error as exc:
        conn.close()
        raise CacheProblem(_damaged(exc)) from None
    except (KeyError, TypeError, ValueError, IndexError, AttributeError, OSError) as exc:
        conn.close()
        raise CacheProblem(f"inconsistent ({type(exc).__name__})") from None
    return Opened(panel, index, "cache")


def _remove_leftovers(path: Path) -> bool:
    """Remove the temporary files of builds of ``path`` that never finished (their process was killed):
    those older than ``LEFTOVER_AGE`` (a younger one may be another process's build under way). True when
    there were any."""
    prefix, found = _temp_prefix(path), False
    now = time.time()
    try:
        with os.scandir(path.parent) as found_files:
            for entry in found_files:
                if entry.name.startswith(prefix) and entry.name.endswith(".tmp"):
                    try:
                        if now - entry.stat(follow_symlinks=False).st_mtime > LEFTOVER_AGE:
                            os.unlink(entry.path)
                            found = True
                    except OSError:
                        pass
    except OSError:
        pass
    return found


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
    from the YAML and saved. Raises the loader's DataError / PanelNotFound for a bad or unknown panel."""
    directory = name_or_dir if isinstance(name_or_dir, Path) else find_panel_dir(name_or_dir)
    if not use_cache:
        return _build(directory)
    path = cache_path(directory)
    key = cache_key(directory, current_panel_hash(directory, path.with_suffix(FILES_SUFFIX)))
    problem: str | None = None
    try:
        hit = read_index(path, key, directory)
        if hit is not None:
            return hit
    except CacheProblem as exc:
        problem = str(exc)
    unfinished = _remove_leftovers(path)
    panel = load_panel(directory)
    normalizer = Normalizer(panel.vocabulary)
    name = panel.name
    try:
        db = write_index(path, key, panel, normalizer)
        save_meanings(panel, directory)
    except (OSError, sqlite3.Error) as exc:
        why = getattr(exc, "strerror", None) or str(exc)
        opened = Opened(panel, QuoteIndex(panel, normalizer), "built")
        opened.note = (
            f"the saved index of panel {name!r} was {problem} and could not be replaced "
            f"({why}); rebuilt it for this run"
            if problem
            else f"could not save the index of panel {name!r} ({why}); it is rebuilt at every start"
        )
        return opened
    opened = Opened(panel, QuoteIndex(panel, normalizer, db), "built")
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
    "stale", "orphaned" (its panel directory, or the install that built it, is gone) or what is wrong with
    the file; ``install`` is the package directory of the panelbot that built it."""

    def __init__(
        self,
        path: Path,
        size: int,
        panel: str,
        directory: str,
        quotes: int,
        created: float,
        state: str,
        install: str = "",
    ) -> None:
        self.path, self.size, self.panel, self.directory = path, size, panel, directory
        self.quotes, self.created, self.state, self.install = quotes, created, state, install

    @property
    def elsewhere(self) -> bool:
        """Built by another install of panelbot (another checkout or environment sharing the cache): this
        one does not use it, and replaces it with its own when it next opens the panel."""
        return bool(self.install) and Path(self.install) != _ROOT


def _state(path: Path, header: dict[str, Any]) -> str:
    """Whether a saved index is current for its panel, as the install that built it would judge (another
    install's index is judged by that install's code, not this one's)."""
    directory = Path(str(header.get("directory", "")))
    root = Path(str(header.get("root") or _ROOT))
    if not (directory / "panel.yaml").is_file() or not (root / "retrieval").is_dir():
        return "orphaned"
    digest = current_panel_hash(directory, path.with_suffix(FILES_SUFFIX))
    return "current" if header.get("key") == cache_key(directory, digest, root) else "stale"


def entries() -> list[CacheEntry]:
    """Every saved index, with whether it is still current for its panel."""
    d = paths.index_cache_dir()
    if not d.is_dir():
        return []
    out = []
    for p in sorted(d.glob(f"*{SUFFIX}")):
        try:
            size = p.stat().st_size
            conn = _connect_saved(p)
            try:
                header = read_header(conn)
            finally:
                conn.close()
            out.append(
                CacheEntry(
                    p,
                    size,
                    str(header.get("panel", "?")),
                    str(header.get("directory", "")),
                    int(header.get("quotes", 0)),
                    float(header.get("created", 0.0)),
                    _state(p, header)
                    if header.get("format") == FILE_FORMAT
                    else "from another panelbot version",
                    str(header.get("root", "")),
                )
            )
        except (CacheProblem, OSError, ValueError, TypeError) as exc:
            size = p.stat().st_size if p.exists() else 0
            out.append(CacheEntry(p, size, "?", "", 0, 0.0, str(exc) or type(exc).__name__))
    return out


def clear() -> tuple[int, int]:
    """Delete every saved index (and its records and leftover temporary files): (files removed, bytes
    freed). Files of the earlier format (``.pbidx`` and its ``.lock``) go too."""
    d = paths.index_cache_dir()
    if not d.is_dir():
        return 0, 0
    n = freed = 0
    for p in d.iterdir():
        if p.is_file() and (
            p.suffix in (SUFFIX, ".pbidx", ".lock", FILES_SUFFIX) or p.name.endswith(".tmp")
        ):
            try:
                size = p.stat().st_size
                p.unlink()
            except OSError:
                continue
            n += p.suffix in (SUFFIX, ".pbidx")
            freed += size
    return n, freed
