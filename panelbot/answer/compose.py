"""Turning a RouteResult into words for people: the verbatim answer and the polite decline.

An answer's quotes are shown in the order they were said, and quotes that follow one another in the talk are
merged into one passage (cited with all their ids), so an answer reads like the panelist speaking rather than
a ranked list. The RouteResult itself keeps its quotes best first, for scores and the sources pane.
"""

from __future__ import annotations

from panelbot.panel import Panel, Quote
from panelbot.records import record
from panelbot.retrieval.results import RouteResult, ScoredQuote
from panelbot.text import and_list, cased_like, fill_text, strip_control, terminal_columns


@record(frozen=True)
class Passage:
    """Consecutive quotes of one speaker, as one piece of text."""

    speaker: str
    text: str
    ids: tuple[str, ...]
    score: float  # the best of its quotes
    notes: tuple[tuple[str, str], ...] = ()  # (id, the curator's note) of its quotes that have one

    def cited(self) -> str:
        """'“text” [dan-22] [dan-23]'."""
        return f"\u201c{self.text}\u201d " + " ".join(f"[{i}]" for i in self.ids)

    def note_lines(self) -> list[str]:
        """'(note on dan-04: caption doubt: ...)' for each of its quotes with a note."""
        return [note_line(qid, note) for qid, note in self.notes]


def note_line(quote_id: str, note: str) -> str:
    """How a quote's note is shown wherever the quote is: '(note on dan-04: caption doubt: ...)'."""
    return strip_control(f"(note on {quote_id}: {note})", keep_newlines=False)


def quote_note_lines(quotes: list[Quote]) -> list[str]:
    """The note line of each quote that has a note, in order."""
    return [note_line(q.id, q.note) for q in quotes if q.note]


def _said_at(q: Quote) -> tuple[int, int]:
    """Where a quote was said: (turn, first sentence); quotes without positions keep their given order."""
    if q.turn is None or not q.sentences:
        return (1 << 30, 0)
    return (q.turn, q.sentences[0])


def _follows(a: Quote, b: Quote) -> bool:
    return (
        a.turn is not None
        and a.turn == b.turn
        and bool(a.sentences)
        and bool(b.sentences)
        and a.sentences[1] == b.sentences[0]
    )  # type: ignore[index]


def passages(quotes: list[ScoredQuote]) -> list[Passage]:
    """The quotes in spoken order, each quote once, neighbours in the talk merged into one passage."""
    seen: set[str] = set()
    unique = []
    for sq in quotes:
        if sq.quote.id not in seen:
            seen.add(sq.quote.id)
            unique.append(sq)
    ordered = sorted(enumerate(unique), key=lambda p: (_said_at(p[1].quote), p[0]))
    out: list[Passage] = []
    last: Quote | None = None
    for _, sq in ordered:
        q = sq.quote
        text = strip_control(q.text, keep_newlines=False).strip()
        notes = ((q.id, q.note),) if q.note else ()
        if out and last is not None and last.speaker == q.speaker and _follows(last, q):
            prev = out[-1]
            out[-1] = Passage(
                prev.speaker,
                f"{prev.text} {text}",
                (*prev.ids, q.id),
                max(prev.score, sq.score),
                prev.notes + notes,
            )
        else:
            out.append(Passage(q.speaker, text, (q.id,), sq.score, notes))
        last = q
    return out


def quotes_text(quotes: list[ScoredQuote]) -> str:
    """The verbatim answer: passages in spoken order, each followed by its ids (and, on a line of its own,
    the curator's note on any of its quotes), one paragraph each."""
    return "\n\n".join("\n".join([p.cited(), *p.note_lines()]) for p in passages(quotes))


def _topics(panel: Panel, per_speaker: int = 2) -> list[tuple[str, list[str]]]:
    """What each panelist covered (their ``covers``; the panel's topics when nobody lists any)."""
    out = []
    for p in panel.panelists.values():
        covers = [strip_control(c, keep_newlines=False) for c in p.covers[:per_speaker]]
        if covers:
            out.append((strip_control(p.name, keep_newlines=False), covers))
    return out


def _nearby(panel: Panel, sq: ScoredQuote) -> str:
    q = sq.quote
    about = q.topics[0] if q.topics else " ".join(q.text.split()[:8]) + "\u2026"
    # a topic written in lower case, with the quote's own acronyms ("GPU") and the panel's names ("Dan's")
    about = panel.names_as_written(cased_like(about, q.text))
    return (
        f"{strip_control(panel.display_name(q.speaker), keep_newlines=False)} talked about "
        f"{strip_control(about, keep_newlines=False)} [{q.id}]"
    )


def _who(panel: Panel) -> str:
    """'Dan (VP of Kernels, Together AI) and Olive (Research lead of RL, MiniMax)'."""
    people = []
    for p in panel.panelists.values():
        title = f" ({p.title})" if p.title else ""
        people.append(strip_control(f"{p.name}{title}", keep_newlines=False))
    return and_list(people)


def _small_talk_reply(kind: str, intro: str, what: str, people: str) -> str:
    """One reply to small talk of ``kind``: ``intro`` says who answers, ``what`` what to ask them."""
    if kind == "thanks":
        return f"You're welcome! {what}"
    if kind == "acknowledgement":
        return f"Anything else? {what}"
    if kind == "farewell":
        return f"Bye, and thanks for asking! Come back any time with more for {people}."
    honest = "Answers come from what was said in the talk, cited by quote id."
    if kind == "wellbeing":
        return f"Thanks for asking! I'm panelbot. {intro} {honest} {what}"
    return f"{'Hi! ' if kind == 'greeting' else ''}{intro} {honest} {what}"  # a greeting, or what to ask


def _try(suggestions: list[str], n: int) -> str:
    return "Try: " + " \u00b7 ".join(
        f"\u201c{strip_control(s, keep_newlines=False)}\u201d" for s in suggestions[:n]
    )


def small_talk_text(panel: Panel, result: RouteResult, *, suggest: bool = True) -> str:
    """The reply to small talk (``result.small_talk``: a greeting, thanks, "ok cool", a goodbye, "how are you?",
    "what can I ask?"): short and honest -- who is on the panel, what they can be asked, and (unless a front end
    offers them itself) two or three questions that have an answer. Nothing is quoted, so nothing is cited."""
    title = strip_control(panel.title or panel.name, keep_newlines=False)
    asks = ", ".join(f"{name} about {and_list(c)}" for name, c in _topics(panel))
    what = f"Ask {asks}." if asks else "Ask about anything the panel discussed."
    names = and_list(
        [
            strip_control(p.name.split()[0] if p.name.split() else p.id, keep_newlines=False)
            for p in panel.panelists.values()
        ]
    )
    first = _small_talk_reply(
        result.small_talk, f"This is the panel \u201c{title}\u201d: {_who(panel)}.", what, names
    )
    return first + (f"\n{_try(result.suggestions, 3)}" if suggest and result.suggestions else "")


def talks_small_talk_text(panels: list[Panel], kind: str, topics: list[str]) -> str:
    """The reply to small talk when asking across every installed talk: which talks (and who spoke in each)
    and what they covered (``topics``, e.g. "open source (minimax-m3)")."""
    talks = "; ".join(
        f"\u201c{strip_control(p.title or p.name, keep_newlines=False)}\u201d ("
        + and_list([strip_control(x.name, keep_newlines=False) for x in p.panelists.values()])
        + ")"
        for p in panels
    )
    n = len(panels)
    intro = (
        f"You're asking across {n} talk{'s' if n != 1 else ''}: {talks}."
        if panels
        else "No talks are installed."
    )
    shown = [strip_control(t, keep_newlines=False) for t in topics[:8]]
    what = f"Ask about {and_list(shown)}." if shown else "Ask about anything the panel discussed."
    return _small_talk_reply(kind, intro, what, "the panelists")


def talks_decline_text(suggestions: list[str]) -> str:
    """The decline when none of the installed talks got into a question (``ask --all``, the app's all-talks
    mode), with what they did cover (``suggestions``: the library's topics)."""
    topics = ", ".join(strip_control(s, keep_newlines=False) for s in suggestions[:8])
    return "None of the talks got into that, so we'd rather not guess." + (
        f" They covered: {topics}." if topics else ""
    )


def decline_text(panel: Panel, result: RouteResult, *, suggest: bool = True) -> str:
    """A short decline (one or two lines): what the talk did cover, from every panelist, or what it said
    nearby, and questions that do have an answer (``suggest=False``: a front end offers them itself). Small
    talk gets :func:`small_talk_text` instead."""
    if result.small_talk:
        return small_talk_text(panel, result, suggest=suggest)
    if result.unstated:
        first = f"The talk never gave {strip_control(result.unstated, keep_newlines=False)}"
        first += f"; nearby, {_nearby(panel, result.nearby[0])}." if result.nearby else "."
    elif not result.off_topic:  # on the subject, but not something to answer (the reason says why)
        reason = strip_control(result.reason, keep_newlines=False)
        # a reason ending in the question to ask (“and Dan?”) ends there
        first = f"{reason[:1].upper()}{reason[1:]}" + (
            "" if reason.endswith((".", "?", "?\u201d")) else "."
        )
    else:
        topics = _topics(panel)
        covered = "; ".join(
            f"{name} covered {and_list(c)}" if i == 0 else f"{name}, {and_list(c)}"
            for i, (name, c) in enumerate(topics)
        )
        first = "Not something the panel got into." + (f" {covered}." if covered else "")
    parts = [first]
    if (
        suggest and result.suggestions
    ):  # two here keep it to two lines; front ends may offer all of them to pick
        parts.append(_try(result.suggestions, 2))
    return "\n".join(parts)


def speaker_heading(panel: Panel, speaker: str) -> str:
    p = panel.persona(speaker)
    if p is None:
        return strip_control(speaker)
    title = f" ({p.title})" if p.title else ""
    return strip_control(f"{p.name}{title}", keep_newlines=False)


def terminal_width() -> int:
    """The width plain-text answers are wrapped to: the terminal's, at most 100 columns."""
    return min(100, terminal_columns(100))


def format_route(panel: Panel, result: RouteResult, *, width: int | None = None) -> str:
    """Plain-text rendering for the terminal: who answers, their passages in spoken order with ids."""
    width = width or terminal_width()
    if result.abstained:
        return "\n".join(
            fill_text(line, width) for line in decline_text(panel, result).splitlines()
        )
    lines: list[str] = []
    for speaker in result.speakers:
        quotes = result.quotes_for(speaker)
        if not quotes:  # never a heading with nothing under it
            continue
        lines.append(f"{speaker_heading(panel, speaker)}:")
        for p in passages(quotes):
            lines.append(fill_text(p.cited(), width, "  "))
            lines.extend(fill_text(n, width, "    ") for n in p.note_lines())
        lines.append("")
    lines.append(fill_text(f"({strip_control(result.reason, keep_newlines=False)})", width))
    return "\n".join(lines)
