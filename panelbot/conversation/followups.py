"""Suggested follow-ups under an answer, each one **guaranteed to have an answer** in the bank.

Candidates come from the conversation and the talk's structure -- more from the panelist who just answered,
the other panelist on the same subject, the next question the host asked on stage -- and each is kept only
when resolving it in this very conversation (``panelbot.conversation.resolution``, deterministic) gives an
answer with quotes; for the host's next question, an answer that includes that question's own quotes. So
picking a suggestion never ends in a decline. Plain Python (no Textual).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from panelbot.conversation.resolution import resolve_message
from panelbot.conversation.turns import ConversationTurn
from panelbot.records import record
from panelbot.text import strip_control

if TYPE_CHECKING:
    from typing import Any

NEXT_QUESTIONS = 3  # host questions tried, in order, until there are at least two suggestions
MAX_LEN = 70  # a suggestion longer than this is shortened to the host question's user-worded form


@record(frozen=True)
class FollowUp:
    text: str  # what gets asked when it is picked
    kind: str  # "continuation", "other_panelist" or "next_question"
    speakers: tuple[str, ...]  # who will answer it


def _candidates(
    router: Any, turns: Sequence[ConversationTurn]
) -> list[tuple[str, str, str | None]]:
    """(text, kind, host question id): more, each other panelist, the host's next questions on stage -- in
    a user's words when that is shorter, else as the host asked."""
    last = turns[-1]
    shown = {q for t in turns for q in t.quote_ids}
    out: list[tuple[str, str, str | None]] = [("Tell me more", "continuation", None)]
    for pid, persona in router.panel.panelists.items():
        if pid not in last.speakers:
            first = (persona.name or pid).split()[0]
            out.append((f"What does {first} think?", "other_panelist", None))
    for nxt in _next_host_questions(router, last, shown)[:NEXT_QUESTIONS]:
        for text in dict.fromkeys((_worded(router, nxt), " ".join(nxt.text.split()))):
            out.append((text, "next_question", nxt.id))
    return out


def _answers_it(
    router: Any,
    turns: Sequence[ConversationTurn],
    text: str,
    host_id: str | None,
    target: str = "auto",
):
    """The route that resolving ``text`` here, asked of ``target``, gives when it is a real answer (on the
    subject; for a host question, with what it got on stage), else None."""
    try:
        route = resolve_message(router, turns, text, target).route
    except Exception:
        return None
    if route.abstained or not route.quotes:
        return None
    # a router without settings (a stand-in) has no minimum score
    floor = getattr(getattr(router, "settings", None), "min_quote_score", 0.0)
    if host_id is None and not any(sq.score >= floor for sq in route.quotes):
        return (
            None  # answered, but not on the subject (the rest of a turn that moved on): not offered
        )
    if host_id is not None and not any(sq.quote.question == host_id for sq in route.quotes):
        return None  # it would be answered, but not with what the host's question got on stage
    return route


def suggest_followups(
    router: Any, turns: Sequence[ConversationTurn], n: int = 3, target: str = "auto"
) -> list[FollowUp]:
    """Up to ``n`` follow-ups to the last turn of ``turns``, each answerable when asked of ``target`` (who
    the next question goes to: "Tell me more" with Olive picked is hers to answer; see module doc)."""
    if not turns or not turns[-1].speakers:
        return []
    out: list[FollowUp] = []
    hosts_used: set[str] = set()
    for text, kind, host_id in _candidates(router, turns):
        text = strip_control(text, keep_newlines=False).strip()
        if not text or any(f.text == text for f in out) or host_id in hosts_used:
            continue
        if host_id is not None and len(out) >= 2 and any(f.kind == "next_question" for f in out):
            break  # a second next question only to reach two suggestions
        route = _answers_it(router, turns, text, host_id, target)
        if route is None:
            continue
        out.append(FollowUp(text, kind, tuple(route.speakers)))
        if host_id is not None:
            hosts_used.add(host_id)
        if len(out) >= n:
            break
    return out


def _next_host_questions(router: Any, last: ConversationTurn, shown: set[str]) -> list[Any]:
    """The host questions after the one the last answer responded to whose answers are not all shown."""
    panel = router.panel
    order = [q.id for q in panel.questions]
    current = None
    for qid in last.quote_ids:
        quote = panel.quote(qid)
        if quote is not None and panel.question(quote.question) is not None:
            current = quote.question
            break
    start = order.index(current) + 1 if current is not None else 0
    out = []
    for hq in panel.questions[start:]:
        ids = _answering(router, hq.id)
        if hq.answered_by and ids and not all(q in shown for q in ids):
            out.append(hq)
            if len(out) >= NEXT_QUESTIONS:
                break
    return out


def _answering(router: Any, question_id: str) -> list[str]:
    """The ids of the quotes answering a host question, in order: from the index's host-question tables
    (decoding only those quotes, never every quote of a large saved bank); a router without them scans."""
    panel = router.panel
    answering = getattr(getattr(router, "index", None), "answering", None)
    if answering is None:
        return [q.id for q in panel.quotes if q.question == question_id]
    quotes = panel.quotes
    return [quotes[i].id for i in answering(question_id)]


def _worded(router: Any, host_question: Any) -> str:
    """The host's question, or (when long) the first user-worded question its first answer carries."""
    panel = router.panel
    text = " ".join(host_question.text.split())
    if len(text) <= MAX_LEN:
        return text
    for qid in _answering(router, host_question.id):
        quote = panel.quote(qid)
        if quote is not None and quote.asks:
            ask = " ".join(quote.asks[0].split())
            return ask[:1].upper() + ask[1:]
    return text[: MAX_LEN - 1].rstrip() + "\u2026"
