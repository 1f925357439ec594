"""Conversation history: SQLite in the user's data directory (``paths.history_db_path()``).

Plain Python (no Textual) so ``panelbot history`` stays fast. The database carries a schema version and
applies migrations in order on open; it runs in WAL mode and commits every message on its own the moment it
is written, so a crash or a kill in the middle of an answer loses no earlier message.
"""

from __future__ import annotations

import json
import re
import sqlite3
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from panelbot.errors import PanelbotError
from panelbot.records import asdict, field, record
from panelbot.redact import scrub

if TYPE_CHECKING:
    from typing import Any

SCHEMA_VERSION = 3

# Each step takes the database from version N-1 to N. Never edit a released step: append a new one.
MIGRATIONS: dict[int, Sequence[str]] = {
    1: (
        """CREATE TABLE conversations (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            title TEXT NOT NULL,
            panel TEXT NOT NULL,
            started_at TEXT NOT NULL,
            updated_at TEXT NOT NULL
        )""",
        """CREATE TABLE messages (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
            role TEXT NOT NULL,
            speaker TEXT NOT NULL DEFAULT '',
            text TEXT NOT NULL,
            quote_ids TEXT NOT NULL DEFAULT '[]',
            created_at TEXT NOT NULL
        )""",
    ),
    2: (
        "ALTER TABLE messages ADD COLUMN meta TEXT NOT NULL DEFAULT '{}'",
        "CREATE INDEX IF NOT EXISTS messages_by_conversation ON messages(conversation_id, id)",
    ),
    # full-text search over questions and answers (kept in step by triggers); where a conversation began
    3: (
        "ALTER TABLE conversations ADD COLUMN source TEXT NOT NULL DEFAULT 'app'",
        """CREATE VIRTUAL TABLE messages_fts USING fts5(
            text, content='messages', content_rowid='id', tokenize='unicode61 remove_diacritics 2'
        )""",
        "INSERT INTO messages_fts(rowid, text) SELECT id, text FROM messages",
        """CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
            INSERT INTO messages_fts(rowid, text) VALUES (new.id, new.text);
        END""",
        """CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
            INSERT INTO messages_fts(messages_fts, rowid, text) VALUES ('delete', old.id, old.text);
        END""",
        """CREATE TRIGGER messages_fts_update AFTER UPDATE OF text ON messages BEGIN
            INSERT INTO messages_fts(messages_fts, rowid, text) VALUES ('delete', old.id, old.text);
            INSERT INTO messages_fts(rowid, text) VALUES (new.id, new.text);
        END""",
    ),
}

SEARCHABLE_ROLES = (
    "user",
    "assistant",
    "decline",
)  # questions and answers (not errors or /quote lookups)


# who a decline (or a reply to small talk) stored in the host's name is shown as: panelbot's own voice, not
# the talk's host (a real person on an ingested talk)
NARRATOR_LABEL = "panelbot"


class StoreError(PanelbotError):
    """The history database cannot be opened or is from a newer panelbot."""


@record(frozen=True)
class ConversationSummary:
    id: int
    title: str
    panel: str
    started_at: str
    updated_at: str
    message_count: int
    source: str = "app"  # where it began: "app" or "cli"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@record(frozen=True)
class StoredMessage:
    id: int
    conversation_id: int
    role: str  # "user", "assistant" (a panelist's answer), "decline", "search", "error"
    speaker: str  # panelist id for answers; "" for the user
    text: str
    quote_ids: list[str] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)
    created_at: str = ""


def _now() -> str:
    """Now in UTC, as ``datetime.now(timezone.utc).isoformat(timespec="seconds")`` writes it (without importing
    datetime: a millisecond of every ``ask``)."""
    return time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime())


class ConversationStore:
    """The conversation database. One connection; every write is its own committed transaction."""

    def __init__(self, path: str | Path, *, clock: Callable[[], str] = _now) -> None:
        self.path = Path(path)
        self._clock = clock
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(
                f"{self.path.parent}: cannot create the data directory "
                f"({exc.strerror or exc}); set PANELBOT_DATA_DIR to a writable place"
            ) from None
        self.read_only = False
        try:
            self._open(str(self.path), uri=False)
        except StoreError as exc:
            if not self.path.is_file() or not self._open_read_only():
                raise exc from None
            # a write then fails saying why it could not be opened for writing (a full disk, say),
            # not only that the connection is read-only
            self._db.read_only_because = str(exc).removeprefix(f"{self.path}: ")
        self._db.doing = "history database error"

    def _open(self, target: str, *, uri: bool) -> None:
        try:
            # isolation_level=None: autocommit; we open explicit transactions where needed.
            conn = sqlite3.connect(target, isolation_level=None, timeout=5.0, uri=uri)
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: cannot open the history database ({exc})") from None
        self._db = _Guarded(conn, self.path)
        self._db.doing = "cannot open the history database"
        try:
            if not self.read_only:
                self._db.execute("PRAGMA journal_mode=WAL")
                self._db.execute(
                    "PRAGMA synchronous=NORMAL"
                )  # durable across process crashes in WAL mode
            self._db.execute("PRAGMA foreign_keys=ON")
            self._migrate()
        except BaseException:
            conn.close()
            raise

    def _open_read_only(self) -> bool:
        """Open a history that cannot be written (a read-only file, directory or disk) for reading: it can
        still be listed, shown and exported; a write fails with one line. True when that worked."""
        from urllib.parse import quote

        self.read_only = True
        base = f"file:{quote(str(self.path.resolve()))}?mode=ro"
        # immutable: a WAL database in a directory where no -shm file can be made opens only so
        for target in (base, base + "&immutable=1"):
            try:
                self._open(target, uri=True)
                return True
            except StoreError:
                continue
        self.read_only = False
        return False

    # ------------------------------------------------------------------------------------------ schema

    def schema_version(self) -> int:
        row = self._db.execute(
            "SELECT name FROM sqlite_master WHERE type='table' AND name='schema_version'"
        ).fetchone()
        if row is None:
            return 0
        row = self._db.execute("SELECT version FROM schema_version").fetchone()
        if not row:
            return 0
        version = row[0]
        if isinstance(version, str) and version.strip().isdecimal() and len(version) < 20:
            version = int(
                version
            )  # a column of INTEGER affinity keeps '3' as 3; a hand edit may not
        if not isinstance(version, int) or version < 0:
            raise StoreError(
                f"{self.path}: history has schema version {str(version)[:40]!r}, not a version "
                "number; the file is damaged: move it aside to start a new history"
            )
        return version

    def _migrate(self) -> None:
        current = self.schema_version()
        if current > SCHEMA_VERSION:
            raise StoreError(
                f"{self.path}: history is schema version {current}, newer than this panelbot "
                f"understands ({SCHEMA_VERSION}); upgrade panelbot"
            )
        if current == SCHEMA_VERSION:
            return
        if self.read_only:
            raise StoreError(
                f"{self.path}: the history database is read-only and needs upgrading "
                f"(schema {current} to {SCHEMA_VERSION}); make it writable"
            )
        self._db.execute("BEGIN IMMEDIATE")
        try:
            self._db.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            for version in range(current + 1, SCHEMA_VERSION + 1):
                for statement in MIGRATIONS[version]:
                    self._db.execute(statement)
            self._db.execute("DELETE FROM schema_version")
            self._db.execute("INSERT INTO schema_version (version) VALUES (?)", (SCHEMA_VERSION,))
            self._db.execute("COMMIT")
        except BaseException:
            self._db.rollback()
            raise

    # ------------------------------------------------------------------------------------------ writes

    def new_conversation(self, panel: str, title: str, source: str = "app") -> int:
        now = self._clock()
        cur = self._db.execute(
            "INSERT INTO conversations (title, panel, started_at, updated_at, source) VALUES (?, ?, ?, ?, ?)",
            (_title(scrub(title)), panel, now, now, source),
        )
        return int(cur.lastrowid or 0)

    def rename_conversation(self, conv_id: int, title: str) -> bool:
        """Give a conversation a new title; False when there is no such conversation."""
        cur = self._db.execute(
            "UPDATE conversations SET title = ? WHERE id = ?", (_title(title), conv_id)
        )
        return cur.rowcount > 0

    def delete_messages(self, message_ids: Sequence[int]) -> int:
        """Delete some messages (a regenerated answer replaces the old one); how many were deleted."""
        ids = [int(i) for i in message_ids]
        if not ids:
            return 0
        cur = self._db.execute(
            f"DELETE FROM messages WHERE id IN ({','.join('?' * len(ids))})", ids
        )
        return cur.rowcount

    def delete_conversation(self, conv_id: int) -> bool:
        """Delete a conversation and its messages (one transaction); False when there is no such one."""
        self._db.execute("BEGIN IMMEDIATE")
        try:
            self._db.execute("DELETE FROM messages WHERE conversation_id = ?", (conv_id,))
            cur = self._db.execute("DELETE FROM conversations WHERE id = ?", (conv_id,))
            self._db.execute("COMMIT")
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        return cur.rowcount > 0

    def add_message(
        self,
        conv_id: int,
        role: str,
        speaker: str,
        text: str,
        quote_ids: Sequence[str] = (),
        meta: dict[str, Any] | None = None,
    ) -> int:
        """Append one message and commit it before returning."""
        return self.add_messages(conv_id, [(role, speaker, text, quote_ids, meta)])[0]

    def add_messages(
        self,
        conv_id: int,
        messages: Sequence[tuple[str, str, str, Sequence[str], dict[str, Any] | None]],
    ) -> list[int]:
        """Append several messages (role, speaker, text, quote ids, meta) in one transaction, committed before
        returning: a turn (the question and its answers) is saved whole or not at all. Their ids."""
        now = self._clock()
        ids: list[int] = []
        self._db.execute("BEGIN IMMEDIATE")
        try:
            for role, speaker, text, quote_ids, meta in messages:
                cur = self._db.execute(
                    "INSERT INTO messages (conversation_id, role, speaker, text, quote_ids, meta, created_at)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (
                        conv_id,
                        role,
                        speaker,
                        scrub(text),
                        json.dumps(list(quote_ids)),
                        scrub(json.dumps(meta or {}, sort_keys=True)),
                        now,
                    ),
                )
                ids.append(int(cur.lastrowid or 0))
            if any(
                role == "assistant" or (role == "decline" and not (meta or {}).get("small_talk"))
                for role, _, _, _, meta in messages
            ):
                self._retitle_after_small_talk(conv_id)
            self._db.execute("UPDATE conversations SET updated_at = ? WHERE id = ?", (now, conv_id))
            self._db.execute("COMMIT")
        except BaseException:
            self._db.rollback()
            raise
        return ids

    def _retitle_after_small_talk(self, conv_id: int) -> None:
        """A conversation is titled after its first question; when that (and all until now) was small talk
        ("hi", "thanks!"), the first real question answered names it instead -- unless it was renamed."""
        # read up to the first answer only (not the whole conversation on every turn)
        users: list[str] = []  # the questions before it
        first_answer: int | None = None
        rows = self._db.execute(
            "SELECT id, role, text, meta FROM messages WHERE conversation_id = ? ORDER BY id",
            (conv_id,),
        )
        for mid, role, text, meta in rows:
            if role == "user":
                users.append(text)
            elif not (role == "decline" and _json(meta, {}).get("small_talk")):
                first_answer = mid
                break
        rows.close()
        if (
            first_answer is not None
            and self._db.execute(
                "SELECT 1 FROM messages WHERE conversation_id = ? AND id > ? AND role = 'user' LIMIT 1",
                (conv_id, first_answer),
            ).fetchone()
            is not None
        ):
            return  # something before the last question was answered already: it has its title
        if len(users) < 2:
            return
        row = self._db.execute(
            "SELECT title FROM conversations WHERE id = ?", (conv_id,)
        ).fetchone()
        if row is None or row[0] != _title(users[0][:80]):
            return  # renamed by the person
        self._db.execute(
            "UPDATE conversations SET title = ? WHERE id = ?", (_title(users[-1][:80]), conv_id)
        )

    # ------------------------------------------------------------------------------------------ reads

    def list_conversations(self) -> list[ConversationSummary]:
        """Newest first."""
        return self._summaries("", ())

    def _summaries(self, where: str, args: tuple[Any, ...]) -> list[ConversationSummary]:
        rows = self._db.execute(
            f"""SELECT c.id, c.title, c.panel, c.started_at, c.updated_at, COUNT(m.id), c.source
               FROM conversations c LEFT JOIN messages m ON m.conversation_id = c.id {where}
               GROUP BY c.id ORDER BY c.updated_at DESC, c.id DESC""",
            args,
        ).fetchall()
        return [
            ConversationSummary(int(r[0]), r[1], r[2], r[3], r[4], int(r[5]), r[6]) for r in rows
        ]

    def conversation(self, conv_id: int) -> ConversationSummary | None:
        found = self._summaries("WHERE c.id = ?", (conv_id,))
        return found[0] if found else None

    def search(self, text: str, limit: int = 50) -> list[SearchHit]:
        """Questions and answers matching every word of ``text`` (SQLite FTS5, best match first).

        The words are searched as plain words (quoted), so FTS5 syntax in them is never interpreted."""
        query = fts_query(text)
        if not query:
            return []
        roles = ",".join("?" * len(SEARCHABLE_ROLES))
        rows = self._db.execute(
            f"""SELECT m.id, m.conversation_id, c.title, m.role, m.speaker,
                       snippet(messages_fts, 0, '[', ']', ' ... ', 12), m.created_at
                FROM messages_fts JOIN messages m ON m.id = messages_fts.rowid
                JOIN conversations c ON c.id = m.conversation_id
                WHERE messages_fts MATCH ? AND m.role IN ({roles})
                ORDER BY bm25(messages_fts), m.id DESC LIMIT ?""",
            (query, *SEARCHABLE_ROLES, limit),
        ).fetchall()
        return [SearchHit(int(r[0]), int(r[1]), r[2], r[3], r[4], r[5], r[6]) for r in rows]

    def last_conversation_id(self) -> int | None:
        row = self._db.execute(
            "SELECT id FROM conversations ORDER BY updated_at DESC, id DESC LIMIT 1"
        ).fetchone()
        return int(row[0]) if row else None

    def messages(self, conv_id: int) -> list[StoredMessage]:
        rows = self._db.execute(
            "SELECT id, conversation_id, role, speaker, text, quote_ids, meta, created_at"
            " FROM messages WHERE conversation_id = ? ORDER BY id",
            (conv_id,),
        ).fetchall()
        return [
            StoredMessage(
                int(r[0]), int(r[1]), r[2], r[3], r[4], _json(r[5], []), _json(r[6], {}), r[7]
            )
            for r in rows
        ]

    def recent_questions(self, limit: int = 200, *, exclude: int | None = None) -> list[str]:
        """The person's last questions across conversations (but ``exclude``), oldest first."""
        rows = self._db.execute(
            "SELECT text FROM messages WHERE role = 'user' AND conversation_id IS NOT ?"
            " ORDER BY id DESC LIMIT ?",
            (exclude, limit),
        ).fetchall()
        return [r[0] for r in reversed(rows)]

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> ConversationStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@record(frozen=True)
class SearchHit:
    message_id: int
    conversation_id: int
    title: str
    role: str
    speaker: str
    snippet: str  # the matching words in [brackets]
    created_at: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def fts_query(text: str) -> str:
    """Plain words -> an FTS5 query matching all of them (each quoted, so no FTS5 syntax gets through)."""
    tokens = [t for t in re.findall(r"\w+", text, flags=re.UNICODE) if t]
    return " ".join('"' + t.replace('"', '""') + '"' for t in tokens[:32])


def listed_titles(conversations: Sequence[Any]) -> dict[int, str]:
    """Each conversation's title as a listing shows it (id -> title): two started with the same question
    are told apart by a counter in the order they were started -- "KV cache?", "KV cache? (2)" -- the
    stored titles unchanged."""
    seen: dict[str, int] = {}
    out: dict[int, str] = {}
    for c in sorted(conversations, key=lambda c: (c.started_at, c.id)):
        key = " ".join(c.title.split()).casefold()
        seen[key] = seen.get(key, 0) + 1
        out[c.id] = c.title if seen[key] == 1 else f"{c.title} ({seen[key]})"
    return out


def short_time(stamp: str) -> str:
    """A stored time (ISO 8601, UTC) as a person reads it in a listing: "2026-11-30 18:45", in local time."""
    from datetime import datetime

    try:
        return datetime.fromisoformat(stamp).astimezone().strftime("%Y-%m-%d %H:%M")
    except (ValueError, OverflowError, OSError):
        return stamp[:16].replace("T", " ")


def _title(title: str) -> str:
    return " ".join(title.split())[:200] or "(untitled)"


class _Guarded:
    """The connection, with every SQLite failure (a damaged file, a missing table, a full disk, a lock held
    too long) turned into one :class:`StoreError` line naming the file, never a traceback."""

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self._conn = conn
        self._path = path
        self.doing = "history database error"
        self.read_only_because = ""

    def _error(self, exc: sqlite3.Error) -> StoreError:
        text = str(exc) or type(exc).__name__
        if self.read_only_because and "readonly" in text:
            return StoreError(
                f"{self._path}: the history can only be read here ({self.read_only_because})"
            )
        hint = ""
        if isinstance(exc, sqlite3.DatabaseError) and any(
            w in text for w in ("malformed", "not a database", "no such table", "no such column")
        ):
            hint = "; the file is damaged: move it aside to start a new history"
        return StoreError(f"{self._path}: {self.doing} ({text}){hint}")

    def execute(self, sql: str, params: Sequence[Any] = ()) -> _GuardedCursor:
        try:
            return _GuardedCursor(self._conn.execute(sql, params), self)
        except sqlite3.Error as exc:
            raise self._error(exc) from None

    @property
    def in_transaction(self) -> bool:
        return self._conn.in_transaction

    def rollback(self) -> None:
        """Undo the open transaction, if any (a failed BEGIN leaves none; never mask the first error)."""
        if self._conn.in_transaction:
            try:
                self._conn.execute("ROLLBACK")
            except sqlite3.Error:
                self._conn.rollback()

    def close(self) -> None:
        self._conn.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)


class _GuardedCursor:
    def __init__(self, cur: sqlite3.Cursor, db: _Guarded) -> None:
        self._cur = cur
        self._db = db

    @property
    def lastrowid(self) -> int | None:
        return self._cur.lastrowid

    def fetchone(self) -> Any:
        try:
            return self._cur.fetchone()
        except sqlite3.Error as exc:
            raise self._db._error(exc) from None

    def fetchall(self) -> list[Any]:
        try:
            return self._cur.fetchall()
        except sqlite3.Error as exc:
            raise self._db._error(exc) from None

    def __iter__(self) -> Any:
        return iter(self.fetchall())

    def __getattr__(self, name: str) -> Any:
        return getattr(self._cur, name)


def _json(raw: str, default: Any) -> Any:
    try:
        value = json.loads(raw)
    except (TypeError, ValueError):
        return default
    return value if isinstance(value, type(default)) else default
