"""The quote index, held to its definition: BM25 with field weights, written here the plain way.

``reference_scores`` below is the definition: a quote's entry is its words (1 each time said), its keywords
and topics (``W_KEYWORDS`` each), the questions in a user's words it answers (``W_ASKS`` per question saying
the term, at most twice), plus the terms of the host question it answers (``W_QUESTION``) or of the host's
turn around it (``W_HOST_TURN``, the larger of the two); its length is the sum of all of those. Whatever the
index does to find postings (SQLite FTS5), its scores must be these, its term lists and lexicon too, on the
shipped talk, random banks and a bank read back from its saved file.
"""

from __future__ import annotations

import math
import random
import shutil
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from panelbot.panel import HostQuestion, Panel, Persona, Quote, Turn
from panelbot.panel.loader import find_panel_dir
from panelbot.records import replace
from panelbot.retrieval import cache
from panelbot.retrieval import index as index_mod
from panelbot.retrieval.index import QuoteIndex
from panelbot.retrieval.router import Router
from panelbot.retrieval.vocabulary import Normalizer
from panelbot.text import words


def reference_entries(panel: Panel, norm: Normalizer) -> tuple[list[dict[str, float]], list[float]]:
    """Every quote's weighted term frequencies and its length, the plain way."""
    m = index_mod
    asked: dict[str, dict[str, float]] = {}
    for hq in panel.questions:
        c = dict.fromkeys(norm.terms(hq.text), m.W_QUESTION)
        turn = panel.turn(hq.turn)
        if turn is not None and turn.speaker != "unknown":
            for t in set(norm.terms(turn.text)):
                c[t] = max(c.get(t, 0.0), m.W_HOST_TURN)
        asked[hq.id] = c
    entries, lengths = [], []
    for q in panel.quotes:
        tf: dict[str, float] = {}
        for t in norm.terms_of_words(words(q.text), pairs=False):
            tf[t] = tf.get(t, 0.0) + m.W_TEXT
        for kw in (*q.keywords, *q.topics):
            for t in norm.terms(kw):
                tf[t] = tf.get(t, 0.0) + m.W_KEYWORDS
        asks: Counter[str] = Counter()
        for a in q.asks:
            asks.update(set(norm.terms(a)))
        for t, c in asks.items():
            tf[t] = tf.get(t, 0.0) + m.W_ASKS * min(c, 2)
        length = sum(tf.values())
        for t, w in asked.get(q.question or "", {}).items():
            tf[t] = tf.get(t, 0.0) + w
            length += w
        entries.append(tf)
        lengths.append(length)
    return entries, lengths


def reference_scores(panel: Panel, norm: Normalizer, terms: list[str]) -> dict[int, float]:
    """BM25 of each quote for the terms (a word pair of the curated fields boosted), the plain way."""
    m = index_mod
    entries, lengths = reference_entries(panel, norm)
    n = len(entries)
    avg = sum(lengths) / n
    scores: dict[int, float] = {}
    for t in terms:
        holding = [i for i, e in enumerate(entries) if t in e]
        if not holding:
            continue
        idf = math.log(1 + (n - len(holding) + 0.5) / (len(holding) + 0.5))
        boost = m.BIGRAM_BOOST if "_" in t else 1.0
        for i in holding:
            tf, norm_len = entries[i][t], m.K1 * (1 - m.B + m.B * lengths[i] / avg)
            scores[i] = scores.get(i, 0.0) + idf * boost * (m.K1 + 1) * tf / (tf + norm_len)
    return scores


def _sample_terms(panel: Panel, norm: Normalizer, rng: random.Random) -> list[list[str]]:
    entries, _ = reference_entries(panel, norm)
    every = sorted({t for e in entries for t in e})
    lists = [[t] for t in rng.sample(every, min(40, len(every)))]
    lists += [rng.sample(every, min(6, len(every))) for _ in range(10)]
    return [*lists, ["no-such-term"], []]


def assert_scores_as_defined(panel: Panel, index: QuoteIndex | None = None) -> QuoteIndex:
    norm = Normalizer(panel.vocabulary)
    ix = index if index is not None else QuoteIndex(panel, norm)
    rng = random.Random(len(panel.quotes))
    speakers = sorted({q.speaker for q in panel.quotes})
    for terms in _sample_terms(panel, norm, rng):
        plain = [t for t in terms if "_" not in t]  # (the own-words pair check is the router's)
        want = reference_scores(panel, norm, plain)
        got = ix.score(plain)
        assert got.keys() == want.keys(), plain
        assert all(math.isclose(got[i], want[i], rel_tol=1e-9) for i in want), plain
        for sp in speakers:
            mine = ix.score(plain, {sp})
            assert mine == {i: s for i, s in got.items() if panel.quotes[i].speaker == sp}
    entries, _ = reference_entries(panel, norm)
    for t in {t for e in entries[:50] for t in e}:
        docs, weights = ix.postings.get(t)
        assert list(docs) == [i for i, e in enumerate(entries) if t in e], t
        assert all(
            math.isclose(w, entries[i][t], rel_tol=1e-9) for i, w in zip(docs, weights, strict=True)
        )
    return ix


def test_the_shipped_panel_scores_as_defined(shipped_panel) -> None:
    ix = assert_scores_as_defined(shipped_panel)
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


def test_random_banks_score_as_defined(shipped_panel) -> None:
    for seed in range(3):
        assert_scores_as_defined(_random_panel(random.Random(seed), 300, shipped_panel))


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.data())
def test_any_bank_scores_as_defined(shipped_panel, data) -> None:
    seed = data.draw(st.integers(0, 2**32 - 1))
    n = data.draw(st.integers(1, 30))
    assert_scores_as_defined(_random_panel(random.Random(seed), n, shipped_panel))


def test_three_copies_of_the_shipped_bank(shipped_panel) -> None:
    """Keywords, topics, asks and host questions recur many times over."""
    quotes = [replace(q, id=f"{q.id}-{k}") for k in range(3) for q in shipped_panel.quotes]
    assert_scores_as_defined(replace(shipped_panel, quotes=quotes))


def test_a_saved_index_scores_as_defined(cache_dir: Path) -> None:
    d = find_panel_dir("minimax-m3")
    cache.open_indexed(d)
    again = cache.open_indexed(d)
    assert again.source == "cache"
    built = cache.open_indexed(d, use_cache=False)
    assert_scores_as_defined(built.panel, again.index)
    assert again.index.lexicon == built.index.lexicon
    assert again.index.keyword_terms == built.index.keyword_terms


def test_the_lexicon_lists_the_talks_words_with_their_quote_counts(shipped_panel) -> None:
    """Typo correction's word list: every word of 4+ letters the quotes and their keywords say, in
    alphabetical order, with how many quotes hold its term (a stopword: all of them)."""
    norm = Normalizer(shipped_panel.vocabulary)
    ix = QuoteIndex(shipped_panel, norm)
    said = set()
    for q in shipped_panel.quotes:
        said.update(words(q.text))
        for kw in (*q.keywords, *q.topics):
            said.update(words(kw))
    listed = sorted(w for w in said if len(w) >= 4 and w.isalpha())
    assert list(ix.lexicon) == listed
    entries, _ = reference_entries(replace(shipped_panel, questions=[]), norm)
    for w in listed[:200]:
        term = norm.word_terms()[w]
        own = sum(1 for q, e in zip(shipped_panel.quotes, entries, strict=True) if term in e)
        assert ix.lexicon[w] == (own or 1 if term else len(shipped_panel.quotes)), w


def test_a_term_only_a_host_question_says_reaches_its_quotes(shipped_panel) -> None:
    ix = QuoteIndex(shipped_panel, Normalizer(shipped_panel.vocabulary))
    said = {
        t
        for q in shipped_panel.quotes
        for t in ix.norm.terms(" ".join((q.text, *q.keywords, *q.topics, *q.asks)))
    }
    found = 0
    for hq in shipped_panel.questions:
        answering = [i for i, q in enumerate(shipped_panel.quotes) if q.question == hq.id]
        assert ix.answering(hq.id) == answering
        for t in ix.norm.terms(hq.text):
            if t in said or not answering:
                continue
            docs, weights = ix.postings.get(t)
            assert set(answering) <= set(docs)  # every quote answering it holds the term
            assert all(w > 0 for w in weights)
            found += 1
    assert found  # the shipped talk has such terms (else this test tests nothing)


@pytest.mark.parametrize("term", ['"', "a b", "kv OR cache", "NEAR(a b)", "*", "x:y", "'"])
def test_a_term_is_never_read_as_a_query(shipped_panel, term: str) -> None:
    """Whatever a term holds, it is looked up as one term (never parsed as FTS5 query syntax)."""
    ix = QuoteIndex(shipped_panel, Normalizer(shipped_panel.vocabulary))
    assert term not in ix.postings and ix.score([term]) == {} and ix.max_score([term]) == 0.0


def test_follow_ups_read_only_the_quotes_of_the_host_questions_they_look_at(
    cache_dir: Path, tmp_path: Path
) -> None:
    """On a saved bank, suggesting the host's next questions makes the quotes answering those questions
    only (it made every quote: 2 s at 50,000), and finds what a scan of every quote finds."""
    import json

    import yaml

    from panelbot.conversation import followups
    from panelbot.conversation.turns import ConversationTurn
    from panelbot.retrieval.router import Router

    src = find_panel_dir("minimax-m3")
    d = tmp_path / "big"
    shutil.copytree(src, d)
    quotes = yaml.safe_load((src / "quotes.yaml").read_text(encoding="utf-8"))
    many = [{**q, "id": f"{q['id']}-{k}"} for k in range(12) for q in quotes]
    (d / "quotes.yaml").write_text(json.dumps(many), encoding="utf-8")
    assert cache.open_indexed(d).source == "built"
    opened = cache.open_indexed(d)
    assert opened.source == "cache"
    router = Router(opened.panel, index=opened.index)
    saved = opened.panel.quotes
    last = ConversationTurn("kv cache?", ["dan"], ["dan-22-0"])
    got = followups._next_host_questions(router, last, {"dan-22-0"})
    made = [q for q in many if saved.position(q["id"]) is not None]
    assert len(made) < len(many) // 4  # only the questions looked at were read
    scanned = type(
        "Scan", (), {"panel": opened.panel, "index": None}
    )()  # a router without the tables
    assert [q.id for q in got] == [
        q.id for q in followups._next_host_questions(scanned, last, {"dan-22-0"})
    ]
    for hq in opened.panel.questions:
        assert followups._answering(router, hq.id) == followups._answering(scanned, hq.id)
