"""What a question means against a panel: how close, in meaning, it is to each quote -- and to everyday
questions about anything else.

Each quote is represented by several rows of the shipped static embedding model
(:mod:`panelbot.retrieval.semantic`): its own words, the host's question it answers, and every question a curator
wrote for it (``asks``). A question's similarity to a quote is its best cosine over the quote's rows, so a
question in words the talk never used still finds the answer whose meaning it shares. An uncurated draft has
no ``asks``: its rows are the quote's words and the host's question, and the same mechanism applies.

The *background* is a bank of everyday questions on other subjects (``panelbot/data/everyday_questions.txt``,
general, written for no talk): a question closer to one of them than to anything the panel said is probably
about something else ("How do I clear the cache in Chrome?"), however many of the talk's words it uses. The
scope decision (:mod:`panelbot.retrieval.tuning`) weighs both.

Row vectors are computed once and kept in the cache directory, keyed by the model and the rows' texts, so a
warm start embeds only the question.
"""

from __future__ import annotations

import array
import hashlib
import os
import stat
import struct
import sys
from collections.abc import Callable, Sequence
from contextlib import suppress
from functools import cache
from pathlib import Path

from panelbot import paths
from panelbot.panel import Quote
from panelbot.retrieval.encoder import SentenceEncoder, shipped_model
from panelbot.retrieval.lexicon import DATA_DIR
from panelbot.retrieval.semantic import Vector, VectorTable
from panelbot.retrieval.tuning import passage_words

MAX_CACHED_BYTES = 1 << 31  # a larger file is not ours
# rows embedded ahead of time for what every install has (scripts/seed_vectors.py writes them)
SEED_DIR = DATA_DIR / "vectors"
# banks up to this many quotes get the semantic step; a larger library is lexical only (its rows are
# embedded at ~20 quotes a second on one core, once, at the first start: 2,000 quotes take about two minutes)
MAX_QUOTES = 2_000


def _model_print(model: SentenceEncoder) -> bytes:
    return model.fingerprint


def _key(model: SentenceEncoder, texts: Sequence[str]) -> str:
    h = hashlib.sha256(_model_print(model))
    for t in texts:
        h.update(t.encode("utf-8", "surrogatepass"))
        h.update(b"\x00")
    return h.hexdigest()[:32]


def _write_atomically(path: Path, pieces: Sequence[bytes]) -> None:
    """Atomically, or not at all (a read-only or full cache directory only costs the next start time)."""
    import tempfile  # only when writing: it loads shutil and random, milliseconds of every warm start

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=path.name, suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as f:
                for piece in pieces:
                    f.write(piece)
            os.replace(tmp, path)
        except BaseException:
            with suppress(OSError):
                os.unlink(tmp)
            raise
    except OSError:
        pass


_OWNED = struct.Struct("<16sIII")  # magic, dims, rows, quotes
OWNED_MAGIC = b"PANELBOT-QVEC1\n\x00"  # 16 bytes


def _read_owned(path: Path, dims: int) -> QuoteMeanings | None:
    """A saved bank's rows (owners and vectors) when the file is a regular file of a consistent shape."""
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode) or not _OWNED.size <= st.st_size <= MAX_CACHED_BYTES:
            return None
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    magic, d, rows, quotes = _OWNED.unpack_from(data)
    body = _OWNED.size + 4 * rows
    if magic != OWNED_MAGIC or d != dims or len(data) != body + 4 * dims * rows:
        return None
    owners = array.array("i")
    owners.frombytes(data[_OWNED.size : body])
    if sys.byteorder != "little":
        owners.byteswap()
    if any(not 0 <= o < quotes for o in owners):
        return None
    return QuoteMeanings(VectorTable.from_bytes(data[body:], dims), owners, quotes)


def _write_owned(path: Path, meanings: QuoteMeanings, dims: int) -> None:
    owners = array.array("i", meanings.owners)
    if sys.byteorder != "little":
        owners.byteswap()
    head = _OWNED.pack(OWNED_MAGIC, dims, len(owners), meanings.n_quotes)
    _write_atomically(path, [head, owners.tobytes(), meanings.table.to_bytes()])


def _saved(name: str, dims: int) -> QuoteMeanings | None:
    """Rows saved under ``name``: in the cache directory, else among the ones shipped with panelbot
    (``SEED_DIR``: the shipped panel's and the general banks', so a first start embeds only the question)."""
    seeds = () if os.environ.get("PANELBOT_NO_SEED_VECTORS") else (SEED_DIR,)
    for directory in (paths.index_cache_dir(), *seeds):
        found = _read_owned(directory / name, dims)
        if found is not None:
            return found
    return None


def embedded(texts: Sequence[str], model: SentenceEncoder | None = None) -> VectorTable:
    """The texts' vectors, one row each, from the cache directory when they were embedded before (the same
    file format as a bank's rows, each row its own owner)."""
    model = model or shipped_model()
    name = f"meaning-{_key(model, texts)}.qvec"
    path = paths.index_cache_dir() / name
    found = _saved(name, model.dims)
    if found is not None and found.n_quotes == len(texts) == len(found.table):
        return found.table
    table = VectorTable(model.embed_many(texts), model.dims)
    _write_owned(path, QuoteMeanings(table, range(len(texts)), len(texts)), model.dims)
    return table


def passages(text: str, size: int) -> list[str]:
    """Overlapping runs of ``size`` words, half a run apart, of a text longer than one and a half runs.

    A sentence model pools a whole text into one vector, so a question about one thing a quote says is only
    as close to it as that thing weighs in the whole; a passage says it nearly alone. (The run length is
    fitted: ``passage_words`` in panelbot/data/tuning.json.)"""
    words = text.split()
    step = size // 2
    if size < 2 or len(words) <= size + step:
        return []
    return [" ".join(words[k : k + size]) for k in range(0, len(words) - step, step)]


class QuoteMeanings:
    """The rows of every quote of a bank, and the question -> quote similarities they give."""

    def __init__(self, table: VectorTable, owners: Sequence[int], n_quotes: int) -> None:
        self.table = table
        self.owners = list(owners)  # row -> the quote (position in the bank) it stands for
        self.n_quotes = n_quotes

    @classmethod
    def for_panel_files(
        cls,
        digest: str,
        quotes: Sequence[Quote],
        host_question: Callable[[str], str | None],
        model: SentenceEncoder | None = None,
    ) -> QuoteMeanings:
        """The rows of a panel read from disk, keyed by its files' ``digest``: a warm start reads them
        without decoding a single quote (a saved 100,000-quote bank decodes quotes only as it shows them)."""
        model = model or shipped_model()
        # the count and the first and last quotes too: a panel changed in memory after loading is not its files
        ends = [(q.id, q.text) for q in (quotes[:1] if quotes else [])] + [(quotes[-1].id,)] * bool(
            quotes
        )
        # ... and the passage length: rows read in other passages are other rows
        seed = _model_print(model) + repr((digest, len(quotes), ends, passage_words())).encode(
            "utf-8", "surrogatepass"
        )
        key = hashlib.sha256(seed).hexdigest()[:32]
        path = paths.index_cache_dir() / f"meaning-{key}.qvec"
        found = _saved(path.name, model.dims)
        if found is None or found.n_quotes != len(quotes):
            found = cls.build(quotes, host_question, model)
            _write_owned(path, found, model.dims)
        return found

    @classmethod
    def build(
        cls,
        quotes: Sequence[Quote],
        host_question: Callable[[str], str | None],
        model: SentenceEncoder | None = None,
    ) -> QuoteMeanings:
        """Rows for each quote: its text, its passages (:func:`passages`), its host question's text, its
        ``asks``."""
        size = passage_words()
        texts: list[str] = []
        owners: list[int] = []
        for i, q in enumerate(quotes):
            rows = [q.text, *passages(q.text, size), *q.asks]
            if q.question:
                host = host_question(q.question)
                if host:
                    rows.append(host)
            for text in dict.fromkeys(r for r in rows if r and r.strip()):
                texts.append(text)
                owners.append(i)
        return cls(embedded(texts, model), owners, len(quotes))

    def similarities(self, query: Vector) -> list[float]:
        """One similarity per quote: the best over its rows (0.0 for a quote with none)."""
        best = [0.0] * self.n_quotes
        for owner, sim in zip(self.owners, self.table.similarities(query), strict=False):
            if sim > best[owner]:
                best[owner] = sim
        return best


@cache
def background_questions() -> tuple[str, ...]:
    """The shipped bank of everyday questions on other subjects (comments and blank lines skipped)."""
    text = (DATA_DIR / "everyday_questions.txt").read_text(encoding="utf-8")
    lines = (line.strip() for line in text.splitlines())
    return tuple(line for line in lines if line and not line.startswith("#"))


@cache
def _background_table() -> VectorTable:
    return embedded(background_questions())


def background_similarity(query: Vector) -> float:
    """How close the question is to the nearest everyday question on another subject."""
    return max(_background_table().similarities(query), default=0.0)
