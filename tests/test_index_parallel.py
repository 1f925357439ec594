"""A large bank's index is gathered in two processes: the result must be exactly the one-pass index (terms in
the same order, the same postings, word sequences, lengths, lexicon counts and order, keyword terms)."""

from __future__ import annotations

import os

import pytest

from panelbot.panel import load_panel
from panelbot.panel.loader import find_panel_dir
from panelbot.records import replace
from panelbot.retrieval import index as index_mod
from panelbot.retrieval.index import QuoteIndex
from panelbot.retrieval.router import Router
from panelbot.retrieval.vocabulary import Normalizer


def _plain(ix: QuoteIndex) -> tuple:
    meta, arrays = ix.parts()
    return (
        meta["terms"],
        list(meta["lexicon"].items()),
        meta["keyword_terms"],
        meta["avg_len"],
        meta["n"],
        {k: [list(a) for a in v] if isinstance(v, list) else list(v) for k, v in arrays.items()},
    )


SPARE_CORE = index_mod._spare_core  # the real check (the fixture below stands in for it)


@pytest.fixture(autouse=True)
def _idle_machine(monkeypatch) -> None:
    """The helper is used only when a core is idle; these tests are about what it builds."""
    monkeypatch.setattr(index_mod, "_spare_core", lambda: True)


@pytest.fixture(scope="module")
def bank():
    panel = load_panel(find_panel_dir("minimax-m3"))
    # three copies of the shipped bank: keywords, topics, asks and host questions recur in both halves
    quotes = [replace(q, id=f"{q.id}-{k}") for k in range(3) for q in panel.quotes]
    return replace(panel, quotes=quotes)


@pytest.mark.skipif(
    not index_mod._can_fork(), reason="the two-process build runs only where forking is safe"
)
@pytest.mark.parametrize("split_from", [2, 45, 100])
def test_two_processes_build_the_one_pass_index(bank, monkeypatch, split_from) -> None:
    monkeypatch.setattr(index_mod, "PARALLEL_FROM", 10**9)
    one = QuoteIndex(bank, Normalizer(bank.vocabulary))
    monkeypatch.setattr(index_mod, "PARALLEL_FROM", split_from)
    forks = []
    real_fork = os.fork
    monkeypatch.setattr(os, "fork", lambda: forks.append(1) or real_fork())
    two = QuoteIndex(bank, Normalizer(bank.vocabulary))
    assert forks  # the second half really came from another process
    assert _plain(two) == _plain(one)
    q = "How do you deal with a growing KV cache?"
    assert Router(bank, index=two).route(q).to_dict() == Router(bank, index=one).route(q).to_dict()


def test_a_failed_child_part_is_gathered_here(bank, monkeypatch) -> None:
    monkeypatch.setattr(index_mod, "PARALLEL_FROM", 10**9)
    one = QuoteIndex(bank, Normalizer(bank.vocabulary))
    monkeypatch.setattr(index_mod, "PARALLEL_FROM", 2)
    monkeypatch.setattr(index_mod, "_can_fork", lambda: True)
    monkeypatch.setattr(index_mod, "_fork_gather", lambda *a: lambda: None)
    assert _plain(QuoteIndex(bank, Normalizer(bank.vocabulary))) == _plain(one)


@pytest.mark.skipif(
    not index_mod._can_fork(), reason="the two-process build runs only where forking is safe"
)
def test_an_interrupted_build_leaves_no_helper_behind(bank, monkeypatch) -> None:
    monkeypatch.setattr(index_mod, "PARALLEL_FROM", 2)
    pids = []
    real_fork, real_gather = os.fork, QuoteIndex._gather

    def fork() -> int:
        pid = real_fork()
        if pid:
            pids.append(pid)
        return pid

    def gather(self, lo, hi, qterms):
        if lo == 0:  # this process's half (the child gathers the other)
            raise KeyboardInterrupt
        return real_gather(self, lo, hi, qterms)

    monkeypatch.setattr(os, "fork", fork)
    monkeypatch.setattr(QuoteIndex, "_gather", gather)
    with pytest.raises(KeyboardInterrupt):
        QuoteIndex(bank, Normalizer(bank.vocabulary))
    assert pids
    with pytest.raises(ChildProcessError):  # already reaped
        os.waitpid(pids[0], os.WNOHANG)


@pytest.mark.skipif(
    not index_mod._can_fork(), reason="the two-process build runs only where forking is safe"
)
def test_a_part_that_breaks_off_while_merged_is_rebuilt_here(bank, monkeypatch) -> None:
    """The helper's postings arrive term by term while they are merged: when they break off (here the helper
    sends one weight too few per term), the whole bank is gathered in this process instead."""
    monkeypatch.setattr(index_mod, "PARALLEL_FROM", 10**9)
    one = QuoteIndex(bank, Normalizer(bank.vocabulary))
    monkeypatch.setattr(index_mod, "PARALLEL_FROM", 2)
    real_gather = QuoteIndex._gather
    calls = []

    def gather(self, lo, hi, qterms):
        calls.append((lo, hi))
        part = real_gather(self, lo, hi, qterms)
        if lo > 0:  # only the helper gathers a part that does not start at the first quote
            part[2] = [w[:-1] for w in part[2]]
        return part

    monkeypatch.setattr(QuoteIndex, "_gather", gather)
    two = QuoteIndex(bank, Normalizer(bank.vocabulary))
    assert calls == [(0, len(bank.quotes) // 2), (0, len(bank.quotes))]  # its half, then all of it
    assert _plain(two) == _plain(one)


def test_no_helper_on_a_busy_machine(bank, monkeypatch) -> None:
    monkeypatch.setattr(index_mod, "PARALLEL_FROM", 2)
    monkeypatch.setattr(index_mod, "_spare_core", lambda: False)
    monkeypatch.setattr(os, "fork", lambda: pytest.fail("forked on a busy machine"))
    one = QuoteIndex(bank, Normalizer(bank.vocabulary))
    monkeypatch.setattr(index_mod, "PARALLEL_FROM", 10**9)
    assert _plain(one) == _plain(QuoteIndex(bank, Normalizer(bank.vocabulary)))


def test_spare_core_counts_the_threads_runnable_now(monkeypatch, tmp_path) -> None:
    """Fewer threads runnable than cores (this one included) in most looks: a core is idle."""
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    loadavg = tmp_path / "loadavg"
    monkeypatch.setattr(index_mod, "LOADAVG", str(loadavg))
    monkeypatch.setattr(os, "getloadavg", lambda: (2.5, 2.5, 2.5))  # lagging: a long job just ended
    loadavg.write_text("2.50 2.40 2.10 1/230 4242\n")
    assert SPARE_CORE(apart=0)
    loadavg.write_text("0.10 0.20 0.30 3/230 4242\n")  # another job running now
    assert not SPARE_CORE(apart=0)
    looks = iter([1, 3, 1, 1, 3])  # a short burst in one look or two: the median decides
    monkeypatch.setattr(index_mod, "_runnable", lambda: next(looks))
    assert SPARE_CORE(apart=0)


def test_spare_core_falls_back_to_the_load_average(monkeypatch, tmp_path) -> None:
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    monkeypatch.setattr(index_mod, "LOADAVG", str(tmp_path / "missing"))
    monkeypatch.setattr(os, "getloadavg", lambda: (0.4, 0.0, 0.0))
    assert SPARE_CORE(apart=0)
    monkeypatch.setattr(os, "getloadavg", lambda: (2.5, 0.0, 0.0))
    assert not SPARE_CORE(apart=0)
    (tmp_path / "garbled").write_text("not a load line")
    monkeypatch.setattr(index_mod, "LOADAVG", str(tmp_path / "garbled"))
    assert not SPARE_CORE(apart=0)


@pytest.mark.skipif(not os.path.exists("/proc/loadavg"), reason="Linux only")
def test_the_real_count_is_read() -> None:
    assert (index_mod._runnable() or 0) >= 1  # this test's own thread is running


@pytest.mark.skipif(
    not index_mod._can_fork(), reason="the two-process build runs only where forking is safe"
)
def test_word_pairs_are_found_alike_in_the_helpers_half(bank, monkeypatch) -> None:
    """The helper's half keeps the term ids it was gathered with: a word pair is looked up in its ids there,
    and every quote has exactly the pairs it has in the one-pass index (and a saved copy says the same)."""
    import random

    monkeypatch.setattr(index_mod, "PARALLEL_FROM", 10**9)
    one = QuoteIndex(bank, Normalizer(bank.vocabulary))
    monkeypatch.setattr(index_mod, "PARALLEL_FROM", 2)
    two = QuoteIndex(bank, Normalizer(bank.vocabulary))
    assert two._split == len(bank.quotes) // 2 and two._second_ids is not None
    ends = one._seq_ends
    said = set()
    for i in range(one.n):
        ids = one._seq[ends[i - 1] if i else 0 : ends[i]]
        said.update(f"{one.terms[a]}_{one.terms[b]}" for a, b in zip(ids, ids[1:], strict=False))
    rng = random.Random(5)
    pairs = rng.sample(sorted(said), 200) + [
        f"{rng.choice(one.terms)}_{rng.choice(one.terms)}" for _ in range(50)
    ]
    for term in pairs:
        p1, p2 = one._pair_patterns(term), two._pair_patterns(term)
        for i in range(one.n):
            assert (p1 is not None and one._text_has(i, p1)) == (
                p2 is not None and two._text_has(i, p2)
            ), term
    assert _plain(two) == _plain(one)  # saved in the index's ids throughout
