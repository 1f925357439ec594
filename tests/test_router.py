"""Routing and retrieval on the shipped panel (panelbot.retrieval.router)."""

from __future__ import annotations

from functools import cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from panelbot.retrieval.router import Router

PROPS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _check_result(res, question: str) -> None:
    assert res.abstained != bool(res.speakers)  # abstained XOR someone answers
    if res.abstained:
        assert res.quotes == [] and res.speakers == []
        assert res.suggestions
    else:
        assert res.quotes
        assert {sq.quote.speaker for sq in res.quotes} <= set(res.speakers)
        scores = [sq.score for sq in res.quotes]
        assert all(0 <= s <= 100 for s in scores)
    assert res.reason
    d = res.to_dict()
    assert list(d) == ["question", "speakers", "abstained", "quotes", "reason"]


# ----------------------------------------------------------------------------------------------- addressed


@pytest.mark.parametrize(
    "question, speakers",
    [
        ("Dan, what do you think about open source?", ["dan"]),
        ("@olive how do you serve models on GPUs?", ["olive"]),  # Dan's subject, but Olive is asked
        ("Olive, what do you think about GPU kernels?", ["olive"]),
        ("@dan what about open source", ["dan"]),
    ],
)
def test_addressed_by_name_wins(router: Router, question: str, speakers: list[str]) -> None:
    res = router.route(question)
    assert res.speakers == speakers
    assert "name" in res.reason
    assert all(sq.quote.speaker == speakers[0] for sq in res.quotes)
    _check_result(res, question)


@pytest.mark.parametrize(
    "question",
    ["ask both: what about open source?", "What do you both think about open source?",
     "Dan and Olive, what will change in three years?"],
)
def test_both(router: Router, question: str) -> None:
    res = router.route(question)
    assert sorted(res.speakers) == ["dan", "olive"]
    assert {sq.quote.speaker for sq in res.quotes} == {"dan", "olive"}
    _check_result(res, question)


def test_addressed_detection(router: Router) -> None:
    assert router.addressed("Dan, hi") == (["dan"], False)
    assert router.addressed("@olive what now") == (["olive"], False)
    assert router.addressed("ask both of them") == ([], True)
    assert router.addressed("Olive and Dan") == (["olive", "dan"], False)
    assert router.addressed("is olive oil healthy?") == ([], False)
    assert router.addressed("what about olive trees") == ([], False)
    assert router.addressed("Danger zone") == ([], False)  # a name inside a word is not a name


def test_addressed_in_scope_question_is_not_declined_as_off_topic(router: Router) -> None:
    res = router.route("Dan, what do you think about reward hacking?")
    assert not res.abstained
    # Dan never spoke to it: the one who did answers, and the reason says so
    assert res.speakers == ["olive"]
    assert "Dan didn't speak to this" in res.reason


# ----------------------------------------------------------------------------------------------- expertise, typos


@pytest.mark.parametrize(
    "question, speaker",
    [
        ("sparce atention kernals", "dan"),
        ("which GPU kernels matter most for inference speed?", "dan"),
        ("How do you deal with a KV cache that keeps growing?", "dan"),
        ("How do you train a multimodal model from scratch?", "olive"),
        ("how do you evaluate long horizon tasks", "olive"),
        ("reinforcment lerning environments", "olive"),
    ],
)
def test_expertise_and_typos_route_to_the_right_panelist(router: Router, question: str, speaker: str) -> None:
    res = router.route(question)
    assert res.speakers[:1] == [speaker], res.reason
    assert res.quotes[0].quote.speaker == speaker
    _check_result(res, question)


def test_typo_query_finds_the_same_quotes_as_the_correct_one(router: Router) -> None:
    typo = [sq.quote.id for sq in router.route("sparce atention kernals").quotes]
    right = [sq.quote.id for sq in router.route("sparse attention kernels").quotes]
    assert typo[0] == right[0]


# ----------------------------------------------------------------------------------------------- abstention


@pytest.mark.parametrize(
    "question",
    [
        "best pizza in Naples?",
        "how do I make strawberry jam",
        "is olive oil healthy?",
        "what do you think about olive trees?",
        "what's the weather tomorrow",
        "who won the football game",
        "recommend a good novel",
        "",
        "   ",
    ],
)
def test_off_topic_abstains_with_suggestions(router: Router, question: str) -> None:
    res = router.route(question)
    assert res.abstained and res.speakers == [] and res.quotes == []
    assert "off-topic" in res.reason
    assert len(res.suggestions) >= 3
    _check_result(res, question)


def test_olive_oil_does_not_address_olive(router: Router) -> None:
    res = router.route("olive oil and the kv cache")
    assert res.addressed == []
    assert res.speakers == ["dan"]


def test_decline_offers_covered_topics(shipped_panel, router: Router) -> None:
    from panelbot.answer.compose import decline_text, format_route

    res = router.route("best pizza in Naples?")
    text = decline_text(shipped_panel, res)
    assert "KV cache" in text and "open source" in text
    assert format_route(shipped_panel, res, width=80).startswith("That's not something")


# ----------------------------------------------------------------------------------------------- quotes


def test_quotes_best_first_with_scores_and_reasons(router: Router) -> None:
    res = router.route("which GPU kernels matter most for inference speed?")
    scores = [sq.score for sq in res.quotes]
    assert scores == sorted(scores, reverse=True)
    assert all(0 < s <= 100 for s in scores)
    assert all(sq.reason.strip() for sq in res.quotes)
    assert len(res.quotes) <= 3


def test_search_is_plain_lookup(router: Router) -> None:
    hits = router.search("sparse attention", 7)
    assert 1 <= len(hits) <= 7
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert all(h.reason for h in hits)
    assert "sparse attention" in hits[0].quote.text.lower()
    only = router.search("open source", 5, {"olive"})
    assert only and all(h.quote.speaker == "olive" for h in only)
    # search does not abstain: an off-topic word that the panel happens to use still finds quotes
    assert router.search("best", 3)
    assert router.search("", 3) == [] and router.search("zzzz qqqq", 3) == []


@pytest.mark.parametrize("target", ["olive", "dan"])
def test_target_selection(router: Router, target: str) -> None:
    res = router.route("what about open source", target)
    assert res.speakers == [target]
    assert res.quotes and all(sq.quote.speaker == target for sq in res.quotes)
    assert "target" in res.reason


def test_target_both_and_bad_target(router: Router) -> None:
    res = router.route("what about open source", "both")
    assert sorted(res.speakers) == ["dan", "olive"]
    with pytest.raises(ValueError):
        router.route("what about open source", "carol")


def test_other_panel_routes_without_dan_or_olive(fixtures_dir) -> None:
    import tempfile
    from pathlib import Path

    from panelbot.ingest.draft import build_draft, write_draft
    from panelbot.panel import load_panel

    caps = (fixtures_dir / "storage_panel_captions.txt").read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "storage"
        write_draft(build_draft(caps, "storage"), caps, out)
        r = Router(load_panel(out))
    assert r.route("Priya, what will change in the next five years?").speakers == ["priya"]
    assert r.route("@marcus what will change in the next five years?").speakers == ["marcus"]
    assert sorted(r.route("both of you: what changes in five years?").speakers) == ["marcus", "priya"]
    assert r.route("erasure coding vs triple replication").speakers[:1] == ["priya"]
    assert r.route("Dan, what about the KV cache?").abstained


# ----------------------------------------------------------------------------------------------- properties

_q = st.one_of(
    st.text(max_size=300),
    st.lists(st.sampled_from(["Dan,", "@olive", "both", "kv", "cache", "olive oil", "?", ">>", "\x1b[2J",
                              "\x00", "\u202e", "sparce", "reinforcment", "jam", "pizza", "1e309", "\ufffd"]),
             max_size=40).map(" ".join),
    st.binary(max_size=300).map(lambda b: b.decode("utf-8", errors="replace")),
)


@PROPS
@given(_q, st.sampled_from(["auto", "both", "dan", "olive"]))
def test_route_never_crashes_and_is_consistent(router: Router, question: str, target: str) -> None:
    res = router.route(question, target)
    _check_result(res, question)
    if not res.abstained and target in ("dan", "olive"):
        assert res.speakers == [target]


@PROPS
@given(_q, st.integers(1, 20))
def test_search_never_crashes(router: Router, query: str, k: int) -> None:
    hits = router.search(query, k)
    assert len(hits) <= k
    assert all(0 <= h.score <= 100 for h in hits)


def test_route_on_huge_input(router: Router, shipped_captions: str) -> None:
    res = router.route(shipped_captions[:200_000])
    _check_result(res, "")


@cache
def _shipped_normaliser():
    from panelbot.panel import load_panel
    from panelbot.retrieval.vocabulary import Normalizer

    return Normalizer(load_panel("minimax-m3").vocabulary)


def test_normaliser_restored_from_plain_data_maps_every_phrase_alike() -> None:
    from panelbot.retrieval.vocabulary import Normalizer

    original = _shipped_normaliser()
    restored = Normalizer.from_state(original.state())
    for phrase in original.state()["mapping"]:
        for text in (phrase, f"so {phrase} grows", f"{phrase}.x and {phrase}"):
            a, b = {}, {}
            assert restored.normalise(text, None, a) == original.normalise(text, None, b) and a == b
            assert restored.terms(text) == original.terms(text)


@given(st.text(max_size=200))
@settings(max_examples=150, deadline=None)
def test_normaliser_restored_from_plain_data_maps_alike(text: str) -> None:
    """A saved index restores the normaliser from plain data (no thesaurus read, nothing compiled): the
    restored one must map every text exactly as the original does, phrases included."""
    from panelbot.retrieval.vocabulary import Normalizer

    original = _shipped_normaliser()
    restored = Normalizer.from_state(original.state())
    assert restored.terms(text) == original.terms(text)
    a, b = {}, {}
    assert restored.normalise(text, None, a) == original.normalise(text, None, b) and a == b
