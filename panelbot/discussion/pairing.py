"""When two quotes (of two panelists) are about the same thing, and whether they say the same about it.

Both are measured, not guessed from a talk's words:

* **about the same thing** -- each quote answers questions (the host's question it answers and, in a curated
  bank, the questions a curator wrote for it, ``asks``). Ask the router one quote's questions of the other
  panelist's quotes: when the other quote scores well (the router's 0-100 blend of its words and its meaning
  in the shipped static sentence model), the two answer the same questions. The weaker direction, the
  stronger one, how near the top of the other's quotes it ranks, whether both answer the very same host
  question and how close the two quotes' own words are in meaning (a word shared in two senses finds the
  other quote by its words, not by what it means) are weighed by a logistic model fitted on labelled pairs
  (``scripts/fit_discussion.py``). The weaker direction and the meaning are each taken as the lower of the
  plain measure and the same with the names and numbers masked (:func:`without_names`): two quotes that
  only share "2.7" or a company's name find each other by it, not by what they say of it.
* **agree or differ** -- the same, with each quote's own *words* as the question (and the cosine of the
  two quotes' words): two answers that find each
  other by what they say make the same point; two answers to one question that do not, answer it differently.
  General English cues weigh in: agreement ("agree", "right", "same") and contrast ("but", "not", "instead").

The thresholds and weights live in ``panelbot/data/tuning.json`` (section ``discussion``).

A pair's features do not depend on them: they are measured once and kept in the cache directory
(``pairs-KEY.json``), keyed by the panel's files, its quotes, the retrieval settings and the code and data
that measure them, so the whole-talk map on a warm cache judges every pair without a search.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Sequence
from contextlib import suppress
from dataclasses import astuple, dataclass
from functools import cache
from pathlib import Path

from panelbot import paths
from panelbot.panel import Quote
from panelbot.retrieval.encoder import shipped_model
from panelbot.retrieval.meaning import embedded
from panelbot.retrieval.router import Router
from panelbot.retrieval.semantic import Vector, cosine
from panelbot.retrieval.tuning import DiscussionTuning, discussion_tuning
from panelbot.text import words

# general English, written for no talk: words that concede or agree, and words that contrast or negate
AGREEMENT_CUES = frozenset(
    [
        "agree",
        "agreed",
        "agrees",
        "right",
        "exactly",
        "same",
        "too",
        "also",
        "both",
        "likewise",
        "true",
        "indeed",
        "absolutely",
    ]
)
CONTRAST_CUES = frozenset(
    [
        "but",
        "however",
        "although",
        "though",
        "whereas",
        "instead",
        "rather",
        "not",
        "no",
        "never",
        "nor",
        "disagree",
        "wrong",
        "problem",
        "unlike",
        "different",
        "differently",
        "except",
        "yet",
    ]
)
SEARCH_DEPTH = 50  # how many of the other panelist's quotes a question ranks
# general English number words (a number spelt out is masked as its digits are)
_NUMBER_WORDS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand "
    "million billion first second third fourth fifth"
)
NUMBER_WORDS = frozenset(_NUMBER_WORDS.split())
_TOKEN = re.compile(r"[^\W_]+(?:[.'\u2019][^\W_]+)*")
_SENTENCE_OPENS = re.compile(r"(?:^|[.!?:;]\s+|[\"\u201c(\[]\s*)$")
_NOT_NAMES = frozenset(["I", "I'm", "I'd", "I'll", "I've"])


def names_and_numbers(text: str) -> set[str]:
    """The words of ``text`` that name or count (lowercased): any with a digit in it ("2.7", "m3", "10%"),
    a number word, and a capitalised word where no sentence opens ("MiniMax", "Together", "GPUs")."""
    out = set()
    for m in _TOKEN.finditer(text):
        w = m.group(0)
        low = w.lower()
        counts = any(c.isdigit() for c in w) or low in NUMBER_WORDS
        names = w[0].isupper() and w not in _NOT_NAMES
        if counts or (names and not _SENTENCE_OPENS.search(text[: m.start()])):
            out.add(low)
    return out


def without_names(text: str) -> str:
    """``text``'s words less its names and numbers (:func:`names_and_numbers`), every occurrence of them."""
    masked = names_and_numbers(text)
    return " ".join(w for w in _TOKEN.findall(text) if w.lower() not in masked)


@dataclass(frozen=True)
class PairFeatures:
    """What the pairing and the verdict weigh for one pair of quotes."""

    asked_low: (
        float  # the weaker direction: the other quote's score for one quote's questions (0-100)
    )
    asked_high: float  # the stronger direction
    asked_rank: (
        float  # mean reciprocal rank of each among the other panelist's quotes, for those questions
    )
    same_question: float  # 1.0 when both answer the very same host question
    said_low: float  # the weaker direction with each quote's own words as the question
    said_high: float
    cues: float  # agreement cues minus contrast cues, per hundred words of both quotes
    meaning: float  # cosine of the two quotes' words in the shipped static sentence model
    masked_low: float  # asked_low with the names and numbers masked from the questions
    masked_meaning: float  # meaning with the names and numbers masked from both quotes

    def pairing(self) -> tuple[float, ...]:
        return (
            math.log1p(min(self.asked_low, self.masked_low)),
            math.log1p(self.asked_high),
            self.asked_rank,
            self.same_question,
            min(self.meaning, self.masked_meaning),
        )

    def verdict(self) -> tuple[float, ...]:
        return (
            math.log1p(self.said_low),
            math.log1p(self.said_high) - math.log1p(self.asked_high),
            self.cues,
            self.meaning,
        )


def _masked(queries: Sequence[str]) -> list[str]:
    """The queries less their names and numbers (:func:`without_names`), those with words left."""
    return [m for q in queries if (m := without_names(q))]


def _logistic(bias: float, weights: Sequence[float], xs: Sequence[float]) -> float:
    z = bias + sum(w * x for w, x in zip(weights, xs, strict=True))
    return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, z))))


def cue_balance(*texts: str) -> float:
    """Agreement cues minus contrast cues per hundred words of the texts."""
    tokens = [w for t in texts for w in words(t)]
    if not tokens:
        return 0.0
    agree = sum(t in AGREEMENT_CUES for t in tokens)
    contrast = sum(t in CONTRAST_CUES for t in tokens)
    return 100.0 * (agree - contrast) / len(tokens)


@dataclass(frozen=True)
class PairVerdict:
    """The measured reading of one pair: about the same thing (``paired``) and, when it is, the verdict."""

    a: Quote
    b: Quote
    features: PairFeatures
    same: float  # probability the two are about the same thing
    agree: float  # probability they say the same about it (meaningful when paired)
    paired: bool
    verdict: str  # "agree", "differ", "both" (paired, no verdict measured) or "apart" (not paired)


class Pairing:
    """Measures pairs of quotes of one panel through its router (queries are cached per pairing)."""

    def __init__(self, router: Router, tune: DiscussionTuning | None = None) -> None:
        self.router = router
        self.tune = tune or discussion_tuning()
        self._hits: dict[tuple[str, str], dict[str, tuple[float, int]]] = {}
        self._vectors: dict[str, Vector] = {}
        self._masked_vectors: dict[str, Vector] = {}
        # the measured pairs, read from the cache on first use, and what was worked out from them
        self._measured: dict[tuple[str, str], PairFeatures] | None = None
        self._results: dict[str, object] = {}
        self._unsaved = False
        self._cache_path: Path | None = None

    def questions_of(self, quote: Quote) -> list[str]:
        """What a quote answers: the curator's asks and the host's question; its own words when neither."""
        host = self.router.panel.question(quote.question)
        asked = [*quote.asks, *([host.text] if host else [])]
        return list(dict.fromkeys(a for a in asked if a.strip())) or [quote.text]

    def _ranked(self, query: str, speaker: str) -> dict[str, tuple[float, int]]:
        key = (query, speaker)
        got = self._hits.get(key)
        if got is None:
            hits = self.router.search(query, k=SEARCH_DEPTH, speakers={speaker}, explain=False)
            got = {sq.quote.id: (sq.score, rank) for rank, sq in enumerate(hits, 1)}
            self._hits[key] = got
        return got

    def _found(self, queries: Sequence[str], other: Quote) -> tuple[float, int]:
        """The best score and rank ``other`` gets among its speaker's quotes over the queries."""
        score, rank = 0.0, 0
        for q in queries:
            s, r = self._ranked(q, other.speaker).get(other.id, (0.0, 0))
            score = max(score, s)
            if r and (not rank or r < rank):
                rank = r
        return score, rank

    def features(self, a: Quote, b: Quote) -> PairFeatures:
        """The pair's features: measured once (kept in the cache directory by :meth:`save`)."""
        if b.id < a.id:  # the features are symmetric: one measurement for either order
            a, b = b, a
        measured = self._saved_features()
        got = measured.get((a.id, b.id))
        if got is None:
            got = measured[(a.id, b.id)] = self.measure(a, b)
            self._unsaved = True
        return got

    def _saved_features(self) -> dict[tuple[str, str], PairFeatures]:
        if self._measured is None:
            self._cache_path = _cache_path(self.router)
            self._measured, self._results = (
                _read_saved(self._cache_path) if self._cache_path else ({}, {})
            )
        return self._measured

    def _tune_key(self, name: str) -> str:
        return f"{name}:{hashlib.sha256(repr(astuple(self.tune)).encode()).hexdigest()[:16]}"

    def remembered(self, name: str) -> object | None:
        """What was worked out from the pairs under this tuning and kept with them (``remember``), or None."""
        self._saved_features()
        return self._results.get(self._tune_key(name))

    def remember(self, name: str, value: object) -> None:
        """Keep ``value`` (JSON-ready, worked out from the pairs under this tuning) with them."""
        self._saved_features()
        self._results[self._tune_key(name)] = value
        self._unsaved = True

    def save(self) -> None:
        """Keep the features measured so far in the cache directory (atomically; a read-only or full cache
        directory only costs the next map its time)."""
        if not self._unsaved or self._cache_path is None or self._measured is None:
            return
        rows = {f"{a}\x00{b}": list(astuple(f)) for (a, b), f in self._measured.items()}
        saved = {"features": rows, "results": self._results}
        paths.write_cache_text(self._cache_path, json.dumps(saved))
        self._unsaved = False

    def measure(self, a: Quote, b: Quote) -> PairFeatures:
        """The pair's features, measured through the router (no cache)."""
        s_ab, r_ab = self._found(self.questions_of(a), b)
        s_ba, r_ba = self._found(self.questions_of(b), a)
        t_ab, _ = self._found([a.text], b)
        t_ba, _ = self._found([b.text], a)
        m_ab, _ = self._found(_masked(self.questions_of(a)), b)
        m_ba, _ = self._found(_masked(self.questions_of(b)), a)
        rank = ((1.0 / r_ab if r_ab else 0.0) + (1.0 / r_ba if r_ba else 0.0)) / 2.0
        same_q = 1.0 if a.question is not None and a.question == b.question else 0.0
        return PairFeatures(
            min(s_ab, s_ba),
            max(s_ab, s_ba),
            rank,
            same_q,
            min(t_ab, t_ba),
            max(t_ab, t_ba),
            cue_balance(a.text, b.text),
            cosine(self._vector(a), self._vector(b)),
            min(m_ab, m_ba),
            cosine(self._masked_vector(a), self._masked_vector(b)),
        )

    def fits_both(self, name: str, a: Quote, b: Quote) -> float:
        """How well ``name`` describes both quotes: the lower of its closeness in meaning to each."""
        v = shipped_model().embed(name)
        return min(cosine(v, self._vector(a)), cosine(v, self._vector(b)))

    def _vector(self, quote: Quote) -> Vector:
        """A quote's own words embedded: every quote of the bank at once, on first use, through the saved
        rows (a cache file; the shipped panel's ship with panelbot)."""
        if not self._vectors:
            quotes = list(self.router.index.quotes)
            table = embedded([q.text for q in quotes])
            self._vectors = {q.id: table.row(i) for i, q in enumerate(quotes)}
        got = self._vectors.get(quote.id)
        if got is None:
            got = self._vectors[quote.id] = shipped_model().embed(quote.text)
        return got

    def _masked_vector(self, quote: Quote) -> Vector:
        """A quote's words less its names and numbers, embedded (every quote of the bank at once)."""
        if not self._masked_vectors:
            quotes = list(self.router.index.quotes)
            table = embedded([without_names(q.text) for q in quotes])
            self._masked_vectors = {q.id: table.row(i) for i, q in enumerate(quotes)}
        got = self._masked_vectors.get(quote.id)
        if got is None:
            got = self._masked_vectors[quote.id] = shipped_model().embed(without_names(quote.text))
        return got

    def judge(self, a: Quote, b: Quote) -> PairVerdict:
        f = self.features(a, b)
        t = self.tune
        same = _logistic(t.pair_bias, t.pair_weights, f.pairing())
        agree = _logistic(t.verdict_bias, t.verdict_weights, f.verdict())
        paired = same >= t.pair_threshold
        if not paired:
            verdict = "apart"
        elif agree >= t.agree_threshold:
            verdict = "agree"
        elif agree <= t.differ_threshold:
            verdict = "differ"
        else:
            verdict = "both"
        return PairVerdict(a, b, f, same, agree, paired, verdict)


# ------------------------------------------------------------------------------- the measured pairs, cached

_PACKAGE = Path(__file__).resolve().parents[1]
# what measures a pair: the retrieval code and data, this module and the text helpers it uses
_MEASURING = ("retrieval", "data", "discussion/pairing.py", "text.py")
MAX_CACHED_BYTES = 1 << 26  # a larger file is not ours


@cache
def _code_print() -> bytes:
    """The measuring code and data as installed: each file's name, size and modification time (read once
    per process, as ``retrieval.cache`` reads its code fingerprint: not once per talk)."""
    h = hashlib.sha256()
    for part in _MEASURING:
        root = _PACKAGE / part
        files = sorted(root.rglob("*")) if root.is_dir() else [root]
        for f in files:
            with suppress(OSError):
                st = f.stat()
                if f.is_file() and f.suffix != ".pyc":
                    h.update(
                        f"{f.relative_to(_PACKAGE)}\0{st.st_size}\0{st.st_mtime_ns}\0".encode()
                    )
    return h.digest()


def _cache_path(router: Router) -> Path | None:
    """Where a panel's measured pairs are kept: None for a panel not read from a directory."""
    from panelbot.retrieval.cache import panel_hash

    directory = getattr(router.panel, "path", None)
    if directory is None or not (Path(directory) / "quotes.yaml").is_file():
        return None
    h = hashlib.sha256(_code_print())
    h.update(panel_hash(Path(directory)).encode())
    h.update(repr(router.settings).encode("utf-8", "surrogatepass"))
    for q in router.index.quotes:  # a panel changed in memory after loading is not its files
        h.update(
            repr((q.id, q.speaker, q.text, q.question, q.asks)).encode("utf-8", "surrogatepass")
        )
    return paths.index_cache_dir() / f"pairs-{h.hexdigest()[:32]}.json"


def _read_saved(path: Path) -> tuple[dict[tuple[str, str], PairFeatures], dict[str, object]]:
    """The saved features and results, or none when the file is missing, too large or not as written."""
    try:
        if path.stat().st_size > MAX_CACHED_BYTES:
            return {}, {}
        data = paths.read_cache_bytes(path)  # a regular file only: never waits on a FIFO put there
        if data is None:
            return {}, {}
        saved = json.loads(data)
        out = {}
        for key, values in saved["features"].items():
            a, _, b = key.partition("\x00")
            out[(a, b)] = PairFeatures(*(float(v) for v in values))
        results = saved.get("results") or {}
        return out, dict(results) if isinstance(results, dict) else {}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}, {}
