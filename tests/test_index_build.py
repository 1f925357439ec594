"""The index build is fast because it is clever; these tests hold it to a plain, obviously right build.

``reference_parts`` below is the index written the simple way (one loop per quote, one per term, Python
lists and dicts, no batching, no typed arrays until the end). Whatever the real build does to be fast, its
result must be exactly this one: the same terms in the same order, the same postings and weights, the same
word sequences, lengths, lexicon (counts and order) and keyword terms, and so the same routing.
"""

from __future__ import annotations

import math
import random
from array import array
from collections import Counter
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from panelbot.panel import HostQuestion, Panel, Persona, Quote, Turn, load_panel
from panelbot.panel.loader import find_panel_dir
from panelbot.records import replace
from panelbot.retrieval import index as index_mod
from panelbot.retrieval.index import QuoteIndex
from panelbot.retrieval.router import Router
from panelbot.retrieval.vocabulary import Normalizer
from panelbot.text import words


def _f32(x: float) -> float:
    return array("f", [x])[0]


def reference_parts(panel: Panel, norm: Normalizer) -> tuple:
    """The index of ``panel``, built the plain way (the definition the fast build must meet).

    A quote's entry: its words (1 each time said), its keywords and topics (``W_KEYWORDS`` each), the
    questions in a user's words it answers (``asks``), each term's weight rounded to float32; then the terms
    of the host question it answers and of the host's turn around it, added to that (and rounded again).
    Term ids in first-appearance order (a host question's terms appear with the first quote answering it,
    after that quote's own); its length counts every weight."""
    m = index_mod
    qterms: dict[str, dict[str, float]] = {}
    for hq in panel.questions:
        c = dict.fromkeys(norm.terms(hq.text), m.W_QUESTION)
        turn = panel.turn(hq.turn)
        if turn is not None and turn.speaker != "unknown":
            for t in set(norm.terms(turn.text)):
                c[t] = max(c.get(t, 0.0), m.W_HOST_TURN)
        qterms[hq.id] = c
    ids: dict[str, int] = {}
    own: dict[str, dict[int, float]] = {}
    answering: dict[str, list[int]] = {}
    seq: list[int] = []
    seq_ends: list[int] = []
    lengths: list[float] = []
    said: set[str] = set()
    keyword_terms: set[str] = set()
    seen_keywords: set[str] = set()
    for i, q in enumerate(panel.quotes):
        surface = words(q.text)
        said.update(surface)
        uni = norm.terms_of_words(surface, pairs=False)
        for t in uni:
            if t not in ids:
                ids[t] = len(ids)
            seq.append(ids[t])
        seq_ends.append(len(seq))
        tf: dict[str, float] = {}
        for t in uni:
            tf[t] = tf.get(t, 0) + 1
        for kw in (*q.keywords, *q.topics):
            kt = norm.terms(kw)
            if kw not in seen_keywords:
                seen_keywords.add(kw)
                said.update(words(kw))
                keyword_terms.update(t for t in kt if "_" not in t)
            for t in kt:
                tf[t] = tf.get(t, 0) + m.W_KEYWORDS
        ask_terms: dict[str, float] = {}
        for a in q.asks:
            for t in set(norm.terms(a)):
                ask_terms[t] = min(ask_terms.get(t, 0.0) + m.W_ASKS, 2 * m.W_ASKS)
        for t, w in ask_terms.items():
            tf[t] = tf.get(t, 0) + w
        length = sum(tf.values())
        for t, w in tf.items():
            if t not in ids:
                ids[t] = len(ids)
            own.setdefault(t, {})[i] = _f32(w)
        if qterms.get(q.question):
            length += sum(qterms[q.question].values())
            answering.setdefault(q.question, []).append(i)
            for t in qterms[q.question]:
                if t not in ids:
                    ids[t] = len(ids)
        lengths.append(length)
    last = {hq.id: k for k, hq in enumerate(panel.questions)}
    asked: dict[str, dict[int, float]] = {}
    for k, hq in enumerate(panel.questions):
        if last[hq.id] != k or hq.id not in answering:
            continue
        for t, w in qterms[hq.id].items():
            if t not in ids:
                ids[t] = len(ids)
            for i in answering[hq.id]:
                asked.setdefault(t, {})[i] = w
    postings: dict[str, list[tuple[int, float]]] = {}
    for t in ids:
        mine, theirs = own.get(t, {}), asked.get(t, {})
        postings[t] = [
            (i, _f32(mine.get(i, 0.0) + theirs[i]) if i in theirs else mine[i])
            for i in sorted({*mine, *theirs})
        ]
    n = len(panel.quotes)
    avg_len = sum(lengths) / n
    terms = list(ids)
    # the lexicon: words of 4+ letters, alphabetical, each with how many quotes hold its term in their
    # own entry (at least 1; a stopword: the bank's size)
    lexicon = Counter()
    for w in sorted(said):
        if len(w) >= 4 and w.isalpha():
            term = norm.word_terms()[w]
            lexicon[w] = max(1, len(own.get(term, ()))) if term else n
    return (
        terms,
        list(lexicon.items()),
        sorted(keyword_terms),
        avg_len,
        n,
        {
            "docs": [[d for d, _ in postings[t]] for t in terms],
            "weights": [[w for _, w in postings[t]] for t in terms],
            "norm_len": list(array("f", [m.K1 * (1 - m.B + m.B * ln / avg_len) for ln in lengths])),
            "idf": [
                math.log(1 + (n - len(postings[t]) + 0.5) / (len(postings[t]) + 0.5)) for t in terms
            ],
            "seq": seq,
            "seq_ends": seq_ends,
        },
    )


def built_parts(ix: QuoteIndex) -> tuple:
    """What a build produced, in the reference's shape: each term's full postings, as scoring sees them."""
    meta, arrays = ix.parts()
    segments = [ix.postings.segment(tid) for tid in range(len(meta["terms"]))]
    return (
        meta["terms"],
        list(meta["lexicon"].items()),
        meta["keyword_terms"],
        meta["avg_len"],
        meta["n"],
        {
            "docs": [list(d) for d, _ in segments],
            "weights": [list(w) for _, w in segments],
            **{k: list(arrays[k]) for k in ("norm_len", "idf", "seq", "seq_ends")},
        },
    )


def assert_same_as_reference(panel: Panel) -> QuoteIndex:
    norm = Normalizer(panel.vocabulary)
    ix = QuoteIndex(panel, norm)
    got, want = built_parts(ix), reference_parts(panel, Normalizer(panel.vocabulary))
    for name, g, w in zip(
        ("terms", "lexicon", "keyword_terms", "avg_len", "n"), got[:5], want[:5], strict=True
    ):
        assert g == w, name
    for k in want[5]:
        assert got[5][k] == want[5][k], k
    return ix


def test_shipped_panel_builds_the_reference_index(shipped_panel) -> None:
    ix = assert_same_as_reference(shipped_panel)
    q = "How do you deal with a growing KV cache?"
    assert (
        Router(shipped_panel, index=ix).route(q).to_dict()
        == Router(shipped_panel).route(q).to_dict()
    )


def _random_panel(rng: random.Random, n: int, base: Panel) -> Panel:
    """A bank mixing the shipped panel's words, its vocabulary phrases, number words, dotted tokens,
    apostrophes, accents and stopwords; keywords, topics, asks, host questions and turns recur."""
    pool = [w for q in base.quotes for w in q.text.split()][:3000]
    pool += [p for c, v in base.vocabulary.items() for p in (c, *v)]
    pool += [
        "three",
        "ten",
        "v3.5.1",
        "kv.cache",
        "don't",
        "Café",
        "naïve",
        "the",
        "a",
        "x",
        "2.7",
        "it's",
        "GPU's",
        "state-of-the-art",
        "e.g.",
        "—",
        "1,000",
        "million",
    ]

    def text(k: int) -> str:
        return " ".join(rng.choice(pool) for _ in range(k))

    turns = [
        Turn(i, rng.choice(["host", "unknown", "ada"]), text(rng.randint(3, 30))) for i in range(12)
    ]
    questions = [
        HostQuestion(f"q{i}", text(rng.randint(2, 12)), rng.choice([None, *range(12)]))
        for i in range(15)
    ]
    kws = [text(rng.randint(1, 3)) for _ in range(40)]
    quotes = [
        Quote(
            f"x-{i}",
            rng.choice(["ada", "ben"]),
            text(rng.randint(1, 60)),
            question=rng.choice([None, *(q.id for q in questions)]),
            keywords=tuple(rng.sample(kws, rng.randint(0, 4))),
            topics=tuple(rng.sample(kws, rng.randint(0, 2))),
            asks=tuple(text(rng.randint(2, 9)) for _ in range(rng.choice([0, 0, 1, 3]))),
        )
        for i in range(n)
    ]
    people = {s: Persona(s, s.title()) for s in ("ada", "ben")}
    return Panel(
        "random",
        "Random",
        Path("."),
        "curated",
        Persona("host", "Host"),
        people,
        quotes,
        questions,
        turns,
        vocabulary=dict(base.vocabulary),
        topics=("kv cache",),
    )


def test_random_banks_build_the_reference_index(shipped_panel) -> None:
    for seed in range(3):
        assert_same_as_reference(_random_panel(random.Random(seed), 400, shipped_panel))


def test_a_large_bank_builds_the_reference_index(shipped_panel, monkeypatch) -> None:
    """Past every batching threshold of the fast build (flushes, a second process where one is used)."""
    monkeypatch.setattr(index_mod, "FLUSH", 97, raising=False)
    monkeypatch.setattr(index_mod, "PARALLEL_FROM", 500, raising=False)
    monkeypatch.setattr(index_mod, "_spare_core", lambda: True, raising=False)
    assert_same_as_reference(_random_panel(random.Random(99), 1500, shipped_panel))


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.data())
def test_any_bank_builds_the_reference_index(shipped_panel, data) -> None:
    seed = data.draw(st.integers(0, 2**32 - 1))
    n = data.draw(st.integers(1, 30))
    assert_same_as_reference(_random_panel(random.Random(seed), n, shipped_panel))


def test_three_copies_of_the_shipped_bank(shipped_panel) -> None:
    """Keywords, topics, asks and host questions recur many times over."""
    quotes = [replace(q, id=f"{q.id}-{k}") for k in range(3) for q in shipped_panel.quotes]
    assert_same_as_reference(replace(shipped_panel, quotes=quotes))


def test_reference_matches_a_real_load(tmp_path) -> None:
    """The panel loaded from its files (not only built in memory) gives the reference index too."""
    assert_same_as_reference(load_panel(find_panel_dir("minimax-m3")))
