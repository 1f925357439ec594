"""``panelbot ingest --llm``: a configured OpenAI-compatible model is asked who said each doubtful turn.

Only the turns whose speaker rests on order or field (or is unknown) are asked about, one request each,
with the people on the panel, the turn before and the turn itself. The model must answer with JSON
``{"speaker": ID, "evidence": "words of the turn"}``; an answer is taken only when the id is the host's or a
panelist's and the evidence (at least three words) is found in the turn's text. Anything else — no
endpoint reachable, an error, an unchecked answer — leaves the offline attribution, which stays the
default and the fallback.
"""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from panelbot.ingest.basis import MODEL_WHY, doubtful_part
from panelbot.ingest.names import HOST, UNKNOWN
from panelbot.text import normalize_for_match

if TYPE_CHECKING:
    from panelbot.config import BackendSettings
    from panelbot.ingest.draft import Draft

__all__ = ["MODEL_WHY", "ModelAttribution", "ask_model", "checked_answer", "doubtful_numbers"]
MIN_EVIDENCE_WORDS = 3
MAX_TURN_CHARS = 4000

_SYSTEM = (
    "You attribute the turns of a talk's transcript to the person who spoke them. The captions do not "
    "mark speakers reliably. Answer with JSON only: "
    '{"speaker": "<one of the ids given>", "evidence": "<a few words copied exactly from the turn that '
    'show who is speaking>"}.'
)


@dataclass
class ModelAttribution:
    """What the model said: the turns it was trusted on (number -> speaker id) and why others were not."""

    overrides: dict[int, str] = field(default_factory=dict)
    rejected: list[str] = field(default_factory=list)
    asked: int = 0


def doubtful_numbers(draft: Draft) -> list[int]:
    """The draft's turns (numbered from 1) whose speaker is unknown or rests only on order or field."""
    return [
        i + 1
        for i, t in enumerate(draft.turns)
        if t.speaker == UNKNOWN or doubtful_part(t.reasons()) is not None
    ]


def turn_messages(draft: Draft, number: int) -> list[dict[str, str]]:
    """The request for one turn: who is on the panel, the turn before, the turn."""
    people = [f"- host: the host, who asks the questions ({draft.panel['host']['name']})"] + [
        f"- {p['id']}: {p['name']}" + (f", {p['role']}" if p.get("role") else "")
        for p in draft.panel["panelists"]
    ]
    i = number - 1
    before = draft.turns[i - 1] if i > 0 else None
    context = (
        f"The turn before ({before.speaker}): …{before.text[-600:]}\n\n"
        if before is not None
        else ""
    )
    user = (
        f"Talk: {draft.panel['title']}\nPeople (id: name):\n"
        + "\n".join(people)
        + f"\n\n{context}The turn to attribute:\n{draft.turns[i].text[:MAX_TURN_CHARS]}\n\n"
        "Who spoke this turn?"
    )
    return [{"role": "system", "content": _SYSTEM}, {"role": "user", "content": user}]


def checked_answer(answer: str, turn_text: str, ids: list[str]) -> tuple[str | None, str]:
    """(speaker id, "") when the model's answer names someone on the panel and quotes the turn, else
    (None, why it was not taken)."""
    m = re.search(r"\{.*\}", answer, re.DOTALL)
    try:
        data = json.loads(m.group(0)) if m else None
    except ValueError:
        data = None
    if not isinstance(data, dict):
        return None, "not the JSON asked for"
    speaker = str(data.get("speaker", "")).strip().lower()
    evidence = str(data.get("evidence", ""))
    if speaker not in (HOST, *ids):
        return None, f"{speaker or 'no one'} is not on the panel"
    said = normalize_for_match(evidence)
    if len(said.split()) < MIN_EVIDENCE_WORDS or said not in normalize_for_match(turn_text):
        return None, "its evidence is not in the turn's text"
    return speaker, ""


def ask_model(draft: Draft, settings: BackendSettings) -> ModelAttribution:
    """Ask the endpoint about every doubtful turn of the draft (see the module's doc)."""
    return asyncio.run(_ask_all(draft, settings))


async def _ask_all(draft: Draft, settings: BackendSettings) -> ModelAttribution:
    from panelbot.answer.llm.client import ChatClient, LLMError

    ids = [p["id"] for p in draft.panel["panelists"]]
    result = ModelAttribution()
    client = ChatClient(settings)
    try:
        for number in doubtful_numbers(draft):
            result.asked += 1
            try:
                answer = await client.complete(turn_messages(draft, number))
            except LLMError as exc:
                result.rejected.append(f"turn {number}: the endpoint failed ({exc})")
                break  # an endpoint that fails once is not asked again: the rest stay offline
            speaker, why = checked_answer(answer, draft.turns[number - 1].text, ids)
            if speaker is None:
                result.rejected.append(f"turn {number}: not taken ({why})")
            elif speaker != draft.turns[number - 1].speaker:
                result.overrides[number] = speaker
    finally:
        await client.aclose()
    return result
