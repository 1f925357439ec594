"""Who said each turn, from the words alone (no audio).

Names first: self-introductions in a turn's opening ("I'm Anaïs", "my name is José", "Björn here", "I'm Mary
Jane" when she is addressed as "Mary Jane" too) and the host's hand-overs ("Olive, over to you", "Miguel?").
Names are Unicode throughout: ids are ASCII-folded lowercase first names (``jose``, ``anais``, ``bjorn``),
display names keep their spelling, and a name is recognised in the captions with or without its accents.

Then the structure of a moderated panel, in two passes:

1. firm evidence: a self-introduction; the host is the one who asks (a real question or a request in the
   closing sentences, a turn naming every panelist, a statement leading straight into the next question),
   opens the talk and thanks the panel; an answer that ends by asking another panelist is a panelist's, and
   the one asked answers next; a turn the next speaker answers by name ("That's fair, Kofi, …") is theirs;
   a ``>>`` in mid-sentence is no new speaker;
   the one a question is addressed to answers it; a continuation after a back-channel ("Mm-hm.") is the
   same speaker; ``>>`` after an answer means someone else (with two panelists: the other one); in a round
   (the host asks everyone) each answers in turn, so the last one left is named; a turn that speaks *to*
   a panelist by name is not theirs; a short comment on an answer ("That sounds terrifying.") and running the
   session ("Let's take a question …") are the host's, and so is a short prompt between two answers that
   speaks to someone ("There must be a cost to you, though."); with one guest, a short turn after their
   answer is the host's; a few opening words, a ``>>`` and a long statement are one answer; a question after
   a sentence presenting several guests is put to none of them;
2. the field: profiles are built from the turns the first pass attributed firmly (their introductions
   weighing most, and what the host says about each of them), and an unaddressed question goes to the
   panelist whose field the question and its answer are in, when one clearly leads (what the whole talk is
   about is nobody's field; a question picking up one panelist's earlier words is theirs). The field also
   weighs the answer's meaning against how each panelist was presented -- their own introduction, or what
   the host said they do ("With me are Dr. Ana Ruiz, a marine biologist …") -- with the shipped sentence
   encoder (``presented.py``; weight fitted by scripts/fit_attribution.py). A follow-up
   ("pulling on this thread") leans to whoever answered last. A round's open answers go to distinct panelists:
   by the field when it speaks for each answer, else in the order the panelists were introduced
   (``rounds.py``).

What neither settles is ``unknown``, with the reason kept in ``why`` (written to turns.yaml): never a silent
guess. Every turn gets a confidence from its evidence (``confidence.py``); the health report flags the turns
under the fitted threshold besides those resting only on order or field. Short back-channel turns ("Yeah.", "Mhm.", "[laughter]") are dropped so they cannot split one answer
in two, and the turns around them are merged when they are the same speaker's.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from panelbot.ingest.captions import RawTurn, Timed
from panelbot.ingest.confidence import set_confidences
from panelbot.ingest.cues import (
    ADDS_RE,
    CLOSING_RE,
    FLOOR_RE,
    FOLLOW_ON_RE,
    FOLLOW_UP_RE,
    MODERATING_RE,
    REPLY_RE,
    ROUND_RE,
    THANKS_ALL_RE,
    is_backchannel,
    is_remark,
    looks_like_question,
    sentences,
)
from panelbot.ingest.handovers import people_of_labels
from panelbot.ingest.names import (
    HOST,
    LABELLED,
    TITLE_WORDS_RE,
    UNKNOWN,
    LabelName,
    ToldNames,
    ascii_fold,
    find_intro_names,
    fold_id,
    name_pattern,
    panelist_ids,
    presentations,
    speaker_labels,
)
from panelbot.ingest.presented import Presented, without_names
from panelbot.ingest.profiles import Profiles, clear_lead, generic_words, terms
from panelbot.ingest.rounds import settle_rounds
from panelbot.ingest.segments import split_unmarked
from panelbot.ingest.unmarked import conversation_turns, flag_unmarked, split_rounds

__all__ = [
    "HOST",
    "UNKNOWN",
    "SpeakerTurn",
    "find_intro_names",
    "fold_id",
    "generic_words",
    "identify_speakers",
    "is_backchannel",
    "looks_like_question",
    "panelist_ids",
]

_FIRST_PERSON_SINGULAR_RE = re.compile(
    r"\b(?:I|I'm|I've|I'd|my|me)\b"
)  # a panelist's own voice, not the host's

_OPENING_WORDS = (
    8  # an answer's opening this short, then a '>>' and a long statement, is one answer
)

_GUEST_GOES_ON = (
    30  # words: in an interview, a statement this long after the guest's answer is still theirs
)

# the host naming who opens a round: "Keisha, you start.", "starting with Keisha", "Keisha, you first."
_STARTS_RE = re.compile(
    r"\b(?:you (?:start|first|go first|kick (?:us )?off|begin)|(?:start|starting|begin|beginning) with|"
    r"(?:let's|we'll) (?:start|begin) (?:with|from))\b",
    re.IGNORECASE,
)

_ECHO, _ECHO_SAID = (
    0.25,
    0.75,
)  # a question's echo of a panelist's earlier answers, plain and "you mentioned …"

_QUESTION_WEIGHT = (
    4.0  # the question's identity evidence (who it is for), against the answer's evidence
)


@dataclass
class SpeakerTurn(Timed):
    speaker: str
    text: str
    is_question: bool = False
    addressed: list[str] = field(default_factory=list)
    sources: list[int] = field(default_factory=list)  # raw turn indices merged into this one
    why: str = ""
    times: list[tuple[float | None, float | None]] = field(
        default_factory=list
    )  # per word of text.split()
    field_scores: dict[str, float] = field(
        default_factory=dict, repr=False
    )  # evidence per candidate
    in_round: bool = False  # answers a question the host put to everyone
    # the turns merged into this one after the first: (its first word's index in text.split(), its why)
    parts: list[tuple[int, str]] = field(default_factory=list)
    confidence: float = 1.0  # the fitted chance the speaker is right (``confidence.py``)
    sounds_like: str = ""  # the panelist part of the turn sounds more like, by meaning ("" if none)

    def reasons(self) -> list[tuple[int, str]]:
        """(first word, why) of each part of the turn, the first one's first."""
        return [(0, self.why), *self.parts]

    def to_dict(self) -> dict[str, object]:
        """``{speaker, text, start, end}`` (times in seconds, None for captions without times)."""
        return {"speaker": self.speaker, "text": self.text, "start": self.start, "end": self.end}


def _times(t: RawTurn) -> list[tuple[float | None, float | None]]:
    n = len(t.text.split())
    return list(t.times) if len(t.times) == n else [(None, None)] * n


@dataclass
class _State:
    addressed: list[str] = field(default_factory=list)
    answered: list[str] = field(default_factory=list)
    round: bool = False
    follow_up: bool = False
    question: str = ""
    last_answerer: str = ""  # who answered the question before this one
    starts: str = ""  # the one the host names to open a round ("Quick round. Keisha, you start.")
    # the panelists a round is put to by name, in order
    named: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class _Names:
    """How names show up in a turn (each callable takes the turn's text and returns panelist ids)."""

    mentioned: Callable[[str], list[str]]  # every panelist named
    introduced: Callable[[str], list[str]]  # the names the speaker gives themselves
    hands_over: Callable[[str], list[str]]  # the panelist a short turn calls on
    spoken_to: Callable[
        [str], list[str]
    ]  # panelists the opening sentences speak to ("That's fair, Kofi, …")
    called: Callable[
        [str], list[str]
    ]  # panelists named as the one spoken to anywhere ("Mirela, …", "…, Mirela?")


@dataclass
class _Cues:
    """What a raw turn's words and neighbours say about who speaks it (before anyone is chosen)."""

    intro: list[str]  # the panelists it introduces as the speaker
    ment: list[str]  # every panelist it names
    question: bool  # the host asking (or handing over)
    answers_then_asks: bool  # an answer that ends by asking another panelist
    sets_up_question: bool  # a lead-in to the host's next question
    sets_up_intro: bool  # the host handing over between two introductions


def _cues(
    kept: list[tuple[RawTurn, bool]],
    j: int,
    questions: list[bool],
    names: _Names,
    prev: SpeakerTurn | None,
) -> _Cues:
    text, after_interjection = kept[j][0].text, kept[j][1]
    intro = names.introduced(text)
    handover = [] if intro else names.hands_over(text)
    question = (questions[j] or bool(handover)) and not intro
    prev_panelist = prev is not None and prev.speaker not in (HOST, UNKNOWN)
    sets_up_question = (
        j + 1 < len(kept)
        and questions[j + 1]
        and kept[j + 1][1]
        and prev_panelist
        and not after_interjection
    )
    # "Great. And last but not least." between two introductions: the host handing over
    next_intro = j + 1 < len(kept) and bool(names.introduced(kept[j + 1][0].text))
    sets_up_intro = (
        not intro
        and next_intro
        and len(text.split()) <= 12
        and prev is not None
        and prev.why in ("introduces themselves", LABELLED)
    )
    # "Mostly the electrodes crack … Mirela, is that what you see?" straight after the host's question:
    # an answer that ends by asking another panelist (the host does not ask twice in a row)
    after_question = prev is not None and prev.speaker == HOST and prev.is_question
    answers_then_asks = question and (
        (
            not handover
            and after_question
            and not after_interjection
            and _words_before_asking(text) >= 20
        )
        # "I'd add that the signal is the weak point. Olusegun, you've seen that, right?": a panelist
        # adding to the answer before and asking a colleague, not the host
        or (bool(ADDS_RE.match(text)) and prev_panelist and not intro)
    )
    return _Cues(
        intro,
        names.mentioned(text),
        question and not answers_then_asks,
        answers_then_asks,
        bool(sets_up_question),
        sets_up_intro,
    )


def _host_reason(
    c: _Cues,
    kept: list[tuple[RawTurn, bool]],
    j: int,
    questions: list[bool],
    ids: list[str],
    prev: SpeakerTurn | None,
) -> str:
    """Why this turn is the host's ("asks a question", …), or "" when nothing says so."""
    text = kept[j][0].text
    n = len(text.split())
    if j == 0 and ids:
        return "opens the talk"
    if len(ids) >= 2 and set(ids) <= set(c.ment):
        return "names every panelist"
    if c.question:
        return "asks a question"
    if n <= 12 and THANKS_ALL_RE.search(text):
        return "thanks the panel"
    if j == len(kept) - 1 and ids and n <= 40 and CLOSING_RE.search(text):
        return "closes the talk"
    if c.sets_up_question:
        return "leads into the host's next question"
    if _calls_a_round(text, len(ids), j + 1 < len(kept)):
        return "opens a round"
    if c.sets_up_intro:
        return "hands over to the next introduction"
    return _between_answers_reason(kept, j, questions, ids, prev) if len(ids) >= 2 else ""


def _between_answers_reason(
    kept: list[tuple[RawTurn, bool]],
    j: int,
    questions: list[bool],
    ids: list[str],
    prev: SpeakerTurn | None,
) -> str:
    """Why a turn between the panelists' answers is the host's (a remark, a prompt, running the session),
    or "" when nothing says so."""
    text, after_interjection = kept[j][0].text, kept[j][1]
    n = len(text.split())
    if (
        prev is not None
        and prev.speaker in ids
        and not after_interjection
        and j + 1 < len(kept)
        and not questions[j + 1]
        and (is_remark(text) or (n <= 10 and is_remark(sentences(text)[-1])))
    ):
        # "That must be hard to hear." between two answers (after an echo of the answer: "Twice the
        # forests. That's startling."): the host's comment, not a panelist's answer
        return "a short remark on the answer before"
    if _prompts(text, prev, kept, j, questions):
        return "a short prompt to the answer after"
    if n <= 30 and _runs_the_session(text):
        return 'runs the session ("Let\'s take a question …")'
    return ""


def _calls_a_round(text: str, panelists: int, answered: bool) -> bool:
    """ "There you go. Last one, a quick round, and anyone can go first. One piece of advice …": the host
    putting a question to everyone without a question mark (short, not in anyone's own voice, with
    ``panelists`` to answer and a turn after it, ``answered``)."""
    return (
        panelists >= 2
        and answered
        and len(text.split()) <= 40
        and bool(ROUND_RE.search(text))
        and not _FIRST_PERSON_SINGULAR_RE.search(text)
    )


def _prompts(
    text: str,
    prev: SpeakerTurn | None,
    kept: list[tuple[RawTurn, bool]],
    j: int,
    questions: list[bool],
) -> bool:
    """A short turn between two answers that speaks to someone and not in its own voice ("There must be a
    cost to you, though. Less grass, fewer cattle."), a long statement after it: the host prompting, a
    question without its question mark."""
    return (
        prev is not None
        and prev.speaker not in (HOST, UNKNOWN)
        and not kept[j][1]
        and len(text.split()) <= _PROMPT_WORDS
        and bool(_TO_YOU_RE.search(text))
        and not _OWN_VOICE_RE.search(text)
        and j + 1 < len(kept)
        and not questions[j + 1]
        and len(kept[j + 1][0].text.split()) >= 2 * _PROMPT_WORDS
    )


_PROMPT_WORDS = 12
_TO_YOU_RE = re.compile(r"\b(?:you|your|yours|you're|you've)\b", re.IGNORECASE)
_OWN_VOICE_RE = re.compile(
    r"\b(?:i|i'm|i'd|i've|i'll|me|my|mine|we|we're|we've|our|us)\b", re.IGNORECASE
)


def _runs_the_session(text: str) -> bool:
    """ "Let's take a question from the floor.", "Over there.": the moderator's words, not an answer."""
    floor = FLOOR_RE.search(text)
    # "A seed bank for bacteria. I love that. We've got time for a question or two.": the host's remark,
    # then the floor given; no one's own voice from the floor on
    return bool(
        MODERATING_RE.match(text)
        or (floor and not _FIRST_PERSON_SINGULAR_RE.search(text[floor.start() :]))
    )


def _attribute(
    kept: list[tuple[RawTurn, bool]],
    ids: list[str],
    names: _Names,
    profiles: Profiles | None,
    forced: dict[int, str] | None = None,
) -> list[SpeakerTurn]:
    questions = [looks_like_question(t.text) for t, _ in kept]
    out: list[SpeakerTurn] = []
    state = _State()
    for j, (t, _) in enumerate(kept):
        prev = out[-1] if out else None
        c = _cues(kept, j, questions, names, prev)
        st = SpeakerTurn(UNKNOWN, t.text, c.question, sources=[t.index], times=_times(t))
        passes_on = False  # the turn ends by asking another panelist, who answers next
        host_reason = "" if c.intro else _host_reason(c, kept, j, questions, ids, prev)
        if forced and t.index in forced:
            st.speaker, st.why = forced[t.index], LABELLED
            st.is_question = st.speaker == HOST and questions[j]
        elif c.intro:
            st.speaker, st.why = c.intro[0], "introduces themselves"
        elif host_reason:
            st.speaker, st.why = HOST, host_reason
        else:
            passes_on = _answerer(st, c, kept, j, questions, names, ids, state, profiles, prev)
        if out and st.speaker == out[-1].speaker and st.speaker != UNKNOWN:
            _merge(out[-1], st, names, ids, state)
            continue
        if st.speaker == HOST:
            _new_question(st, names, ids, state)
        elif st.speaker != UNKNOWN and not passes_on:
            state.answered.append(st.speaker)
        out.append(st)
    return out


def _answerer(
    st: SpeakerTurn,
    c: _Cues,
    kept: list[tuple[RawTurn, bool]],
    j: int,
    questions: list[bool],
    names: _Names,
    ids: list[str],
    state: _State,
    profiles: Profiles | None,
    prev: SpeakerTurn | None,
) -> bool:
    """Choose the panelist who speaks an answer turn; True when it ends by asking another panelist, who
    then answers as if the host had asked."""
    replied = _replied_to_by_name(kept, questions, j, names, ids)
    if replied and replied not in c.ment:
        # "I'd push back on that, Kofi, …" right after: this was Kofi
        st.speaker, st.why = replied, "the next speaker answers them by name"
    else:
        ment = _excluded(st.text, c.ment, names, state)
        _answer(st, prev, kept[j][1], ids, ment, state, profiles)
        if st.speaker not in ment and st.speaker in names.mentioned(
            _SELF_NAMED_RE.sub("", st.text)
        ):
            st.why = ASKED_THOUGH_NAMED  # doubtful: the turn may hold another's words naming them
    st.in_round = state.round
    asked = [
        p
        for p in names.mentioned(" ".join(sentences(st.text)[-2:]))
        if p in ids and p != st.speaker
    ]
    if c.answers_then_asks and st.speaker != UNKNOWN and len(set(asked)) == 1:
        # the one they ask answers next, as if the host had asked
        state.addressed, state.answered, state.round = asked[:1], [], False
        state.question, state.follow_up = st.text, False
        return True
    return False


ASKED_THOUGH_NAMED = (
    "asked by the host, though the turn names them further on: it may hold another's words"
)
# a name past this many opening sentences of an answer is said of someone, not to the one answering
OPENING_SENTENCES = 2


def _excluded(text: str, ment: list[str], names: _Names, state: _State) -> list[str]:
    """The panelists an answer turn names, who are not the one speaking it: all it names, except the one
    the host's question was put to alone when only the turn's later sentences name them ("Fionnuala, you
    were here that night." answered by a turn that names Fionnuala deep inside: the hand-over outweighs
    the mention)."""
    asked = state.addressed[0] if len(state.addressed) == 1 and not state.answered else None
    if asked not in ment:
        return ment
    # "Please, Segun is fine.": the one asked giving the name they go by
    text = _SELF_NAMED_RE.sub("", text)
    opening = " ".join(sentences(text)[:OPENING_SENTENCES])
    if asked in names.mentioned(opening) or asked in names.called(text):
        return ment
    return [p for p in ment if p != asked]


def _merge(
    prev: SpeakerTurn, st: SpeakerTurn, names: _Names, ids: list[str], state: _State
) -> None:
    """Merge a turn into the one before by the same speaker (its reason kept: the health report flags a
    turn any part of which rests only on order or field)."""
    prev.parts.append((len(prev.text.split()), st.why))
    prev.text = f"{prev.text} {st.text}"
    prev.sources.extend(st.sources)
    prev.times.extend(st.times)
    prev.is_question = prev.is_question or st.is_question
    if st.speaker == HOST:
        _new_question(prev, names, ids, state)


def _replied_to_by_name(
    kept: list[tuple[RawTurn, bool]], questions: list[bool], j: int, names: _Names, ids: list[str]
) -> str | None:
    """The panelist the next turn answers by name ("That's fair, Kofi, …", "Thanks, Kofi."), when it is a
    statement, not a new question, and names no one else that way."""
    if j + 1 >= len(kept) or questions[j + 1]:
        return None
    nxt = kept[j + 1][0].text
    if len(nxt.split()) < 10 or names.hands_over(nxt):
        return None  # "Let's start with you, Mirela.": a hand-over speaks to the next one, not the last
    to = list(dict.fromkeys(p for p in names.spoken_to(nxt) if p in ids))
    return to[0] if len(to) == 1 and to[0] not in names.introduced(nxt) else None


def _words_before_asking(text: str) -> int:
    """Words of the sentences before the first one that asks."""
    n = 0
    for sent in sentences(text):
        if sent.rstrip("\"'\u201d\u2019)").endswith("?"):
            break
        n += len(sent.split())
    return n


def _new_question(st: SpeakerTurn, names: _Names, ids: list[str], state: _State) -> None:
    """The host's turn sets the question: who it is put to (``st.addressed``), whether it is a round and
    who opens it, whether it follows up the last answer, and the words that ask it."""
    named = [p for p in names.mentioned(st.text) if p in ids]
    if _only_replied_to(st.text, named, names):
        named = []  # "You're not, Ingrid, I've been. Okay, the room. … Does the room matter?": to no one
    state.last_answerer = _last_answerer(state, ids)
    tail = " ".join(sentences(st.text)[-2:])
    tail_named = _named_in_closing(st.text, tail, names, ids)
    st.addressed, state.round, state.starts = _put_to(tail, tail_named, named, names, ids)
    state.addressed = st.addressed
    state.named = tail_named if state.round and len(tail_named) >= 2 else []
    state.answered = []
    state.follow_up = _follows_up(st, tail, named, state)
    state.question = _asking_words(st.text, names)


def _only_replied_to(text: str, named: list[str], names: _Names) -> bool:
    """The host's turn names panelists only in its first sentence, a remark spoken to them ("You're not,
    Ingrid, I've been.", "That's lovely, Ingrid."), then asks in two or more sentences that name no one:
    the name replies to the answer before, and the question is not put to them."""
    sents = sentences(text)
    if not named or len(sents) < 3 or looks_like_question(sents[0]):
        return False
    spoken = set(names.called(sents[0], opening=False))
    return set(named) <= spoken and not names.mentioned(" ".join(sents[1:]))


def _last_answerer(state: _State, ids: list[str]) -> str:
    """Who answered last: the last panelist to answer the question before, else the one before that."""
    last = [p for p in state.answered if p in ids][-1:] or (
        [state.last_answerer] if state.last_answerer else []
    )
    return last[0] if last else ""


def _named_in_closing(text: str, tail: str, names: _Names, ids: list[str]) -> list[str]:
    """The panelists the closing sentences name: the one the last sentence names alone ("…, and Mirela,
    who runs a plant. Kofi, what limits battery life?"), none when the last sentence calls a round without
    a name ("… And Oksana runs the service. Quickly, down the line: what keeps you up?")."""
    last = sentences(text)[-1]
    tail_named = list(dict.fromkeys(p for p in names.mentioned(tail) if p in ids))
    last_named = list(dict.fromkeys(p for p in names.mentioned(last) if p in ids))
    cue = bool(ROUND_RE.search(tail))
    if len(last_named) == 1 and not cue:
        tail_named = last_named
    if cue and ROUND_RE.search(last) and not last_named:
        tail_named = []
    return tail_named


def _put_to(
    tail: str, tail_named: list[str], named: list[str], names: _Names, ids: list[str]
) -> tuple[list[str], bool, str]:
    """(the panelists a question is put to, whether it is a round, who opens the round): the one the closing
    sentences name is asked; several named there, or a round cue ("each of you"), is a round."""
    cue = bool(ROUND_RE.search(tail))
    addressed, is_round, starts = _addressing(tail, tail_named, named, cue, names, ids)
    if cue and (len(tail_named) != 1 or starts):
        is_round = True
    return ([] if is_round else addressed), is_round, starts


def _addressing(
    tail: str, tail_named: list[str], named: list[str], cue: bool, names: _Names, ids: list[str]
) -> tuple[list[str], bool, str]:
    """(addressed, round, opener) as the names in the question say, before a round cue is weighed."""
    if len(tail_named) == 1 and cue and _STARTS_RE.search(tail):
        # "Last round, for everyone. Keisha, you start.": a round, opened by the one named
        return [], True, tail_named[0]
    if len(tail_named) == 1:
        return tail_named, False, ""
    if len(tail_named) >= 2:
        called = list(dict.fromkeys(p for p in names.called(tail) if p in ids))
        if len(called) == 1 and not cue:
            # "Mirela, Kofi mentioned cracking earlier, do you see that?": spoken to one, about another
            return called, False, ""
        return [], True, ""
    if len(set(named)) >= 2:
        # names only before the closing sentences (the host presenting the guests, then asking): put to
        # no one in particular, unless it says everyone answers
        return [], cue, ""
    return named[-1:], cue and len(set(named)) != 1, ""


def _follows_up(st: SpeakerTurn, tail: str, named: list[str], state: _State) -> bool:
    """A question put to no one that follows up the last answer: it says so ("pulling on this thread"), or
    a short follow-on with no name ("And how fast is it compared to a person?") leans to the one who just
    answered (what the answer is about can still say it went to another: "And is there a cheaper way?"
    answered by the one whose field the cheaper way is)."""
    if st.addressed:
        return False
    if FOLLOW_UP_RE.search(tail):
        return True
    return bool(
        not state.round
        and state.last_answerer
        and not named
        and bool(FOLLOW_ON_RE.match(st.text) or _POINTS_BACK_RE.search(st.text))
        and len(st.text.split()) <= 12
    )


# a short question ending on what the answer before was about: "Is warmer light better for them?"
_POINTS_BACK_RE = re.compile(
    r"\b(?:for|to|about|with|of|on) (?:them|those|that)\?\W*$", re.IGNORECASE
)


def _asking_words(text: str, names: _Names) -> str:
    """The words that ask the question: a sentence presenting panelists by name ("With me are Zoë, who runs
    a bakery, and Rafał, a miller") says who they are, not what is asked."""
    asking_part = [x for x in sentences(text) if not names.mentioned(x)]
    return " ".join(asking_part) or text


def _answer(
    st: SpeakerTurn,
    prev: SpeakerTurn | None,
    after_interjection: bool,
    ids: list[str],
    ment: list[str],
    state: _State,
    profiles: Profiles | None,
) -> None:
    """Choose who speaks an answer turn (or say why no one can be chosen), the firmest evidence first:
    the one who spoke before going on, the one the host asked, a reply to a push-back, a round's turn, the
    one panelist left, then the field."""
    candidates = [p for p in ids if p not in ment]  # not the one spoken to
    prev_panelist = (
        prev.speaker if prev is not None and prev.speaker not in (HOST, UNKNOWN) else None
    )
    decided = _goes_on(st, prev, prev_panelist, after_interjection, ids, ment, candidates, state)
    if decided is None:
        if prev_panelist:
            # '>>' after an answer: someone else (after an unknown one, it could be anyone)
            candidates = [p for p in candidates if p != prev_panelist]
        decided = _asked_answers(st, prev, prev_panelist, after_interjection, candidates, state)
    if decided is None:
        everyone = [p for p in ids if p not in ment]
        if profiles is not None and state.round:
            # for settling the round later
            st.field_scores = _field_scores(st, state, profiles, everyone)
        decided, candidates = _round_turn(state, candidates)
        if decided is None:
            decided = _after_remark(prev, candidates, state)
        if decided is None:
            decided = _left_or_field(st, candidates, ids, state, profiles, everyone)
    st.speaker, st.why = decided


# the host's turn this short (words), asking nothing, is a remark the one who answered goes on after
_REMARK_WORDS = 8


def _after_remark(
    prev: SpeakerTurn | None, candidates: list[str], state: _State
) -> tuple[str, str] | None:
    """(the one who answered, why) when the turn before is the host's short remark asking nothing ("Five
    days. That's, wow."): they go on with their answer (order alone: doubtful)."""
    if prev is None or prev.speaker != HOST or prev.is_question or state.round:
        return None
    last = state.answered[-1] if state.answered else state.last_answerer
    if last and last in candidates and len(prev.text.split()) <= _REMARK_WORDS:
        return last, "goes on after the host's remark"
    return None


def _goes_on(
    st: SpeakerTurn,
    prev: SpeakerTurn | None,
    prev_panelist: str | None,
    after_interjection: bool,
    ids: list[str],
    ment: list[str],
    candidates: list[str],
    state: _State,
) -> tuple[str, str] | None:
    """(speaker, why) when the panelist who spoke the turn before is still speaking (or, in an interview,
    the host remarks on their answer); None when this is someone else."""
    if prev is None or not prev_panelist:
        return None
    if after_interjection:
        if prev_panelist in candidates:
            return prev_panelist, "continues after a back-channel"
    elif _cut_mid_sentence(st, prev):
        # "… but the quota doesn't >> and that is very expensive": a '>>' in mid-sentence is no new speaker
        return prev_panelist, "continues the sentence the '>>' cut"
    elif len(ids) == 1:
        return _interview_turn(st, prev_panelist, ment)
    elif _opening_words_then_answer(st, prev, prev_panelist, candidates, state):
        # "It can be if done badly. >> We never see individuals, only flows …": a few words, then the '>>'
        # of an auto-caption and the rest of the same answer
        return prev_panelist, "goes on after a few opening words"
    if (
        len(prev.text.split()) < 25
        and prev_panelist in state.addressed
        and prev_panelist in candidates
    ):
        return prev_panelist, "continues a short answer"
    return None


def _cut_mid_sentence(st: SpeakerTurn, prev: SpeakerTurn) -> bool:
    """The turn goes on with a lower-case word where the turn before stopped without ending its sentence."""
    return st.text[:1].islower() and not re.search(r"[.?!][\"'\u201d\u2019)]*$", prev.text.rstrip())


def _interview_turn(st: SpeakerTurn, guest: str, ment: list[str]) -> tuple[str, str]:
    """An interview: after the guest's answer, a '>>' is the host's remark ("That sounds terrifying.",
    "Tamsin, thank you so much.") unless it is a long statement of the guest's own (a '>>' between two
    sentences of one answer)."""
    if ment or len(st.text.split()) < _GUEST_GOES_ON:
        return HOST, "a remark between the guest's answers"
    return guest, "goes on with their answer (the only guest)"


def _opening_words_then_answer(
    st: SpeakerTurn, prev: SpeakerTurn, prev_panelist: str, candidates: list[str], state: _State
) -> bool:
    """The turn before was a few opening words (no question) and this one a long statement that neither
    adds to nor replies to them: one answer cut by a '>>'."""
    return (
        not state.round
        and prev_panelist in candidates
        and len(prev.text.split()) <= _OPENING_WORDS
        and not prev.is_question
        and len(st.text.split()) > 2 * _OPENING_WORDS
        and not ADDS_RE.match(st.text)
        and not REPLY_RE.match(st.text)
    )


def _asked_answers(
    st: SpeakerTurn,
    prev: SpeakerTurn | None,
    prev_panelist: str | None,
    after_interjection: bool,
    candidates: list[str],
    state: _State,
) -> tuple[str, str] | None:
    """(speaker, why) when the question's own course says who: the one the host asked answers first; the
    first answer's speaker replies to a push-back, when the host had asked them or the turn opens like a
    reply ("That's fair.", "Agreed,")."""
    addressed = [p for p in state.addressed if p in candidates and p not in state.answered]
    if addressed and not state.answered:
        return addressed[0], "the host asked them"
    replying = _replies_to_push_back(st, prev, prev_panelist, after_interjection, candidates, state)
    if replying:
        # the one asked answered, another pushed back: the next word is the first one's reply
        return replying, "replies to the one who pushed back on their answer"
    return None


def _replies_to_push_back(
    st: SpeakerTurn,
    prev: SpeakerTurn | None,
    prev_panelist: str | None,
    after_interjection: bool,
    candidates: list[str],
    state: _State,
) -> str | None:
    """The first answer's speaker, when the turn is their reply to a panelist who pushed back on it (only
    they and the one pushing back have answered, outside a round): when the host had asked them, or when
    the turn opens like a reply."""
    first = state.answered[0] if state.answered else None
    asked = first if first in state.addressed or (first and REPLY_RE.match(st.text)) else None
    other = prev is not None and prev.speaker not in (HOST, asked) and not after_interjection
    if (
        not state.round
        and asked in candidates
        and other
        and state.answered == [asked] + ([prev_panelist] if prev_panelist else [])
    ):
        return asked
    return None


def _round_turn(state: _State, candidates: list[str]) -> tuple[tuple[str, str] | None, list[str]]:
    """In a round: (speaker, why) for the one the host named to open it or the last one left, and the
    candidates narrowed to those who have not answered it yet."""
    if not state.round:
        return None, candidates
    if state.starts in candidates and not state.answered:
        return (state.starts, "the host named them to open the round"), candidates
    # "JB and Dolma, one for both of you": only the ones named answer it (in no order the naming gives)
    named = [p for p in state.named if p in candidates]
    left = [p for p in candidates if p not in state.answered and (p in named or not named)]
    if len(left) == 1:
        return (left[0], "the last one in the round"), candidates
    return None, left or candidates


def _left_or_field(
    st: SpeakerTurn,
    candidates: list[str],
    ids: list[str],
    state: _State,
    profiles: Profiles | None,
    everyone: list[str],
) -> tuple[str, str]:
    """(speaker, why): the one candidate left, else the one whose field clearly leads; the speaker stays
    as it is (``unknown``) with the reason when neither decides."""
    if len(candidates) == 1:
        why = {1: "the only guest", 2: "the other panelist"}.get(len(ids), "the only panelist left")
        return candidates[0], why
    if not candidates:
        return st.speaker, "no panelist fits: every one is spoken to or just spoke"
    if profiles is None:
        return st.speaker, "needs the field profiles"
    st.field_scores = st.field_scores or _field_scores(st, state, profiles, everyone)
    total = {p: st.field_scores[p] for p in candidates}
    if state.follow_up and state.last_answerer in total and not state.answered:
        total[state.last_answerer] += 3.0
    ranked = sorted(candidates, key=lambda p: total[p], reverse=True)
    best, second = total[ranked[0]], total[ranked[1]] if len(ranked) > 1 else 0.0
    if clear_lead(best, second):
        return ranked[0], f"their field (evidence {best:.1f} vs {second:.1f})"
    scores = ", ".join(f"{p} {total[p]:.1f}" for p in ranked)
    return st.speaker, (
        f"ambiguous: the question is addressed to no one and the field evidence is close ({scores})"
    )


def _field_scores(
    st: SpeakerTurn, state: _State, profiles: Profiles, everyone: list[str]
) -> dict[str, float]:
    """Who the question is for (the words of their own introduction, the closing asking sentences counting
    most) and what the answer itself is about."""
    q: dict[str, float] = {}
    if (
        state.question and not state.answered and not state.round
    ):  # a round's question is for everyone
        whole = profiles.identity_scores(state.question, everyone)
        asking = profiles.identity_scores(" ".join(sentences(state.question)[-2:]), everyone)
        # what the question picks up from someone's earlier answers ("You mentioned the old ledgers."),
        # more when it says so
        echo = profiles.echo_scores(
            FOLLOW_UP_RE.sub(" ", " ".join(sentences(state.question)[-2:])), everyone
        )
        ew = _ECHO_SAID if FOLLOW_UP_RE.search(state.question) else _ECHO
        q = {p: whole[p] + 2 * asking[p] + ew * echo[p] for p in everyone}
    a = profiles.scores(st.text, everyone, st.sources)
    meant = profiles.meaning(st.text, everyone) if profiles.meaning else {}
    return {
        p: a.get(p, 0.0) + _QUESTION_WEIGHT * q.get(p, 0.0) + meant.get(p, 0.0) for p in everyone
    }


def identify_speakers(
    raw: list[RawTurn],
    title: str = "",
    *,
    given: dict[str, str] | None = None,
    resolved: list[LabelName] | None = None,
    told: ToldNames | None = None,
) -> tuple[list[SpeakerTurn], list[str]]:
    """Attribute each turn. Returns (turns, panelist display names in order of appearance).

    Speaker labels in the captions decide their turns; ``given`` maps labels to people (a name, or HOST),
    and ``resolved``, when passed, receives how each label was taken. ``told``: the names captions with
    no capitals give (``names.ToldNames``)."""
    raw, labels = speaker_labels(raw)
    unmarked = not labels and len(raw) == 1
    if unmarked:
        # no change of speaker marked anywhere: cut where the talk reads as a conversation
        raw = conversation_turns(raw[0])
    # 1. drop back-channel and fragment turns; remember where they were
    kept = _without_backchannels(raw)

    # 2. names: speaker labels in the captions, self-introductions, then names the host hands over to
    people, names, aliases = _speaker_names(kept, labels, title, given, resolved, told)
    ids = panelist_ids(names)
    finder = _NameFinder(names, ids, aliases, " ".join(t.text for t, _ in kept))
    ctx = _Names(
        finder.mentioned, finder.introduced, finder.hands_over, finder.spoken_to, finder.called
    )
    if not labels:  # where the captions missed a '>>', two speakers' words are cut apart
        kept = split_unmarked(kept, finder.introduced, finder.called, finder.mentioned)
    if unmarked and len(ids) >= 2:  # a round's answers, one after another with nothing between them
        kept = split_rounds(kept, len(ids))
    forced = _forced_by_labels(labels, people, names, ids)

    # 3. firm evidence only
    firm = _attribute(kept, ids, ctx, None, forced)
    presented = Presented(_presentation_texts(firm, ids, finder)) if len(ids) >= 2 else None
    if len(ids) < 2 or all(t.speaker != UNKNOWN for t in firm):
        set_confidences(firm, ids, presented)
        firm = _flag_trailing_questions(firm, ids, finder, bool(labels))
        return (flag_unmarked(firm, ids, finder.mentioned) if unmarked else firm), names

    # 4. profiles from the firm turns, then again with the field deciding what stayed open; the field's
    # clear decisions join the profiles and the pass repeats until nothing changes (twice at most)
    evidence = _FieldEvidence(
        kept,
        ids,
        finder,
        every=[*names, *aliases],
        surnames=_surnames(names, finder.all_text),
        topic=_talk_topic(title, firm, finder),
        self_introduced={t.speaker for t in firm if t.why == "introduces themselves"},
        presented=presented,
    )
    turns = _attribute_by_field(kept, ids, ctx, evidence, forced, firm)
    set_confidences(turns, ids, presented)
    turns = _flag_trailing_questions(turns, ids, finder, bool(labels))
    return (flag_unmarked(turns, ids, finder.mentioned) if unmarked else turns), names


# the evidence by which two field-decided turns together must lead the pair as decided one at a time (swept on
# the dev dirs of scripts/fixture_talks.py and scripts/attribution_accuracy.py: 0.5 +1 and +1 answers, 1.0 +1
# and 0, 2.0 nothing)
_PAIR_LEAD = 0.5

TRAILING_QUESTION = "ends with a question that may be the host's (no '>>' before it)"


def _flag_trailing_questions(
    turns: list[SpeakerTurn], ids: list[str], finder: _NameFinder, labelled: bool
) -> list[SpeakerTurn]:
    """A panelist's turn of several sentences that ends with a question naming no one, answered by
    another panelist next ("… takes a kilometre to stop. Seven hundred metres. Is that long, by European
    standards?"), may hold the host's question where the captions missed a '>>': its last sentence is
    marked doubtful (for the health report; who speaks stays as it is)."""
    if labelled:
        return turns
    for t, nxt in zip(turns, turns[1:], strict=False):
        sents = sentences(t.text)
        last = sents[-1] if sents else ""
        if (
            t.speaker in ids
            and nxt.speaker not in (HOST, t.speaker)
            and len(sents) >= 3
            and last.rstrip().endswith("?")
            and not finder.mentioned(last)
        ):
            t.parts.append((len(t.text.split()) - len(last.split()), TRAILING_QUESTION))
    return turns


def _speaker_names(
    kept: list[tuple[RawTurn, bool]],
    labels: dict[int, str],
    title: str,
    given: dict[str, str] | None,
    resolved: list[LabelName] | None,
    told: ToldNames | None = None,
) -> tuple[dict[str, str], list[str], dict[str, str]]:
    """(label -> person, panelist display names, alias -> name): the people the captions' speaker labels
    name (how each label was taken goes to ``resolved``), then the names found in the words."""
    people, names, how, found, aliases = people_of_labels(kept, labels, title, given, told)
    if resolved is not None:
        resolved[:] = how
    known = {ascii_fold(n).lower() for n in names}
    if not labels or any(t.index not in labels for t, _ in kept):
        # names found in the words join the labels' people, unless a label says who spoke every turn
        # (then "I'm Ines" under SPEAKER_01 mapped to Beatriz is not a fourth person)
        names += [n for n in found if ascii_fold(n).lower() not in known]
    return people, names, aliases


def _forced_by_labels(
    labels: dict[int, str], people: dict[str, str], names: list[str], ids: list[str]
) -> dict[int, str]:
    """Raw turn index -> speaker (a panelist id or the host) for the turns a known speaker label marks."""
    display_id = dict(zip(names, ids, strict=True))
    return {
        i: (HOST if people[lab.lower()] == HOST else display_id[people[lab.lower()]])
        for i, lab in labels.items()
        if lab.lower() in people
    }


def _attribute_by_field(
    kept: list[tuple[RawTurn, bool]],
    ids: list[str],
    ctx: _Names,
    evidence: _FieldEvidence,
    forced: dict[int, str],
    firm: list[SpeakerTurn],
) -> list[SpeakerTurn]:
    """Attribute again with the field profiles of the turns attributed so far, until nothing changes (at
    most twice); a round's answers tell the profiles what each panelist talks about."""
    current = firm
    for _ in range(2):
        nxt = _attribute(kept, ids, ctx, evidence.profiles(current), forced)
        settle_rounds(nxt, ids)
        same = [t.speaker for t in nxt] == [t.speaker for t in current]
        current = nxt
        if same:
            break
    settle_rounds(current, ids)
    _settle_field_pairs(current, ids)
    return current


def _settle_field_pairs(turns: list[SpeakerTurn], ids: list[str]) -> None:
    """Two panelists' turns one after the other, both decided by their field, are two people: the field
    decided them one at a time, the first one's choice ruling the second one's out ("Warmer is better, yes,
    …" taken for the engineer, so "Can I come in there? Because we do dim. … our lamps …" could not be his).
    The pair gets the two distinct panelists with the most evidence together when that leads the pair as
    decided by ``_PAIR_LEAD`` or more (both stay doubtful: their field)."""
    for i in range(1, len(turns) - 1):
        a, b = turns[i], turns[i + 1]
        if not (_by_field(a) and _by_field(b)) or a.in_round or b.in_round:
            continue
        before = turns[i - 1].speaker
        after = turns[i + 2].speaker if i + 2 < len(turns) else HOST
        pairs = [
            (a.field_scores.get(p, 0.0) + b.field_scores.get(q, 0.0), p, q)
            for p in ids
            for q in ids
            if p != q and p != before and q != after
        ]
        if not pairs:
            continue
        total, p, q = max(pairs)
        now = a.field_scores.get(a.speaker, 0.0) + b.field_scores.get(b.speaker, 0.0)
        if total - now >= _PAIR_LEAD:
            for t, who in ((a, p), (b, q)):
                if t.speaker != who:
                    other = max((v for k, v in t.field_scores.items() if k != who), default=0.0)
                    t.speaker = who
                    t.why = (
                        f"their field (evidence {t.field_scores.get(who, 0.0):.1f} vs {other:.1f})"
                    )


def _by_field(t: SpeakerTurn) -> bool:
    return t.why.startswith("their field") and bool(t.field_scores)


def _without_backchannels(raw: list[RawTurn]) -> list[tuple[RawTurn, bool]]:
    """The turns that say something, each with whether a back-channel ("Yeah.", "Mhm.") or a fragment
    repeated by the next turn came just before it (an opening one is nothing)."""
    kept: list[tuple[RawTurn, bool]] = []  # (turn, an interjection preceded it)
    pending_interjection = False
    for i, t in enumerate(raw):
        nxt = raw[i + 1].text if i + 1 < len(raw) else ""
        toks = t.text.split()
        fragment = len(toks) <= 2 and nxt.split()[: len(toks)] == toks
        if is_backchannel(t.text) or fragment:
            if kept:
                pending_interjection = True
            continue
        kept.append((t, pending_interjection))
        pending_interjection = False
    return kept


# the name someone goes by, said of themselves: "Everybody calls me JB", "just Bart, please", "please, it's
# Mina"
_NAME_WORD = r"([^\W\d_][\w'\u2019-]*)"
_GOES_BY_RE = re.compile(
    rf"\b(?:(?:[Cc]alls? me|[Cc]alled me|I go by|[Jj]ust call me|[Pp]lease[,.]? [Ii]t's)\s+{_NAME_WORD}|"
    rf"[Jj]ust {_NAME_WORD},? please\b)"
)


# the one speaking giving the name they go by, as a phrase (not a self-introduction)
_SELF_NAMED_RE = re.compile(
    rf"\b(?:[Pp]lease[,.]?\s+{_NAME_WORD} is fine|[Jj]ust {_NAME_WORD},? please|"
    rf"(?:[Cc]alls?|[Cc]alled) me {_NAME_WORD})\b"
)


class _NameFinder:
    """Where a turn's words name the panelists (each method takes the text and returns panelist ids)."""

    def __init__(
        self, names: list[str], ids: list[str], aliases: dict[str, str], all_text: str
    ) -> None:
        self.name_re = name_pattern([*names, *aliases])
        self.by_name: dict[str, str] = {}
        for n, pid in zip(names, ids, strict=True):
            self.by_name[n] = self.by_name[ascii_fold(n)] = pid
        for a, n in aliases.items():
            self.by_name[a] = self.by_name[ascii_fold(a)] = self.by_name[n]
        self.all_text = all_text
        self.title_re, self.by_title = _title_address(names, ids, all_text)

    def mentioned(self, text: str) -> list[str]:
        """Every panelist the text names, in order (with repeats); a title the host presented only one
        panelist with counts where it speaks to them or of them as 'the doctor' ("So, doctor, is she
        right?", "this is for the doctor")."""
        if not self.name_re:
            return []
        found = [(m.start(), self.by_name[m.group(1)]) for m in self.name_re.finditer(text)]
        if self.title_re:
            found += [
                (m.start(1), self.by_title[t])
                for m in self.title_re.finditer(text)
                if (t := _SPOKEN_TITLE.get(m.group(1).lower(), m.group(1).lower())) in self.by_title
            ]
        return [pid for _, pid in sorted(found)]

    def introduced(self, text: str) -> list[str]:
        """Ids of the names a turn's speaker gives themselves ("I'm Mary Jane Okafor" -> mary-jane)."""
        out = [
            self.by_name.get(n) or self.by_name.get(ascii_fold(n), "")
            for n in find_intro_names(text, self.all_text)
        ]
        # "Everybody calls me JB": a name they go by that the talk gives one panelist
        out += [
            self.by_name.get(next(g for g in m.groups() if g), "")
            for m in _GOES_BY_RE.finditer(text)
        ]
        return list(dict.fromkeys(p for p in out if p))

    def hands_over(self, text: str) -> list[str]:
        """A short turn that calls on a panelist by name: "And finally, D'Andre." / "王芳, you're next." """
        if not self.name_re or len(text.split()) > 25:
            return []
        short = len(text.split()) <= 8
        ends = [m for m in self.name_re.finditer(text) if _calls_on(text, m, short)]
        return [self.by_name[m.group(1)] for m in ends[-1:]]

    def called(self, text: str, *, opening: bool = True) -> list[str]:
        """Panelists named where one speaks to someone: opening a sentence (unless ``opening`` is False) or
        set off by commas ("Mirela, do you …", "what do you see, Mirela?"), not in "Kofi mentioned …" or
        "Kofi and Mirela, …"."""
        if not self.name_re:
            return []
        return [
            self.by_name[m.group(1)]
            for m in self.name_re.finditer(text)
            if (opening or m.start() > 0)
            and re.search(r"(?:^|[,.!?]\s*)$", text[: m.start()])
            and re.match(r"\s*[,.!?]", text[m.end() :])
        ]

    def spoken_to(self, text: str) -> list[str]:
        """Panelists the first two sentences speak to after a phrase: "That's fair, Kofi, …", "Thanks, Kofi."
        (a turn opening with a name is more often a hand-over)."""
        return self.called(" ".join(sentences(text)[:2]), opening=False)


# how a title is said to its holder: "Dr. Kwame Asante" is "doctor"
_SPOKEN_TITLE = {"dr": "doctor", "prof": "professor"}
# a title said to someone or of them: ", doctor,", "So, doctor, is …", "for the doctor"
_TITLE_SAID_RE = re.compile(
    rf"(?:^|[,.!?]\s+|\b(?:for|to|ask|asking) the\s+)(?i:({TITLE_WORDS_RE}))"
    r"(?=\s*[,.!?]|\s+(?:is|what|do|does|can|could|would|how)\b)"
)


def _title_address(
    names: list[str], ids: list[str], all_text: str
) -> tuple[re.Pattern[str] | None, dict[str, str]]:
    """(a pattern for a title said to or of its one holder, title -> panelist id): the titles the talk
    puts before exactly one panelist's name ("Dr. Kwame …", "Councillor Joaquín …"), matched where they
    address that person (", doctor,", "So, doctor, …", "for the doctor"), not "see your doctor"."""
    holders: dict[str, set[str]] = {}
    for n, pid in zip(names, ids, strict=True):
        for m in re.finditer(rf"(?<!\w)({TITLE_WORDS_RE})\.?\s+{re.escape(n)}(?!\w)", all_text):
            title = m.group(1).lower()
            holders.setdefault(_SPOKEN_TITLE.get(title, title), set()).add(pid)
    by_title = {t: next(iter(p)) for t, p in holders.items() if len(p) == 1}
    return (_TITLE_SAID_RE if by_title else None), by_title


def _calls_on(text: str, m: re.Match[str], short: bool) -> bool:
    """Does the name matched at ``m`` call on its panelist: ending the turn, "Mirela, you …", opening a
    ``short`` turn ("Mirela, the floor is yours.", "Mirela, same question."), or after "hear from", "over
    to" … ("I'd love to hear from Mirela on that.", "Over to Mirela.")?"""
    return bool(
        re.match(r"[\s.?!,]*$", text[m.end() :])
        or re.match(r",\s+you\b", text[m.end() :])
        or _speaks_to_last(text, m)
        or (short and m.start() == 0 and re.match(r",\s", text[m.end() :]))
        or re.search(
            r"\b(?:hear from|over to|turn to|go to|come to|start with|begin with)\s+$",
            text[: m.start()],
            re.IGNORECASE,
        )
    )


def _speaks_to_last(text: str, m: re.Match[str]) -> bool:
    """The name opens the turn's last sentence, set off by a comma, and that short sentence speaks to
    them ("So it's indoors. Joost, that sounds like your territory."): the host handing the floor over."""
    if not re.search(r"(?:^|[.!?]\s+)$", text[: m.start()]) or not re.match(
        r",\s", text[m.end() :]
    ):
        return False
    rest = text[m.end() :]
    if re.search(r"[.!?]\s+\S", rest):
        return False  # not the last sentence
    return len(rest.split()) <= 10 and bool(_TO_YOU_RE.search(rest))


def _surnames(names: list[str], all_text: str) -> list[str]:
    """The words after a first name that are part of the name ("Henrike Vogel", "Gráinne Ní Bhriain"): who,
    not what about."""
    return [
        m.group(1)
        for n in names
        for m in re.finditer(
            rf"(?<!\w){re.escape(n)}((?:\s+[^\W\d_][\w'\u2019-]*){{1,2}})", all_text
        )
        if all(w[:1].isupper() for w in m.group(1).split())
    ]


def _presentation_texts(
    firm: list[SpeakerTurn], ids: list[str], finder: _NameFinder
) -> dict[str, str]:
    """Each panelist as presented, names left out: their own introduction, and what the host says of them
    before the first answer ("… Dr. Ana Ruiz, a marine biologist …"; not a question put to them)."""
    texts: dict[str, list[str]] = {p: [] for p in ids}
    described: list[str] = []
    introducing: list[str] = []
    for t in firm:
        if t.speaker in ids and t.why == "introduces themselves":
            texts[t.speaker].append(t.text)
            introducing.append(t.speaker)
        elif t.speaker in ids:
            break  # the answers have begun
        elif t.speaker == HOST:
            if not introducing:
                described += _unnamed_guests(t.text, finder.name_re)
            for sent in sentences(t.text):
                if sent.rstrip().endswith("?"):
                    continue
                for pid, piece in presentations(sent, finder.name_re, finder.by_name):
                    does = _what_they_do(piece, finder.name_re)
                    if _DESCRIBES_RE.match(does):
                        texts[pid].append(does)
    if described and len(described) == len(introducing) == len(set(introducing)):
        # "With me are a clockmaker who …, and a historian who …. Would you like to introduce yourselves?"
        # and then each introduces themselves, in the order the host described them
        for pid, does in zip(introducing, described, strict=True):
            texts[pid].append(does)
    return {p: " ".join(x) for p, x in texts.items()}


# the host presenting guests by what they do, not by name: "With me are a clockmaker who …, and a historian …"
_UNNAMED_GUESTS_RE = re.compile(
    r"\b(?:with (?:me|us)(?: (?:today|tonight|here|now))? (?:are|is)|joining (?:me|us)(?: today| tonight)? "
    r"(?:are|is)|I'm joined by|we're joined by|my guests (?:are|today are))\s+(?=(?:an?|two|three|four)\b)",
    re.IGNORECASE,
)
_NEXT_GUEST_RE = re.compile(r"(?:,|(?<![\s,]))\s+and\s+(?=an?\s)|;\s+(?=an?\s)", re.IGNORECASE)


def _unnamed_guests(text: str, name_re: re.Pattern[str] | None) -> list[str]:
    """What the host says each guest does, in order, where a sentence presents them without their names
    ("With me are a clockmaker who restores longcase clocks …, and a historian who looks after …");
    [] where it names them."""
    for sent in sentences(text):
        m = _UNNAMED_GUESTS_RE.search(sent)
        if not m or (name_re and name_re.search(sent)):
            continue
        parts = [p.strip(" ,.;") for p in _NEXT_GUEST_RE.split(sent[m.end() :])]
        return [p for p in parts if len(p.split()) >= 2]
    return []


# how the host says what a guest does, after the name: "a peatland ecologist …", "who farms …", "is the
# director …", "runs the team …" (not "let's start with the evidence", "thank you")
_DESCRIBES_RE = re.compile(
    r"\A(?:who|whose|a|an|the|our|head|founder|is|was|(?!thanks\b)[a-z]{3,}s)\b", re.IGNORECASE
)


def _what_they_do(piece: str, name_re: re.Pattern[str] | None) -> str:
    """A presentation without the name, a title before it and the surname after it: what the guest does."""
    toks = without_names(piece, name_re).split()
    while toks and (toks[0].strip(",;")[:1].isupper() or not toks[0].strip(",;")):
        toks.pop(0)  # "Dr.", "Ó Briain,", a lone comma
    return " ".join(toks).strip(" ,;")


def _talk_topic(title: str, firm: list[SpeakerTurn], finder: _NameFinder) -> set[str]:
    """What the whole talk is about (the title, and the host's opening where it presents nobody): no one
    panelist's field ("the Friends of the Museum series" makes "museum" nobody's in particular)."""
    opening = [
        x
        for t in firm[:1]
        if t.speaker == HOST
        for x in sentences(t.text)
        if not finder.mentioned(x)
    ]
    return set(terms(" ".join([title, *opening])))


@dataclass
class _FieldEvidence:
    """What the field profiles are built from, besides the turns attributed so far."""

    kept: list[tuple[RawTurn, bool]]
    ids: list[str]
    finder: _NameFinder
    every: list[str]  # every name and alias
    surnames: list[str]
    topic: set[str]
    self_introduced: set[str]
    presented: Presented | None = None  # how each panelist was presented, by meaning

    def profiles(self, turns: list[SpeakerTurn]) -> Profiles:
        """The panelists' field profiles from ``turns``: what each panelist says (their introductions
        weighing most) and what the host says about each of them."""
        profiles = Profiles(self.ids)
        every = self.every
        profiles.names = set(
            terms(" ".join(every + [ascii_fold(n) for n in every] + self.surnames))
        )
        profiles.topic = self.topic
        profiles.meaning = self.presented.scores if self.presented else None
        for t, _ in self.kept:
            profiles.observe(t.text)
        for t in turns:
            if t.speaker in self.ids:
                profiles.add(
                    t.speaker, t.text, identity=t.why == "introduces themselves", sources=t.sources
                )
            elif t.speaker == HOST:
                self._host_presents(profiles, t.text)
        return profiles

    def _host_presents(self, profiles: Profiles, text: str) -> None:
        """The host describing a panelist ("dive in with Dan about ... serving") describes them too; a
        sentence presenting several ("Léa, who runs …, and Tomasz, an economist …") is cut at each name. For
        a panelist who never introduces themselves, that is who they are."""
        for sent in sentences(text):
            for pid, piece in presentations(sent, self.finder.name_re, self.finder.by_name):
                profiles.add(pid, piece, identity=pid not in self.self_introduced)
