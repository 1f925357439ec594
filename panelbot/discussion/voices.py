"""The discussion in the panelists' voices, through any answer backend (``--llm``).

Each panelist who spoke to the subject takes a turn: the backend is asked for their view of the subject with
only their own quotes as sources (the later turn sees the earlier one in the conversation, so it can respond),
and the answer is verified as any answer is (``panelbot.answer.llm.verify`` via the backend). A turn that
fails -- the model errs, or its answer is not grounded in that panelist's quotes -- is replaced by their
quoted words, and says so.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from panelbot.answer.compose import quotes_text
from panelbot.answer.events import AnswerRequest, Message, SpeakerDone
from panelbot.discussion.stage import Discussion, Turn
from panelbot.panel import Panel
from panelbot.retrieval.results import RouteResult, ScoredQuote

if TYPE_CHECKING:
    from panelbot.answer.backends.base import Backend


@dataclass
class VoicedTurn:
    speaker: str
    text: str  # the model's words when verified; else the panelist's quotes
    ids: list[str]  # the quotes the turn stands on
    voiced: bool  # the model's words (verified) or not (the quotes)
    fallback: str = ""  # why the quotes stand in: "" when voiced
    citations: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        return {
            "speaker": self.speaker,
            "text": self.text,
            "ids": self.ids,
            "voiced": self.voiced,
            "fallback": self.fallback,
            "citations": self.citations,
        }


def turn_question(panel: Panel, d: Discussion, turn: Turn, first: bool) -> str:
    """What the host asks this panelist in the staged exchange."""
    subject = d.framing or d.subject
    if first:
        return f"The host asks you to discuss this: {subject}"
    before = [panel.display_name(t.speaker) for t in d.turns if t.speaker != turn.speaker]
    return (
        f"The host asks you to discuss this: {subject} -- and to respond to what "
        f"{' and '.join(before)} just said, in your own view."
    )


def _failed(done: SpeakerDone) -> str:
    if done.error:
        return f"the model failed: {done.error}"
    verdict = done.verdict
    if verdict is not None and not verdict.grounded:
        return "the turn failed verification against their quotes"
    if done.grounded is False:
        return "the turn failed verification against their quotes"
    return ""


def voiced_turn(done: SpeakerDone, turn: Turn) -> VoicedTurn:
    """A panelist's turn as the backend gave it: the model's verified words, or -- when it failed or its
    answer is not grounded in their quotes -- their quotes, saying why."""
    ids = [q.id for q in turn.quotes]
    why = _failed(done)
    if why:
        quotes = [ScoredQuote(q, 100.0, "discussion") for q in turn.quotes]
        return VoicedTurn(turn.speaker, quotes_text(quotes), ids, False, why)
    if done.grounded is None and done.verdict is None and not done.citations:
        return VoicedTurn(turn.speaker, done.text, ids, False, "no model answered")
    cited = [c.id for c in done.citations if c.valid]
    return VoicedTurn(turn.speaker, done.text, ids, True, "", cited)


async def voice(backend: Backend, panel: Panel, d: Discussion) -> list[VoicedTurn]:
    """One verified turn per panelist of the discussion, in its order."""
    history: list[Message] = []
    voiced: list[VoicedTurn] = []
    for n, turn in enumerate(d.turns):
        question = turn_question(panel, d, turn, n == 0)
        quotes = [ScoredQuote(q, 100.0, "discussion") for q in turn.quotes]
        route = RouteResult(question, [turn.speaker], False, quotes, "discussion")
        done: SpeakerDone | None = None
        async for event in backend.answer(AnswerRequest(question, panel, route, list(history))):
            if isinstance(event, SpeakerDone) and event.speaker == turn.speaker:
                done = event
        ids = [q.id for q in turn.quotes]
        why = "the model gave no answer" if done is None else _failed(done)
        if why:
            text = quotes_text(quotes)
            voiced.append(VoicedTurn(turn.speaker, text, ids, False, why))
        else:
            assert done is not None
            cited = [c.id for c in done.citations if c.valid]
            voiced.append(VoicedTurn(turn.speaker, done.text, ids, True, "", cited))
        history.append(Message(turn.speaker, voiced[-1].text))
    return voiced
