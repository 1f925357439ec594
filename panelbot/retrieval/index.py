"""The quote index: the quotes' terms in SQLite (an FTS5 table), scored by BM25 with field weights.

Each quote is one row of an FTS5 table (its row id is the quote's position in the bank) with one column per
field of its own: its words, its curated keywords and topics, and the questions in a user's words it
answers (``asks``). The terms of the host question a quote answers (and, weaker, of the host's turn around
it) are kept once per question in a plain table, not on each of its quotes. What goes into SQLite is
already terms: the panel's vocabulary, the thesaurus, number words and stemming are applied by
:class:`~panelbot.retrieval.vocabulary.Normalizer`, so FTS5 only splits on spaces; a word pair ("kv cache")
is a token ``kv_cach`` of the curated fields and a phrase of the quote's own words.

SQLite keeps the postings (compressed, on disk or in memory) and finds a term's (``fts5vocab``) and a
phrase's (``MATCH``); the score is computed here, BM25F as before this index moved to SQLite: a term's
frequency is the weighted sum over the fields and the host question, a quote's length the sum of all its
weights. FTS5's own ``bm25()`` was measured against it on the eval sets and lost (it takes a quote's length
as its token count, a long host turn weighing as much as the quote's words, and its idf is nothing for a
term half of a small bank says): 1 fewer strictly right on dev.yaml, follow-up accuracy below its floors
on two conversation sets. The saved index (``panelbot.retrieval.cache``) is this database as a file.
"""

from __future__ import annotations

import contextlib
import json
import math
import sqlite3
import threading
from array import array
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from panelbot.errors import DataError
from panelbot.panel import Panel, Quote
from panelbot.records import fields
from panelbot.retrieval.vocabulary import Normalizer
from panelbot.text import fold, word_pattern, words

if TYPE_CHECKING:
    from typing import Any

# field weights: the quote's own words, its curated keywords/topics, the questions in a user's words it
# answers (``asks``), the host question it answers and the host's whole turn around that question
FIELDS = ("text", "keywords", "asks")
W_TEXT, W_KEYWORDS, W_ASKS, W_QUESTION, W_HOST_TURN = 1.0, 1.6, 0.8, 0.7, 0.3
_WEIGHT_OF = dict(zip(FIELDS, (W_TEXT, W_KEYWORDS, W_ASKS), strict=True))  # by FTS5 column
K1, B = 1.2, 0.6
BIGRAM_BOOST = 1.5
RERANK = 60  # best candidates whose own words are checked for the question's word pairs
SCHEMA = (
    4  # bump when what the index holds, or how it is built, changes (invalidates saved indexes)
)
KEPT_TERMS = 256  # terms whose postings are kept between questions

_TOKENIZE = (
    "ascii tokenchars '''._'"  # a term is one token: words are [a-z0-9] with . ' inside; pairs _
)
_QUOTE_FIELDS = tuple(f.name for f in fields(Quote))


def index_settings() -> dict[str, float | int]:
    """Everything that shapes a built index (a saved index is only reused when these are unchanged)."""
    return {
        "schema": SCHEMA,
        "w_text": W_TEXT,
        "w_keywords": W_KEYWORDS,
        "w_asks": W_ASKS,
        "w_question": W_QUESTION,
        "w_host_turn": W_HOST_TURN,
        "k1": K1,
        "b": B,
    }


class IndexDB:
    """The index's database and the lock its queries take (the app asks from worker threads); ``path``:
    the saved index's file, when it is one."""

    def __init__(self, conn: sqlite3.Connection, path: Path | None = None) -> None:
        self.conn, self.path, self._lock = conn, path, threading.Lock()

    @classmethod
    def in_memory(cls) -> IndexDB:
        return cls(sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None))

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        try:
            with self._lock:
                return self.conn.execute(sql, params).fetchall()
        except sqlite3.DatabaseError as exc:
            if self.path is None:
                raise
            raise self._damaged(exc) from None

    def _damaged(self, exc: sqlite3.Error) -> DataError:
        """A saved index found damaged while in use (past the checks made when it was opened): it is
        removed, so that the next start rebuilds it."""
        with contextlib.suppress(OSError):
            self.path.unlink()  # type: ignore[union-attr]
        return DataError(
            f"the saved index was found damaged while in use ({exc}); it was removed and is rebuilt "
            "at the next start",
            str(self.path),
        )


def create_tables(db: sqlite3.Connection) -> None:
    """The index's tables in an empty database."""
    db.executescript(
        f"""
        CREATE VIRTUAL TABLE quote_terms USING fts5(
            {", ".join(FIELDS)}, content='', columnsize=0, tokenize="{_TOKENIZE}");
        INSERT INTO quote_terms(quote_terms, rank) VALUES ('automerge', 0);
        CREATE VIRTUAL TABLE quote_term_instances USING fts5vocab(quote_terms, 'instance');
        CREATE VIRTUAL TABLE quote_term_rows USING fts5vocab(quote_terms, 'row');
        CREATE TABLE question_terms (term TEXT NOT NULL, question TEXT NOT NULL, weight REAL NOT NULL,
                                     PRIMARY KEY (term, question)) WITHOUT ROWID;
        CREATE TABLE quotes (pos INTEGER PRIMARY KEY, id TEXT NOT NULL, question TEXT,
                             record TEXT NOT NULL);
        CREATE TABLE index_data (name TEXT PRIMARY KEY, value BLOB NOT NULL);
        """
    )


class _Entries:
    """Quotes' index entries, field by field, as space-separated terms; what the index keeps besides."""

    def __init__(self, panel: Panel, normalizer: Normalizer) -> None:
        self.norm = normalizer
        self.findall = word_pattern().findall
        self.said: set[str] = set()  # the words the quotes and their keywords use (for the lexicon)
        self.keyword_terms: set[str] = set()  # unigrams of curated keywords/topics
        self.lengths = array("d")
        self._keywords: dict[str, list[str]] = {}
        # a host question's terms (its text; weaker, the host's whole turn around it), by id (a repeated
        # id: its last entry) and the sum of their weights, which each of its quotes' lengths holds
        self.asked: dict[str, dict[str, float]] = {}
        for hq in panel.questions:
            c = dict.fromkeys(normalizer.terms(hq.text), W_QUESTION)
            turn = panel.turn(hq.turn)
            if turn is not None and turn.speaker != "unknown":
                for t in set(normalizer.terms(turn.text)):
                    c[t] = max(c.get(t, 0.0), W_HOST_TURN)
            self.asked[hq.id] = c
        self._asked_sum = {qid: sum(c.values()) for qid, c in self.asked.items()}

    def row(self, i: int, q: Quote) -> tuple[int, str, str, str]:
        text = q.text
        surface = self.findall(text.lower() if text.isascii() else fold(text))
        self.said.update(surface)
        uni = self.norm.terms_of_words(surface, pairs=False)
        keywords: list[str] = []
        for kw in (*q.keywords, *q.topics):
            kt = self._keywords.get(kw)
            if kt is None:
                kt = self._keywords[kw] = self.norm.terms(kw)
                self.said.update(words(kw))
                self.keyword_terms.update(t for t in kt if "_" not in t)
            keywords += kt
        asks: Counter[str] = Counter()
        for a in q.asks:
            asks.update(set(self.norm.terms(a)))
        asked = [t for t, c in asks.items() for _ in range(min(c, 2))]  # at most twice W_ASKS
        self.lengths.append(
            len(uni) * W_TEXT
            + len(keywords) * W_KEYWORDS
            + len(asked) * W_ASKS
            + (self._asked_sum.get(q.question, 0.0) if q.question else 0.0)
        )
        return (i, " ".join(uni), " ".join(keywords), " ".join(asked))

    def lexicon(self, n: int, own: dict[str, int]) -> dict[str, int]:
        """The words of 4+ letters the talk uses (its quotes' and curated keywords'), for typo correction,
        in alphabetical order, each with how many quotes hold its term in their own fields (``own``; at
        least 1; a stopword: all)."""
        word_term = self.norm.word_terms().__getitem__
        out = {}
        for w in sorted(w for w in self.said if len(w) >= 4 and w.isalpha()):
            term = word_term(w)
            out[w] = own.get(term, 1) if term else n
        return out


def _quote_record(q: Quote) -> str:
    return json.dumps([getattr(q, f) for f in _QUOTE_FIELDS], ensure_ascii=False)


def fill(db: sqlite3.Connection, panel: Panel, normalizer: Normalizer) -> None:
    """Index the panel's quotes into ``db`` (its tables made by :func:`create_tables`), and keep with them
    what reading the index back needs: the quotes, the normaliser, the lexicon, lengths and speakers."""
    entries = _Entries(panel, normalizer)
    quotes = panel.quotes
    n = len(quotes)
    db.executemany(
        f"INSERT INTO quote_terms(rowid, {', '.join(FIELDS)}) VALUES (?, ?, ?, ?)",
        map(entries.row, range(n), quotes),
    )
    db.executemany(
        "INSERT OR REPLACE INTO question_terms VALUES (?, ?, ?)",
        ((t, qid, w) for qid, c in entries.asked.items() for t, w in c.items()),
    )
    db.executemany(
        "INSERT INTO quotes VALUES (?, ?, ?, ?)",
        ((i, q.id, q.question, _quote_record(q)) for i, q in enumerate(quotes)),
    )
    db.execute("CREATE INDEX quote_ids ON quotes(id)")
    db.execute("CREATE INDEX quote_questions ON quotes(question)")
    own = dict(db.execute("SELECT term, doc FROM quote_term_rows"))  # term -> quotes holding it
    avg = (sum(entries.lengths) / n) if n else 1.0
    norm_len = array("d", [K1 * (1 - B + B * ln / avg) if avg else K1 for ln in entries.lengths])
    speakers = sorted({q.speaker for q in quotes})
    code = {s: k for k, s in enumerate(speakers)}
    data: dict[str, Any] = {
        "normalizer": json.dumps(normalizer.state(), ensure_ascii=False),
        "lexicon": json.dumps(entries.lexicon(n, own), ensure_ascii=False),
        "keyword_terms": json.dumps(sorted(entries.keyword_terms), ensure_ascii=False),
        "speakers": json.dumps(speakers, ensure_ascii=False),
        "speaker_codes": array("i", [code[q.speaker] for q in quotes]).tobytes(),
        "norm_len": norm_len.tobytes(),
        "quotes": n,
    }
    db.executemany("INSERT INTO index_data VALUES (?, ?)", data.items())


def _data(db: IndexDB) -> dict[str, Any]:
    return dict(db.rows("SELECT name, value FROM index_data"))


def read_normalizer(db: IndexDB) -> Normalizer:
    """The normaliser the index was built with."""
    return Normalizer.from_state(json.loads(_data(db)["normalizer"]))


def _array(typecode: str, raw: bytes, n: int) -> array:
    out = array(typecode)
    out.frombytes(raw)
    if len(out) != n:
        raise ValueError("index: an array does not hold one item per quote")
    return out


class StoredQuotes(Sequence):
    """A saved panel's quotes, read from its database one by one when used (a warm start of a 100,000-quote
    panel makes the few quotes an answer shows); every quote's speaker is read up front (routing filters by
    speaker)."""

    def __init__(self, db: IndexDB) -> None:
        self._db = db
        data = _data(db)
        names = json.loads(data["speakers"])
        codes = _array("i", data["speaker_codes"], int(data["quotes"]))
        if len(codes) and not (min(codes) >= 0 and max(codes) < len(names)):
            raise ValueError("index: a quote's speaker is out of range")
        self.speakers: list[str] = [names[c] for c in codes]
        self._made: dict[int, Quote] = {}
        self._where: dict[str, int] = {}  # id -> position of every quote made so far

    def __len__(self) -> int:
        return len(self.speakers)

    def _make(self, i: int, record: str | None = None) -> Quote:
        q = self._made.get(i)
        if q is None:
            if record is None:
                got = self._db.rows("SELECT record FROM quotes WHERE pos = ?", (i,))
                if not got:
                    raise DataError("the saved index is missing a quote", str(self._db.path))
                record = got[0][0]
            values = json.loads(record)
            if type(values) is not list or len(values) != len(_QUOTE_FIELDS):
                raise DataError("the saved index holds a malformed quote", str(self._db.path))
            q = Quote(*[tuple(v) if type(v) is list else v for v in values])
            self._made[i] = q
            self._where.setdefault(q.id, i)
        return q

    def find(self, quote_id: str) -> Quote | None:
        """The quote with this id (making only it)."""
        i = self._where.get(quote_id)
        if i is None:
            ((i,),) = self._db.rows("SELECT min(pos) FROM quotes WHERE id = ?", (quote_id,))
            if i is None:
                return None
        return self._make(i)

    def position(self, quote_id: str) -> int | None:
        """Where the quote with this id is, if it has been made (every quote handed out has been)."""
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
        rows = self._db.rows("SELECT pos, record FROM quotes ORDER BY pos")
        return (self._make(i, record) for i, record in rows)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and list(self) == list(other)

    __hash__ = None  # type: ignore[assignment]


class _Idf(Mapping):
    """term -> its idf, ``log(1 + (N - n + 0.5) / (n + 0.5))`` for the n quotes holding it (indexed
    terms only; they are not listed)."""

    def __init__(self, index: QuoteIndex) -> None:
        self._index = index

    def __getitem__(self, term: str) -> float:
        n = len(self._index.postings_of(term)[0])
        if not n:
            raise KeyError(term)
        return _idf(self._index.n, n)

    def __iter__(self) -> Iterator[str]:
        raise TypeError("the index's terms are not listed")

    def __len__(self) -> int:
        raise TypeError("the index's terms are not counted")


class _Postings:
    """term -> (the quotes holding it in any field or their host question, in order; its weighted
    frequency in each); membership says it is indexed."""

    def __init__(self, index: QuoteIndex) -> None:
        self._index = index

    def __contains__(self, term: object) -> bool:
        return isinstance(term, str) and len(self._index.postings_of(term)[0]) > 0

    def get(self, term: str) -> tuple[array, array] | None:
        got = self._index.postings_of(term)
        return got if len(got[0]) else None


def _idf(n: int, holding: int) -> float:
    return math.log(1 + (n - holding + 0.5) / (holding + 0.5))


_NO_POSTINGS = (array("i"), array("d"))
# a term's quotes with its weighted frequency in each: the sum of its fields' weights over its occurrences
_OWN_POSTINGS = (
    "SELECT doc, sum(CASE col "
    + " ".join(f"WHEN '{c}' THEN {w!r}" for c, w in _WEIGHT_OF.items())
    + " END) FROM quote_term_instances WHERE term = ? GROUP BY doc ORDER BY doc"
)


class QuoteIndex:
    """The index over a panel's quotes (SQLite FTS5 postings, BM25 with field weights)."""

    def __init__(self, panel: Panel, normalizer: Normalizer, db: IndexDB | None = None) -> None:
        """Build the index of ``panel`` (in memory), or (``db``) use the one that database holds."""
        self.panel, self.norm = panel, normalizer
        if db is None:
            db = IndexDB.in_memory()
            create_tables(db.conn)
            db.conn.execute("BEGIN")
            fill(db.conn, panel, normalizer)
            db.conn.execute("COMMIT")
        self.db = db
        data = _data(db)
        self.quotes: Sequence[Quote] = panel.quotes
        self.n = len(self.quotes)
        if int(data["quotes"]) != self.n:
            raise ValueError(f"index holds {data['quotes']} quotes, the panel {self.n}")
        self.lexicon: Counter[str] = Counter(json.loads(data["lexicon"]))
        self.keyword_terms: set[str] = set(json.loads(data["keyword_terms"]))
        self.norm_len = _array("d", data["norm_len"], self.n)
        speakers = getattr(self.quotes, "speakers", None)
        self.speaker_of: list[str] = (
            speakers if speakers is not None else [q.speaker for q in self.quotes]
        )
        self.idf: Mapping[str, float] = _Idf(self)
        self.postings = _Postings(self)
        self._kept: dict[str, tuple[array, array]] = {}
        self._said: dict[str, frozenset[int]] = {}
        self._answering: dict[str, list[int]] = {}
        self._last: tuple[tuple[str, ...], dict[str, dict[int, float]]] | None = None

    # ------------------------------------------------------------------------------------- postings

    def postings_of(self, term: str) -> tuple[array, array]:
        """The quotes holding ``term`` (in order) and its weighted frequency in each: the sum of its
        fields' weights over its occurrences in the quote's own fields, plus its weight in the host
        question the quote answers."""
        got = self._kept.get(term)
        if got is not None:
            return got
        own = self.db.rows(_OWN_POSTINGS, (term,))  # (quote, weighted frequency), in quote order
        asked = self.db.rows("SELECT question, weight FROM question_terms WHERE term = ?", (term,))
        if asked:
            tf = dict(own)
            for qid, w in asked:
                for doc in self.answering(qid):
                    tf[doc] = tf.get(doc, 0.0) + w
            own = sorted(tf.items())
        got = _NO_POSTINGS
        if own:
            got = array("i", [d for d, _ in own]), array("d", [w for _, w in own])
            if not (got[0][0] >= 0 and got[0][-1] < self.n):
                raise DataError("the index is inconsistent (a quote out of range)")
        if len(self._kept) >= KEPT_TERMS:
            self._kept.clear()
        self._kept[term] = got
        return got

    def answering(self, question_id: str) -> list[int]:
        """The quotes (numbers, in order) answering this host question, found without reading any quote
        (a saved large bank's quotes are made only when shown)."""
        got = self._answering.get(question_id)
        if got is None:
            rows = self.db.rows(
                "SELECT pos FROM quotes WHERE question = ? ORDER BY pos", (question_id,)
            )
            got = self._answering[question_id] = [i for (i,) in rows]
        return got

    def _said_together(self, a: str, b: str) -> frozenset[int]:
        """The quotes whose own words say the pair ``a b`` (with only stopwords between)."""
        key = f"{a} {b}"
        got = self._said.get(key)
        if got is None:
            if len(self._said) >= KEPT_TERMS:
                self._said.clear()
            rows = self.db.rows(
                "SELECT rowid FROM quote_terms WHERE quote_terms MATCH ?", (f'text : "{a} {b}"',)
            )
            got = self._said[key] = frozenset(i for (i,) in rows)
        return got

    # ------------------------------------------------------------------------------------- scoring

    def score(self, terms: list[str], allowed: set[str] | None = None) -> dict[int, float]:
        """BM25 scores of quotes (indices) for weighted terms; optionally only some speakers'.

        Word pairs are indexed from keywords, topics and host questions; pairs in a quote's own words are
        checked only for the best candidates. Routing asks for each panelist's quotes in turn with the
        same terms: the postings are walked once per question, each speaker's scores kept apart (the
        last question's are kept)."""
        if allowed is not None and len(allowed) == 1:
            (speaker,) = allowed
            scores = dict(self._by_speaker(terms).get(speaker, {}))
        else:
            scores = self._accumulate(terms, allowed)
        pairs = [t.partition("_")[::2] for t in terms if "_" in t]
        pairs = [(a, b) for a, b in pairs if a in self.postings and b in self.postings]
        if pairs and scores:
            best = sorted(scores, key=scores.__getitem__, reverse=True)[:RERANK]
            for a, b in pairs:
                said = self._said_together(a, b)
                boost = self.pair_idf(f"{a}_{b}") * BIGRAM_BOOST * (K1 + 1) * W_TEXT
                for i in best:
                    if i in said:
                        scores[i] += boost / (W_TEXT + self.norm_len[i])
        return scores

    def _scaled(self, terms: list[str]) -> Iterator[tuple[float, array, array]]:
        """(scale, quote numbers, weighted frequencies) of each indexed term, in the order given."""
        for term in terms:
            docs, weights = self.postings_of(term)
            if docs:
                boost = BIGRAM_BOOST if "_" in term else 1.0
                yield _idf(self.n, len(docs)) * boost * (K1 + 1), docs, weights

    def _accumulate(self, terms: list[str], allowed: set[str] | None) -> dict[int, float]:
        scores: dict[int, float] = {}
        get = scores.get
        norm_len, speaker_of = self.norm_len, self.speaker_of
        for scale, docs, weights in self._scaled(terms):
            for i, tf in zip(docs, weights, strict=True):
                if allowed is None or speaker_of[i] in allowed:
                    scores[i] = get(i, 0.0) + scale * tf / (tf + norm_len[i])
        return scores

    def _by_speaker(self, terms: list[str]) -> dict[str, dict[int, float]]:
        key = tuple(terms)
        if self._last is not None and self._last[0] == key:
            return self._last[1]
        by: dict[str, dict[int, float]] = {}
        speaker_of, norm_len = self.speaker_of, self.norm_len
        for scale, docs, weights in self._scaled(terms):
            for i, tf in zip(docs, weights, strict=True):
                d = by.get(speaker_of[i])
                if d is None:
                    d = by[speaker_of[i]] = {}
                d[i] = d.get(i, 0.0) + scale * tf / (tf + norm_len[i])
        self._last = (key, by)
        return by

    def pair_idf(self, token: str) -> float:
        if token in self.postings:
            return self.idf[token]
        a, _, b = token.partition("_")
        return (self.idf.get(a, 0.0) + self.idf.get(b, 0.0)) / 2

    def max_score(self, terms: list[str]) -> float:
        """An upper bound for normalising scores to 0-100: every term matched well."""
        total = 0.0
        for term in terms:
            if "_" in term:
                total += 2 * self.pair_idf(term) * BIGRAM_BOOST * (K1 + 1)  # index + own words
            elif term in self.postings:
                total += self.idf[term] * (K1 + 1)
        return total
