"""Where speakers change in a transcript that marks no speaker at all (plain Whisper SRT/VTT/TXT: no ``>>``,
no ``NAME:`` labels), from the kinds and lengths of its sentences (issue 21).

A moderated talk reads as a conversation even unmarked: the host asks, a long stretch that asks nothing
answers, the host reacts in a few short words and asks again. :func:`conversation_turns` cuts the one raw
turn such a transcript gives into turns there:

* after a real question (not a tag "…, isn't it?", not a panelist asking to break in: "Can I add something
  on automation?"), or a short hand-over by name ("Joost, that sounds like your territory."), when a long
  stretch that asks nothing follows: the answer starts after it;
* the host's turn starts at the run of short sentences before the question ("Crystals, not salt. I did not
  know that. But why a cave?"), a question's set-up after a question or a turn of topic ("Okay, the room.
  Because …"), a short reply by name ("You're not, Ingrid, I've been."), and further back at an echo of the
  answer's last words ("Nobody auditions, I like that."), a bare thanks, or the floor being given ("We've got
  time for a question or two. Yes, in the blue jumper.");
* at a self-introduction after someone else's words ("… so let's just go down the line. Hi, morning. I'm
  Siddharth …"), its greeting ("Hi, morning.", "Yeah, sure. Thanks, Tom.") with it; the talk's first one is
  the host's own unless the host asked for introductions before it;
* inside a long stretch: the host's remark that the answerer confirms and goes on from ("Twice the forests.
  That's startling. It is. The catch is …"), a panelist breaking in ("Sorry, can I jump in there"), a
  listener's back-channel sentence ("Mm-hm."), and the host's closing thanks after the last answer.

After the names are known, :func:`split_rounds` shares the stretch answering a question put to everyone out
into one answer per panelist. The cuts rest on sentence kinds and lengths and on the names the talk itself
gives, never on who speaks: attribution (``speakers.py``) decides that as for any captions, so a turn whose
speaker rests only on its order or field (a round's order, the field, "the other panelist") is flagged by the
health report as for any other. :func:`exchanges` counts the question-and-answer exchanges, so that unmarked
text that reads as a conversation is accepted (``sniff.py``) and a monologue is not.

Lowercase auto-captions get the same cuts once ``restore`` has given them sentences: where their ``>>``
marks miss a change of speaker, :func:`cut_inside` cuts each long marked turn where :func:`cut_points` cuts
the whole talk read as one text, and with no ``>>`` at all the one turn goes through
:func:`conversation_turns`. Every turn such a cut makes whose speaker rests on no name, hand-over or label
is marked doubtful (:func:`flag_cuts`), so the health report points at it.

In a talk that marks no speaker at all every cut is a guess, so :func:`flag_unmarked` holds a name firm only
where it sits at the cut (a hand-over to exactly that panelist just before, or their own introduction) and
flags the turns that read as holding another speaker's words where a cut was missed: the host's echo, bare
reactions or the floor given inside an answer, a host's turn opening by agreeing ("Yes, exactly, Zoë.").
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Collection
from functools import lru_cache
from itertools import combinations
from typing import TYPE_CHECKING

from panelbot.ingest.basis import attribution_basis
from panelbot.ingest.captions import RawTurn
from panelbot.ingest.cues import (
    ADDS_RE,
    CLOSING_RE,
    FLOOR_RE,
    MODERATING_RE,
    ROUND_RE,
    THANKS_ALL_RE,
    is_backchannel,
    is_remark,
    looks_like_question,
    sentences,
)
from panelbot.ingest.names import find_intro_names, is_name
from panelbot.ingest.segments import BREAKS_IN_RE
from panelbot.retrieval.lexicon import content_words

if TYPE_CHECKING:
    from panelbot.ingest.speakers import SpeakerTurn

# Thresholds of the cuts (declared here; set on the dev talks of tests/fixtures/lowered, *_nm):
ANSWER_WORDS = 15  # a stretch asking nothing this long after a question is someone's answer
# a sentence this short before the host's question is the host's (a reaction, a name)
LEAD_WORDS = 6
SETUP_WORDS = 25  # a statement this short between two of the host's questions is the host's set-up
HANDOVER_WORDS = 12  # a sentence this short speaking to someone by name hands the floor over
# of a short sentence's content words found in the answer's last sentences: an echo
ECHO_SHARE = 0.6
# the host's turn reaches back at most this far from its question to an echo or a thanks
HOST_WORDS = 100
# a greeting this short before a self-introduction is the one introducing themselves
GREETING_WORDS = 4
# unmarked text with this many questions answered at length reads as a conversation
MIN_EXCHANGES = 2

_GREETING_RE = re.compile(
    r"^\W*(?:(?:yeah|yes|sure|okay|ok|right|so|um|uh|and|well)[,.!]?\s+)*"
    r"(?:hi|hello|hey|morning|good (?:morning|afternoon|evening)|thanks|thank you|evening|sure|yeah|yes)\b",
    re.IGNORECASE,
)
_VOCATIVE_RE = re.compile(
    r"^\W*(?:(?:so|and|now|okay|ok|right|well)[,]?\s+)?([^\W\d_][\w'\u2019-]*),\s", re.IGNORECASE
)
_OWN_VOICE_RE = re.compile(r"\b(?:I|I'm|I'll|I'd|I've|me|my|we|we're|our|us)\b", re.IGNORECASE)
_MID_VOCATIVE_RE = re.compile(r"\w,\s+([^\W\d_][\w'\u2019-]*)[,.!]")
# "And Maëlle, that's …": a reply, not a hand-over
_AND_RE = re.compile(r"^\W*and\b", re.IGNORECASE)
_YOU_RE = re.compile(r"\b(?:you|your|you're|you've|yours)\b", re.IGNORECASE)
_INTRO_REQUEST_RE = re.compile(
    r"\b(?:introduce (?:yourself|yourselves|themselves)|who you are|tell us (?:a (?:little|bit) )?about "
    r"yourself)\b",
    re.IGNORECASE,
)
# the host turning to something new: "Now, there's a question I've been sent …", "Okay, the room."
_TOPIC_TURN_RE = re.compile(
    r"^\W*(?:(?:now|okay|ok|alright|all right|right),\s|(?:(?:so|and|now|okay|ok)[,]?\s+)?let's "
    r"(?:talk about|turn to|move on|come to|get to|go to|stay with)\b)",
    re.IGNORECASE,
)
_LINKING_RE = re.compile(r"^\W*(?:so|and|um|uh|like|go|ahead|oh|ah)\W*$", re.IGNORECASE)
# the one who answered confirming the host's remark before going on: "It is.", "Yes, exactly."
_CONFIRMS_RE = re.compile(
    r"^\W*(?:it (?:is|does|really is|was)|yes|yeah|exactly|absolutely|indeed|true|right|it's true)"
    r"(?:[,.!]\s*(?:yes|yeah|exactly|absolutely|indeed|really)?)*[.!]?$",
    re.IGNORECASE,
)
_THANKS_RE = re.compile(r"^\W*(?:thank you|thanks)(?:,\s*[^\W\d_]+)?[.!]?$", re.IGNORECASE)
_SELF_RE = re.compile(r"\b(?:I'm|I\u2019m|I am|my name|calls? me)\b", re.IGNORECASE)
_PUNCT = ".,;:!?\"'()[]\u201c\u201d\u2018\u2019"
_END_QUOTE = "\"'\u201d\u2019)"


def _n(sents: list[str]) -> int:
    return sum(len(s.split()) for s in sents)


def _ends_asking(sent: str) -> bool:
    return sent.rstrip().rstrip(_END_QUOTE).endswith("?")


def _asks(sent: str) -> bool:
    """A sentence putting a real question (the host's): not a tag question, not asking to break in."""
    return looks_like_question(sent) and _ends_asking(sent) and not _breaks_in(sent)


def _breaks_in(sent: str) -> bool:
    """A panelist asking to break in or adding to what was said ("Can I just add to that?", "And Ursula,
    if I can add, …": after a name spoken to)."""
    m = _VOCATIVE_RE.match(sent)
    rest = sent[m.end() :] if m and is_name(m.group(1)) else ""
    return any(
        bool(ADDS_RE.match(x) or BREAKS_IN_RE.match(x) or _WOULD_AGREE_RE.match(x))
        for x in (sent, rest)
        if x
    )


# "No, I'd agree with Adaeze there": taking up what another said
_WOULD_AGREE_RE = re.compile(
    r"^\W*(?:(?:no|yes|yeah|well|and|so)[,.]?\s+)*I(?:'d| would) (?:agree|disagree)\b",
    re.IGNORECASE,
)


def _calls_by_name(sent: str, all_text: str) -> bool:
    """The sentence opens by speaking to someone by a name the talk uses again ("Kasia, I want to bring
    you in, …", "So, Joost, …")."""
    m = _VOCATIVE_RE.match(sent)
    return bool(m and is_name(m.group(1)) and _tokens(all_text)[m.group(1)] >= 2)


@lru_cache(maxsize=4)
def _tokens(text: str) -> Counter[str]:
    """How often each word occurs in the text (punctuation around it stripped)."""
    return Counter(w.strip(_PUNCT) for w in text.split())


def _replies_by_name(sent: str, all_text: str) -> bool:
    """A short sentence speaking to someone by name in its middle ("You're not, Ingrid, I've been.")."""
    return len(sent.split()) <= LEAD_WORDS and any(
        is_name(m.group(1)) and _tokens(all_text)[m.group(1)] >= 2
        for m in _MID_VOCATIVE_RE.finditer(sent)
    )


def _hands_over(sent: str, all_text: str) -> bool:
    """A short sentence handing the floor to someone by name without a question mark ("Joost, that
    sounds like your territory.", "Joaquín, you were nodding.")."""
    return (
        len(sent.split()) <= HANDOVER_WORDS
        and "?" not in sent
        and bool(_YOU_RE.search(sent))
        and not _OWN_VOICE_RE.search(sent)
        and bool(_VOCATIVE_RE.match(sent) and not _AND_RE.match(sent))
        and _calls_by_name(sent, all_text)
    )


def _puts(sent: str, all_text: str) -> bool:
    """The host putting a question or handing over by name."""
    return _asks(sent) or _hands_over(sent, all_text)


def _host_like(sent: str, all_text: str) -> bool:
    """A sentence of the host's before a question: short, a remark, running the session, thanking,
    speaking to someone by name."""
    return (
        len(sent.split()) <= LEAD_WORDS
        or (len(sent.split()) <= SETUP_WORDS and _calls_by_name(sent, all_text))
        or is_remark(sent)
        or bool(MODERATING_RE.match(sent) or FLOOR_RE.search(sent) or THANKS_ALL_RE.match(sent))
        or (
            len(sent.split()) <= SETUP_WORDS
            and bool(ROUND_RE.search(sent) or _TOPIC_TURN_RE.match(sent))
        )
    )


def _lead_start(sents: list[str], q: int, floor: int, all_text: str) -> int:
    """The first sentence of the host's turn that asks at ``q``: back over the host's short sentences,
    questions and a question's set-up after a question or a turn to a new topic, never before
    ``floor``."""
    j = q
    while j > floor:
        prev = sents[j - 1]
        if _replies_by_name(prev, all_text):
            return j - 1  # "You're not, Ingrid, I've been.": the host answering the one who spoke
        if _ends_asking(prev) or _host_like(prev, all_text):
            j -= 1
        elif (
            j - 2 >= floor
            and (_ends_asking(sents[j - 2]) or _TOPIC_TURN_RE.match(sents[j - 2]))
            and len(prev.split()) <= SETUP_WORDS
        ):
            # "Because that's the big argument, isn't it? In some countries … sixty days. Is …?",
            # "Okay, the room. Because a lot of community choirs rehearse in … Does the room matter?"
            j -= 1
        else:
            break
    return j


def _host_start(sents: list[str], q: int, floor: int, all_text: str) -> int:
    """Where the host's turn that asks at ``q`` starts: its lead-in (:func:`_lead_start`), or further back
    where the host marks taking the floor within ``HOST_WORDS`` of the question: echoing the answer's last
    words ("Nobody auditions, I like that.") or a bare thanks ("Thank you.")."""
    lead = _lead_start(sents, q, floor, all_text)
    for m in range(lead - 1, floor - 1, -1):
        if _n(sents[m:q]) > HOST_WORDS or _breaks_in(sents[m]):
            break
        if _takes_floor(sents, m):
            while m > floor and _takes_floor(sents, m - 1):
                m -= (
                    1  # "We have time for one question. Yes, at the front.": from the first of them
                )
            return _floor_before(sents, m, q, floor)
    return lead


def _floor_before(sents: list[str], m: int, q: int, floor: int) -> int:
    """``m``, or the floor given further back within ``HOST_WORDS`` of the question at ``q`` ("Let's take a
    question from the audience. The lady in the green coat, yes. Thank you. I've got …?": from the floor
    given, not from the listener's thanks)."""
    for j in range(m - 1, floor - 1, -1):
        if _n(sents[j:q]) > HOST_WORDS or _breaks_in(sents[j]) or _ends_asking(sents[j]):
            break
        if _floor(sents[j]):
            return j
    return m


def _floor(sent: str) -> bool:
    return bool(MODERATING_RE.match(sent) or FLOOR_RE.search(sent))


def _takes_floor(sents: list[str], m: int) -> bool:
    sent = sents[m]
    if _floor(sent):
        return True  # "Let's take one from the audience. Yes, the gentleman with the scarf. Hi, …"
    if len(sent.split()) > LEAD_WORDS or _ends_asking(sent):
        return False
    return bool(_THANKS_RE.match(sent)) or _echoes(sents, m)


def _echoes(sents: list[str], m: int) -> bool:
    """A short sentence most of whose words the answer's last sentences said ("Crystals, not salt.")."""
    sent = sents[m]
    if len(sent.split()) > LEAD_WORDS:
        return False
    own = {w.lower() for w in content_words(sent)}
    before = {w.lower() for w in content_words(" ".join(sents[max(0, m - 3) : m]))}
    return bool(own) and len(own & before) >= ECHO_SHARE * len(own)


def _closing_questions(sents: list[str], all_text: str) -> list[int]:
    """The sentences where the host's question ends and an answer follows: a real question followed by a
    stretch of ``ANSWER_WORDS`` or more that asks nothing (the next question's lead-in not counted)."""
    asking = [k for k, s in enumerate(sents) if _puts(s, all_text)]
    out = []
    for q, nxt in zip(asking, [*asking[1:], len(sents)], strict=False):
        end = _lead_start(sents, nxt, q + 1, all_text) if nxt < len(sents) else nxt
        if _n(sents[q + 1 : end]) >= ANSWER_WORDS:
            out.append(q)
    return out


def _intro_starts(sents: list[str], all_text: str) -> tuple[int, list[tuple[int, int]]]:
    """(where the host's opening ends, [(first sentence, introducing sentence)] where someone introduces
    themselves after another's words, the greeting before it included). The talk's first introduction is
    the host's own unless the host asked for introductions before it; an introduction that soon asks is
    someone from the audience ("Hi, I'm Dave, a student. My question is for Mirela. …?")."""
    out = []
    opening = 0
    for k in range(len(sents)):
        if not _introduces(sents, k, all_text):
            continue
        if not out and not opening and not any(_INTRO_REQUEST_RE.search(x) for x in sents[:k]):
            opening = k + 1
            continue
        j = k
        while j > 0 and _is_greeting(sents[j - 1]):
            j -= 1
        if j > 0 and _n(sents[k : _next_asking(sents, k)]) >= ANSWER_WORDS:
            if out and _hands_on(sents, j - 1, all_text) and j - 1 > out[-1][1]:
                out.append(
                    (j - 1, j - 1)
                )  # "And next to Joaquín.": the host between two introductions
            out.append((j, k))
    return opening, out


# "Tobenna Eze.": a sentence that is only a name (the words around it stripped)
_NAME_ONLY_RE = re.compile(r"^\W*([^\W\d_][\w'\u2019-]*(?:\s+[^\W\d_][\w'\u2019-]*){1,2})[.!]?$")
_OWN_START_RE = re.compile(r"^\W*(?:I|I'm|I\u2019m|My)\b")


def _introduces(sents: list[str], k: int, all_text: str) -> bool:
    """Sentence ``k`` introduces its speaker by name: "I'm Marit Haugland, …", or a sentence that is only a
    full name with the speaker's own words next ("Hi. Tobenna Eze. I'm a lighting engineer …")."""
    s = sents[k]
    if _SELF_RE.search(s) and find_intro_names(s, all_text):
        return True
    m = _NAME_ONLY_RE.match(s)
    return bool(
        m
        and k + 1 < len(sents)
        and all(is_name(w) for w in m.group(1).split())
        and _OWN_START_RE.match(sents[k + 1])
        and find_intro_names(f"{s} {sents[k + 1]}", all_text)
    )


def _hands_on(sents: list[str], m: int, all_text: str) -> bool:
    """A short sentence naming someone of the talk, between one introduction and the next ("And next to
    Joaquín.")."""
    sent = sents[m]
    names = [w.strip(_PUNCT) for w in sent.split()[1:]]
    return (
        len(sent.split()) <= LEAD_WORDS
        and not _ends_asking(sent)
        and not _SELF_RE.search(sent)
        and any(is_name(w) and _tokens(all_text)[w] >= 2 for w in names)
    )


def _is_greeting(sent: str) -> bool:
    return (
        len(sent.split()) <= GREETING_WORDS and bool(_GREETING_RE.match(sent)) and "?" not in sent
    )


def cut_points(text: str) -> list[int]:
    """The sentence indices (of ``cues.sentences(text)``) where a new speaker starts."""
    sents = sentences(text)
    opening, intros = _intro_starts(sents, text)
    starts: set[int] = set()
    floor = opening
    for q in _closing_questions(sents, text):
        if q < opening:
            continue  # "Hi everyone, can you hear me at the back? … I'm Tom …": the host's opening
        # the one introducing themselves at k says ANSWER_WORDS from there ("And I’m Ruth, I study moths. Marit,
        # let’s start with you." leaves the hand-over to the host)
        floor = max([floor, *(_past(sents, k - 1) for _, k in intros if k < q)])
        lead = _host_start(sents, q, min(floor, q), text)
        if floor > opening or any(j <= lead for j, _ in intros):
            starts.add(lead)  # not the opening: the host's turn starts after someone else's words
        starts.add(q + 1)
        floor = _past(sents, q)
    for j, k in intros:  # the greeting before an introduction is the one introducing themselves
        starts = {x for x in starts if not j < x <= k} | {j}
    starts |= _bare_calls(sents, text)
    starts |= _thanks_to_opener(sents, text, opening)
    starts |= _closing(sents, starts)
    starts |= _asides(sents, starts, text)
    return sorted(k for k in starts if 0 < k < len(sents))


# the host calling on someone by a bare name, as in a round: "Tobenna?", "And Ruth?", "What about Lorna?"
_BARE_CALL_RE = re.compile(
    r"^\W*(?:(?:and|so|now|okay|ok|then)[,]?\s+)?(?:(?:what|how) about\s+)?([^\W\d_][\w'\u2019-]*)\?$",
    re.IGNORECASE,
)


def _bare_calls(sents: list[str], all_text: str) -> set[int]:
    """Cuts around the host calling on someone by a bare name the talk uses again ("… live. Tobenna? Three
    thousand kelvin. … And Ruth?"): the one called answers next, however briefly; the call is the host's
    own turn unless it ends the host's question ("What's the number? Marit?")."""
    out: set[int] = set()
    for k, sent in enumerate(sents[:-1]):
        m = _BARE_CALL_RE.match(sent)
        if not (m and is_name(m.group(1)) and _tokens(all_text)[m.group(1)] >= 2):
            continue
        if _ends_asking(sents[k + 1]):
            continue  # "Marit? What do you think?": the host's question goes on
        out.add(k + 1)
        if k and not _ends_asking(sents[k - 1]):
            # "… Milky Way. And Ruth?"; "… two hundred. A quick round now, one number each. Marit?"
            out.add(k - 1 if k > 1 and _host_like_call(sents[k - 1]) else k)
    return out


def _host_like_call(sent: str) -> bool:
    """A sentence that leads to a bare call as the host's own words ("Same question. Ruth?")."""
    return bool(ROUND_RE.search(sent) or MODERATING_RE.match(sent))


def _thanks_to_opener(sents: list[str], all_text: str, opening: int) -> set[int]:
    """A guest thanking the host by the name the host gave in the opening ("I'm Marco Bernasconi … Thank
    you, Marco. Everybody calls me JB.") before the host's first question: cut there, and where the host
    goes on to ask ("JB, let's start with the basics. How fast …?")."""
    if not opening:
        return set()
    host = {n.split()[0] for n in find_intro_names(sents[opening - 1], all_text)}
    asking = _closing_questions(sents, all_text)
    first_q = next((q for q in asking if q >= opening), None)
    if not host or first_q is None:
        return set()
    for k in range(opening, first_q):
        m = _THANKS_NAME_RE.match(sents[k])
        if m and m.group(1) in host:
            return {k, max(_lead_start(sents, first_q, k + 1, all_text), k + 1)}
    return set()


_THANKS_NAME_RE = re.compile(
    r"^\W*(?:thank you|thanks|hi|hello|thank you so much)(?: very much)?,?\s+([^\W\d_][\w'\u2019-]*)",
    re.IGNORECASE,
)


def _closing(sents: list[str], starts: set[int]) -> set[int]:
    """The host's closing words after the last answer ("A very clear answer to end on. Niamh, Lars-Erik,
    thank you both."): from the short sentences before the thanks to everyone near the talk's end."""
    last = max(starts, default=0)
    for c in range(len(sents) - 1, last, -1):
        if _n(sents[c:]) > HOST_WORDS:
            break
        if CLOSING_RE.search(sents[c]) or THANKS_ALL_RE.match(sents[c]):
            j = c
            while j - 1 > last and len(sents[j - 1].split()) <= LEAD_WORDS:
                j -= 1
            return {j} if _n(sents[last:j]) >= ANSWER_WORDS else set()
    return set()


def _next_asking(sents: list[str], k: int) -> int:
    return next((i for i in range(k, len(sents)) if _ends_asking(sents[i])), len(sents))


def _asides(sents: list[str], starts: set[int], all_text: str) -> set[int]:
    """Cuts inside a long stretch: the host's remark on an answer that goes on ("Twice the forests. That's
    startling."), a panelist breaking in (with the host's short remark before it: "Heart rates together.
    That's quite something. Can I just add to that?"), a listener's back-channel sentence ("Mm-hm.")
    between two parts of one answer."""
    out: set[int] = set()
    last = 0
    for k, sent in enumerate(sents):
        long_before = _n(sents[last:k]) >= ANSWER_WORDS
        echo = (k in starts or long_before) and _echoes(sents, k) and not _ends_asking(sent)
        cuts = _remark(sents, k, starts, all_text) if echo else set()
        if cuts:
            out |= cuts
            last = max(cuts)
        elif k in starts:
            last = k
        elif long_before and _breaks_in(sent):
            out |= _break_in(sents, k, last)
            last = k
        elif (
            long_before
            and is_backchannel(sent)
            and not _LINKING_RE.match(sent)
            and _n(sents[k + 1 : _next_asking(sents, k + 1)]) >= ANSWER_WORDS
        ):
            out |= {k, k + 1}
            last = k + 1
    return out


def _remark(sents: list[str], k: int, starts: set[int], all_text: str) -> set[int]:
    """The host's remark at ``k`` ("Twice the forests. That's startling."), then the answer going on: cut
    at both ends when the answer goes on at length (and where the host's next question starts, when the
    remark was taken for its lead-in); nothing when a question follows the remark closely."""
    j = k + 1
    while (
        j < len(sents)
        and (is_remark(sents[j]) or _echoes(sents, j))
        and not _CONFIRMS_RE.match(sents[j])
    ):
        j += 1
    if k in starts and not (j < len(sents) and _CONFIRMS_RE.match(sents[j])):
        return (
            set()
        )  # the host's remark leading to the host's next words, not to the answer going on
    asking = _next_asking(sents, j)
    until = min([asking, *(x for x in starts if x > k)])
    if _n(sents[j:until]) < ANSWER_WORDS:
        return set()
    cuts = {k, j}
    if until == asking < len(sents) and k in starts:
        cuts.add(max(_lead_start(sents, asking, j, all_text), j + 1))
    return cuts


def _break_in(sents: list[str], k: int, last: int) -> set[int]:
    """A panelist breaking in at ``k``, with the host's short sentences before it when there are any."""
    j = k
    while (
        j - 1 > last and len(sents[j - 1].split()) <= LEAD_WORDS and not _ends_asking(sents[j - 1])
    ):
        j -= 1
    return {j, k} if j < k and _n(sents[last:j]) >= ANSWER_WORDS else {k}


def _past(sents: list[str], k: int) -> int:
    """The first sentence after ``k`` and the ``ANSWER_WORDS`` words that follow it (the one who starts
    speaking at k + 1 says at least that much)."""
    return min(k + 1 + _first_words(sents[k + 1 :], ANSWER_WORDS), len(sents))


def _first_words(sents: list[str], words: int) -> int:
    """How many of ``sents`` it takes to hold ``words`` words."""
    total = 0
    for k, s in enumerate(sents):
        total += len(s.split())
        if total >= words:
            return k + 1
    return len(sents)


def exchanges(text: str) -> int:
    """How many questions the text puts and has answered at length (0 for a monologue)."""
    return len(_closing_questions(sentences(text), text))


def reads_as_conversation(text: str) -> bool:
    """Whether unmarked text reads as a conversation: ``MIN_EXCHANGES`` questions answered at length."""
    return exchanges(text) >= MIN_EXCHANGES


def conversation_turns(turn: RawTurn) -> list[RawTurn]:
    """An unmarked talk's one raw turn cut where speakers change (each piece numbered as its own raw turn,
    as if the captions had marked it); the turn itself when it does not read as a conversation."""
    if not reads_as_conversation(turn.text):
        return [turn]
    sents = sentences(turn.text)
    bounds = [0]
    by_paragraph = paragraph_cuts(sents, turn.breaks, turn.text)
    for k in by_paragraph or cut_points(turn.text):
        bounds.append(_n(sents[:k]))
    words = turn.text.split()
    bounds.append(len(words))
    timed = len(turn.times) == len(words)
    out = []
    for a, b in zip(bounds, bounds[1:], strict=False):
        if b > a:
            out.append(
                RawTurn(
                    " ".join(words[a:b]),
                    len(out),
                    turn.times[a:b] if timed else [],
                    turn.label,
                    paragraph=bool(by_paragraph),
                )
            )
    return out


# Plain text laid out in paragraphs (a podcast site's transcript): a paragraph is a turn, or a turn goes on
# in the next paragraph
MIN_PARAGRAPHS = 4  # paragraphs this many at least, to be read as turns
# of the cuts the kinds of sentences give, this share at least falls where a paragraph starts
PARAGRAPH_SHARE = 0.6
# paragraphs this many times the cuts at most (a Whisper TXT with a blank line after each segment has more)
PARAGRAPHS_PER_CUT = 2.5


def paragraph_cuts(sents: list[str], breaks: Collection[int], text: str) -> list[int]:
    """The sentence indices where a new speaker starts in text laid out in paragraphs, when the paragraphs
    are its turns (most of the cuts :func:`cut_points` finds fall where a paragraph starts): at each
    paragraph, unless it goes on the answer before (:func:`_goes_on_answer`); [] when the paragraphs are
    not its turns."""
    at = {_n(sents[:k]): k for k in range(len(sents) + 1)}
    starts = [at[b] for b in sorted(breaks) if b in at and 0 < at[b] < len(sents)]
    if len(starts) < MIN_PARAGRAPHS:
        return []
    kinds = cut_points(text)
    if not kinds or sum(k in set(starts) for k in kinds) < PARAGRAPH_SHARE * len(kinds):
        return []
    if len(starts) > PARAGRAPHS_PER_CUT * len(kinds):
        return []  # a blank line after every caption segment: the paragraphs are no turns
    bounds = [0, *starts, len(sents)]
    return [
        b
        for a, b, c in zip(bounds, bounds[1:], bounds[2:], strict=False)
        if not _goes_on_answer(sents[a:b], sents[b:c], text)
    ]


def _goes_on_answer(before: list[str], para: list[str], all_text: str) -> bool:
    """A paragraph that goes on the answer of the paragraph before: that one a long stretch asking
    nothing, this one long too, opening with no sentence of the host's or of someone taking the floor
    (a question, a short reaction or remark, a name spoken to, a greeting, breaking in, agreeing) and not
    ending with a question (the host's set-up and question: "So let's begin at the workbench. When a clock
    comes in …, what's usually wrong with it?")."""
    first = para[0]
    return (
        _n(before) >= ANSWER_WORDS
        and _n(para) >= ANSWER_WORDS
        and not any(_ends_asking(x) for x in before[-2:])
        and not _asks(para[-1])
        and not _puts(first, all_text)
        and not _takes_the_floor(first, all_text)
        and not _breaks_in(first)
        and not _is_greeting(first)
        and not _SELF_RE.search(first)
        and not _AGREES_RE.match(first)
        and not _OPINION_RE.match(first)
        and not _SECONDS_RE.match(first)
        and not _floor(first)
        and not _LISTENERS_RE.search(first)
        and not CLOSING_RE.search(" ".join(para[:2]))
        and not _echoes([*before[-3:], first], min(3, len(before)))
    )


def _takes_the_floor(sent: str, all_text: str) -> bool:
    """A sentence of the host's opening a paragraph: a remark, running the session, thanking, speaking to
    someone by name, turning to a new topic (as :func:`_host_like`, but a short sentence opening a long
    paragraph may be an answer's: "The hard part is the dressing.")."""
    return (
        (len(sent.split()) <= SETUP_WORDS and _calls_by_name(sent, all_text))
        or is_remark(sent)
        or bool(MODERATING_RE.match(sent) or FLOOR_RE.search(sent) or THANKS_ALL_RE.match(sent))
        or (
            len(sent.split()) <= SETUP_WORDS
            and bool(ROUND_RE.search(sent) or _TOPIC_TURN_RE.match(sent))
        )
    )


# "I'll second that", "Same here", "Me too": taking the floor after another's answer
_SECONDS_RE = re.compile(
    r"^\W*(?:(?:and|well|so|oh),?\s+)?(?:I'll second|I second|same here|me too|I agree|I'd agree|"
    r"I disagree|I'd disagree|I'd push back|to add)\b",
    re.IGNORECASE,
)


# A round's answers, unmarked: how the stretch after a question put to everyone is shared out
# an answer opening with a fragment ("Shutters.", "Paths.") or "And I'll say"
ROUND_OPENER_BONUS = 0.5
OPENER_WORDS = 3  # a fragment this short opens an answer in a round
_BOTH_RE = re.compile(r"\b(?:both of you|you both|the two of you)\b", re.IGNORECASE)
_ROUND_OPENING_RE = re.compile(
    r"^\W*(?:and |well,? |so,? )?(?:I'd say|I'll say|I would say|for me|mine|me,|I'll go|I'd go)\b",
    re.IGNORECASE,
)
MAX_ROUND_SENTENCES = 16  # a longer stretch after a round's question is not shared out


def split_rounds(kept: list[tuple[RawTurn, bool]], panelists: int) -> list[tuple[RawTurn, bool]]:
    """Each stretch that answers a question put to everyone ("Quick round, whoever wants to start. …?",
    "I want both of you on this.") shared out into one answer per panelist (two for "both of you"), cut
    where the answers open ("Shutters.", "And I'll say …") and into parts of like length. Who speaks each
    one is left to attribution (a round's order or field: doubtful, flagged). ``kept`` is (turn, after a
    back-channel); the pieces are numbered anew."""
    out: list[tuple[RawTurn, bool]] = []
    for k, (t, after) in enumerate(kept):
        before = kept[k - 1][0].text if k else ""
        tail = " ".join(sentences(before)[-2:])
        n = 2 if _BOTH_RE.search(tail) else panelists
        # as many answers already cut as the round asks for ("I agree with JB. And go with a guide. …" after
        # the first of two): the answers are apart
        apart = 1 + _answers_after(kept, k) >= n
        if (
            k
            and ROUND_RE.search(tail)
            and looks_like_question(before)
            and n >= 2
            and not (t.paragraph or apart)
        ):
            pieces = _shared_out(t, n)
            out += [(pieces[0], after), *((p, False) for p in pieces[1:])]
        else:
            out.append((t, after))
    return [
        (RawTurn(t.text, i, t.times, t.label, paragraph=t.paragraph) if t.index != i else t, after)
        for i, (t, after) in enumerate(out)
    ]


def _answers_after(kept: list[tuple[RawTurn, bool]], k: int) -> int:
    """How many stretches of ``ANSWER_WORDS`` or more asking nothing follow ``kept[k]`` in a row."""
    n = 0
    for t, _ in kept[k + 1 :]:
        if (
            len(t.text.split()) < ANSWER_WORDS
            or looks_like_question(t.text)
            or CLOSING_RE.search(t.text)
        ):
            break  # the host's next question or closing words
        n += 1
    return n


def _shared_out(t: RawTurn, n: int) -> list[RawTurn]:
    sents = sentences(t.text)
    if not n <= len(sents) <= MAX_ROUND_SENTENCES:
        return [t]
    sizes = [len(s.split()) for s in sents]
    mean = sum(sizes) / n
    best: tuple[float, tuple[int, ...]] | None = None
    for cut in combinations(range(1, len(sents)), n - 1):
        bounds = [0, *cut, len(sents)]
        parts = [sum(sizes[a:b]) for a, b in zip(bounds, bounds[1:], strict=False)]
        score = -sum(abs(p - mean) for p in parts) / (mean * n) + ROUND_OPENER_BONUS * sum(
            _opens_answer(sents[c]) for c in cut
        )
        if best is None or score > best[0]:
            best = (score, cut)
    words = t.text.split()
    timed = len(t.times) == len(words)
    bounds = [0, *(_n(sents[:c]) for c in best[1]), len(words)] if best else [0, len(words)]
    return [
        RawTurn(" ".join(words[a:b]), t.index, t.times[a:b] if timed else [], t.label)
        for a, b in zip(bounds, bounds[1:], strict=False)
    ]


def _opens_answer(sent: str) -> bool:
    return len(sent.split()) <= OPENER_WORDS or bool(_ROUND_OPENING_RE.match(sent))


# Lowercase auto-captions with ">>" marks: the marks cut the talk, and where one is missed (a host's remark
# and the answer after it, a panelist breaking in) the talk read as one unmarked text cuts it too
SENTENCE_CUT = "starts where no '>>' marks a new speaker: cut by the kinds of its sentences"
OPENING_CUT = "ends where no '>>' marks a new speaker: cut by the kinds of its sentences"
# a '>>' turn this long (words) may hold two speakers' words
CUT_TURN_WORDS = 2 * ANSWER_WORDS


def cut_inside(raw: list[RawTurn]) -> tuple[list[RawTurn], set[int]]:
    """(``raw`` with each long turn cut where :func:`cut_points` cuts the whole talk read as one unmarked
    text, the pieces numbered anew; the indices of the pieces that start at such a cut). The sentences
    are those the turns' punctuation gives (``restore``); the '>>' marks stay cuts."""
    text = " ".join(t.text for t in raw)
    sents = sentences(text)
    starts = {0}
    for t in raw[:-1]:
        starts.add(max(starts) + len(t.text.split()))
    marks = sorted(starts)
    firsts = {_n(sents[:k]) for k in cut_points(text)}
    out: list[RawTurn] = []
    cuts: set[int] = set()
    for t, a in zip(raw, marks, strict=True):
        words = t.text.split()
        inner = (
            sorted(k - a for k in firsts if a < k < a + len(words))
            if len(words) >= CUT_TURN_WORDS
            else []
        )
        timed = len(t.times) == len(words)
        for j, (x, y) in enumerate(zip([0, *inner], [*inner, len(words)], strict=True)):
            if j:
                cuts.add(len(out))
            out.append(
                RawTurn(" ".join(words[x:y]), len(out), t.times[x:y] if timed else [], t.label)
            )
    return out, cuts


_FIRM_CUT = ("name", "hand-over", "label")


def flag_cuts(turns: list[SpeakerTurn], cuts: Collection[int] | None) -> list[SpeakerTurn]:
    """Each turn that starts at one of ``cuts`` (raw turn indices: cut by sentence kinds, no mark in the
    captions; 0 when the opening turn itself ends at such a cut; None: every turn, when nothing in the
    captions marked a speaker) with a speaker resting on no name, hand-over or label: marked doubtful (for
    the health report), who speaks staying as it is."""
    for t in turns:
        at_cut = bool(t.sources) and (cuts is None or t.sources[0] in cuts)
        if at_cut and attribution_basis(t.why) not in _FIRM_CUT:
            t.parts.insert(0, (0, SENTENCE_CUT if t.sources[0] else OPENING_CUT))
    return turns


# Unmarked text: every cut is a guess, so a turn's speaker is firm only where the evidence sits at its cut
NAME_NOT_AT_CUT = (
    "starts where nothing marks a new speaker, and the name it rests on is not a hand-over to them alone "
    "just before: cut by the kinds of its sentences"
)
HOST_INSIDE = (
    "may hold the host's words ({}): nothing marks a new speaker, cut by the kinds of its sentences"
)
HOST_REPLY = (
    "opens by agreeing, which the one who spoke before may have said: nothing marks a new speaker, cut by the "
    "kinds of its sentences"
)
# the hand-over a turn's speaker rests on is this many sentences before its cut at most ("Kasia, I want to
# bring you in, … What's the actual job like?")
HANDOVER_SENTENCES = 2
# two sentences this short inside an answer may be the host's reaction ("Five days. That's, wow.")
SHORT_RUN_WORDS = 2
_LISTENERS_RE = re.compile(
    r"\b(?:(?:from|for) (?:our |the )?(?:listeners|viewers)|here's one\b|an? (?:question|message|email) from)",
    re.IGNORECASE,
)
# "Yes, exactly, Zoë.", "Yes, the permafrost.": agreeing with the one who spoke, more often the next speaker
_AGREES_RE = re.compile(r"^\W*(?:yes|yeah|exactly|absolutely|indeed)\b", re.IGNORECASE)
# a turn opening with the speaker's own view ("I'd agree with …", "I'd rebuild …", "I think the …")
_OPINION_RE = re.compile(
    r"^\W*(?:(?:and|so|well|yeah|honestly),?\s+)*(?:I'd|I\u2019d|I would|I think|I agree|I'll say)\s",
    re.IGNORECASE,
)
HOST_OPINION = (
    "opens with a view of its own, as an answer does: nothing marks a new speaker, cut by the kinds of its "
    "sentences"
)
HOST_GOES_ON = (
    "may hold the words of the one who spoke before (it goes on with 'and …' after a short reaction): "
    "nothing marks a new speaker, cut by the kinds of its sentences"
)


# a question the host puts on after an answer's words: "And is that a good thing or a bad thing …"
_LINKED_QUESTION_RE = re.compile(
    r"^\W*(?:(?:so|and|but|okay|now|well),?\s+)+(?:is|are|was|were|do|does|did|can|could|would|will|"
    r"should)\s+(?:you|it|that|this|there|they|we|he|she)\b",
    re.IGNORECASE,
)


def _host_inside(sents: list[str], k: int) -> str:
    """Why sentence ``k`` (not the first) of a panelist's turn reads as the host's where a cut was missed:
    the floor or the listeners given, an echo of the sentence before ("… holding it together. The ice was
    holding the mountain together."), a run of two bare reactions ("Five days. That's, wow."); "" if not."""
    sent = sents[k]
    size = len(sent.split())
    if _floor(sent) or _LISTENERS_RE.search(sent):
        return "it gives the floor"
    if (
        k + 1 < len(sents)
        and size <= SHORT_RUN_WORDS
        and len(sents[k + 1].split()) <= SHORT_RUN_WORDS
        and len(sents[k - 1].split()) > LEAD_WORDS
    ):
        return "a run of bare reactions"
    if _LINKED_QUESTION_RE.match(sent) or (_ends_asking(sent) and _asks(sent)):
        return "it asks a question"
    own = {w.lower() for w in content_words(sent)}
    before = {w.lower() for w in content_words(sents[k - 1])}
    echo = len(own) >= 3 and len(own & before) >= ECHO_SHARE * len(own)
    if echo and size <= HANDOVER_WORDS and not _ends_asking(sent):
        return "it echoes the sentence before"
    return ""


def _host_reply(sents: list[str], mentioned: Callable[[str], list[str]]) -> tuple[int, str] | None:
    """Where a host's turn of several sentences may hold the words of the one who spoke before: opening
    by agreeing ("Yes, exactly, Zoë. The ash is the flux. … Are glazes safe, though?"), or going on with
    "and …" after a short reaction ("Two pumps. Wow. And now we need a licence …"), not where it presents
    someone ("And then next to Ingrid we have …")."""
    if sents and _OPINION_RE.match(sents[0]) and not _ends_asking(sents[0]):
        return 0, HOST_OPINION  # "I'd rebuild the ice plant, because …": an answer's words
    if len(sents) < 2:
        return None
    if _AGREES_RE.match(sents[0]) and len(sents[0].split()) <= LEAD_WORDS:
        return 0, HOST_REPLY
    for k in range(1, len(sents) - 1):
        sent = sents[k]
        if (
            _AND_RE.match(sent)
            and len(sent.split()) > LEAD_WORDS
            and not _ends_asking(sent)
            and len(sents[k - 1].split()) <= LEAD_WORDS
            and not mentioned(" ".join(sents[k : k + 2]))
        ):
            return _n(sents[:k]), HOST_GOES_ON
    return None


HOST_LEAD = (
    "says much before it asks, as an answer going on would: nothing marks a new speaker, cut by the kinds of "
    "its sentences"
)


def _long_lead(sents: list[str]) -> tuple[int, str] | None:
    """A host's turn saying more than ``SETUP_WORDS`` before its first question, none of it giving the
    floor, reading out the listeners' words or closing ("Look at your own outside lights. … That's where the
    moths will be. Last one, and anyone can go first. Will …?"): the answers before it may run on into it."""
    q = next((k for k, s in enumerate(sents) if _asks(s)), None)
    if q is None or _n(sents[:q]) <= SETUP_WORDS:
        return None
    lead = sents[:q]
    if any(
        _floor(x) or _LISTENERS_RE.search(x) or CLOSING_RE.search(x) or THANKS_ALL_RE.match(x)
        for x in lead
    ):
        return None
    return 0, HOST_LEAD


def _name_at_cut(
    t: SpeakerTurn, before: SpeakerTurn | None, mentioned: Callable[[str], list[str]]
) -> bool:
    """A panelist's turn whose speaker rests on their own introduction, or on a hand-over naming exactly
    them (no one else) in the last ``HANDOVER_SENTENCES`` sentences before the cut."""
    if t.why.startswith("introduces themselves"):
        return True
    last = sentences(before.text)[-HANDOVER_SENTENCES:] if before else []
    return bool(last) and set(mentioned(" ".join(last))) == {t.speaker}


def flag_unmarked(
    turns: list[SpeakerTurn], ids: Collection[str], mentioned: Callable[[str], list[str]]
) -> list[SpeakerTurn]:
    """A talk that marks no speaker at all, cut by :func:`conversation_turns`: each cut is a guess, so the
    health report points at a panelist's turn whose name is not at its cut (:func:`_name_at_cut`), a
    panelist's turn holding a sentence that reads as the host's (:func:`_host_inside`), and a host's turn
    opening with a reply by name ("Yes, exactly, Zoë."); who speaks stays as it is."""
    for i, t in enumerate(turns):
        sents = sentences(t.text)
        found: list[tuple[int, str]] = []
        if t.speaker in ids:
            if attribution_basis(t.why) in _FIRM_CUT and not _name_at_cut(
                t, turns[i - 1] if i else None, mentioned
            ):
                found.append((0, NAME_NOT_AT_CUT))
            inside = next(
                ((k, why) for k in range(1, len(sents)) if (why := _host_inside(sents, k))), None
            )
            if inside:
                found.append((_n(sents[: inside[0]]), HOST_INSIDE.format(inside[1])))
        elif i and (reply := _host_reply(sents, mentioned) or _long_lead(sents)):
            found.append(reply)
        if found:
            t.parts = sorted([*t.parts, *found], key=lambda p: p[0])
    return turns
