"""The specifics a question can ask for (``panelbot/data/specifics.txt``): each facet's triggers are a cheap
necessary condition for its question pattern, so checking them first never changes which facet is asked."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from panelbot.retrieval.facets import specific_facets

FACETS = specific_facets()


def test_every_facet_has_triggers() -> None:
    assert len(FACETS) >= 8
    for f in FACETS:
        assert f.triggers, f.label
        assert all(t == t.casefold() and t.strip() == t for t in f.triggers), f.label


@pytest.mark.parametrize("facet", FACETS, ids=[f.label for f in FACETS])
@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(data=st.data())
def test_a_question_the_pattern_matches_holds_a_trigger(facet, data) -> None:
    """Strings built to match the question pattern (hypothesis reads the regex) always pass the triggers."""
    pattern = re.compile(facet.asks.pattern, re.IGNORECASE)
    text = data.draw(st.from_regex(pattern))
    assert pattern.search(text)
    assert facet.asked_in(text), (facet.label, text)


QUESTIONS = [
    ("How much does it cost to serve M3?", "a price"),
    ("What's the context window of M3?", "a context length"),
    ("Which GPUs do you run on?", "a hardware model"),
    ("How many parameters does M3 have?", "a parameter count"),
    ("How many tokens per second does it do?", "a speed figure"),
    ("When will M3 be released?", "a release date"),
    ("What score did it get on SWE-bench?", "a benchmark score"),
    ("How many people work on RL?", "a count"),
    ("How do you deal with a growing KV cache?", None),
    ("Why did MiniMax open source the model?", None),
]


@pytest.mark.parametrize(("question", "label"), QUESTIONS)
def test_asked_facet(question: str, label: str | None) -> None:
    asked = next((f.label for f in FACETS if f.asked_in(question)), None)
    assert asked == label
    # the same as running every pattern, as before the triggers
    assert asked == next(
        (f.label for f in FACETS if re.search(f.asks.pattern, question, re.I)), None
    )
