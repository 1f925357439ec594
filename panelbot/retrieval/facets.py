"""Word lists about what a question asks, beyond its subject.

``specifics.txt``: facts a question can ask for that a talk may never have given (a price, a context length,
a hardware model...), each with a pattern for the question and one for a quote that states it.
``model_names.txt``: model families and products (gpt, llama, qwen...): neutral words in a question.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from panelbot.text import LazyPattern

DATA_DIR = Path(__file__).resolve().parent.parent / "data"


def _lines(name: str) -> list[str]:
    text = (DATA_DIR / name).read_text(encoding="utf-8")
    return [s for line in text.splitlines() if (s := line.strip()) and not s.startswith("#")]


@cache
def model_names() -> frozenset[str]:
    """Model family and product names, lower case."""
    return frozenset(_lines("model_names.txt"))


@dataclass(frozen=True)
class Facet:
    """A specific fact a question can ask for (a price, a context length) and how an answer states it."""

    label: str
    asks: re.Pattern[str]
    states: LazyPattern  # compiled when first needed: only for a question that asks for this facet


@cache
def specific_facets() -> tuple[Facet, ...]:
    """The facets of ``specifics.txt`` in file order: ``label | question regex | evidence regex``."""
    out = []
    for line in _lines("specifics.txt"):
        label, asks, states = (part.strip() for part in line.split(" | "))
        out.append(Facet(label, re.compile(asks, re.IGNORECASE), LazyPattern(states, re.IGNORECASE)))
    return tuple(out)
