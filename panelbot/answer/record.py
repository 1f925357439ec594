"""One answer as a JSON-ready record: the router's object (question, speakers, abstained, quotes, reason) plus
what answering added (answer text, citations, grounded, error, backend, model, per-panelist answers).

Shared by ``ask --llm --json`` and the servers, so every front end reports an answer the same way.
"""

from __future__ import annotations

from typing import Any

from panelbot.answer.compose import decline_text
from panelbot.answer.events import SpeakerDone
from panelbot.answer.verdict import GROUNDED, NOT_GROUNDED, combined_grade
from panelbot.panel import Panel
from panelbot.retrieval.results import RouteResult


def decline_record(panel: Panel, route: RouteResult, text: str | None = None) -> dict[str, Any]:
    """An abstention: no model was called; the decline text (``decline_text`` unless given) and the
    suggestions."""
    d = route.to_dict()
    d.update(
        suggestions=route.suggestions,
        answer=decline_text(panel, route) if text is None else text,
        citations=[],
        grounded=None,
        verdict=None,
        error=None,
    )
    return d


def answer_record(
    panel: Panel, route: RouteResult, dones: list[SpeakerDone], backend: str, model: str
) -> dict[str, Any]:
    """An answer: ``grounded`` is None for verbatim quotes, else true only when every panelist's is;
    ``verdict`` the graded form (grounded / partly grounded / not grounded); each of ``answers`` has its own
    verdict, sentence counts and ``checks`` (each sentence, its status and why)."""
    d = route.to_dict()
    answers = [
        {
            "speaker": x.speaker,
            "answer": x.text,
            "citations": [c.to_dict() for c in x.citations],
            "grounded": x.grounded if not x.error else False,
            "verdict": _grade(x),
            "supported_sentences": x.verdict.supported if x.verdict else None,
            "sentences": len(x.verdict.counted) if x.verdict else None,
            "checks": [c.to_dict() for c in x.verdict.sentences] if x.verdict else [],
            "removed": list(x.verdict.removed) if x.verdict else [],
            "error": x.error,
            "unsupported_sentences": list(x.unsupported_sentences),
        }
        for x in dones
    ]
    errors = list(dict.fromkeys(x.error for x in dones if x.error))
    if len(dones) == 1:
        answer = dones[0].text
    else:
        answer = "\n\n".join(f"{panel.display_name(x.speaker)}: {x.text}" for x in dones)
    d.update(
        backend=backend,
        model=model,
        answer=answer,
        citations=[c for a in answers for c in a["citations"]],
        grounded=(
            None
            if dones and all(a["grounded"] is None for a in answers)
            else bool(dones) and all(a["grounded"] is True for a in answers)
        ),
        verdict=combined_grade([a["verdict"] for a in answers]),
        error="; ".join(errors) if errors else None,
        answers=answers,
    )
    return d


def _grade(done: SpeakerDone) -> str | None:
    """A panelist's grade: the verdict's; not grounded when the model failed (the quotes stood in); None
    for verbatim quotes."""
    if done.error:
        return NOT_GROUNDED
    if done.verdict is not None:
        return done.verdict.grade
    if done.grounded is None:
        return None
    return GROUNDED if done.grounded else NOT_GROUNDED
