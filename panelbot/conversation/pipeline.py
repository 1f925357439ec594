"""One turn of a conversation, the same for every front end: read the question against the conversation so far
(:func:`panelbot.conversation.resolve.resolve`), then decline it (or reply to small talk) in the host's words or
answer it through a backend (the panelists' verbatim quotes offline, or a model), then record it: in memory for
the next turn and, when logging, in the history database, the turn whole in one transaction.

The app, ``ask``, ``ask --llm``, ``ask --all``, the OpenAI-compatible server, the MCP server and the ``llm``
plugin each iterate :meth:`Session.ask` (or :meth:`TalksSession.ask` for every installed talk at once) and
render its events; none of them puts the steps together itself. A turn's events, in order:

- :class:`Resolved` -- how the question was read (a follow-up says what it carried over);
- for a discussion (``resolution.discussion``: "discuss open weights", "why do they disagree?" after one),
  :class:`Discussed` -- the host's lines around the panelists' turns (the subject framed; where their quotes
  meet), then each speaking panelist's turn through the backend, with only their own quotes;
- either :class:`Declined` (a decline or a reply to small talk: nothing to answer from), or the backend's
  :class:`TextDelta` pieces and one :class:`SpeakerDone` per answering panelist (for every talk at once:
  :class:`TalksRouted`, how the question was routed across them, then :class:`TalkAnswered`, each answering
  talk's verbatim quotes);
- :class:`Recorded` (the conversation's id; None when not logging), or :class:`NotSaved` when the history
  could not be written (a full or read-only disk): the answer above stands, and this says why it was not kept.

A turn stopped part way (Esc in the app cancels the task iterating it) is recorded as far as it got: the
answers finished count as shown, the unfinished ones are kept marked ``cancelled`` and do not count.

Plain Python: no Textual, no httpx (a model backend imports its HTTP client when it is built).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from panelbot.answer.compose import decline_text
from panelbot.answer.events import AnswerRequest, Message, SpeakerDone, TextDelta
from panelbot.answer.present import answer_meta
from panelbot.conversation.session import ConversationLog
from panelbot.conversation.turns import ConversationTurn, Resolution
from panelbot.panel import Panel
from panelbot.retrieval.results import RouteResult

__all__ = [
    "Declined",
    "Discussed",
    "NotSaved",
    "Recorded",
    "Resolved",
    "Session",
    "SpeakerDone",
    "TalkAnswered",
    "TalkDiscussed",
    "TalksDiscussed",
    "TalksRouted",
    "TalksSession",
    "TextDelta",
    "TurnEvent",
    "run_now",
]


@dataclass(frozen=True)
class Resolved:
    """The question as read against the conversation: its route and what context it carried over."""

    question: str
    target: str
    resolution: Resolution

    @property
    def route(self) -> RouteResult:
        return self.resolution.route

    @property
    def context(self) -> dict[str, Any] | None:
        return self.resolution.context


@dataclass(frozen=True)
class Declined:
    """Nothing to answer from: the host's decline, or a friendly reply to small talk (``route.small_talk``).
    ``panel`` is the talk that declined (None: every talk at once); ``meta`` is what the history keeps
    with it beyond the reason."""

    speaker: str
    text: str
    route: RouteResult | None = None
    panel: Panel | None = None
    reason: str = ""
    small_talk: str = ""
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Discussed:
    """A discussion staged (or followed up on): the host's lines before the panelists' turns (``head``: the
    subject and the talk's question) and after them (``tail``: where their quotes meet, measured), plain
    text with ids; ``reply`` is the :class:`panelbot.discussion.turn.DiscussionReply`."""

    reply: Any
    head: str
    tail: str


@dataclass(frozen=True)
class TalkAnswered:
    """Every talk at once: one talk's answer, its panelists' verbatim quotes (``route``)."""

    panel: Panel
    route: RouteResult
    texts: dict[str, str]  # each answering panelist's words, as recorded


@dataclass(frozen=True)
class TalkDiscussed:
    """Every talk at once: one talk's discussion (or a follow-up to it), its own turn of the pipeline: the
    host's lines (``discussed``) and each speaking panelist's turn in their verbatim quotes (``dones``)."""

    panel: Panel
    resolution: Resolution
    discussed: Discussed
    dones: tuple[SpeakerDone, ...]

    @property
    def discussion(self) -> Any:
        """The :class:`panelbot.discussion.stage.Discussion` staged."""
        return self.discussed.reply.discussion


@dataclass(frozen=True)
class TalksDiscussed:
    """Every talk at once: a discussion of ``subject`` is staged on the talks whose panel spoke to it
    (``talks``, in the library's order); the panels of ``silent`` did not."""

    subject: str
    talks: tuple[str, ...]
    silent: tuple[str, ...]

    @property
    def reason(self) -> str:
        staged = ", ".join(self.talks)
        n = len(self.talks)
        said = f"discussed on the {'talk' if n == 1 else f'{n} talks'} whose panel spoke to it: {staged}"
        if self.silent:
            theirs = "panel of" if len(self.silent) == 1 else "panels of"
            said += f"; the {theirs} {', '.join(self.silent)} did not speak to it"
        return said


@dataclass(frozen=True)
class TalksRouted:
    """Every talk at once: how the question was routed across the talks (a
    :class:`panelbot.retrieval.library.LibraryAnswer`: which talks answer, why, or suggestions)."""

    answer: Any


@dataclass(frozen=True)
class Recorded:
    """The turn is kept: remembered for the next one and, when logging, written to the history."""

    conversation_id: int | None
    turn: ConversationTurn


@dataclass(frozen=True)
class NotSaved:
    """The turn is remembered for the next one, but the history could not be written (``why``)."""

    why: str
    turn: ConversationTurn
    conversation_id: int | None = (
        None  # the conversation continued, when it was in the history already
    )


ALL_TALKS_LABEL = (
    "All talks"  # who speaks for every talk at once (declines when no talk got into it)
)

TurnEvent = (
    Resolved
    | Declined
    | Discussed
    | TextDelta
    | SpeakerDone
    | TalksRouted
    | TalkAnswered
    | TalksDiscussed
    | TalkDiscussed
    | Recorded
    | NotSaved
)


def host_speaker(panel: Panel) -> str:
    """Who declines for a talk: its host, else the panel as a whole."""
    return panel.host.id if panel.host else "panel"


def run_now(events: AsyncIterator[TurnEvent]) -> Iterator[TurnEvent]:
    """A turn's events, for a caller with no event loop (the shell's ``ask``, a synchronous MCP tool), when
    nothing in it waits: the offline backend's quotes. A backend that does wait (a model's HTTP stream) is a
    RuntimeError: iterate ``Session.ask`` with ``async for`` instead."""
    while True:
        step = events.__anext__()
        try:
            step.send(None)
        except StopIteration as done:
            yield done.value
            continue
        except StopAsyncIteration:
            return
        step.close()
        raise RuntimeError("this turn waits for its backend: iterate it with 'async for'")


class Session:
    """One conversation with one talk: the earlier turns (``log``), the router that reads questions and the
    backend that answers them (the offline quotes when none is given).

    ``log`` is the conversation's one record: its turns (what the resolver reads follow-ups against), what
    was said (what a model is shown), and where each new turn is written when logging."""

    def __init__(
        self,
        panel: Panel,
        router: Any,
        backend: Any = None,
        log: ConversationLog | None = None,
        *,
        regenerated: bool = False,
    ) -> None:
        if backend is None:
            from panelbot.answer.backends.offline import OfflineBackend

            backend = OfflineBackend(None, panel)
        self.panel = panel
        self.router = router
        self.backend = backend
        self.log = log if log is not None else ConversationLog(None, None, panel.name, log=False)
        self.regenerated = regenerated  # the next answers are marked as written again (Ctrl+R)
        self._read: Resolution | None = None  # the last reading :meth:`read` gave

    @classmethod
    def from_messages(
        cls,
        panel: Panel,
        router: Any,
        turns: Sequence[ConversationTurn],
        history: Sequence[Message] = (),
        backend: Any = None,
    ) -> Session:
        """A conversation a request carries whole (the servers keep no state): its turns, read from the
        request's messages, and what was said in it. Nothing is written to the history."""
        log = ConversationLog(None, None, panel.name, turns, log=False)
        log.said = [(m.role, m.text) for m in history]
        return cls(panel, router, backend, log)

    @property
    def turns(self) -> list[ConversationTurn]:
        return self.log.turns

    @property
    def history(self) -> list[Message]:
        """What was said so far, for a model's prompt (the user's words and each panelist's)."""
        return [Message(role, text) for role, text in self.log.said]

    def read(self, question: str, target: str = "auto") -> Resolution:
        """How ``question`` reads against the conversation so far (CPU work: a server runs it in a thread)."""
        from panelbot.conversation.resolve import resolve

        self._read = resolve(self.router, self.log.turns, question, target)
        return self._read

    async def ask(
        self, question: str, target: str = "auto", *, reading: Resolution | None = None
    ) -> AsyncIterator[TurnEvent]:
        """Resolve ``question`` (unless ``reading`` already did), decline or answer it, record it."""
        resolution = reading if reading is not None else self.read(question, target)
        read = self._read
        if resolution.discussion is None and read is not None and read.route is resolution.route:
            # a reading rebuilt from its route and context (a server's, read in a worker thread) is the
            # one this session gave: a discussion keeps its turns and host lines
            resolution = read
        yield Resolved(question, target, resolution)
        route = resolution.route
        if route.abstained:
            speaker = host_speaker(self.panel)
            text = decline_text(self.panel, route)
            yield Declined(speaker, text, route, self.panel, route.reason, route.small_talk or "")
            yield self._record(question, target, resolution, [], decline=(speaker, text))
            return
        reply = resolution.discussion
        if reply is not None:
            yield Discussed(reply, reply.head(self.panel), reply.tail(self.panel))
        dones: list[SpeakerDone] = []
        partial: dict[str, list[str]] = {}
        try:
            async for event in self._answers(question, route, reply):
                if isinstance(event, SpeakerDone):
                    dones.append(event)
                else:
                    partial.setdefault(event.speaker, []).append(event.text)
                yield event
        except BaseException as exc:  # stopped (cancelled, closed) or failed: kept as far as it got
            stopped = [
                (s, "".join(p)) for s, p in partial.items() if s not in {d.speaker for d in dones}
            ]
            failed = str(exc) or type(exc).__name__ if isinstance(exc, Exception) else None
            self._record(question, target, resolution, dones, stopped=stopped, failed=failed)
            raise
        yield self._record(question, target, resolution, dones)

    async def _answers(
        self, question: str, route: RouteResult, reply: Any
    ) -> AsyncIterator[TextDelta | SpeakerDone]:
        """The backend's answer; for a discussion, each speaking panelist's turn in order, asked what the
        host asks them with only their own quotes, the later turn seeing what the earlier one said."""
        if reply is None:
            async for event in self.backend.answer(
                AnswerRequest(question, self.panel, route, self.history)
            ):
                yield event
            return
        history = self.history
        for asked, own in reply.requests(self.panel, question):
            async for event in self.backend.answer(AnswerRequest(asked, self.panel, own, history)):
                if isinstance(event, SpeakerDone):
                    history = [*history, Message(event.speaker, event.text)]
                yield event

    def ask_now(
        self, question: str, target: str = "auto", *, reading: Resolution | None = None
    ) -> Iterator[TurnEvent]:
        """:meth:`ask` without an event loop, for a backend that never waits (see :func:`run_now`)."""
        return run_now(self.ask(question, target, reading=reading))

    def _record(
        self,
        question: str,
        target: str,
        resolution: Resolution,
        dones: Sequence[SpeakerDone],
        *,
        decline: tuple[str, str] | None = None,
        stopped: Sequence[tuple[str, str]] = (),
        failed: str | None = None,
    ) -> Recorded | NotSaved:
        route = resolution.route
        extra = {"regenerated": True} if self.regenerated else {}
        answers = [
            (
                d.speaker,
                d.text,
                [sq.quote.id for sq in (d.quotes or route.quotes_for(d.speaker))],
                {**answer_meta(verdict=d.verdict, grounded=d.grounded, error=d.error), **extra},
            )
            for d in dones
        ]
        unfinished = [
            (s, text, [sq.quote.id for sq in route.quotes_for(s)]) for s, text in stopped if text
        ]
        if resolution.discussion is not None:
            why = self._record_discussion(question, target, resolution, answers, unfinished, failed)
        else:
            why = self.log.record_or_why_not(
                question,
                target,
                resolution,
                answers,
                decline=decline,
                stopped=unfinished,
                failed=failed,
            )
        turn = self.log.turns[-1]
        return (
            Recorded(self.log.conversation_id, turn)
            if why is None
            else NotSaved(why, turn, self.log.conversation_id)
        )

    def _record_discussion(
        self,
        question: str,
        target: str,
        resolution: Resolution,
        answers: Sequence[tuple[str, str, list[str], dict[str, Any]]],
        stopped: Sequence[tuple[str, str, list[str]]],
        failed: str | None,
    ) -> str | None:
        """A discussion's turn, whole: the question (marked with the discussion's subject, which later
        follow-ups are read against), the host's lines and each panelist's turn; remembered for the next
        turn (as the subject, with every quote shown) and written when logging."""
        from panelbot.conversation.turns import DISCUSSED

        reply = resolution.discussion
        route = resolution.route
        subject = reply.subject
        meta: dict[str, Any] = {
            "target": target,
            "reason": route.reason,
            DISCUSSED: {"subject": subject},
        }
        if reply.followup is not None:
            meta["context"] = resolution.context
        # saved whole, each line as the app shows it live: every front end wraps it to its own width
        head, tail = reply.head(self.panel, None), reply.tail(self.panel, None)
        points = {"discussion": resolution.context}
        ids = [q.quote.id for q in route.quotes] if not answers else []
        return self.log.record_or_why_not(
            question,
            target,
            resolution,
            answers,
            stopped=stopped,
            failed=failed,
            remembered=ConversationTurn(
                subject,
                [a[0] for a in answers],
                [q for a in answers for q in a[2]],
                target,
                subject,
            ),
            user_meta=meta,
            before=[("search", "", head, (), points)] if head else [],
            after=[("search", "", tail, ids, points)] if tail else [],
        )


class TalksSession:
    """Every installed talk at once (``ask --all``, the app's "Ask: all talks"): a question is routed across
    the talks (:class:`panelbot.retrieval.library.Library`) and each answering talk's panelists reply in their
    own words. A follow-up ("tell me more") goes on with the talk the last answer came from, read by the
    resolver against that talk's turns; after an answer from several talks it says which to pick from.

    A request for a discussion ("discuss open weights", :meth:`discuss` for ``discuss --all`` and the app's
    /discuss) is staged on every talk whose panel spoke to the subject, each as that talk's own discussion
    (a talk's real router reads and stages it); declined when no talk's panel did. A follow-up to it ("why do
    they disagree?") goes on with the talk it was staged on, as any follow-up.

    ``log`` is where the turns are written (the app's conversation; none for the shell)."""

    def __init__(self, library: Any, log: ConversationLog | None = None) -> None:
        self.library = library
        self.log = log
        self.talk_turns: dict[str, list[ConversationTurn]] = {}  # each talk's turns, for follow-ups
        self.last_talks: list[str] = []  # the talks the last answer came from

    def router(self, name: str) -> Any:
        """The router of an installed talk, by name; None when it is not open."""
        return next((r for r in self.library.routers if r.panel.name == name), None)

    def restore(self, messages: Sequence[Any]) -> None:
        """A reopened conversation held (partly) across the talks: each talk's turns (a question and that
        talk's answers to it), and the talks the last answer came from."""
        from panelbot.conversation.turns import turns_from_messages

        exchanges: list[
            tuple[Any, list[Any]]
        ] = []  # each question and the answers that followed it
        for m in messages:
            if m.role == "user":
                exchanges.append((m, []))
            elif m.role == "assistant" and exchanges:
                exchanges[-1][1].append(m)
        self.talk_turns, self.last_talks = {}, []
        for question, answers in exchanges:
            talks = list(
                dict.fromkeys(
                    str(a.meta["panel"])
                    for a in answers
                    if a.meta.get("all_talks") and isinstance(a.meta.get("panel"), str)
                )
            )
            for name in talks:
                mine = [a for a in answers if a.meta.get("panel") == name]
                self.talk_turns.setdefault(name, []).extend(turns_from_messages([question, *mine]))
            if answers:
                self.last_talks = talks

    def forget(self) -> None:
        self.talk_turns, self.last_talks = {}, []

    def ask(self, question: str, target: str = "auto") -> Iterator[TurnEvent]:
        """A follow-up of the last answer's talk, small talk, a discussion request staged on the talks whose
        panel spoke to it, or a question routed across every talk."""
        events = (
            self._followup(question, target)
            or self._small_talk(question)
            or self._discussions(question, target)
        )
        if events is None:
            events = self._across(question, target if target in ("auto", "both") else "auto")
        return self._turn(question, target, events)

    def discuss(self, subject: str, question: str | None = None) -> Iterator[TurnEvent]:
        """``subject`` discussed on every talk whose panel spoke to it (``question``: what the user typed,
        ``/discuss SUBJECT``; the subject by default); declined when none did."""
        from panelbot.discussion.turn import staged

        asked = question or subject
        readings = [(r, staged(r, subject, asked)) for r in self._discussing_routers()]
        return self._turn(asked, "both", self._staged(asked, subject, readings))

    def _turn(self, question: str, target: str, events: Sequence[TurnEvent]) -> Iterator[TurnEvent]:
        rows: list[tuple[str, str, str, Sequence[str], dict[str, Any] | None]] = []
        for event in events:
            rows += self._rows(event)
            yield event
        yield self._write(question, target, rows)

    def _discussing_routers(self) -> list[Any]:
        """The talks' routers that can stage a discussion (a real router measures its quotes' pairs)."""
        from panelbot.retrieval.router import Router

        return [r for r in self.library.routers if isinstance(r, Router)]

    def _discussions(self, question: str, target: str) -> list[TurnEvent] | None:
        """A request for a discussion, read by each talk (None when no talk reads it as one), staged on each
        talk whose panel spoke to its subject."""
        from panelbot.discussion.turn import discussion_reading

        if target not in ("auto", "both"):
            return None
        readings = []
        subject = ""
        for router in self._discussing_routers():
            try:
                reading = discussion_reading(router, [], question, target)
            except Exception:
                continue
            if reading is not None:
                readings.append((router, reading))
                subject = subject or (
                    reading.discussion.subject
                    if reading.discussion is not None
                    else reading.requested_subject or ""
                )
        if not readings:
            return None
        return self._staged(question, subject or question, readings)

    def _staged(
        self, question: str, subject: str, readings: Sequence[tuple[Any, Resolution]]
    ) -> list[TurnEvent]:
        """The discussion on each talk whose reading staged one; the talks' decline when none did."""
        from panelbot.text import strip_control

        spoke = [(r, res) for r, res in readings if res.discussion is not None]
        silent = tuple(r.panel.name for r, res in readings if res.discussion is None)
        if not spoke:
            topics = ", ".join(
                strip_control(t, keep_newlines=False) for t in self.library.suggestions()[:8]
            )
            text = (
                f"No talk's panel spoke to {strip_control(subject, keep_newlines=False)}, so there is "
                "nothing of theirs to discuss." + (f" They covered: {topics}." if topics else "")
            )
            reason = "a discussion no talk's panel spoke to"
            return [Declined("panel", text, reason=reason, meta={"across": True})]
        staged = tuple(r.panel.name for r, _ in spoke)
        events: list[TurnEvent] = [TalksDiscussed(subject, staged, silent)]
        events += [self._talk_discussion(question, r, res) for r, res in spoke]
        self.last_talks = list(staged)
        return events

    def _talk_discussion(self, question: str, router: Any, resolution: Resolution) -> TalkDiscussed:
        """One talk's discussion, through that talk's own turn of the pipeline (its quotes, offline; the
        turn across the talks is what is written), remembered for a follow-up on that talk."""
        session = Session(router.panel, router, None, None)
        discussed: Discussed | None = None
        dones: list[SpeakerDone] = []
        for event in session.ask_now(question, "both", reading=resolution):
            if isinstance(event, Discussed):
                discussed = event
            elif isinstance(event, SpeakerDone):
                dones.append(event)
        reply = resolution.discussion
        if discussed is None:  # the pipeline always says it; kept total for a reading without one
            discussed = Discussed(reply, reply.head(router.panel), reply.tail(router.panel))
        self.talk_turns.setdefault(router.panel.name, []).extend(session.turns)
        return TalkDiscussed(router.panel, resolution, discussed, tuple(dones))

    def _followup(self, question: str, target: str) -> list[TurnEvent] | None:
        """The events of a follow-up of the last answer (answered or declined by the talk it came from, or
        -- when it mixed talks -- told which talks to pick from); None when ``question`` is not one."""
        from panelbot.conversation.resolve import resolve
        from panelbot.conversation.turns import STANDALONE

        readings = []
        for name in self.last_talks:
            router = self.router(name)
            if router is None:
                continue
            talk_target = (
                target if target in ("auto", "both") or target in router.panel.panelists else "auto"
            )
            try:
                resolution = resolve(router, self.talk_turns.get(name, []), question, talk_target)
            except Exception:
                continue
            if resolution.kind != STANDALONE and not _fresh_discussion(
                router, resolution, question
            ):
                readings.append((router, resolution, talk_target))
        if not readings:
            return None
        if len(self.last_talks) > 1:
            names = ", ".join(self.last_talks)
            text = (
                f"The last answer came from {len(self.last_talks)} talks ({names}), so it is not clear "
                f"which one to go on with. Pick one: ask the question again naming its subject, or "
                f"switch to it (Ctrl+P \u2192 Panel: {self.last_talks[0]}) and ask there."
            )
            return [Declined("panel", text, reason="follow-up after an answer from several talks")]
        router, resolution, talk_target = readings[0]
        panel = router.panel
        route = resolution.route
        events: list[TurnEvent] = [Resolved(question, talk_target, resolution)]
        if not route.abstained:
            self.last_talks = [panel.name]
            if resolution.discussion is not None:
                return [*events, self._talk_discussion(question, router, resolution)]
            return [*events, self._answered(question, panel, route, talk_target)]
        self.talk_turns.setdefault(panel.name, []).append(
            ConversationTurn(question, [], [], talk_target)
        )
        speaker = host_speaker(panel)
        decline = Declined(
            speaker,
            decline_text(panel, route),
            route,
            panel,
            route.reason,
            route.small_talk or "",
        )
        return [*events, decline]

    def _small_talk(self, question: str) -> list[TurnEvent] | None:
        """'hi', 'thanks!' (not following up an answer): a friendly reply naming the talks and what they
        covered, instead of a decline. None for anything else."""
        from panelbot.answer.compose import talks_small_talk_text
        from panelbot.retrieval.smalltalk import panel_names, reason, small_talk

        panels = [r.panel for r in self.library.routers]
        kind = small_talk(question, panel_names(*panels))
        if not kind:
            return None
        text = talks_small_talk_text(panels, kind, self.library.suggestions())
        return [Declined("panel", text, reason=reason(kind), small_talk=kind)]

    def _across(self, question: str, target: str) -> list[TurnEvent]:
        from panelbot.answer.compose import talks_decline_text

        answer = self.library.route(question, target)
        if answer.abstained:
            text = talks_decline_text(answer.suggestions)
            return [
                TalksRouted(answer),
                Declined("panel", text, reason=answer.reason, meta={"across": True}),
            ]
        events: list[TurnEvent] = [TalksRouted(answer)]
        events += [self._answered(question, t.panel, t.result, target) for t in answer.talks]
        self.last_talks = [t.panel.name for t in answer.talks]
        return events

    def _answered(
        self, question: str, panel: Panel, route: RouteResult, target: str
    ) -> TalkAnswered:
        from panelbot.answer.compose import quotes_text

        self.talk_turns.setdefault(panel.name, []).append(
            ConversationTurn(
                question, list(route.speakers), [sq.quote.id for sq in route.quotes], target
            )
        )
        texts = {s: quotes_text(route.quotes_for(s)) for s in route.speakers}
        return TalkAnswered(panel, route, texts)

    def _rows(self, event: TurnEvent) -> list[tuple[str, str, str, Sequence[str], dict[str, Any]]]:
        """What the history keeps of one event (labelled so that a reopened conversation shows it so)."""
        if isinstance(event, TalkDiscussed):
            return _discussion_rows(event)
        if isinstance(event, TalkAnswered):
            p = event.panel
            return [
                (
                    "assistant",
                    s,
                    event.texts[s],
                    [sq.quote.id for sq in event.route.quotes_for(s)],
                    {
                        "panel": p.name,
                        "all_talks": True,
                        "label": talk_answer_label(p, s),
                        "status": talk_status(p.name),
                    },
                )
                for s in event.route.speakers
            ]
        if not isinstance(event, Declined):
            return []
        meta: dict[str, Any] = {"reason": event.reason, "all_talks": True}
        if event.small_talk:
            meta["small_talk"] = event.small_talk
        if event.panel is None:
            meta["label"] = ALL_TALKS_LABEL
        else:  # the app's own voice for that talk, never its host's name
            from panelbot.conversation.store import NARRATOR_LABEL

            meta.update(
                panel=event.panel.name,
                label=f"{NARRATOR_LABEL} \u00b7 {event.panel.title}",
                status=talk_status(event.panel.name),
            )
        return [("decline", event.speaker, event.text, (), meta)]

    def _write(
        self,
        question: str,
        target: str,
        rows: list[tuple[str, str, str, Sequence[str], dict[str, Any] | None]],
    ) -> Recorded | NotSaved:
        turn = ConversationTurn(question, [r[1] for r in rows if r[0] == "assistant"], [], target)
        log = self.log
        if log is None:
            return Recorded(None, turn)
        log.said.append(("user", question))
        log.said += [
            (r[1], r[2]) for r in rows if r[0] != "search"
        ]  # what was said, not the host's lines
        why = log.write_rows(question, [("user", "", question, (), {"target": target}), *rows])
        return (
            Recorded(log.conversation_id, turn)
            if why is None
            else NotSaved(why, turn, log.conversation_id)
        )


def _fresh_discussion(router: Any, resolution: Resolution, question: str) -> bool:
    """A request for a new discussion that names its subject ("discuss open weights"): asked of every talk,
    not a follow-up of the last answer's talk."""
    from panelbot.conversation.kind_bank import discussion_request
    from panelbot.conversation.turns import DISCUSSION

    reply = resolution.discussion
    if resolution.kind != DISCUSSION or (reply is not None and reply.followup is not None):
        return False
    return bool(discussion_request(router, question))


def _discussion_rows(
    event: TalkDiscussed,
) -> list[tuple[str, str, str, Sequence[str], dict[str, Any]]]:
    """A talk's discussion in the history: its host's lines around its panelists' turns, named by the talk."""
    p = event.panel
    meta: dict[str, Any] = {"panel": p.name, "all_talks": True, "status": talk_status(p.name)}
    points = {**meta, "discussion": event.resolution.context}
    route = event.resolution.route
    rows: list[tuple[str, str, str, Sequence[str], dict[str, Any]]] = []
    reply = event.discussed.reply  # its host's lines saved whole, as for one talk
    head, tail = reply.head(p, None), reply.tail(p, None)
    if head:
        rows.append(("search", "", head, (), points))
    for d in event.dones:
        ids = [sq.quote.id for sq in (d.quotes or route.quotes_for(d.speaker))]
        rows.append(
            (
                "assistant",
                d.speaker,
                d.text,
                ids,
                {**meta, "label": talk_answer_label(p, d.speaker)},
            )
        )
    if tail:
        ids = [] if event.dones else [sq.quote.id for sq in route.quotes]
        rows.append(("search", "", tail, ids, points))
    return rows


def talk_answer_label(panel: Panel, speaker: str) -> str:
    """How an answer from one of the talks is labelled: the panelist and the talk's title."""
    return f"{panel.display_name(speaker)} \u00b7 {panel.title}"


def talk_status(panel_name: str) -> str:
    """The line under an answer from one of the talks (every talk at once)."""
    return f"(from the talk {panel_name})"
