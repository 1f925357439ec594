"""``panelbot eval`` on multi-turn conversations: turn accuracy per kind of follow-up.

The file is a YAML list (or JSON Lines) of conversations, each a list of turns asked in order::

    - conversation: kv-cache            # a name for the report (optional)
      turns:
        - {question: "How do you deal with a KV cache that keeps growing?", speaker: dan,
           quotes: [dan-22, dan-23], kind: single}
        - {question: "why?", speaker: dan, quotes: [dan-15, dan-13], kind: continuation}
        - {question: "what does Olive think?", speaker: none, kind: other}

A turn takes the fields of a single eval item (``panelbot.retrieval.evaluation``: speaker, quotes, text)
and a kind: ``single`` (a first question), ``continuation``, ``reason`` ("why?", "how come?": the passage
giving the cause, or a decline when the talk gives none), ``elaboration``, ``other`` (the other panelist, or a
named one), ``switch`` (a new subject that stands on its own), ``offtopic`` or ``smalltalk`` (a greeting,
thanks, "ok cool", a goodbye: must get the small-talk reply; any other turn read as small talk is wrong). A
declined turn may list ``suggest`` (quote ids): one of the questions it offers must be answered, in its top 3,
with one of them -- the offered questions are near what was asked. Every turn is answered by
panelbot itself and that answer becomes the history of the next turn, as for a user.

A turn is right when the speakers are exactly the expected ones (``none``: it declined), an expected quote
is in the top 3 (when quotes are given), and a continuation or another panelist's turn repeats no quote already
shown in the conversation (a reason may: the cause can sit in what was shown).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from panelbot.conversation.resolve import resolve
from panelbot.conversation.turns import ConversationTurn
from panelbot.errors import DataError
from panelbot.panel import Panel
from panelbot.panel.yaml_lines import line_of
from panelbot.retrieval.evaluation import EvalItem, hit, parse_item, read_eval_file
from panelbot.retrieval.results import RouteResult
from panelbot.retrieval.router import Router
from panelbot.text import count_of

# after_decline: a follow-up asked right after a declined turn (its subject is the question that was declined)
FOLLOW_UP_KINDS = ("continuation", "reason", "elaboration", "other", "after_decline")
KIND_ALIASES = {
    "first": "single",
    "standalone": "single",
    "other_panelist": "other",
    "other-panelist": "other",
    "off-topic": "offtopic",
    "off_topic": "offtopic",
    "topic_switch": "switch",
    "topic-switch": "switch",
    "followup": "continuation",
    "after-decline": "after_decline",
    "why": "reason",
    **dict.fromkeys(
        (
            "small_talk",
            "small-talk",
            "greeting",
            "greetings",
            "social",
            "chitchat",
            "chit-chat",
            "pleasantry",
            "thanks",
            "farewell",
        ),
        "smalltalk",
    ),
}
KNOWN_KINDS = ("single", *FOLLOW_UP_KINDS, "switch", "offtopic", "smalltalk")


@dataclass
class Conversation:
    name: str
    turns: list[EvalItem]
    line: int | None = None
    suggest: list[tuple[str, ...]] = field(
        default_factory=list
    )  # per turn: quote ids an offer should find


@dataclass
class TurnMiss:
    conversation: str
    turn: int  # 1-based
    item: EvalItem
    what: str
    got_speakers: list[str]
    got_quotes: list[str]
    read_as: str


@dataclass
class ConversationReport:
    conversations: int = 0
    turns: int = 0
    by_kind: dict[str, list[int]] = field(default_factory=dict)  # kind -> [ok, total]
    offtopic_answered: int = 0
    suggest_ok: int = (
        0  # declined turns with ``suggest`` whose offered questions include a near one
    )
    suggest_total: int = 0
    alone_by_kind: dict[str, list[int]] = field(default_factory=dict)  # each turn asked on its own
    misses: list[TurnMiss] = field(default_factory=list)

    def _ok_total(self, kinds: tuple[str, ...]) -> tuple[int, int]:
        ok = sum(self.by_kind.get(k, [0, 0])[0] for k in kinds)
        return ok, sum(self.by_kind.get(k, [0, 0])[1] for k in kinds)

    def to_dict(self) -> dict[str, Any]:
        def pct(a: int, b: int) -> float | None:
            return round(100.0 * a / b, 1) if b else None

        fu_ok, fu_n = self._ok_total(FOLLOW_UP_KINDS)
        alone_ok = sum(self.alone_by_kind.get(k, [0, 0])[0] for k in FOLLOW_UP_KINDS)
        all_ok, all_n = self._ok_total(tuple(self.by_kind))
        return {
            "conversations": self.conversations,
            "turns": self.turns,
            "turn_accuracy": pct(all_ok, all_n),
            "follow_up_accuracy": pct(fu_ok, fu_n),
            "follow_ups": {"ok": fu_ok, "total": fu_n},
            "follow_up_accuracy_alone": pct(alone_ok, fu_n),
            "offtopic_answered": self.offtopic_answered,
            "suggestions_near": {"ok": self.suggest_ok, "total": self.suggest_total},
            "by_kind": {
                k: {
                    "ok": v[0],
                    "total": v[1],
                    "accuracy": pct(v[0], v[1]),
                    "alone": pct(self.alone_by_kind.get(k, [0, 0])[0], v[1]),
                }
                for k, v in sorted(self.by_kind.items())
            },
            "misses": [
                {
                    "conversation": m.conversation,
                    "turn": m.turn,
                    "question": m.item.question,
                    "kind": m.item.kind,
                    "problem": m.what,
                    "read_as": m.read_as,
                    "speakers": m.got_speakers,
                    "quotes": m.got_quotes,
                    "expected_speakers": sorted(m.item.speakers),
                    "expected_quotes": list(m.item.quotes),
                }
                for m in self.misses
            ],
        }


def is_conversation_set(raw: list[Any]) -> bool:
    return bool(raw) and all(isinstance(d, dict) and "turns" in d for d in raw)


def load_conversations(path: str, panel: Panel, raw: list[Any] | None = None) -> list[Conversation]:
    raw = read_eval_file(path) if raw is None else raw
    out = []
    for n, d in enumerate(raw):
        line = line_of(d) if isinstance(d, dict) else None
        turns = d.get("turns") if isinstance(d, dict) else None
        if not isinstance(turns, list) or not turns:
            raise DataError(
                f"conversation {n + 1}: expected a non-empty list of 'turns'", path, line
            )
        name = str(d.get("conversation") or d.get("name") or d.get("id") or f"#{n + 1}")
        items = []
        suggest: list[tuple[str, ...]] = []
        for i, t in enumerate(turns):
            item = parse_item(t, i, path, panel)
            kind = KIND_ALIASES.get(item.kind.lower(), item.kind.lower()) or (
                "single" if i == 0 else ""
            )
            if kind not in KNOWN_KINDS:
                raise DataError(
                    f"conversation {name}, turn {i + 1}: kind must be one of "
                    f"{', '.join(KNOWN_KINDS)} (got {item.kind!r})",
                    path,
                    item.line,
                )
            item.kind = kind
            items.append(item)
            want = t.get("suggest") if isinstance(t, dict) else None
            want = [want] if isinstance(want, str) else list(want or [])
            bad = [q for q in want if panel.quote(str(q)) is None]
            if bad:
                raise DataError(
                    f"conversation {name}, turn {i + 1}: unknown quote id(s) in 'suggest': "
                    f"{', '.join(map(str, bad))}",
                    path,
                    item.line,
                )
            suggest.append(tuple(str(q) for q in want))
        out.append(Conversation(name, items, line, suggest))
    return out


def evaluate_conversations(router: Router, conversations: list[Conversation]) -> ConversationReport:
    rep = ConversationReport()
    for conv in conversations:
        rep.conversations += 1
        history: list[ConversationTurn] = []
        shown: set[str] = set()
        for n, it in enumerate(conv.turns, 1):
            res = resolve(router, history, it.question)
            route = res.route
            got_sp = list(route.speakers)
            got_q = [sq.quote.id for sq in route.quotes]
            problem = _problem(it, route, shown, res.kind)
            want = conv.suggest[n - 1] if n - 1 < len(conv.suggest) else ()
            if want and route.abstained:
                rep.suggest_total += 1
                if _offers_near(router, route.suggestions, want):
                    rep.suggest_ok += 1
                else:
                    problem = problem or "no offered question is near what was asked"
            if problem:
                rep.misses.append(TurnMiss(conv.name, n, it, problem, got_sp, got_q, res.kind))
                if not it.speakers and it.kind == "offtopic" and not route.abstained:
                    rep.offtopic_answered += 1
            kind = it.kind or "other"
            slot = rep.by_kind.setdefault(kind, [0, 0])
            slot[0] += int(not problem)
            slot[1] += 1
            # the same turn asked on its own, as every message was before conversations
            alone = rep.alone_by_kind.setdefault(kind, [0, 0])
            on_its_own = resolve(router, [], it.question)  # as the router alone, small talk apart
            alone[0] += int(not _problem(it, on_its_own.route, shown, on_its_own.kind))
            alone[1] += 1
            rep.turns += 1
            shown.update(got_q)
            history.append(ConversationTurn(it.question, got_sp, got_q))
    return rep


def _offers_near(router: Router, offered: list[str], want: tuple[str, ...]) -> bool:
    """One of the offered questions (the front ends show three) is answered with one of ``want``."""
    return any(sq.quote.id in want for s in offered[:3] for sq in router.route(s).quotes[:3])


def _problem(it: EvalItem, route: RouteResult, shown: set[str], read_as: str = "") -> str:
    """What is wrong with this answer to the turn ("" when it is right)."""
    if it.kind == "smalltalk":
        return "" if read_as == "small_talk" else "small talk not recognised"
    if read_as == "small_talk":
        return "read as small talk"
    if not it.speakers:
        return "" if route.abstained else "answered a turn it should have declined"
    if route.abstained:
        return "declined"
    if set(route.speakers) != set(it.speakers):
        return "wrong speaker"
    if (it.quotes or it.text) and not hit(it, route.quotes[:3]):
        return "expected quote not in top 3"
    if it.kind in ("continuation", "other") and {sq.quote.id for sq in route.quotes} & shown:
        return "repeated a quote already shown"
    return ""


def format_conversation_report(rep: ConversationReport, *, verbose: bool = False) -> str:
    d = rep.to_dict()

    def f(v: float | None) -> str:
        return "n/a" if v is None else f"{v:5.1f}%"

    fu = d["follow_ups"]
    lines = [
        f"conversations: {rep.conversations} ({count_of(rep.turns, 'turn')})",
        f"turn accuracy         {f(d['turn_accuracy'])}",
        f"follow-up accuracy    {f(d['follow_up_accuracy'])}  ({fu['ok']}/{fu['total']}: continuation, "
        f"reason, elaboration, other panelist; each asked on its own: {f(d['follow_up_accuracy_alone'])})",
        f"off-topic answered    {rep.offtopic_answered}",
    ]
    if rep.suggest_total:
        lines.append(
            f"suggestions near      {rep.suggest_ok}/{rep.suggest_total} (declines whose offered "
            f"questions include one on what was asked)"
        )
    for k, v in d["by_kind"].items():
        lines.append(
            f"  {k:<20}{f(v['accuracy'])}  ({v['ok']}/{v['total']}; on its own {f(v['alone'])})"
        )
    if verbose and rep.misses:
        lines.append("misses:")
        for m in rep.misses:
            lines.append(
                f"  - {m.conversation} turn {m.turn} ({m.item.kind}, read as {m.read_as}) "
                f"{m.item.question!r}: {m.what}; got {m.got_speakers} {m.got_quotes[:3]}, expected "
                f"{sorted(m.item.speakers) or 'decline'} {list(m.item.quotes)}"
            )
    return "\n".join(lines)
