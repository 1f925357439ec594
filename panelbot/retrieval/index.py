"""The inverted index over a panel's quote bank: BM25 with field weights, compact postings, word pairs.

Postings are typed arrays: for each term, the quotes it occurs in (``docs``) with their weighted term
frequencies (``weights``) at the same positions; a saved index holds them end to end, term ``t`` at
``offsets[t]:offsets[t + 1]``. Postings are appended to their term's arrays by C-level map() calls, so no
Python int or float per posting is kept (memory) and no bytecode runs per word or posting (time). The
terms of the host question a quote answers are kept once per question and merged into a term's postings
when it is used (``_AskedBy``).
The whole index is plain data (:meth:`QuoteIndex.parts`) that ``panelbot.retrieval.cache`` saves and reads
back zero-copy.
"""

from __future__ import annotations

import contextlib
import gc
import math
import operator
import os
import struct
import sys
from array import array
from collections import Counter, defaultdict, deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from itertools import accumulate, repeat

from panelbot.errors import DataError

try:  # Counter's own C counting loop, without Counter's per-call Python overhead (100,000 calls)
    from collections import _count_elements as count  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - other Pythons

    def count(mapping: dict, iterable: Iterable[str]) -> None:
        get = mapping.get
        for e in iterable:
            mapping[e] = get(e, 0) + 1


from panelbot.panel import Panel, Quote
from panelbot.retrieval.vocabulary import Normalizer
from panelbot.text import LazyPattern, fold, word_pattern, words

TYPE_CHECKING = (
    False  # as typing.TYPE_CHECKING, without importing typing at run time (start-up time)
)
if TYPE_CHECKING:
    from typing import Any

# field weights: the quote's own words, its curated keywords/topics, the host question it answers, the host's
# whole turn around that question, and the questions in a user's words it answers (``asks``)
W_TEXT, W_KEYWORDS, W_QUESTION, W_HOST_TURN, W_ASKS = 1.0, 1.6, 0.7, 0.3, 0.8
K1, B = 1.2, 0.6
BIGRAM_BOOST = 1.5
RERANK = 60  # candidates whose own text is checked for the question's word pairs
FORMAT = (
    3  # bump when what the index holds, or how it is built, changes (invalidates saved indexes)
)


def index_settings() -> dict[str, float | int]:
    """Everything that shapes a built index (a saved index is only reused when these are unchanged)."""
    return {
        "format": FORMAT,
        "w_text": W_TEXT,
        "w_keywords": W_KEYWORDS,
        "w_question": W_QUESTION,
        "w_host_turn": W_HOST_TURN,
        "w_asks": W_ASKS,
        "k1": K1,
        "b": B,
    }


# array typecodes of the saved parts: offsets (64-bit), quote numbers, weights and lengths (32-bit float)
# and each quote's words as term ids (seq, ended at seq_ends), for word pairs in a quote's own text
ARRAY_TYPES = {
    "offsets": "q",
    "docs": "i",
    "weights": "f",
    "norm_len": "f",
    "idf": "d",
    "seq": "i",
    "seq_ends": "q",
    # host questions' terms, once per question (see _AskedBy)
    "asked_offsets": "q",
    "asked_questions": "i",
    "asked_weights": "d",
    "asked_doc_offsets": "q",
    "asked_docs": "i",
}


_PAIR = struct.Struct("=ii")  # two term ids as a quote's word sequence stores them (native int32)
_ID_SIZE = _PAIR.size // 2
_consume = deque(maxlen=0).extend  # runs an iterator to its end in C


_TERM = (-1).__ne__  # a word id that is a term (not a stopword)
_DOTTED = LazyPattern(r"\.[a-z0-9]")  # where a word may hold a dot ("2.7", "kv.cache"): a superset


def _add_weights(tf: dict[int, float], more: dict[int, float]) -> None:
    """``tf[t] += w`` for every ``t, w`` of ``more`` (new terms in ``more``'s order, as that loop would add
    them), with the loop run only over the terms both hold: the rest is one C-level update."""
    common = more.keys() & tf.keys()
    if not common:
        tf.update(more)
        return
    before = {t: tf[t] for t in common}
    tf.update(more)
    for t in common:
        tf[t] = before[t] + more[t]


_ONE = array("f", [1.0])
_FIRST, _SECOND, _THIRD = operator.itemgetter(0), operator.itemgetter(1), operator.itemgetter(2)


def _weights(
    docs_of_term: list[array], odd_terms: array, odd_at: array, odd_weights: array
) -> list[array]:
    """Each term's weights at its postings' positions: 1, except the postings noted (term, position,
    weight) in ``odd_terms``, ``odd_at``, ``odd_weights``."""
    out = [_ONE * len(d) for d in docs_of_term]
    _consume(map(array.__setitem__, map(out.__getitem__, odd_terms), odd_at, odd_weights))
    return out


class _AskedBy:
    """Host questions' terms, kept once per question instead of on every quote that answers it.

    A quote's entry holds the terms of the host question it answers (weight ``W_QUESTION``) and of the
    host's turn around it (``W_HOST_TURN``); written on each quote, that is the same dozen or more postings
    again on each of a question's quotes (~30% of a large bank's postings, and of its build time). Here a
    term lists the questions holding it with their weights (``offsets`` -> ``questions``, ``weights``), and a
    question its quotes in order (``doc_offsets`` -> ``docs``); a term's full postings -- its own merged
    with its questions' quotes, a weight ``float32(own + question's)`` -- are made when it is first used
    (:meth:`merged`), so scoring, membership and document frequencies see one posting list as before."""

    def __init__(
        self,
        offsets: Sequence[int],
        questions: Sequence[int],
        weights: Sequence[float],
        doc_offsets: Sequence[int],
        docs: Sequence[int],
    ) -> None:
        self.offsets, self.questions, self.weights = offsets, questions, weights
        self.doc_offsets, self.docs = doc_offsets, docs
        self.held: list[int] = []  # (built) the term of each entry of ``questions``

    @classmethod
    def gather(
        cls,
        questions: Sequence[Any],
        qterms: dict[str, dict[str, float]],
        q_docs: list[array],
        terms: list[str],
        docs_of_term: list[array],
        weights_of_term: list[array],
    ) -> _AskedBy:
        """From each question's terms and quotes (the terms have ids: the gathering gives them with the
        question's first quote; one that has none is added to ``terms`` with empty postings of its own)."""
        ids = dict(zip(terms, range(len(terms)), strict=False))
        held: list[tuple[int, int, float]] = []  # (term id, question, weight)
        for k, hq in enumerate(questions):
            if not q_docs[k]:
                continue
            c = qterms[hq.id]
            if not ids.keys() >= c.keys():
                for t in c:
                    if t not in ids:
                        ids[t] = len(terms)
                        terms.append(t)
                        docs_of_term.append(array("i"))
                        weights_of_term.append(array("f"))
            held.extend(zip(map(ids.__getitem__, c), repeat(k), c.values()))
        held.sort(key=_FIRST)  # by term (stable: then by question, as they were added)
        sizes: dict[int, int] = {}
        count(sizes, map(_FIRST, held))
        offsets = array("q", accumulate(map(sizes.get, range(len(terms)), repeat(0)), initial=0))
        doc_offsets, docs = array("q", [0]), array("i")
        for d in q_docs:
            docs.extend(d)
            doc_offsets.append(len(docs))
        self = cls(
            offsets,
            array("i", map(_SECOND, held)),
            array("d", map(_THIRD, held)),
            doc_offsets,
            docs,
        )
        self.held = list(map(_FIRST, held))
        return self

    def arrays(self) -> dict[str, Sequence]:
        return {
            "asked_offsets": self.offsets,
            "asked_questions": self.questions,
            "asked_weights": self.weights,
            "asked_doc_offsets": self.doc_offsets,
            "asked_docs": self.docs,
        }

    @classmethod
    def from_arrays(cls, arrays: Mapping[str, Sequence], n_terms: int, n_quotes: int) -> _AskedBy:
        """Read back; ValueError when the arrays do not line up with each other, the terms or the bank."""
        self = cls(
            arrays["asked_offsets"],
            arrays["asked_questions"],
            arrays["asked_weights"],
            arrays["asked_doc_offsets"],
            arrays["asked_docs"],
        )
        off, dof = self.offsets, self.doc_offsets
        if (
            len(off) != n_terms + 1
            or off[0] != 0
            or off[-1] != len(self.questions)
            or len(self.weights) != len(self.questions)
            or not all(map(operator.le, off[:-1], off[1:]))
            or not len(dof)
            or dof[0] != 0
            or dof[-1] != len(self.docs)
            or not all(map(operator.le, dof[:-1], dof[1:]))
        ):
            raise ValueError("index: host questions' postings do not line up")
        if len(self.questions) and not (
            min(self.questions) >= 0 and max(self.questions) < len(dof) - 1
        ):
            raise ValueError("index: host question out of range")
        if len(self.docs) and not (min(self.docs) >= 0 and max(self.docs) < n_quotes):
            raise ValueError("index: host question's quote out of range")
        if len(self.weights) and not (min(self.weights) > 0 and math.isfinite(sum(self.weights))):
            raise ValueError("index: host question weight out of range")
        return self

    def holds(self, tid: int) -> bool:
        return self.offsets[tid] != self.offsets[tid + 1]

    def _parts(self, tid: int) -> Iterator[tuple[Sequence[int], float]]:
        lo, hi = self.offsets[tid], self.offsets[tid + 1]
        dof, docs = self.doc_offsets, self.docs
        for k, w in zip(self.questions[lo:hi], self.weights[lo:hi], strict=True):
            yield docs[dof[k] : dof[k + 1]], w

    def merged(
        self, tid: int, docs: Sequence[int], weights: Sequence[float]
    ) -> tuple[array, array]:
        """The term's full postings: quote numbers in order, each with ``float32(own + question's)`` (a
        quote answers one question, so at most one question's weight is added to it)."""
        w_of = dict(zip(docs, weights, strict=True))
        get = w_of.get
        for part, w in self._parts(tid):
            w_of.update(
                zip(part, map(operator.add, map(get, part, repeat(0.0)), repeat(w)), strict=True)
            )
        order = sorted(w_of)
        return array("i", order), array("f", map(w_of.__getitem__, order))


PARALLEL_FROM = 20_000
SEND_TERMS = 4096  # terms whose postings the helper sends in one piece
_DOC_SIZE, _WEIGHT_SIZE = (
    array("i").itemsize,
    array("f").itemsize,
)  # quotes from which a forked process gathers the bank's second half


def _can_fork() -> bool:
    """A second process helps, and forking is safe: Linux, two cores or more, no other thread running."""
    import threading

    return (
        sys.platform == "linux"
        and (os.cpu_count() or 1) > 1
        and threading.active_count() == 1
        and hasattr(os, "fork")
    )


LOADAVG = "/proc/loadavg"  # Linux: its 4th field is "runnable/all" threads, at this instant


def _runnable() -> int | None:
    """How many threads are runnable on the machine right now, this one included; None if unknown."""
    try:
        with open(LOADAVG, "rb") as f:
            return int(f.read().split()[3].split(b"/")[0])
    except (OSError, ValueError, IndexError):
        return None


def _spare_core(looks: int = 5, apart: float = 0.004) -> bool:
    """A core is idle: fewer threads runnable than cores, this one included (the median of a few looks
    ~20 ms apart: one look can catch a short burst). On a busy machine the helper only competes with the
    build for the same cores (measured on two cores at load ~2.5: 100,000 quotes took 16 s to gather with
    the helper, 10 s without). The 1-minute load average is only used where the count is not known: it
    lags, still saying "busy" a minute after a long job ended (a benchmark's previous runs, say)."""
    import time

    cores = os.cpu_count() or 1
    seen = []
    for k in range(looks):
        now = _runnable()
        if now is None:
            break
        seen.append(now)
        if k + 1 < looks:
            time.sleep(apart)
    if seen:
        return sorted(seen)[len(seen) // 2] < cores
    try:
        return os.getloadavg()[0] < cores - 1
    except (OSError, AttributeError):  # no load average here: do not guess
        return False


def _fork_gather(
    index: QuoteIndex, lo: int, hi: int, qterms: dict[str, dict[str, float]]
) -> Callable[..., list[Any] | None] | None:
    """Gather quotes lo..hi in a forked child while this process does the rest; returns the call that
    collects the child's part (None from it when the child failed: the caller gathers that part itself;
    ``abandon=True`` stops the child instead).

    The part comes back over a pipe that only this process and its own child hold: it is data this build
    produced a moment ago, never anything read from disk or from another program. Its small pieces are
    pickled; its arrays follow as raw bytes, read straight into arrays, the postings ``SEND_TERMS`` terms at a
    time (their quote numbers, then their weights, each one read) as they are merged (unpickling the whole
    part held it twice: ~85 MB more at 100,000 quotes; a read per term was ~0.2 s of the merge). When the
    part breaks off half merged, :class:`_HelperFailed` says so and the caller gathers the whole bank."""
    import pickle
    import signal

    try:
        r, w = os.pipe()
        pid = os.fork()
    except OSError:
        return None
    if pid == 0:  # the child: gather, send, and leave without running the parent's exit handlers
        code = 1
        try:
            os.close(r)
            part = index._gather(lo, hi, qterms)
            docs, weights, seq, seq_ends = part[1:5]
            part[1:5] = [None] * 4
            lens = array("q", map(len, docs))
            with os.fdopen(w, "wb") as f:  # the small part pickled, then the arrays' raw bytes
                pickle.dump((part, len(seq), len(seq_ends)), f, protocol=pickle.HIGHEST_PROTOCOL)
                for a in (seq, seq_ends, lens):
                    f.write(memoryview(a).cast("B"))
                for at in range(
                    0, len(docs), SEND_TERMS
                ):  # a batch of terms at a time: merged as read
                    f.write(b"".join(map(bytes, docs[at : at + SEND_TERMS])))
                    f.write(b"".join(map(bytes, weights[at : at + SEND_TERMS])))
            code = 0
        finally:
            os._exit(code)
    os.close(w)

    def collect(abandon: bool = False) -> list[Any] | None:
        if abandon:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
            os.close(r)
            os.waitpid(pid, 0)
            return None
        f = os.fdopen(r, "rb")
        try:
            part, n_seq, n_ends = pickle.load(f)
            part[3], part[4] = _read_array(f, "i", n_seq), _read_array(f, "q", n_ends)
            lens = _read_array(f, "q", len(part[0]))
        except (
            Exception
        ):  # the child died or sent nothing whole: the caller gathers its part itself
            f.close()
            os.waitpid(pid, 0)
            return None

        def segments() -> Iterator[tuple[memoryview, memoryview]]:
            try:
                for at in range(0, len(lens), SEND_TERMS):
                    batch = lens[at : at + SEND_TERMS]
                    n = sum(batch)
                    docs = memoryview(_read_bytes(f, n * _DOC_SIZE))
                    weights = memoryview(_read_bytes(f, n * _WEIGHT_SIZE))
                    ends = list(accumulate(batch, initial=0))
                    for lo, hi in zip(ends, ends[1:], strict=False):
                        yield (
                            docs[lo * _DOC_SIZE : hi * _DOC_SIZE],
                            weights[lo * _WEIGHT_SIZE : hi * _WEIGHT_SIZE],
                        )
                if f.read(1):
                    raise EOFError("the helper sent more than its part")
            except Exception as exc:
                raise _HelperFailed(str(exc)) from None
            finally:
                f.close()
                _, status = os.waitpid(pid, 0)
            if status != 0:
                raise _HelperFailed(f"the helper ended with status {status}")

        part[1], part[2] = segments(), None  # read term by term while merging: never held whole
        return part

    return collect


class _HelperFailed(Exception):
    """The forked helper's part broke off while it was being merged."""


def _read_array(f: Any, typecode: str, n: int) -> array:
    """An array of n items read straight into its own memory (no bytes object in between)."""
    out = array(typecode, [0]) * n
    _read_into(f, memoryview(out).cast("B"))
    return out


def _read_bytes(f: Any, n: int) -> bytearray:
    out = bytearray(n)
    _read_into(f, memoryview(out))
    return out


def _read_into(f: Any, view: memoryview) -> None:
    at = 0
    while at < len(view):
        got = f.readinto(view[at:])
        if not got:
            raise EOFError("the helper's part ended early")
        at += got


def _from_raw(typecode: str, raw: memoryview) -> array:
    out = array(typecode)
    out.frombytes(raw)
    return out


def _segments(part: list[Any]) -> Iterator[tuple[Any, Any]]:
    """A part's postings term by term: its per-term arrays, or (``part[2]`` None) what the helper sends, as
    raw bytes (``memoryview``), read a batch of terms at a time."""
    if part[2] is None:
        yield from part[1]
    else:
        yield from zip(part[1], part[2], strict=True)


def _merge(first: list[Any], second: list[Any]) -> None:
    """Append a later part of the bank to ``first`` as if one pass had gathered both: terms keep their
    first-appearance order, a term's postings stay in quote order, and a keyword both parts saw has its
    words listed once."""
    terms, docs, weights, seq, seq_ends, lengths, said, keyword_terms, seen, _, overlap, _ = first
    ids = dict(zip(terms, range(len(terms)), strict=False))
    remap: list[
        int
    ] = []  # the second part's term ids -> ids here (a list: its items are not made anew)
    for t, (d, w) in zip(second[0], _segments(second), strict=True):
        raw = isinstance(d, memoryview)
        j = ids.get(t)
        if j is None:
            j = ids[t] = len(terms)
            terms.append(t)
            if raw:
                d, w = _from_raw("i", d), _from_raw("f", w)
            docs.append(d)
            weights.append(w)
        elif raw:
            docs[j].frombytes(d)
            weights[j].frombytes(w)
        else:
            docs[j].extend(d)
            weights[j].extend(w)
        remap.append(j)
    # the second part's words keep its own term ids (remapping 2.5 million at 100k cost ~0.18 s here, where
    # nothing runs beside it): the index maps a word pair into that part's ids instead (_pair_patterns)
    first[11] = (len(seq_ends), array("i", remap))
    base = len(seq)
    seq.extend(second[3])
    seq_ends.extend(array("q", map(base.__add__, second[4])))
    lengths.extend(second[5])
    said.extend(second[6])
    for kw, kw_words in second[8].items():
        seen.setdefault(kw, kw_words)
    keyword_terms.update(second[7])
    for mine, theirs in zip(first[9], second[9], strict=True):
        mine.extend(theirs)
    for t, c in second[10].items():
        j = remap[t]
        overlap[j] = overlap.get(j, 0) + c


class Postings(Mapping):
    """term -> (quote numbers, weighted frequencies); membership is a dict lookup.

    Two layouts: a built index keeps one pair of arrays per term (``offsets`` is None; nothing is copied
    into one block, which would double the build's peak memory); a saved index read back holds flat arrays
    sliced by ``offsets``. A term some host question holds has those questions' quotes merged into its
    own postings when first asked for (:class:`_AskedBy`; the last few thousand are kept)."""

    MERGED_KEPT = 4096

    def __init__(
        self,
        ids: dict[str, int],
        offsets: Sequence[int] | None,
        docs: Sequence,
        weights: Sequence,
        asked: _AskedBy,
    ) -> None:
        self.ids, self.offsets, self.docs, self.weights, self.asked = (
            ids,
            offsets,
            docs,
            weights,
            asked,
        )
        self._merged: dict[int, tuple[array, array]] = {}

    def segment(self, tid: int) -> tuple[Sequence[int], Sequence[float]]:
        """A term's quote numbers and weights, by term id."""
        if self.offsets is None:
            docs, weights = self.docs[tid], self.weights[tid]
        else:
            lo, hi = self.offsets[tid], self.offsets[tid + 1]
            docs, weights = self.docs[lo:hi], self.weights[lo:hi]
        if not self.asked.holds(tid):
            return docs, weights
        got = self._merged.get(tid)
        if got is None:
            if len(self._merged) >= self.MERGED_KEPT:
                self._merged.clear()
            got = self._merged[tid] = self.asked.merged(tid, docs, weights)
        return got

    def __contains__(self, term: object) -> bool:
        return term in self.ids

    def __getitem__(self, term: str) -> tuple[Sequence[int], Sequence[float]]:
        return self.segment(self.ids[term])

    def __iter__(self) -> Iterator[str]:
        return iter(self.ids)

    def __len__(self) -> int:
        return len(self.ids)


class QuoteIndex:
    """An inverted index over the quote bank (BM25F-style field weights)."""

    def __init__(self, panel: Panel, normalizer: Normalizer) -> None:
        self._common_init(panel, normalizer)
        # a host question's terms: its text, plus (weaker) the host's whole turn around it
        qterms: dict[str, dict[str, float]] = {}
        for hq in panel.questions:
            c: dict[str, float] = dict.fromkeys(normalizer.terms(hq.text), W_QUESTION)
            turn = panel.turn(hq.turn)
            if turn is not None and turn.speaker != "unknown":
                for t in set(normalizer.terms(turn.text)):
                    c[t] = max(c.get(t, 0.0), W_HOST_TURN)
            qterms[hq.id] = c
        gc_was_enabled = gc.isenabled()
        gc.disable()  # nothing built here forms a cycle; collections would only rescan the bank
        try:
            self._finish(self._gather_all(qterms), qterms)
        finally:
            if gc_was_enabled:
                gc.enable()

    def _gather_all(self, qterms: dict[str, dict[str, float]]) -> list[Any]:
        """The whole bank gathered: in two processes when it is large and a core is idle."""
        n = self.n
        helper = n >= PARALLEL_FROM and _can_fork() and _spare_core()
        second = _fork_gather(self, n // 2, n, qterms) if helper else None
        try:
            part = self._gather(0, n // 2 if second else n, qterms)
        except BaseException:  # e.g. Ctrl-C: stop the helper and reap it, leave no process behind
            if second is not None:
                second(abandon=True)
            raise
        if second is not None:
            got = second()
            if got is None:
                _merge(part, self._gather(n // 2, n, qterms))
            else:
                try:
                    _merge(part, got)
                except _HelperFailed:  # broke off half merged: gather the whole bank here
                    part = self._gather(0, n, qterms)
        return part

    def _finish(self, part: list[Any], qterms: dict[str, dict[str, float]]) -> None:
        """The gathered bank made an index: host questions' terms, lengths, document frequencies."""
        n = self.n
        (
            terms,
            docs_of_term,
            weights_of_term,
            seq,
            seq_ends,
            lengths,
            said,
            self.keyword_terms,
            kw_words,
            q_docs,
            overlap,
            second,
        ) = part
        del part
        asked = _AskedBy.gather(
            self.panel.questions, qterms, q_docs, terms, docs_of_term, weights_of_term
        )
        avg_len = (sum(lengths) / n) if n else 1.0
        norm_len = array("f", [K1 * (1 - B + B * ln / avg_len) for ln in lengths])
        df = list(
            map(len, docs_of_term)
        )  # its own quotes and its questions', the quotes in both once
        answering = list(map(len, q_docs))
        for tid, k in zip(asked.held, asked.questions, strict=True):
            df[tid] += answering[k]
        for tid, c in overlap.items():
            df[tid] -= c
        idf = array("d", [math.log(1 + (n - c + 0.5) / (c + 0.5)) for c in df])
        quotes_of = {t: c for t, c in zip(terms, map(len, docs_of_term), strict=True) if c}
        self.lexicon = self._lexicon(said, kw_words, quotes_of)
        self._set_postings(
            terms, None, docs_of_term, weights_of_term, norm_len, idf, avg_len, asked
        )
        self._set_words(seq, seq_ends, second)

    def _lexicon(
        self, said: list[str], kw_words: dict[str, list[str]], quotes_of: dict[str, int]
    ) -> Counter[str]:
        """The words of 4+ letters the talk uses (its quotes' words and its curated keywords'), for typo
        correction, in alphabetical order, each with how often the talk uses it: the quotes holding its
        term (at least 1); a stopword, which a talk uses all the time, has the bank's size."""
        word_term = self.norm.word_terms().__getitem__
        every = set(said)
        for kw in kw_words.values():
            every.update(kw)
        listed = sorted(w for w in every if len(w) >= 4 and w.isalpha())
        quotes_of[""] = self.n  # a stopword's term
        return Counter(
            dict(zip(listed, map(quotes_of.get, map(word_term, listed), repeat(1)), strict=True))
        )

    def _gather(self, lo: int, hi: int, qterms: dict[str, dict[str, float]]) -> list[Any]:
        """Quotes lo..hi: [terms in first-appearance order, per term its quote numbers and its weights
        (arrays, by term id), the quotes' words as term ids with their ends, lengths, the words said
        (for the lexicon), keyword terms, the keywords seen with their words (in order), per host question (by
        position) the quotes answering it, per term the quotes holding it in their own entry and their
        question's]. Term ids count from 0 within the part.

        Every step that touches each word or each posting is a C-level call per quote: the text is
        tokenised by one regex, its words turned into term ids by one dict (word -> term id, filled on
        first sight: stemming runs once per distinct word; its keys are the words the lexicon lists), the
        quote's term frequencies counted over those ids, and each posting's quote number appended straight
        to its term's array by ``map(array.append, ...)``. Most postings weigh 1 (a word said once): only
        the others (a word said twice, a keyword, an ``asks`` term) are noted with their weight, and each
        term's weights are made once at the end. A host question's terms are not added to each of its
        quotes: they are kept once per question (see :class:`Postings`), only its weights' sum is added to
        the quote's length. Python bytecode runs per quote, per curated keyword and per distinct word
        said more than once, never per word or posting."""
        normalizer = self.norm
        findall = word_pattern().findall
        lengths = array("d")
        said: dict[
            str, None
        ] = {}  # words of quotes with a vocabulary phrase (the others': word_ids' keys)
        keyword_terms: set[str] = set()  # unigrams of curated keywords/topics
        kw_cache: dict[str, list[int]] = {}  # keyword -> its terms' ids
        kw_words: dict[str, list[str]] = {}  # keyword -> its words, as first seen
        # term ids follow first appearance; a term not seen before gets the next id and its arrays
        docs_of_term: list[array] = []
        # the postings whose weight is not 1: their terms, positions in the terms' lists, and weights
        odd_terms, odd_at, odd_weights = array("i"), array("i"), array("d")
        new_docs = docs_of_term.append

        def new_term() -> int:
            new_docs(array("i"))
            return len(docs_of_term) - 1

        ids: defaultdict[str, int] = defaultdict(new_term)
        tid_of = ids.__getitem__
        word_term = normalizer.word_terms().__getitem__

        class WordIds(dict):
            """word -> its term's id (-1: a stopword), on first sight."""

            def __missing__(self, w: str) -> int:
                term = word_term(w)
                tid = self[w] = tid_of(term) if term else -1
                return tid

        word_ids = WordIds()
        word_id = word_ids.__getitem__
        docs_get, append = docs_of_term.__getitem__, array.append
        odd_terms_extend, odd_at_extend, odd_weights_extend = (
            odd_terms.extend,
            odd_at.extend,
            odd_weights.extend,
        )
        seq, seq_ends = (
            array("i"),
            array("q"),
        )  # each quote's own words as term ids (for word pairs)
        seq_extend, ends_append, lengths_append = seq.extend, seq_ends.append, lengths.append
        map_words, say = normalizer.map_words, said.update
        no_phrase, dotted = normalizer.phrase_heads().isdisjoint, _DOTTED.search
        # a host question by position (a repeated id: its last entry, as qterms holds it), the sum of its
        # terms' weights, and the quotes answering it
        position = {qid: k for k, qid in enumerate(q.id for q in self.panel.questions)}
        q_sum = {qid: sum(c.values()) for qid, c in qterms.items() if c}
        q_docs: list[array] = [array("i") for _ in self.panel.questions]
        q_sets: dict[str, set[int]] = {}  # question id -> its terms' ids
        overlap: dict[
            int, int
        ] = {}  # term id -> quotes holding it in their own entry and their question's
        quotes = self.quotes
        for i in range(lo, hi):
            q = quotes[i]
            text = q.text
            lowered = text.lower() if text.isascii() else fold(text)
            surface = findall(lowered)
            # no vocabulary phrase and no dotted word (most quotes): each word's own term, by id (what
            # map_words would find out, without its three calls)
            if (
                no_phrase(surface)
                and not dotted(lowered)
                or (mapped := map_words(surface)) is surface
            ):
                uni = list(filter(_TERM, map(word_id, surface)))
            else:
                uni = list(map(tid_of, filter(None, map(word_term, mapped))))
                say(dict.fromkeys(surface))
            seq_extend(uni)
            ends_append(len(seq))
            tf: dict[int, float] = dict.fromkeys(uni, 1)
            odd: list[
                int
            ] = []  # terms whose weight is not 1: words said more than once, keywords, asks
            if len(tf) != len(uni):  # a word said more than once: count them
                tf = {}
                count(tf, uni)
                odd = [t for t, c in tf.items() if c != 1]
            if q.keywords or q.topics:
                for kw in (*q.keywords, *q.topics):
                    kt = kw_cache.get(kw)
                    if kt is None:
                        terms = normalizer.terms(kw)
                        kt = kw_cache[kw] = list(map(tid_of, terms))
                        kw_words[kw] = words(kw)
                        keyword_terms.update(t for t in terms if "_" not in t)
                    for t in kt:
                        tf[t] = tf.get(t, 0) + W_KEYWORDS
                    odd += kt
            if q.asks:
                ask_terms: dict[str, float] = {}
                for a in q.asks:
                    for t in set(normalizer.terms(a)):
                        ask_terms[t] = min(ask_terms.get(t, 0.0) + W_ASKS, 2 * W_ASKS)
                more = {tid_of(t): w for t, w in ask_terms.items()}
                _add_weights(tf, more)
                odd += more
            length = sum(tf.values())
            k = position.get(q.question) if q.question else None
            if k is not None:  # the quotes answering each host question (see QuoteIndex.answering)
                q_docs[k].append(i)
                if (
                    q.question in q_sum
                ):  # its host question's terms: once per question, not on this quote
                    length += q_sum[q.question]
                    held = q_sets.get(q.question)
                    if (
                        held is None
                    ):  # the question's terms get their ids here, after the quote's own
                        held = q_sets[q.question] = set(map(tid_of, qterms[q.question]))
                    count(overlap, tf.keys() & held)
            lengths_append(length)
            if odd:  # where this quote's posting goes in each odd term's list, and its weight
                odd = dict.fromkeys(odd)
                odd_terms_extend(odd)
                odd_at_extend(map(len, map(docs_get, odd)))
                odd_weights_extend(map(tf.__getitem__, odd))
            _consume(map(append, map(docs_get, tf), repeat(i)))
        weights_of_term = _weights(docs_of_term, odd_terms, odd_at, odd_weights)
        return [
            list(ids),
            docs_of_term,
            weights_of_term,
            seq,
            seq_ends,
            lengths,
            [*word_ids, *said],
            keyword_terms,
            kw_words,
            q_docs,
            overlap,
            None,
        ]

    def _set_words(
        self, seq: Sequence[int], seq_ends: Sequence[int], second: tuple[int, array] | None = None
    ) -> None:
        """Each quote's words as term ids; ``second``: (its first quote, its ids -> the index's) of a part
        whose words keep the term ids it was gathered with (the helper's half of a large bank)."""
        self._seq, self._seq_ends = seq, seq_ends
        self._split, self._second_ids = second if second is not None else (self.n, None)
        self._to_second: dict[int, int] | None = None
        self._arrays.update(seq=seq, seq_ends=seq_ends)

    def _common_init(
        self, panel: Panel, normalizer: Normalizer, speaker_of: list[str] | None = None
    ) -> None:
        self.panel = panel
        self.norm = normalizer
        self.quotes: list[Quote] = panel.quotes
        self.n = len(self.quotes)
        self.speaker_of = speaker_of if speaker_of is not None else [q.speaker for q in self.quotes]
        self._unchecked: set[int] = (
            set()
        )  # term ids whose postings come from a file and are not checked yet
        self._last_scores: tuple[tuple[str, ...], dict[str, dict[int, float]]] | None = None
        self._speakers: list[str] | None = None
        self._question_at: dict[str, int] | None = (
            None  # host question id -> its position (the last one)
        )

    def _set_postings(
        self,
        terms: list[str],
        offsets: Sequence[int] | None,
        docs: Sequence,
        weights: Sequence,
        norm_len: Sequence[float],
        idf: Sequence[float],
        avg_len: float,
        asked: _AskedBy,
    ) -> None:
        self.terms = terms
        ids = dict(zip(terms, range(len(terms)), strict=False))
        self.postings = Postings(ids, offsets, docs, weights, asked)
        self.norm_len = norm_len
        self.avg_len = avg_len
        self.idf: dict[str, float] = dict(zip(terms, idf, strict=False))
        if (
            offsets is None
        ):  # saved as one block per kind: the per-term arrays are written one after another
            offsets = array("q", [0])
            for d in docs:
                offsets.append(offsets[-1] + len(d))
        self._arrays: dict[str, Any] = {
            "offsets": offsets,
            "docs": docs,
            "weights": weights,
            "norm_len": norm_len,
            "idf": idf,
            **asked.arrays(),
        }

    # ------------------------------------------------------------------------------------- saving

    def parts(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """The index as plain data: JSON-ready values and typed arrays (see ``ARRAY_TYPES``); ``docs`` and
        ``weights`` may be lists of arrays (one per term), to be written one after another."""
        meta = {
            "terms": self.terms,
            "lexicon": dict(self.lexicon),
            "keyword_terms": sorted(self.keyword_terms),
            "avg_len": self.avg_len,
            "n": self.n,
        }
        arrays = dict(self._arrays)
        if self._second_ids is not None:  # saved in the index's term ids throughout
            at = self._seq_ends[self._split - 1] if self._split else 0
            seq = array("i", self._seq[:at])
            seq.extend(array("i", map(self._second_ids.tolist().__getitem__, self._seq[at:])))
            arrays["seq"] = seq
        return meta, arrays

    @classmethod
    def from_parts(
        cls,
        panel: Panel,
        normalizer: Normalizer,
        meta: dict[str, Any],
        arrays: dict[str, Sequence],
        *,
        speaker_of: list[str] | None = None,
    ) -> QuoteIndex:
        """An index from :meth:`parts` (e.g. read back from a file). Raises ValueError when the parts are
        inconsistent with each other or with the panel; never trusts a length it has not checked.
        ``speaker_of``: every quote's speaker, when known without reading the quotes."""
        self = cls.__new__(cls)
        self._common_init(panel, normalizer, speaker_of)
        if len(self.speaker_of) != self.n:
            raise ValueError("index: one speaker per quote expected")
        terms, lexicon, kw = meta["terms"], meta["lexicon"], meta["keyword_terms"]
        avg_len = meta["avg_len"]
        if meta["n"] != self.n:
            raise ValueError(f"index holds {meta['n']} quotes, the panel {self.n}")
        if not (
            isinstance(terms, list)
            and all(isinstance(t, str) for t in terms)
            and isinstance(kw, list)
            and all(isinstance(t, str) for t in kw)
            and isinstance(lexicon, dict)
            and all(isinstance(c, int) and isinstance(w, str) for w, c in lexicon.items())
            and isinstance(avg_len, (int, float))
            and math.isfinite(avg_len)
            and avg_len > 0
        ):
            raise ValueError("index: malformed term lists")
        offsets, docs, weights = arrays["offsets"], arrays["docs"], arrays["weights"]
        norm_len, idf = arrays["norm_len"], arrays["idf"]
        if (
            len(offsets) != len(terms) + 1
            or len(idf) != len(terms)
            or len(norm_len) != self.n
            or len(docs) != len(weights)
            or offsets[0] != 0
            or offsets[-1] != len(docs)
            or not all(map(operator.le, offsets[:-1], offsets[1:]))
        ):
            raise ValueError("index: postings do not line up")
        if len(set(terms)) != len(terms):
            raise ValueError("index: duplicate terms")
        if self.n and not (
            min(norm_len) > 0 and math.isfinite(sum(norm_len)) and math.isfinite(sum(idf))
        ):
            raise ValueError("index: lengths out of range")
        self._unchecked = set(
            range(len(terms))
        )  # postings whose quote numbers are checked on first use
        seq, seq_ends = arrays["seq"], arrays["seq_ends"]
        if (
            len(seq_ends) != self.n
            or (self.n and seq_ends[-1] != len(seq))
            or not all(map(operator.le, seq_ends[:-1], seq_ends[1:]))
        ):
            raise ValueError("index: word sequences do not line up")
        self.lexicon = Counter(lexicon)
        self.keyword_terms = set(kw)
        asked = _AskedBy.from_arrays(arrays, len(terms), self.n)
        if len(asked.doc_offsets) != len(panel.questions) + 1:
            raise ValueError(
                "index: host questions' quotes do not line up with the panel's questions"
            )
        self._set_postings(terms, offsets, docs, weights, norm_len, idf, float(avg_len), asked)
        self._set_words(seq, seq_ends)
        return self

    def answering(self, question_id: str) -> Sequence[int]:
        """The quotes (numbers, in order) answering this host question: from the host questions' tables,
        without reading any quote (a saved large bank's quotes are decoded only when shown)."""
        if self._question_at is None:
            self._question_at = {hq.id: k for k, hq in enumerate(self.panel.questions)}
        k = self._question_at.get(question_id)
        if k is None:
            return ()
        asked = self.postings.asked
        return asked.docs[asked.doc_offsets[k] : asked.doc_offsets[k + 1]]

    # ------------------------------------------------------------------------------------- scoring

    def score(self, terms: list[str], allowed: set[str] | None = None) -> dict[int, float]:
        """BM25 scores of quotes (indices) for weighted terms; optionally only some speakers'.

        Word pairs are indexed from keywords, topics and host questions; pairs in a quote's own text are
        checked only for the best candidates (cheap, and keeps a 100k-quote index small).

        Routing asks for each panelist's quotes in turn with the same terms: the postings are walked once
        per question, accumulating each speaker's scores apart (the last question's are kept)."""
        if allowed is not None and len(allowed) == 1:
            (speaker,) = allowed
            scores = dict(self._by_speaker(terms).get(speaker, {}))
        else:
            scores = self._accumulate(terms, allowed)
        pairs = [(t, p) for t in terms if "_" in t and (p := self._pair_patterns(t)) is not None]
        if pairs and scores:
            norm_len = self.norm_len
            best = sorted(scores, key=scores.__getitem__, reverse=True)[:RERANK]
            for i in best:
                for term, pattern in pairs:
                    if self._text_has(i, pattern):
                        idf = self.pair_idf(term) * BIGRAM_BOOST
                        scores[i] += idf * (K1 + 1) * W_TEXT / (W_TEXT + norm_len[i])
        return scores

    def _postings_of(
        self, terms: list[str]
    ) -> Iterator[tuple[float, Sequence[int], Sequence[float]]]:
        """(scale, quote numbers, weights) of each indexed term, in the order given."""
        ids, segment = self.postings.ids, self.postings.segment
        for term in terms:
            tid = ids.get(term)
            if tid is None:
                continue
            docs, weights = segment(tid)
            if tid in self._unchecked:
                self._check(tid, docs)
            idf = self.idf[term] * (BIGRAM_BOOST if "_" in term else 1.0)
            yield idf * (K1 + 1), docs, weights

    def _accumulate(self, terms: list[str], allowed: set[str] | None) -> dict[int, float]:
        scores: dict[int, float] = {}
        get = scores.get
        norm_len, speaker_of = self.norm_len, self.speaker_of
        for scale, docs, weights in self._postings_of(terms):
            if allowed is None:
                for i, tf in zip(docs, weights, strict=False):
                    scores[i] = get(i, 0.0) + scale * tf / (tf + norm_len[i])
            else:
                for i, tf in zip(docs, weights, strict=False):
                    if speaker_of[i] in allowed:
                        scores[i] = get(i, 0.0) + scale * tf / (tf + norm_len[i])
        return scores

    def _by_speaker(self, terms: list[str]) -> dict[str, dict[int, float]]:
        """Every speaker's scores for these terms (each in the order a filtered walk would give)."""
        key = tuple(terms)
        if self._last_scores is not None and self._last_scores[0] == key:
            return self._last_scores[1]
        if self._speakers is None:
            self._speakers = sorted(set(self.speaker_of))
        by: dict[str, dict[int, float]] = {sp: {} for sp in self._speakers}
        norm_len, speaker_of = self.norm_len, self.speaker_of
        for scale, docs, weights in self._postings_of(terms):
            for i, tf in zip(docs, weights, strict=False):
                d = by[speaker_of[i]]
                d[i] = d.get(i, 0.0) + scale * tf / (tf + norm_len[i])
        self._last_scores = (key, by)
        return by

    def _check(self, tid: int, seg: Sequence[int]) -> None:
        """A saved index's postings are range-checked when first used (checking all 5M postings of a
        100,000-quote bank up front would cost most of a warm start; the file's checksum already guards
        against damage, this guards against a file that is well-formed but wrong)."""
        if len(seg) and (min(seg) < 0 or max(seg) >= self.n):
            raise DataError(
                "the saved index is inconsistent (quote numbers out of range); "
                "run 'panelbot cache clear'",
                str(self.panel.path),
            )
        self._unchecked.discard(tid)

    def _text_has(self, i: int, patterns: tuple[bytes | None, bytes | None]) -> bool:
        """Does quote i's own text have this word pair (two term ids, packed as the sequence stores them:
        ``patterns`` in the index's ids and in the second part's, see :meth:`_pair_patterns`)? A byte search
        over the quote's stored word ids: no tokenising, no objects per word."""
        pattern = patterns[0] if i < self._split else patterns[1]
        if pattern is None:
            return False
        ends = self._seq_ends
        raw = self._seq[ends[i - 1] if i else 0 : ends[i]].tobytes()
        pos = raw.find(pattern)
        while pos > 0 and pos % _ID_SIZE:  # found across two ids: look further
            pos = raw.find(pattern, pos + 1)
        return pos >= 0

    def _pair_patterns(self, term: str) -> tuple[bytes | None, bytes | None] | None:
        """A word pair's two term ids packed as a quote's words are stored, in the index's ids and in the
        ids of a second part gathered apart (None there when that part never saw one of them)."""
        a, _, b = term.partition("_")
        ids = self.postings.ids
        if a not in ids or b not in ids:
            return None
        ga, gb = ids[a], ids[b]
        if self._second_ids is None:
            return _PAIR.pack(ga, gb), None
        if self._to_second is None:
            self._to_second = dict(zip(self._second_ids, range(len(self._second_ids)), strict=True))
        la, lb = self._to_second.get(ga), self._to_second.get(gb)
        return _PAIR.pack(ga, gb), (
            _PAIR.pack(la, lb) if la is not None and lb is not None else None
        )

    def pair_idf(self, token: str) -> float:
        if token in self.idf:
            return self.idf[token]
        a, _, b = token.partition("_")
        return (self.idf.get(a, 0.0) + self.idf.get(b, 0.0)) / 2

    def max_score(self, terms: list[str]) -> float:
        """An upper bound for normalising scores to 0-100: every term matched well."""
        total = 0.0
        for term in terms:
            if "_" in term:
                total += 2 * self.pair_idf(term) * BIGRAM_BOOST * (K1 + 1)  # index + text
            elif term in self.idf:
                total += self.idf[term] * (K1 + 1)
        return total
