"""Where captions miss a change of speaker: a raw turn (the words between two ``>>``) that holds two
people's words is cut in two, so that attribution never gives one person another's answer.

Auto-captions drop the ``>>`` often. Two cuts rest on the words themselves:

* a self-introduction after the turn's first sentence ("… top floors of social housing. Hi, and I'm
  Amelia Tran. I'm a doctor …"): the introduced speaker starts there;
* a question put to a panelist by name, then a long stretch that is not a question and does not name them
  ("Joaquín, are trees the answer? They are part of it, but …"): the answer starts after the question;
* a sentence that opens by replying to a panelist by name, after a long stretch that does not name them
  ("… the passenger trains get priority. And that's exactly it, Renate. I mean …", "… Thanks, Kofi. …",
  "… I'd add to what Kwame said …"), or that asks to break in ("… Sorry, can I jump in there, …"): someone
  else speaks from there.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from panelbot.ingest.captions import RawTurn
from panelbot.ingest.cues import sentences

MIN_ANSWER_WORDS = 12  # what follows a question must be this long to be taken for someone's answer


def split_unmarked(
    kept: list[tuple[RawTurn, bool]],
    introduced: Callable[[str], list[str]],
    called: Callable[[str], list[str]],
    mentioned: Callable[[str], list[str]],
) -> list[tuple[RawTurn, bool]]:
    """``kept`` (turn, after a back-channel) with each turn that holds two speakers cut where the second
    begins (both halves keep the raw turn's index). The callables give panelist ids for a text: the ones
    it introduces as its speaker, the ones it speaks to by name, every one it names."""
    out: list[tuple[RawTurn, bool]] = []
    for t, after in kept:
        pieces = _cut(t, introduced, called, mentioned)
        out.append((pieces[0], after))
        out += [(p, False) for p in pieces[1:]]
    return out


def _cut(
    t: RawTurn,
    introduced: Callable[[str], list[str]],
    called: Callable[[str], list[str]],
    mentioned: Callable[[str], list[str]],
) -> list[RawTurn]:
    sents = sentences(t.text)
    if len(sents) < 2:
        return [t]
    at = (
        _intro_start(sents, introduced)
        or _answer_start(sents, called, mentioned)
        or _reply_start(sents, mentioned)
        or _break_in_start(sents)
    )
    if not at:
        return [t]
    k = len(" ".join(sents[:at]).split())
    words = t.text.split()
    if not 0 < k < len(words):
        return [t]
    first = _piece(t, words[:k], 0, k)
    return [first, *_cut(_piece(t, words[k:], k, len(words)), introduced, called, mentioned)]


def _piece(t: RawTurn, words: list[str], a: int, b: int) -> RawTurn:
    times = t.times[a:b] if len(t.times) == len(t.text.split()) else []
    return RawTurn(" ".join(words), t.index, times, t.label)


def _intro_start(sents: list[str], introduced: Callable[[str], list[str]]) -> int:
    """The index of the sentence where a second speaker introduces themselves after someone's words
    (not after a greeting: "Thanks, Priyanka. Habari, everyone. My name is Wanjiru …"), or 0."""
    first = set(introduced(" ".join(sents[:2])))
    for k in range(1, len(sents)):
        if len(" ".join(sents[:k]).split()) < MIN_ANSWER_WORDS:
            continue
        who = introduced(sents[k])
        if who and not set(who) & first and _SELF_RE.search(sents[k]):
            return k
    return 0


_SELF_RE = re.compile(r"\b(?:I'm|I\u2019m|I am|my name)", re.IGNORECASE)


def _answer_start(
    sents: list[str], called: Callable[[str], list[str]], mentioned: Callable[[str], list[str]]
) -> int:
    """The index of the sentence after a question put to a panelist by name when a long stretch that is
    no question and does not name them follows, or 0."""
    for k, sent in enumerate(sents[:-1]):
        if not sent.rstrip().endswith("?"):
            continue
        asked = set(called(" ".join(sents[max(0, k - 1) : k + 1])))
        rest = " ".join(sents[k + 1 :])
        if (
            asked
            and len(rest.split()) >= MIN_ANSWER_WORDS
            and not rest.rstrip().endswith("?")
            and not asked & set(mentioned(rest))
        ):
            return k + 1
    return 0


# a sentence opening as a reply to someone named in its first words: "And that's exactly it, Renate.",
# "Thanks, Kofi.", "Sorry, Maëlle, can I …", "I'd add to what Kwame said", "Renate's right"
_REPLY_OPENING_RE = re.compile(
    r"^\W*(?:(?:and|but|so|well|yes|yeah|oh|okay|no)[,.]?\s+)*(?:"
    r"(?:that's|that is) (?:exactly |just |so |absolutely )?(?:it|right|true|fair|the point|my point)|"
    r"thanks|thank you|exactly|absolutely|agreed|i agree with|sorry|good point|"
    r"(?:i'd|i would|just to|to|let me) (?:just )?(?:add to|build on|come back to|pick up on|follow up on) "
    r"what|building on what|i'd (?:push|pull) back on what|i'm with)\b",
    re.IGNORECASE,
)
_RIGHT_RE = re.compile(
    r"^(?:(?:and|but|so|well|yes|yeah)[,.]?\s+)*[^\W\d_]+(?:'s| is) (?:right|correct)\b"
)
_REPLY_NAME_WORDS = 8  # the name must come within the reply's first words


def _reply_start(sents: list[str], mentioned: Callable[[str], list[str]]) -> int:
    """The index of a sentence (after a long stretch) that opens by replying to a panelist the stretch
    before does not name, or 0."""
    for k in range(1, len(sents)):
        before = " ".join(sents[:k])
        if len(before.split()) < MIN_ANSWER_WORDS:
            continue
        head = " ".join(sents[k].split()[:_REPLY_NAME_WORDS])
        named = set(mentioned(head))
        if not named or named & set(mentioned(before)):
            continue
        if re.match(r"^\W*thanks? (?:to|for)\b", sents[k], re.IGNORECASE):
            continue  # "thanks to the regulator's report …": no reply
        if _REPLY_OPENING_RE.match(sents[k]) or _RIGHT_RE.match(sents[k]):
            return k
    return 0


# someone breaking in: "Sorry, can I jump in there, because …", "Can I just come in on that?"
BREAKS_IN_RE = re.compile(
    r"^\W*(?:(?:sorry|sorry to interrupt|but|and|oh|well)[,.]?\s+)*(?:(?:can|could|may) I (?:just )?"
    r"(?:say|jump in|come in|add something|add to that|add one thing|cut in|chime in)|"
    r"if I (?:can|could|may) (?:just )?(?:jump|come|cut|chime) in)\b",
    re.IGNORECASE,
)


def _break_in_start(sents: list[str]) -> int:
    """The index of a sentence (after a long stretch) where someone asks to break in, or 0."""
    for k in range(1, len(sents)):
        if len(" ".join(sents[:k]).split()) >= MIN_ANSWER_WORDS and BREAKS_IN_RE.match(sents[k]):
            return k
    return 0
