"""Message kinds by meaning: a message's nearest example in a labelled bank of general follow-up messages
(``panelbot/data/message_kinds.yaml``) in the shipped static sentence model
(:mod:`panelbot.retrieval.semantic`). The kind counts when the similarity reaches the fitted floor
(``Tuning.message_kind_floor``, fitted by ``scripts/fit_message_kinds.py`` on the dev conversation sets);
below it a message is read by its words alone (``panelbot.conversation.kinds``)."""

from __future__ import annotations

import contextlib
import weakref
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from panelbot.errors import DataError
from panelbot.panel.yaml_lines import load_yaml_remembered, strip_lines
from panelbot.retrieval.meaning import embedded
from panelbot.retrieval.semantic import VectorTable, shipped_model
from panelbot.text import LazyPattern

if TYPE_CHECKING:
    from panelbot.conversation.router_view import FollowUpRouter

BANK_PATH = Path(__file__).resolve().parent.parent / "data" / "message_kinds.yaml"
CONTINUE, CLARIFY, REASON, OTHER = "continue", "clarify", "reason", "other"
SWITCH, OFFTOPIC, SMALLTALK, FRAMING = "switch", "offtopic", "smalltalk", "framing"
KINDS = (CONTINUE, CLARIFY, REASON, OTHER, SWITCH, OFFTOPIC, SMALLTALK, FRAMING)
_SLOT = LazyPattern(r"\{(\w+)\}")
MEMO_SIZE = 512


@dataclass(frozen=True)
class KindMatch:
    """A message's nearest example: its kind, the example and how similar (cosine) it is."""

    kind: str
    example: str
    similarity: float

    def at_least(self, floor: float) -> str:
        """The kind when the match reaches ``floor``, else ""."""
        return self.kind if self.similarity >= floor else ""


def parse_bank(data: Any, where: str = str(BANK_PATH)) -> dict[str, tuple[str, ...]]:
    """kind -> examples; a DataError naming what is wrong."""
    if not isinstance(data, dict):
        raise DataError(f"{where}: expected a mapping of kinds to example messages")
    out: dict[str, tuple[str, ...]] = {}
    for kind in KINDS:
        items = data.get(kind)
        if not isinstance(items, list) or not items or not all(isinstance(t, str) for t in items):
            raise DataError(f"{where}: {kind} must be a non-empty list of messages")
        out[kind] = tuple(t.strip() for t in items if t.strip())
    unknown = set(data) - set(KINDS)
    if unknown:
        raise DataError(f"{where}: unknown kinds {', '.join(sorted(map(str, unknown)))}")
    return out


@cache
def message_bank() -> dict[str, tuple[str, ...]]:
    """The shipped bank (read once per process)."""
    return parse_bank(strip_lines(load_yaml_remembered(BANK_PATH)))


def _filled(template: str, panel: Any) -> list[str]:
    """A template filled for each panelist ({name}: first name, {organisation}: its first word)."""
    slots = set(_SLOT.findall(template))
    if not slots:
        return [template]
    out = []
    for p in panel.panelists.values():
        values = {
            "name": (p.name or "").split()[0] if p.name else "",
            "organisation": (p.organisation or "").split()[0] if p.organisation else "",
        }
        if all(values.get(s) for s in slots):
            out.append(_SLOT.sub(lambda m, v=values: v[m.group(1)], template))
    return out


class MessageKinds:
    """The bank filled for one panel, embedded once (the vectors are cached on disk by their texts)."""

    def __init__(self, panel: Any, bank: dict[str, tuple[str, ...]] | None = None) -> None:
        bank = bank or message_bank()
        rows: list[tuple[str, str]] = []
        for kind, examples in bank.items():
            for template in examples:
                rows.extend((kind, text) for text in _filled(template, panel))
        self.rows = list(dict.fromkeys(rows))
        self._table: VectorTable | None = None
        self._memo: dict[str, KindMatch] = {}

    @property
    def table(self) -> VectorTable:
        if self._table is None:
            self._table = embedded([text for _, text in self.rows])
        return self._table

    def nearest(self, message: str) -> KindMatch:
        """The message's nearest example (its kind and similarity)."""
        message = " ".join(message.split())
        hit = self._memo.get(message)
        if hit is None:
            sims = self.table.similarities(shipped_model().embed(message))
            best = max(range(len(sims)), key=sims.__getitem__)
            kind, example = self.rows[best]
            hit = KindMatch(kind, example, float(sims[best]))
            if len(self._memo) >= MEMO_SIZE:
                self._memo.clear()
            self._memo[message] = hit
        return hit


_READERS: weakref.WeakKeyDictionary[Any, MessageKinds] = weakref.WeakKeyDictionary()


def message_kinds(router: FollowUpRouter) -> MessageKinds:
    """The bank for a router's panel (built once per router)."""
    found = _READERS.get(router)
    if found is None:
        found = MessageKinds(router.panel)
        with contextlib.suppress(TypeError):  # a router that cannot be weakly referenced
            _READERS[router] = found
    return found


def kind_of(router: FollowUpRouter, message: str) -> str:
    """The message's kind by meaning when it clears the fitted floor, else ""."""
    return message_kinds(router).nearest(message).at_least(router.tune.message_kind_floor)
