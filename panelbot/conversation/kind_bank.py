"""Message kinds by meaning: a message's nearest example in a labelled bank of general follow-up messages
(``panelbot/data/message_kinds.yaml``) in the shipped static sentence model
(:mod:`panelbot.retrieval.semantic`). The kind counts when the similarity reaches the fitted floor
(``Tuning.message_kind_floor``, fitted by ``scripts/fit_message_kinds.py`` on the dev conversation sets);
below it a message is read by its words alone (``panelbot.conversation.kinds``).

A request for a discussion ("discuss open weights", "what do they both think about evaluation?") names a
subject of its own, whose words would outweigh the request's in meaning: it is read on its *frame*, the
message with each run of words no bank example of a discussion uses (nor a stopword, nor a panelist's
name) put as "that" ("discuss that", "what do they both think about that?"); those words are its subject.
The follow-up kinds are read as before, on the whole message and without the discussion examples."""

from __future__ import annotations

import contextlib
import re
import weakref
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from panelbot.errors import DataError
from panelbot.panel.yaml_lines import load_yaml_remembered, strip_lines
from panelbot.retrieval.encoder import shipped_model
from panelbot.retrieval.lexicon import stopwords
from panelbot.retrieval.meaning import embedded
from panelbot.retrieval.semantic import VectorTable
from panelbot.text import LazyPattern, words

if TYPE_CHECKING:
    from panelbot.conversation.router_view import FollowUpRouter

BANK_PATH = Path(__file__).resolve().parent.parent / "data" / "message_kinds.yaml"
CONTINUE, CLARIFY, REASON, OTHER = "continue", "clarify", "reason", "other"
SWITCH, OFFTOPIC, SMALLTALK, FRAMING = "switch", "offtopic", "smalltalk", "framing"
DISCUSS = "discuss"  # the panel asked to discuss, compare or contrast their views
ASK = "ask"  # an ordinary question's frame ("what do you think about that?"): what a discussion is not
KINDS = (CONTINUE, CLARIFY, REASON, OTHER, SWITCH, OFFTOPIC, SMALLTALK, FRAMING, DISCUSS, ASK)
FRAMES = (DISCUSS, ASK)  # the kinds read on a message's frame, never on the whole message
_SLOT = LazyPattern(r"\{(\w+)\}")
_TOKEN = LazyPattern(r"[\w'\u2019-]+|[^\w\s]+")
THE_OTHER = LazyPattern(r"\bthe other\b", re.IGNORECASE)
STAND_IN = "that"  # what a run of a discussion request's subject words is read as
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


def _first_name(p: Any) -> str:
    return (p.name or "").split()[0] if p.name else ""


def _filled(template: str, panel: Any) -> list[str]:
    """A template filled for each panelist ({name}: first name, {organisation}: its first word; {other}:
    each other panelist's first name)."""
    slots = set(_SLOT.findall(template))
    if not slots:
        return [template]
    out = []
    people = list(panel.panelists.values())
    for p in people:
        values = {
            "name": _first_name(p),
            "organisation": (p.organisation or "").split()[0] if p.organisation else "",
        }
        others = [_first_name(o) for o in people if o is not p] if "other" in slots else [""]
        for other in others:
            values["other"] = other
            if all(values.get(s) for s in slots):
                out.append(_SLOT.sub(lambda m, v=dict(values): v[m.group(1)], template))
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
        self._memo: dict[tuple[str, bool], KindMatch] = {}
        names = {w for p in panel.panelists.values() for w in words(p.name or "")}
        # the words of a frame: the frame examples' own, the stopwords and the names
        self.frame_words = (
            {w for kind, text in self.rows if kind in FRAMES for w in words(text)}
            | set(stopwords())
            | names
        )

    @property
    def table(self) -> VectorTable:
        if self._table is None:
            self._table = embedded([text for _, text in self.rows])
        return self._table

    def nearest(self, message: str, *, discussions: bool = False) -> KindMatch:
        """The message's nearest example (its kind and similarity); the examples read on a frame (a
        discussion request's, an ordinary question's) are among them only with ``discussions`` (the
        follow-up kinds are read without them)."""
        message = " ".join(message.split())
        hit = self._memo.get((message, discussions))
        if hit is None:
            sims = self.table.similarities(shipped_model().embed(message))
            rows = [n for n, (kind, _) in enumerate(self.rows) if discussions or kind not in FRAMES]
            best = max(rows, key=sims.__getitem__)
            kind, example = self.rows[best]
            hit = KindMatch(kind, example, float(sims[best]))
            if len(self._memo) >= MEMO_SIZE:
                self._memo.clear()
            self._memo[(message, discussions)] = hit
        return hit

    def framed(self, message: str) -> tuple[str, str]:
        """The message's frame (its words from the first to the last that no discussion request uses, put
        as "that") and those words as typed: the subject it names ("" when none)."""
        tokens = _TOKEN.findall(message)
        own = [
            n
            for n, token in enumerate(tokens)
            if (folded := words(token)) and not all(w in self.frame_words for w in folded)
        ]
        if not own:
            return " ".join(tokens), ""
        first, last = own[0], own[-1]
        frame = [*tokens[:first], STAND_IN, *tokens[last + 1 :]]
        return " ".join(frame), " ".join(tokens[first : last + 1])


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


def discussion_request(router: FollowUpRouter, message: str) -> str | None:
    """The subject a request for a discussion names ("" when it names none: "where do they disagree?"),
    or None when the message is no such request: its frame's nearest example, among every kind's, is not a
    discussion's at the fitted floor (``tuning.discussion_floor``, fitted so that no ordinary question of the
    dev sets reads as one)."""
    if THE_OTHER.search(message):
        return None  # "what does the other panelist think?": one panelist asked after another, not the panel
    kinds = message_kinds(router)
    frame, subject = kinds.framed(message)
    # the message itself is embedded next (its scope and ranking): both in one forward pass, ~8 ms less than two
    shipped_model().embed_many([frame, message])
    hit = kinds.nearest(frame, discussions=True)
    floor = max(router.tune.message_kind_floor, router.tune.discussion_floor)
    if hit.at_least(floor) != DISCUSS:
        return None
    return subject.strip(" ,;:-")
