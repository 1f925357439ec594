"""Word lists about what a question asks, beyond its subject.

``specifics.txt``: facts a question can ask for that a talk may never have given (a price, a context length,
a hardware model...), each with a pattern for the question and one for a quote that states it.
``model_names.txt``: model families and products (gpt, llama, qwen...): neutral words in a question.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from panelbot.records import record
from panelbot.text import LazyPattern

DATA_DIR = Path(__file__).resolve().parent.parent / "data"


def _lines(name: str) -> list[str]:
    text = (DATA_DIR / name).read_text(encoding="utf-8")
    return [s for line in text.splitlines() if (s := line.strip()) and not s.startswith("#")]


@cache
def model_names() -> frozenset[str]:
    """Model family and product names, lower case."""
    return frozenset(_lines("model_names.txt"))


@record(frozen=True)
class Facet:
    """A specific fact a question can ask for (a price, a context length) and how an answer states it."""

    label: str
    asks: LazyPattern  # compiled when first needed: only for a question holding one of the triggers
    states: LazyPattern  # compiled when first needed: only for a question that asks for this facet
    triggers: tuple[str, ...] = ()  # every match of ``asks`` contains one of these (casefolded)

    def asked_in(self, question: str) -> bool:
        """Whether the question asks for this facet (the triggers first: no regex work for most questions)."""
        folded = question.casefold()
        return any(t in folded for t in self.triggers) and self.asks.search(question) is not None


@cache
def specific_facets() -> tuple[Facet, ...]:
    """The facets of ``specifics.txt`` in file order: ``label | question regex | evidence regex | triggers``."""
    out = []
    for line in _lines("specifics.txt"):
        label, asks, states, triggers = (part.strip() for part in line.split(" | "))
        out.append(
            Facet(
                label,
                LazyPattern(asks, re.IGNORECASE),
                LazyPattern(states, re.IGNORECASE),
                tuple(t.strip().casefold() for t in triggers.split(",") if t.strip()),
            )
        )
    return tuple(out)
