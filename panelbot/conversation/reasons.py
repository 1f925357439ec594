"""Asking for a reason ("why?", "how come?", "why's that?") and finding where a speaker gives one.

A "why?" follow-up is not "tell me more": it asks for the cause or motivation behind what was just said. The
resolver (``panelbot.conversation.resolve``) reads it with ``WHY`` and answers it from the passages that carry
a cause, found here with ``CAUSE``: general English markers of a reason (because, so that, in order to, the
reason, that's why, our mission, ...), never phrases of a particular talk. Plain Python (no Textual).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from panelbot.text import LazyPattern

# a question asking for the reason; what it matches is removed before judging whether new content was added
WHY = LazyPattern(
    r"\b(?:why(?:'s|s)?(?: (?:is|was|are|were|would|does|did|do|should|not|so|bother|exactly|though|then))*"
    r"(?: (?:that|this|it|he|she|they|you|one))?"
    r"(?: (?:so|the case|say (?:that|so)|think (?:that|so)|matter|happen|do (?:that|this|it)|bother))?|"
    r"how come|what for|for what reason|"
    r"(?:what(?:'s| is| was| were) )?(?:the |your |his |her |their )?(?:reasons?|reasoning|motivation|rationale|"
    r"thinking|logic)(?: (?:for|behind) (?:that|this|it))?)\b",
    re.IGNORECASE,
)

# it opens with the reason question ("why?", "ok, how come?") rather than asking why inside a longer question
WHY_FIRST = LazyPattern(
    r"^\W*(?:why\b|how come\b|what for\b|for what reason\b|what(?:'s| is| was) the "
    r"(?:reason|reasoning|motivation|rationale|thinking|logic)\b)",
    re.IGNORECASE,
)

# a cause or motivation given in what someone said
CAUSE = LazyPattern(
    r"\b(?:because|cuz|'cause|since (?:we|they|it|you|the|this|that)|so,? that|in order to|so as to|"
    r"(?:the|one of the|main|big|whole) reasons?|reasons? (?:why|that|is|was)|that's why|that is why|"
    r"which is why|this is why|that's the reason|due to|thanks to|as a result|"
    r"(?:our|the|my|their) (?:intentions?|goal|aim|purpose|mission|motivation|idea)|aligns? with|"
    r"the (?:idea|point|goal) (?:is|was)|so (?:we|they|it|you|that we|people|everyone) (?:can|could|will|would)|"
    r"(?:we|they|i) (?:want(?:ed)?|need(?:ed)?) to|(?:we|they) believe|"
    # grounds: what was seen or found
    r"(?:we|they|i)(?:'re| are| were)? seeing|(?:we|they|i) (?:found|saw|noticed|learned)|it turns out)\b",
    re.IGNORECASE,
)
# the weaker of those: a wish, a belief or what was seen, not a stated cause
WEAK = LazyPattern(
    r"^(?:since .*|(?:we|they|i) (?:want(?:ed)?|need(?:ed)?) to|(?:we|they) believe|"
    r"(?:we|they|i)(?:'re| are| were)? seeing|(?:we|they|i) (?:found|saw|noticed|learned)|it turns out)$",
    re.IGNORECASE,
)

_LEAD = LazyPattern(r"^\W*(?:and|but|so|ok(?:ay)?|then)\b[\s,]*", re.IGNORECASE)
_SENTENCE = LazyPattern(r"(?<=[.!?])\s+")
EXCERPT_WORDS = 30  # a reason quoted in the answer's note is cut to about this many words ...
EXCERPT_MAX = 45  # ... or this many, to keep the sentence before it when the reason leans on it
AFTER_MARKER = 8  # words kept after the cause marker ("because", "so that") when the excerpt is cut
CLAUSE_REACH = 6  # ... and up to this many more, to end at a clause break
# a sentence leaning on the one before it: it opens with a pronoun ("So, it informs ...", "That's why ...")
LEANS_BACK = LazyPattern(
    r"^\W*(?:(?:and|but|so|and so|because|then|yeah|well)\W+)*"
    r"(?:it|it's|this|that|that's|these|those|they|them|which|he|she)\b",
    re.IGNORECASE,
)
_CLAUSE_END = (",", ";", ":", "\u2014", "-")


def causes(text: str) -> int:
    """How many distinct cause markers a passage has (0: it gives no reason)."""
    return len({m.group(0).lower() for m in CAUSE.finditer(text or "")})


def states_cause(text: str) -> bool:
    """Whether a passage states a cause outright ("because", "the reason", "so that"), not only grounds."""
    return any(not WEAK.match(m.group(0)) for m in CAUSE.finditer(text or ""))


def _with_context(sentences: list[str], n: int, relevance: Callable[[str], float] | None) -> int:
    """Where a reason given in sentence ``n`` starts: the sentence before it too when ``n`` leans on it (opens
    with a pronoun, or says nothing of the subject that the one before does) and that one is short."""
    if n == 0 or len(sentences[n - 1].split()) > EXCERPT_WORDS:
        return n
    leans = bool(LEANS_BACK.match(sentences[n]))
    if relevance is not None and relevance(sentences[n]) <= 0 < relevance(sentences[n - 1]):
        leans = True
    return n - 1 if leans else n


def cause_sentences(
    text: str, relevance: Callable[[str], float] | None = None
) -> list[tuple[str, str]]:
    """(the sentence giving a cause, the same with the sentence it leans on) for each such sentence."""
    sentences = _SENTENCE.split(" ".join((text or "").split()))
    return [
        (s, " ".join(sentences[_with_context(sentences, n, relevance) : n + 1]))
        for n, s in enumerate(sentences)
        if CAUSE.search(s)
    ]


def _reason_sentence(
    sentences: list[str], relevance: Callable[[str], float] | None
) -> tuple[int, re.Match[str]] | None:
    """The sentence giving the reason (its position, and its marker): one stating a cause before one giving
    grounds, then the most relevant (``relevance(sentence)``), then the first; None when none gives one."""
    best: tuple[tuple[int, float, int], int, re.Match[str]] | None = None
    for n, sentence in enumerate(sentences):
        marks = list(CAUSE.finditer(sentence))
        if not marks:
            continue
        m = next((x for x in marks if not WEAK.match(x.group(0))), marks[0])
        key = (
            0 if not WEAK.match(m.group(0)) else 1,
            -(relevance(sentence) if relevance else 0.0),
            n,
        )
        if best is None or key < best[0]:
            best = (key, n, m)
    return None if best is None else (best[1], best[2])


def reason_passage(text: str, relevance: Callable[[str], float] | None = None) -> str:
    """The whole sentences of a passage that give its reason (``reason_excerpt``'s sentence, with the one it
    leans on), verbatim: what explains it, without the rest around it; "" when no sentence gives one or
    those sentences are all of it."""
    sentences = _SENTENCE.split(" ".join((text or "").split()))
    best = _reason_sentence(sentences, relevance)
    if best is None:
        return ""
    n = best[0]
    first = _with_context(sentences, n, relevance)
    if first == 0 and n == len(sentences) - 1:
        return ""
    return " ".join(sentences[first : n + 1])


def reason_excerpt(text: str, relevance: Callable[[str], float] | None = None) -> str:
    """The sentence of a passage that gives the reason, from its start (with the sentence before it when it
    leans on that one: "So, it informs ... because ..."), cut after about ``EXCERPT_WORDS`` words but never
    before the marker and a few words after it; or "". One stating a cause before one giving grounds, then
    the most relevant (``relevance(sentence)``), then the first. Only a marker too far into a very long
    sentence starts the excerpt later: after the last clause break that leaves it in view, else mid-way."""
    sentences = _SENTENCE.split(" ".join((text or "").split()))
    best = _reason_sentence(sentences, relevance)
    if best is None:
        return ""
    n, m = best
    sentence = sentences[n]
    first = _with_context(sentences, n, relevance)
    before = " ".join(sentences[first:n]).split()
    at = len(before) + len(sentence[: m.start()].split())  # the marker's word
    words = [*before, *sentence.split()]
    if at + AFTER_MARKER > EXCERPT_MAX and before:  # the sentence before does not fit with it
        words, at = words[len(before) :], at - len(before)
    need = max(EXCERPT_WORDS, at + AFTER_MARKER)
    if need <= EXCERPT_MAX:
        # end at a clause break just after the cut ("... when we're in the chat world,") when there is one
        need = next(
            (
                i + 1
                for i in range(need - 1, min(len(words), need + CLAUSE_REACH, EXCERPT_MAX))
                if words[i].endswith(_CLAUSE_END)
            ),
            need,
        )
        if need >= len(words):
            return " ".join(words)
        return " ".join(words[:need]).rstrip(",;:\u2014- ") + "\u2026"
    # the marker is far into a long sentence: start after a clause break that keeps it in view
    reach = EXCERPT_WORDS - AFTER_MARKER
    breaks = [i + 1 for i in range(max(0, at - reach - 1), at) if words[i].endswith(_CLAUSE_END)]
    start = breaks[0] if breaks else max(0, at - 6)
    start = min(start, max(0, len(words) - EXCERPT_WORDS))
    cut = " ".join(words[start : start + EXCERPT_WORDS])
    return (
        ("\u2026" if start else "") + cut + ("\u2026" if start + EXCERPT_WORDS < len(words) else "")
    )


def cause_relevance(text: str, relevance: Callable[[str], float]) -> tuple[float, float]:
    """(how much of the subject -- ``relevance(sentence)`` -- the most relevant sentence giving a cause says,
    how much the passage's most relevant sentence says): a passage about the subject whose reason is given
    in a sentence about something else ("...the stack you want to optimize because now, in the chat world,
    ...") scores far below its best."""
    scored = [
        (relevance(s), bool(CAUSE.search(s)))
        for s in _SENTENCE.split(" ".join((text or "").split()))
    ]
    return (
        max((r for r, cause in scored if cause), default=0.0),
        max((r for r, _ in scored), default=0.0),
    )


def asks_why(message: str) -> bool:
    """The message asks for a reason ("why?", "how come?", "and why is that?", "what's the reasoning?")."""
    stripped = _LEAD.sub("", message or "")
    return bool(WHY_FIRST.search(stripped))
