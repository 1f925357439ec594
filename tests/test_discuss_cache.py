"""The measured pairs kept in the cache directory: a second map (a new router and pairing, as a new process has)
reads the pairs and the map back without a search and gives the same map; another tuning works the map out
again from the kept pairs; a file that is not as written is measured afresh."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from panelbot.discussion.pairing import Pairing
from panelbot.discussion.stage import discussion_map
from panelbot.panel import load_panel
from panelbot.retrieval.router import Router
from panelbot.retrieval.tuning import discussion_tuning

SHIPPED = Path(__file__).resolve().parents[1] / "persona_data" / "minimax-m3"


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PANELBOT_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def _searches(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    calls: list[str] = []
    original = Router.search

    def counted(self, query, k=5, speakers=None, **kw):  # type: ignore[no-untyped-def]
        calls.append(query)
        return original(self, query, k, speakers, **kw)

    monkeypatch.setattr(Router, "search", counted)
    return calls


def _fresh() -> tuple[Router, Pairing]:
    router = Router(load_panel(SHIPPED))
    return router, Pairing(router)


def test_a_second_map_reads_the_pairs_back_without_a_search(cache, monkeypatch) -> None:
    searches = _searches(monkeypatch)
    first = discussion_map(*_fresh())
    assert first and searches and list(cache.rglob("pairs-*.json"))
    searches.clear()
    router, pairing = _fresh()
    again = discussion_map(router, pairing)
    assert searches == []
    assert [e.to_dict() for e in again] == [e.to_dict() for e in first]
    # a pair of the map is judged from the kept features, in either order
    point = first[0].points[0]
    assert pairing.judge(point.b, point.a).verdict == point.verdict and searches == []


def test_another_tuning_works_the_map_out_again_from_the_kept_pairs(cache, monkeypatch) -> None:
    discussion_map(*_fresh())
    searches = _searches(monkeypatch)
    router, _ = _fresh()
    agreeing = Pairing(router, replace(discussion_tuning(), agree_threshold=0.0))
    entries = discussion_map(router, agreeing)
    assert entries and all(p.verdict == "agree" for e in entries for p in e.points)
    assert not any(
        q in searches for q in [q.text for q in router.panel.quotes]
    )  # no pair re-measured


def test_a_cache_file_not_as_written_is_measured_afresh(cache, monkeypatch) -> None:
    first = discussion_map(*_fresh())
    for f in cache.rglob("pairs-*.json"):
        f.write_text('{"features": {"x": [1, 2]}}', encoding="utf-8")
    searches = _searches(monkeypatch)
    again = discussion_map(*_fresh())
    assert searches and [e.to_dict() for e in again] == [e.to_dict() for e in first]
