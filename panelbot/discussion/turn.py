"""A discussion as a turn of the conversation: what the resolver hands the turn pipeline when a message asks
the panel to discuss a subject ("discuss open weights", "what do they both think about evaluation?") or
follows up on the discussion just shown ("why do they disagree?", "Olive, respond to that", "and Dan?").

:func:`discussion_reading` reads a message so (the request is recognised by meaning:
``panelbot.conversation.kind_bank.discussion_request``); a :class:`DiscussionReply` is what the pipeline
answers it with: each panelist's turn through the answer backend (their own quotes as sources, the later
turn seeing the earlier one), and the host's lines around them -- the subject framed, then the points where
their quotes meet (``head``, ``tail``). Every front end renders the pipeline's events; the history keeps the
turn as any other, so ``ask -c``, the app and ``history show`` see it. Plain Python.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from panelbot.retrieval.results import RouteResult, ScoredQuote
from panelbot.text import fill_text, strip_control

# The staging modules (stage, pairing, followups, render, voices) are imported where a discussion is staged
# or followed up: every message is read here first, and one that asks for no discussion needs none of them
# (~9 ms of a warm ``ask``).
if TYPE_CHECKING:
    from panelbot.conversation.turns import ConversationTurn, Resolution
    from panelbot.discussion.followups import FollowUpAnswer
    from panelbot.discussion.pairing import Pairing
    from panelbot.discussion.stage import Discussion, Turn
    from panelbot.panel import Panel
    from panelbot.retrieval.router import Router

WHOLE_TALK = (
    "what they both spoke to"  # the subject of a request that names none, with nothing before it
)
REASON = "a discussion: each panelist who spoke to it in turn, then where their quotes meet"
FOLLOW_UP_REASON = "follow-up to the discussion of {subject}"
SOURCE = "discussion"


@dataclass(frozen=True)
class DiscussionReply:
    """A discussion to stage (``followup`` None) or a follow-up to one, as one turn of the conversation."""

    discussion: Discussion
    followup: FollowUpAnswer | None = None

    @property
    def subject(self) -> str:
        return self.discussion.subject

    def turns(self) -> list[Turn]:
        """Who speaks in this turn: every panelist of the discussion; the one asked to respond; nobody for
        "why do they disagree?" (the host's lines say it)."""
        if self.followup is None:
            return list(self.discussion.turns)
        if self.followup.kind == "respond":
            return [t for t in self.discussion.turns if t.speaker == self.followup.speaker]
        return []

    def route(self, question: str) -> RouteResult:
        """The turn as a route: its speakers and their quotes (what the front ends show as sources)."""
        turns = self.turns()
        quotes = [ScoredQuote(q, 100.0, SOURCE) for t in turns for q in t.quotes]
        if self.followup is not None and not turns:
            quotes = [ScoredQuote(q, 100.0, SOURCE) for q in self.followup.quotes]
        reason = (
            REASON
            if self.followup is None
            else FOLLOW_UP_REASON.format(subject=_clean(self.subject))
        )
        return RouteResult(
            question, [t.speaker for t in turns], False, quotes, reason, scope=1.0, off_topic=False
        )

    def requests(self, panel: Panel, question: str) -> list[tuple[str, RouteResult]]:
        """What each speaking panelist is asked in turn (what the host asks them, the route of only their
        own quotes)."""
        from panelbot.discussion.voices import turn_question

        out = []
        for n, turn in enumerate(self.turns()):
            asked = (
                turn_question(panel, self.discussion, turn, n == 0)
                if self.followup is None
                else f"The host asks you to respond, on {self.subject}: {question}"
            )
            quotes = [ScoredQuote(q, 100.0, SOURCE) for q in turn.quotes]
            out.append((asked, RouteResult(asked, [turn.speaker], False, quotes, SOURCE)))
        return out

    def head(self, panel: Panel, width: int | None = 100) -> str:
        """The host's lines before the panelists speak: the subject and the talk's own question."""
        if self.followup is not None:
            return ""
        d = self.discussion
        lines = [fill_text(f"Discussion: {_clean(d.subject)}", width)]
        if d.framing:
            lines.append(
                fill_text(
                    f"The host asked [{d.framing_id}]: \u201c{_clean(d.framing)}\u201d", width
                )
            )
        return "\n".join(lines)

    def tail(self, panel: Panel, width: int | None = 100) -> str:
        """The host's lines after them: where their quotes meet (measured), or what a follow-up asked
        (``width`` None: each line whole, for a front end that wraps it)."""
        d = self.discussion
        if self.followup is not None and self.followup.kind != "respond":
            return "\n".join(
                fill_text(line, width, "  " if line.startswith("  ") else "")
                for line in _clean_lines(self.followup.text)
            )
        points = list(d.points)
        if self.followup is not None:
            points = [p for p in points if self.followup.speaker in (p.a.speaker, p.b.speaker)]
        lines = []
        if points:
            from panelbot.discussion.render import point_line

            lines.append("Where they meet:")
            lines += [fill_text(f"- {point_line(panel, p)}", width, "  ", "    ") for p in points]
        if d.note and self.followup is None:
            lines.append(fill_text(_clean(d.note), width))
        return "\n".join(lines)

    def context(self) -> dict[str, Any]:
        """JSON-ready: the discussion (its framing, measured points, note) and, for a follow-up, its kind."""
        d = self.discussion.to_dict()
        return {
            "kind": "discussion",
            "subject": self.subject,
            "framing": d["framing"],
            "points": d["points"],
            "note": d["note"],
            "silent": d["silent"],
            "followup": self.followup.kind if self.followup is not None else None,
        }


def with_host_lines(panel: Panel, reply: DiscussionReply, answer: str, width: int = 100) -> str:
    """An answer as the terminal prints it (each panelist's passages, then the reason line) with the host's
    lines of the discussion around the passages: the subject first, where they meet after."""
    body, _, reason = answer.rstrip("\n").rpartition("\n")
    if not reason.startswith("("):
        body, reason = answer.rstrip("\n"), ""
    parts = [reply.head(panel, width), body.strip("\n"), reply.tail(panel, width), reason]
    return "\n\n".join(p for p in parts if p)


def _clean(text: str) -> str:
    return strip_control(text, keep_newlines=False)


def _clean_lines(text: str) -> list[str]:
    return [strip_control(line, keep_newlines=False) for line in text.splitlines()]


# ------------------------------------------------------------------------------------------ staging


class _Tools:
    """A router's pairing and map, made once per router (measuring the map pairs every two quotes)."""

    def __init__(self, router: Router) -> None:
        from panelbot.discussion.pairing import Pairing

        self.pairing: Pairing = Pairing(router)
        self.whole: Discussion | None = None
        self.staged: dict[str, Discussion] = {}


_TOOLS: weakref.WeakKeyDictionary[Any, _Tools] = weakref.WeakKeyDictionary()
STAGED_MEMO = 64


def _tools(router: Router) -> _Tools:
    found = _TOOLS.get(router)
    if found is None:
        found = _TOOLS[router] = _Tools(router)
    return found


def pairing_of(router: Router) -> Pairing:
    """The router's pairing (made once per router: it keeps what it measured)."""
    return _tools(router).pairing


def whole_talk(router: Router) -> Discussion:
    """Every subject of the map at once: each panelist's quotes where they meet, and every measured point
    (what "where do they disagree?" is answered with when nothing was asked before)."""
    from panelbot.discussion.stage import MapEntry, discussion_map, entry_discussion

    tools = _tools(router)
    if tools.whole is None:
        entries = discussion_map(router, tools.pairing)
        points = tuple(p for e in entries for p in e.points)
        whole = entry_discussion(router, MapEntry(WHOLE_TALK, "mixed", points))
        names = "; ".join(_clean(e.name) for e in entries)
        differ = any(p.verdict == "differ" for p in points)
        note = (
            ("" if differ else "No difference between them is measured on the panel. ")
            + f"The subjects they both spoke to: {names}."
            if entries
            else "No subject is measured to have been spoken to by two panelists."
        )
        import dataclasses

        # no one host question frames the whole talk
        tools.whole = dataclasses.replace(
            whole, note=note, reason=REASON, framing="", framing_id=None
        )
    return tools.whole


def discussion_of(router: Router, subject: str) -> Discussion:
    """The discussion of ``subject`` (the whole talk for :data:`WHOLE_TALK`); the same for the same subject."""
    if subject == WHOLE_TALK:
        return whole_talk(router)
    from panelbot.discussion.stage import discuss

    tools = _tools(router)
    found = tools.staged.get(subject)
    if found is None:
        if len(tools.staged) >= STAGED_MEMO:
            tools.staged.clear()
        found = tools.staged[subject] = discuss(router, subject, tools.pairing)
    return found


def staged(router: Router, subject: str, question: str) -> Resolution:
    """``question`` answered by the discussion of ``subject``: declined as any off-topic question when
    neither panelist spoke to it."""
    return reading_of(discussion_of(router, subject), question)


def reading_of(d: Discussion, question: str) -> Resolution:
    """The pipeline's reading of ``question`` as the discussion ``d`` (``panelbot discuss``, the app's
    /discuss and the map say what to discuss themselves): declined when ``d`` is."""
    from panelbot.conversation.turns import DISCUSSION, Resolution

    if d.declined:
        route = d.route or RouteResult(question, [], True, [], d.reason)
        declined = RouteResult(
            question,
            [],
            True,
            [],
            route.reason,
            route.addressed,
            list(route.suggestions),
            route.scope,
            off_topic=route.off_topic,
        )
        return Resolution(declined, None, DISCUSSION)
    reply = DiscussionReply(d)
    return Resolution(reply.route(question), reply.context(), DISCUSSION, reply)


def in_view(history: Sequence[ConversationTurn]) -> str | None:
    """The subject of the discussion just shown: the last turn that answered (a decline leaves it in
    view) staged it or followed up on it; None when the conversation went on to something else."""
    for turn in reversed(history):
        if turn.discussed is not None:
            return turn.discussed
        if turn.speakers:
            return None
    return None


def _asked_for(router: Router, history: Sequence[ConversationTurn]) -> str | None:
    """The subject of a discussion the last answered turn asked for in words, when the turns do not say
    (a server's request carries its conversation as plain messages): "discuss open source" -> "open
    source"; None when it asked for none, or named no subject."""
    from panelbot.conversation.kind_bank import discussion_request

    answered = [t for t in history if t.speakers]
    if not answered or answered[-1].discussed is not None:
        return None
    last = answered[-1]
    if len(router.addressed(last.question)[0]) == 1:
        return None
    return discussion_request(router, last.question) or None


def follow_up(
    router: Router, history: Sequence[ConversationTurn], message: str
) -> Resolution | None:
    """A follow-up to the discussion in view ("why do they disagree?", "Olive, respond to that", "and
    Dan?"), or None when the message is not one (the usual resolver reads it)."""
    from panelbot.conversation.turns import DISCUSSION, Resolution

    subject = in_view(history)
    if subject is None:
        subject = _asked_for(router, history)
    if subject is None:
        return None
    from panelbot.discussion.followups import read_followup

    d = discussion_of(router, subject)
    got = read_followup(router.panel, d, message)
    if got is None:
        return None
    reply = DiscussionReply(d, got)
    return Resolution(reply.route(message), reply.context(), DISCUSSION, reply)


def discussion_reading(
    router: Any,
    history: Sequence[ConversationTurn],
    message: str,
    target: str,
    conversation_subject: Any = None,
) -> Resolution | None:
    """``message`` read as a discussion request or a follow-up to the discussion in view, else None.

    A request that names no subject ("where do Dan and Olive disagree?") discusses the conversation's
    subject (``conversation_subject()``: the question that opened it), or -- with nothing before it -- every
    subject both spoke to. Only a real router stages a discussion (the pairing measures its quotes), and only
    when no one panelist was asked (``target`` auto or both, and no one name alone in the message)."""
    from panelbot.conversation.kind_bank import discussion_request
    from panelbot.records import replace
    from panelbot.retrieval.router import Router

    if not isinstance(router, Router) or target not in ("auto", "both"):
        return None
    answered = follow_up(router, history, message)
    if answered is not None:
        return answered
    addressed, _ = router.addressed(message)
    if len(addressed) == 1:
        return None  # "Olive, do you agree?" asks one panelist, not the panel
    requested = discussion_request(router, message)
    if requested is None:
        return None
    subject = requested
    if not subject:
        opened = conversation_subject() if conversation_subject is not None and history else None
        subject = opened.question if opened is not None else WHOLE_TALK
        if subject != WHOLE_TALK:
            return replace(_of_the_conversation(router, subject, message), requested_subject="")
    return replace(staged(router, subject, message), requested_subject=requested)


def _of_the_conversation(router: Router, subject: str, message: str) -> Resolution:
    """A request naming no subject ("where do they disagree?") after a question: the discussion of that
    question -- or, when only one panelist spoke to it, where they meet across the talk, saying so (one
    panelist alone cannot disagree, and the user asked about the two)."""
    import dataclasses

    d = discussion_of(router, subject)
    if not d.declined and len(d.turns) > 1:
        return reading_of(d, message)
    whole = whole_talk(router)
    alone = d.note or "Only one panelist spoke to that."
    across = dataclasses.replace(whole, note=f"{alone} Across the talk: {whole.note}".strip())
    return reading_of(across, message)
