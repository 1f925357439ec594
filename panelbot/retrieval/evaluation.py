"""``panelbot eval``: routing and retrieval quality on a labelled question set.

The file is a YAML list (or JSON Lines) of items::

    - question: "How do you deal with a KV cache that keeps growing?"
      speaker: dan          # a panelist id, "both", or "none" (off-topic: must abstain)
      quotes: [dan-22]      # acceptable quote ids (any one in the top k counts)

Accepted aliases: ``expected_speaker``/``speakers`` for speaker (a list of ids means those panelists),
``expected_quotes``/``quote_ids`` for quotes, ``abstain: true`` for speaker none, and ``text``/``expected_text``:
a phrase that must occur in a returned quote (for sets written without ids).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from panelbot.errors import DataError
from panelbot.panel import Panel
from panelbot.panel.yaml_lines import line_of, load_yaml
from panelbot.retrieval.router import Router
from panelbot.text import normalize_for_match


@dataclass
class EvalItem:
    question: str
    speakers: frozenset[str]  # empty: off-topic
    quotes: tuple[str, ...] = ()
    text: str = ""
    kind: str = ""
    line: int | None = None


@dataclass
class Miss:
    item: EvalItem
    what: str
    got_speakers: list[str]
    got_quotes: list[str]


@dataclass
class Report:
    n: int = 0
    in_scope: int = 0
    off_topic: int = 0
    speaker_ok: int = 0
    first_speaker_ok: int = 0
    with_quotes: int = 0
    r1: int = 0
    r3: int = 0
    abstained_off: int = 0  # true positives
    abstained_in: int = 0  # wrongly abstained
    strict: int = (
        0  # in scope and strictly right: the right speakers and a right quote in the top 3
    )
    by_kind: dict[str, list[int]] = field(default_factory=dict)  # kind -> [ok, total]
    misses: list[Miss] = field(default_factory=list)

    @staticmethod
    def _pct(a: int, b: int) -> float | None:
        return round(100.0 * a / b, 1) if b else None

    def to_dict(self) -> dict[str, Any]:
        abst = self.abstained_off + self.abstained_in
        return {
            "items": self.n,
            "in_scope": self.in_scope,
            "off_topic": self.off_topic,
            "strictly_right": self._pct(self.strict, self.in_scope),
            "speaker_accuracy": self._pct(self.speaker_ok, self.in_scope),
            "first_speaker_accuracy": self._pct(self.first_speaker_ok, self.in_scope),
            "recall_at_1": self._pct(self.r1, self.with_quotes),
            "recall_at_3": self._pct(self.r3, self.with_quotes),
            "abstention_precision": self._pct(self.abstained_off, abst),
            "abstention_recall": self._pct(self.abstained_off, self.off_topic),
            "wrongly_abstained": self._pct(self.abstained_in, self.in_scope),
            "by_kind": {k: {"ok": v[0], "total": v[1]} for k, v in sorted(self.by_kind.items())},
            "misses": [
                {
                    "question": m.item.question,
                    "problem": m.what,
                    "speakers": m.got_speakers,
                    "quotes": m.got_quotes,
                    "expected_speakers": sorted(m.item.speakers),
                    "expected_quotes": list(m.item.quotes),
                }
                for m in self.misses
            ],
        }


def _field(d: dict, *names: str) -> Any:
    for n in names:
        if n in d and d[n] is not None:
            return d[n]
    return None


def load_eval_set(path: str, panel: Panel) -> list[EvalItem]:
    raw = read_eval_file(path)
    return [parse_item(d, i, path, panel) for i, d in enumerate(raw)]


def read_eval_file(path: str) -> list[Any]:
    """The raw items of an eval file (YAML list, a mapping holding one, or JSON Lines); never empty."""
    p = Path(path)
    if not p.is_file():
        raise DataError("eval file not found", path)
    raw: Any
    if p.suffix in (".jsonl", ".ndjson"):
        raw = []
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
            if line.strip():
                try:
                    obj = json.loads(line)
                except ValueError as exc:
                    raise DataError(f"invalid JSON: {exc.msg}", path, n) from None
                if isinstance(obj, dict):
                    obj["__line__"] = n
                raw.append(obj)
    else:
        raw = load_yaml(p)
        if isinstance(raw, dict):
            raw = _field(raw, "items", "questions", "cases", "conversations") or []
    if not isinstance(raw, list) or not raw:
        raise DataError("expected a non-empty list of questions", path, 1)
    return raw


def parse_item(d: Any, i: int, path: str, panel: Panel) -> EvalItem:
    """One labelled question (item ``i + 1`` of ``path``); DataError naming the line when malformed."""
    ids = set(panel.panelists)
    if not isinstance(d, dict):
        raise DataError(f"item {i + 1} must be a mapping", path, None)
    line = line_of(d)
    q = _field(d, "question", "q", "query", "ask")
    if not isinstance(q, str) or not q.strip():
        raise DataError(f"item {i + 1}: missing 'question'", path, line)
    sp = _field(d, "speaker", "expected_speaker", "speakers", "expected_speakers", "expect")
    if d.get("abstain") is True or d.get("off_topic") is True:
        sp = "none"
    if sp is None:
        raise DataError(
            f"item {i + 1}: missing 'speaker' (a panelist id, both or none)", path, line
        )
    if isinstance(sp, str):
        s = sp.strip().lower()
        if s in ("none", "abstain", "off-topic", "offtopic", "null", ""):
            speakers: frozenset[str] = frozenset()
        elif s in ("both", "all"):
            speakers = frozenset(ids)
        else:
            speakers = frozenset([s])
    elif isinstance(sp, list):
        speakers = frozenset(str(x).lower() for x in sp)
    else:
        raise DataError(f"item {i + 1}: bad speaker {sp!r}", path, line)
    unknown = speakers - ids
    if unknown:
        raise DataError(
            f"item {i + 1}: unknown speaker(s) {', '.join(sorted(unknown))}", path, line
        )
    quotes = _field(d, "quotes", "expected_quotes", "quote_ids", "ids") or []
    if isinstance(quotes, str):
        quotes = [quotes]
    bad = [qid for qid in quotes if panel.quote(str(qid)) is None]
    if bad:
        raise DataError(f"item {i + 1}: unknown quote id(s) {', '.join(map(str, bad))}", path, line)
    text = _field(d, "text", "expected_text") or ""
    return EvalItem(
        q.strip(), speakers, tuple(str(x) for x in quotes), str(text), str(d.get("kind", "")), line
    )


def hit(item: EvalItem, quotes: list) -> bool:
    """Is an expected quote (by id, or by a phrase it contains) among these?"""
    if item.quotes and any(sq.quote.id in item.quotes for sq in quotes):
        return True
    want = normalize_for_match(item.text) if item.text else ""
    return bool(want) and any(want in normalize_for_match(sq.quote.text) for sq in quotes)


def evaluate(router: Router, items: list[EvalItem]) -> Report:
    rep = Report()
    for it in items:
        res = router.route(it.question)
        rep.n += 1
        got_sp = list(res.speakers)
        got_q = [sq.quote.id for sq in res.quotes]
        ok = True
        if not it.speakers:
            rep.off_topic += 1
            if res.abstained:
                rep.abstained_off += 1
            else:
                ok = False
                rep.misses.append(Miss(it, "answered an off-topic question", got_sp, got_q))
        else:
            rep.in_scope += 1
            if res.abstained:
                rep.abstained_in += 1
            if set(got_sp) == set(it.speakers):
                rep.speaker_ok += 1
            else:
                ok = False
                rep.misses.append(
                    Miss(it, "wrong speaker" if not res.abstained else "abstained", got_sp, got_q)
                )
            if got_sp and got_sp[0] in it.speakers:
                rep.first_speaker_ok += 1
            if it.quotes or it.text:
                rep.with_quotes += 1
                if hit(it, res.quotes[:1]):
                    rep.r1 += 1
                if hit(it, res.quotes[:3]):
                    rep.r3 += 1
                elif not res.abstained:
                    ok = False
                    rep.misses.append(Miss(it, "expected quote not in top 3", got_sp, got_q))
            rep.strict += int(ok and not res.abstained)
        kind = it.kind or ("offtopic" if not it.speakers else "other")
        slot = rep.by_kind.setdefault(kind, [0, 0])
        slot[0] += int(ok)
        slot[1] += 1
    return rep


def format_report(rep: Report, *, verbose: bool = False) -> str:
    d = rep.to_dict()

    def f(v: float | None) -> str:
        return "n/a" if v is None else f"{v:5.1f}%"

    lines = [
        f"items: {rep.n} ({rep.in_scope} in scope, {rep.off_topic} off-topic)",
        f"strictly right        {f(d['strictly_right'])}  ({rep.strict}/{rep.in_scope}: right speakers, "
        "a right quote in the top 3)",
        f"speaker accuracy      {f(d['speaker_accuracy'])}  ({rep.speaker_ok}/{rep.in_scope}; "
        f"first speaker right {f(d['first_speaker_accuracy'])})",
        f"recall@1              {f(d['recall_at_1'])}  ({rep.r1}/{rep.with_quotes})",
        f"recall@3              {f(d['recall_at_3'])}  ({rep.r3}/{rep.with_quotes})",
        f"abstention precision  {f(d['abstention_precision'])}",
        f"abstention recall     {f(d['abstention_recall'])}  ({rep.abstained_off}/{rep.off_topic})",
        f"wrongly abstained     {f(d['wrongly_abstained'])}  ({rep.abstained_in}/{rep.in_scope})",
    ]
    if rep.by_kind:
        lines.append(
            "by kind: " + ", ".join(f"{k} {v[0]}/{v[1]}" for k, v in sorted(rep.by_kind.items()))
        )
    if verbose and rep.misses:
        lines.append("misses:")
        for m in rep.misses:
            lines.append(
                f"  - {m.item.question!r}: {m.what}; got {m.got_speakers} {m.got_quotes[:3]}, "
                f"expected {sorted(m.item.speakers) or 'abstain'} {list(m.item.quotes)}"
            )
    return "\n".join(lines)
