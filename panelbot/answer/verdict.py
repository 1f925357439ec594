"""A generated answer's verdict: each sentence checked against the quotes it cites, and the grade that follows.

Plain data, JSON-ready (:meth:`Verdict.to_dict` / :meth:`Verdict.from_dict`). The verifier
(``panelbot.answer.llm.verify``) makes it; the history keeps it with the answer; every place an answer is
shown -- as it streams or again later -- renders the verdict line from this data, never from the model's text.

Grades: ``grounded`` (every sentence that says something is supported by the quotes it cites),
``partly grounded`` (some are), ``not grounded`` (none is, or a citation names a quote the panelist was not
given, or words in quotation marks are not in the quote cited: a source or a quotation was invented).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from panelbot.answer.events import Citation
from panelbot.text import agree

GROUNDED = "grounded"
PARTLY = "partly grounded"
NOT_GROUNDED = "not grounded"
GRADES = (GROUNDED, PARTLY, NOT_GROUNDED)

# what was found of one sentence
SUPPORTED = "supported"  # its cited quotes say it
UNSUPPORTED = "unsupported"  # it cites quotes it was given, but they don't say it
UNCITED = "uncited"  # it cites nothing
INVALID = "invalid"  # it cites a quote the panelist was not given (invented, or someone else's)
MISQUOTED = "misquoted"  # words in quotation marks that the quote it cites does not hold
NO_CLAIM = "no claim"  # no content word ("Sure."): not counted either way
STATUSES = (SUPPORTED, UNSUPPORTED, UNCITED, INVALID, MISQUOTED, NO_CLAIM)
SEVERE = (INVALID, MISQUOTED)  # an invented source or quotation: the answer is not grounded


@dataclass
class SentenceCheck:
    """One sentence of an answer and what its citations showed."""

    text: str
    status: str
    ids: list[str] = field(default_factory=list)  # the ids it cites, as written
    support: float | None = None  # share of its content words its quotes hold (None: not measured)
    why: str = ""  # one short clause, e.g. "1 of 3 content words in [dan-22]"

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "status": self.status,
            "ids": list(self.ids),
            "support": None if self.support is None else round(self.support, 2),
            "why": self.why,
        }


@dataclass
class Verdict:
    """How far a generated answer is grounded in the quotes it was given."""

    grade: str
    sentences: list[SentenceCheck] = field(default_factory=list)
    citations: list[Citation] = field(default_factory=list)  # each cited id once, in order
    removed: list[str] = field(default_factory=list)  # lines posing as a heading or a verdict

    @property
    def grounded(self) -> bool:
        return self.grade == GROUNDED

    @property
    def counted(self) -> list[SentenceCheck]:
        """The sentences that say something (``NO_CLAIM`` ones are not counted)."""
        return [s for s in self.sentences if s.status != NO_CLAIM]

    @property
    def supported(self) -> int:
        return sum(s.status == SUPPORTED for s in self.sentences)

    def failing(self) -> list[SentenceCheck]:
        """The counted sentences that are not supported, in order."""
        return [s for s in self.counted if s.status != SUPPORTED]

    def count(self, status: str) -> int:
        return sum(s.status == status for s in self.sentences)

    def line(self) -> str:
        """The verdict in one line, e.g. ``partly grounded: 2 of 3 sentences supported by the quotes they
        cite; 1 cites nothing``."""
        valid = [c.id for c in self.citations if c.valid]
        n, ok = len(self.counted), self.supported
        of = (
            f"{ok} of {n} sentences supported by the quotes they cite"
            if n != 1
            else f"{ok} of 1 sentence supported by the quotes it cites"
        )
        if self.grade == GROUNDED:
            text = f"grounded: cites {', '.join(valid)}; {of}"
        elif self.grade == PARTLY:
            text = f"partly grounded: {of}"
        else:
            why = self._why_not()
            text = f"NOT grounded: {why}; {of}" if why else f"NOT grounded: {of}"
        parts = [text]
        for status, what in (
            (UNSUPPORTED, "not supported by the quotes cited"),
            (UNCITED, "cite{s} nothing"),
            (MISQUOTED, "misquote{s} a source"),
            (INVALID, "cite{s} a quote not given"),
        ):
            k = self.count(status)
            if k and not (self.grade == NOT_GROUNDED and status in SEVERE):  # said already
                parts.append(f"{k} {what.format(s='s' if k == 1 else '')}")
        if self.removed:
            k = len(self.removed)
            parts.append(f"{k} line{'s' if k != 1 else ''} posing as a heading or verdict removed")
        return "; ".join(parts)

    def _why_not(self) -> str:
        bad = [c.id for c in self.citations if not c.valid]
        invalid = list(
            dict.fromkeys(i for s in self.sentences if s.status == INVALID for i in s.ids)
        )
        if invalid or bad:
            shown = invalid or bad
            label = agree(len(shown), "invalid citation" if invalid else "misquoted source")
            return f"{label}: {', '.join(shown)}"
        if not self.citations:
            return "cites none of the quotes given"
        return ""

    def details(self, limit: int = 3) -> list[str]:
        """One line per failing sentence (at most ``limit``, then how many more)."""
        from panelbot.text import shorten

        label = {
            UNSUPPORTED: "not supported",
            UNCITED: "cites nothing",
            MISQUOTED: "misquoted",
            INVALID: "cites a quote not given",
        }
        failing = self.failing()
        out = []
        for s in failing[:limit]:
            why = f" ({s.why})" if s.why else ""
            out.append(f"{label.get(s.status, s.status)}: \u201c{shorten(s.text, 90)}\u201d{why}")
        if len(failing) > limit:
            more = len(failing) - limit
            out.append(f"... and {more} more {agree(more, 'sentence')} not supported")
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "grade": self.grade,
            "sentences": len(self.counted),
            "supported": self.supported,
            "checks": [s.to_dict() for s in self.sentences],
            "citations": [c.to_dict() for c in self.citations],
            "removed": list(self.removed),
        }

    @classmethod
    def from_dict(cls, data: Any) -> Verdict | None:
        """A verdict read back (from the history database: it may be damaged or from another version);
        None when ``data`` is not one."""
        if not isinstance(data, dict) or data.get("grade") not in GRADES:
            return None
        checks = []
        for c in data.get("checks") or []:
            if not isinstance(c, dict) or c.get("status") not in STATUSES:
                continue
            support = c.get("support")
            checks.append(
                SentenceCheck(
                    str(c.get("text", "")),
                    str(c["status"]),
                    [str(i) for i in c.get("ids") or [] if isinstance(i, str)],
                    float(support) if isinstance(support, (int, float)) else None,
                    str(c.get("why", "")),
                )
            )
        citations = [
            Citation(str(c["id"]), bool(c.get("valid")))
            for c in data.get("citations") or []
            if isinstance(c, dict) and isinstance(c.get("id"), str)
        ]
        removed = [str(r) for r in data.get("removed") or [] if isinstance(r, str)]
        return cls(str(data["grade"]), checks, citations, removed)


def combined_grade(grades: list[str | None]) -> str | None:
    """The grade of an answer given by several panelists (None for one answered in verbatim quotes): None
    when none was generated, grounded when every generated one is, not grounded when none is even partly,
    partly grounded otherwise."""
    known = [g for g in grades if g is not None]
    if not known:
        return None
    if all(g == GROUNDED for g in known):
        return GROUNDED
    if all(g == NOT_GROUNDED for g in known):
        return NOT_GROUNDED
    return PARTLY
