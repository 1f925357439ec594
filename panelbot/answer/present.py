"""What goes with an answer wherever it is shown -- as it is given or again later (history, resume, export):
its status line (the graded verdict, the model's failure, or that it was stopped), one line per sentence its
quotes do not support, and the quotes to show with it. Every front end renders these the same way, and a
saved answer is rendered from what the history kept with it (``saved_answer``), never from its text.

- grounded: the verdict, then the quotes it cites (its sources);
- partly or not grounded: the verdict, the sentences not supported, then "NAME's own words:" -- every quote
  it was given, verbatim;
- the model failed: the failure; the answer *is* the quotes;
- stopped (Esc): ``(stopped)``, not verified; the quotes it was given;
- verbatim quotes (no model): nothing to add but the curator's notes on its quotes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from panelbot.answer.compose import quote_note_lines, quotes_text
from panelbot.answer.verdict import Verdict
from panelbot.panel import Quote
from panelbot.retrieval.results import ScoredQuote

STOPPED = "(stopped)"  # how a stopped answer is marked, wherever it is shown


@dataclass
class Shown:
    """What to show with an answer's text (``status`` and ``details`` without brackets)."""

    status: str = ""  # one line: the verdict, a failure; "" for verbatim quotes
    details: list[str] = field(default_factory=list)  # sentences not supported, one line each
    quotes: list[Quote] = field(
        default_factory=list
    )  # to show after the answer (see ``own_words``)
    own_words: bool = False  # the quotes stand in for the answer: "NAME's own words:"
    stopped: bool = False
    grade: str | None = None  # the verdict's grade; None when nothing was verified
    notes: list[str] = field(
        default_factory=list
    )  # the notes on quotes it cites (not in ``quotes``)

    def status_line(self, open_: str = "[", close: str = "]") -> str:
        """The status in brackets ("(stopped)" for a stopped answer); "" when there is none."""
        if self.stopped:
            return STOPPED + (f" {open_}{self.status}{close}" if self.status else "")
        return f"{open_}{self.status}{close}" if self.status else ""

    def quotes_label(self, name: str) -> str:
        """The line over ``quotes``."""
        if self.own_words:
            return f"{name}'s own words:"
        if self.stopped:
            return "The quotes it was given:"
        return "The quotes it cites:"


def present(
    name: str,
    quotes: Sequence[Quote],
    *,
    verdict: Verdict | None = None,
    grounded: bool | None = None,
    error: str | None = None,
    stopped: bool = False,
) -> Shown:
    """What goes with an answer of ``name``'s given from ``quotes`` (see the module's doc)."""
    quotes = list(quotes)
    if stopped:
        return Shown("", [], quotes, False, True)  # never verified: the quotes it had, nothing more
    if error:
        return Shown(f"generation failed: {error}; showing the quotes", [], [], False, False, None)
    if verdict is not None:
        cited = {c.id.lower() for c in verdict.citations if c.valid}
        mine = [q for q in quotes if q.id.lower() in cited]
        if verdict.grounded:
            notes = quote_note_lines(mine)
            return Shown(verdict.line(), [], mine, False, False, verdict.grade, notes)
        return Shown(verdict.line(), verdict.details(), quotes, True, False, verdict.grade)
    if grounded is False:  # kept before verdicts were: only that it failed
        return Shown(
            "NOT grounded: it failed verification when it was given", [], quotes, True, False, None
        )
    if grounded:
        return Shown("grounded: its citations were checked when it was given", [], quotes)
    return Shown()  # verbatim quotes: nothing was generated, nothing to verify


def saved_answer(
    meta: dict[str, Any], quote_ids: Sequence[str], name: str, find: Callable[[str], Quote | None]
) -> Shown:
    """What goes with an answer kept in the history (its ``meta`` and ``quote_ids`` as the store keeps
    them; ``find`` looks a quote up by id, None when the panel no longer has it)."""
    meta = meta if isinstance(meta, dict) else {}
    quotes = [q for qid in quote_ids if isinstance(qid, str) and (q := find(qid)) is not None]
    grounded = meta.get("grounded")
    error = meta.get("error")
    return present(
        name,
        quotes,
        verdict=Verdict.from_dict(meta.get("verdict")),
        grounded=grounded if isinstance(grounded, bool) else None,
        error=str(error) if error else None,
        stopped=bool(meta.get("cancelled")),
    )


def answer_meta(
    *, verdict: Verdict | None, grounded: bool | None, error: str | None
) -> dict[str, Any]:
    """What the history keeps with an answer so that it can be shown again as it was."""
    meta: dict[str, Any] = {}
    if error:
        meta["error"] = error
    if grounded is not None or verdict is not None:
        meta["grounded"] = bool(verdict.grounded if verdict is not None else grounded)
    if verdict is not None:
        meta["verdict"] = verdict.to_dict()
    return meta


def verbatim(quotes: Sequence[Quote]) -> str:
    """Quotes as a verbatim answer shows them: passages in spoken order with their ids and notes."""
    return quotes_text([ScoredQuote(q, 0.0) for q in quotes])
