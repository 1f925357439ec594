"""Host questions' terms are kept once per question (not on each quote answering it) and merged into a
term's postings when it is used: what scoring sees is each quote's whole entry, built or read back, and a
saved file whose question tables do not line up is never trusted."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from panelbot.panel import load_panel
from panelbot.panel.loader import find_panel_dir
from panelbot.retrieval import cache
from panelbot.retrieval.index import QuoteIndex
from panelbot.retrieval.vocabulary import Normalizer

LIBRARY = Path(__file__).resolve().parent / "fixtures" / "library"


def _all_postings(ix: QuoteIndex) -> dict[str, tuple[list[int], list[float]]]:
    return {t: (list(d), list(w)) for t in ix.terms for d, w in [ix.postings[t]]}


def test_a_term_only_a_host_question_says_reaches_its_quotes() -> None:
    panel = load_panel(find_panel_dir("minimax-m3"))
    ix = QuoteIndex(panel, Normalizer(panel.vocabulary))
    said = {
        t
        for q in panel.quotes
        for t in ix.norm.terms(" ".join((q.text, *q.keywords, *q.topics, *q.asks)))
    }
    found = 0
    for hq in panel.questions:
        answering = [i for i, q in enumerate(panel.quotes) if q.question == hq.id]
        for t in ix.norm.terms(hq.text):
            if t in said or not answering:
                continue
            docs, weights = ix.postings[t]
            assert set(answering) <= set(docs)  # every quote answering it holds the term
            assert all(w > 0 for w in weights)
            found += 1
    assert found  # the shipped talk has such terms (else this test tests nothing)


def test_read_back_gives_the_same_postings(cache_dir: Path) -> None:
    d = find_panel_dir("minimax-m3")
    built = cache.open_indexed(d, use_cache=False)
    path = cache.cache_path(d)
    key = cache.cache_key(d)
    cache.write_index(path, key, built.panel, built.index.norm, built.index)
    again = cache.read_index(path, key, d)
    assert again is not None and again.source == "cache"
    assert _all_postings(again.index) == _all_postings(built.index)
    assert list(again.index.idf.items()) == list(built.index.idf.items())


@pytest.mark.parametrize(
    ("name", "at", "value"),
    [
        ("asked_questions", 0, 10**6),  # a question past the table
        ("asked_questions", 0, -1),
        ("asked_docs", 0, 10**6),  # a quote past the bank
        ("asked_offsets", 1, 10**6),  # offsets past the table
        ("asked_doc_offsets", -1, 0),  # the last offset short of the quotes listed
        ("asked_weights", 0, -0.7),
        ("asked_weights", 0, float("inf")),
    ],
)
def test_question_tables_that_do_not_line_up_are_rejected(
    cache_dir: Path, tmp_path: Path, name: str, at: int, value: float
) -> None:
    panel_dir = tmp_path / "gardens"
    shutil.copytree(LIBRARY / "gardens", panel_dir)
    opened = cache.open_indexed(panel_dir)
    assert opened.source == "built"
    table = opened.index._arrays[name]
    assert len(table), name  # the fixture has host questions whose terms are kept this way
    table[at] = value
    cache.write_index(
        cache.cache_path(panel_dir),
        cache.cache_key(panel_dir),
        opened.panel,
        opened.index.norm,
        opened.index,
    )
    again = cache.open_indexed(panel_dir)
    assert again.source == "built"
    assert again.note and "inconsistent" in again.note
    assert cache.open_indexed(panel_dir).source == "cache"  # and the rebuilt file is sound


def test_follow_ups_read_only_the_quotes_of_the_host_questions_they_look_at(
    cache_dir: Path, tmp_path: Path
) -> None:
    """On a saved bank, suggesting the host's next questions decodes the quotes answering those questions
    only (it decoded every quote: 2 s at 50,000), and finds what a scan of every quote finds."""
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
    lazy = opened.panel.quotes
    last = ConversationTurn("kv cache?", ["dan"], ["dan-22-0"])
    got = followups._next_host_questions(router, last, {"dan-22-0"})
    assert len(lazy._where) < len(many) // 4  # only the questions looked at were read
    scanned = type(
        "Scan", (), {"panel": opened.panel, "index": None}
    )()  # a router without the tables
    assert [q.id for q in got] == [
        q.id for q in followups._next_host_questions(scanned, last, {"dan-22-0"})
    ]
    for hq in opened.panel.questions:
        assert followups._answering(router, hq.id) == followups._answering(scanned, hq.id)
