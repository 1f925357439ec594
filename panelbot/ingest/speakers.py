"""Who said each turn, from the words alone (no audio).

Evidence, strongest first:

1. self-introductions in a turn's first sentences ("I'm Dan", "my name is Olive");
2. the host: the one who asks. A turn whose last sentence is a real question (not a tag like "right?") or a
   request ("can you talk about", "throw it over to you") is the host's; so is a turn naming every panelist;
3. hand-overs: a host turn naming a panelist ("Olive, I want to throw it over to you") makes that panelist
   the next answerer;
4. a turn that speaks *to* a panelist by name ("Dan, you will be able to ...") is not that panelist's;
5. ``>>`` means the speaker changed: a second answer after an answer is another panelist; with two panelists
   elimination names them;
6. otherwise, similarity of the turn to what each panelist has said so far, only when clearly ahead.

What none of that settles is ``unknown``: never a silent guess. Short back-channel turns ("Yeah.", "Mhm.",
"[laughter]") are dropped so they cannot split one answer in two, and the turns around them are merged when
they are the same speaker's.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, field

from panelbot.ingest.captions import RawTurn
from panelbot.retrieval.lexicon import common_stems, content_words, stopwords

HOST = "host"
UNKNOWN = "unknown"

_BACKCHANNEL = {
    "yeah", "yes", "yep", "mhm", "mm", "hmm", "uh", "um", "okay", "ok", "right", "sure", "wow", "nice",
    "cool", "awesome", "great", "exactly", "totally", "absolutely", "true", "indeed", "so", "and", "oh",
    "ah", "haha", "no", "yup", "thanks", "go", "ahead", "like", "huh", "interesting", "definitely",
}
_NAME_STOP = {
    "I", "The", "A", "An", "So", "And", "But", "Yeah", "Yes", "Okay", "Um", "Uh", "Not", "Just", "Really",
    "Here", "There", "Very", "Also", "Now", "Going", "Excited", "Happy", "Glad", "Sure", "Sorry", "Still",
    "Actually", "Trying", "Working", "Responsible", "Thinking", "Super", "Curious", "Looking", "From",
}
_INTRO_RE = re.compile(
    r"\b(?:I'm|I am|my name is|this is|I'm called)\s+([A-Z][a-z]+)(?:\s+([A-Z][a-z]+))?\b"
)
_TAG_QUESTION_RE = re.compile(
    r"(?:^|[\s,])(?:right|isn't it|no|you know|okay|ok|yeah|huh|correct|true|eh|don't you think)\?$",
    re.IGNORECASE,
)
_REQUEST_RE = re.compile(
    r"\b(?:can you|could you|would you|will you|if you can|if you could|wondering if you|tell us|"
    r"talk (?:to us )?(?:a little bit |more )?(?:about|on)|walk us|over to you|throw it|go first|"
    r"shed (?:some |more )?light|I want(?:ed)? to ask|let's hear)\b",
    re.IGNORECASE,
)
_SENT_END_RE = re.compile(r"(?<=[.!?])\s+")


@dataclass
class SpeakerTurn:
    speaker: str
    text: str
    is_question: bool = False
    addressed: list[str] = field(default_factory=list)
    sources: list[int] = field(default_factory=list)  # raw turn indices merged into this one
    why: str = ""

    def to_dict(self) -> dict[str, str]:
        return {"speaker": self.speaker, "text": self.text}


def _sentences(text: str) -> list[str]:
    return [s for s in _SENT_END_RE.split(text.strip()) if s]


def is_backchannel(text: str) -> bool:
    """'Yeah.', 'Mhm. Mhm.', '[laughter]', 'Yeah, like go ahead.' -- no content of its own."""
    stripped = re.sub(r"\[[^\]]*\]", " ", text)
    toks = re.findall(r"[a-z']+", stripped.lower())
    if not toks:
        return True
    return len(toks) <= 5 and all(t in _BACKCHANNEL for t in toks)


def find_intro_names(text: str) -> list[str]:
    """Names a speaker gives themselves in the first sentences: "I'm Dan" -> ["Dan"]."""
    head = " ".join(_sentences(text)[:3])
    names = []
    for m in _INTRO_RE.finditer(head):
        name = m.group(1)
        if name not in _NAME_STOP:
            names.append(name)
    return names


def _name_pattern(names: list[str]) -> re.Pattern[str] | None:
    if not names:
        return None
    alts = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    return re.compile(rf"\b({alts})\b")


def looks_like_question(text: str) -> bool:
    """Does the turn end by asking something (not a tag question like '..., right?')?"""
    sents = _sentences(text)
    if not sents:
        return False
    def asks(sentence: str) -> bool:
        sentence = sentence.strip().rstrip("\"'”’)")
        return sentence.endswith("?") and not _TAG_QUESTION_RE.search(sentence)

    last = sents[-1].strip()
    if asks(last):
        return True
    # "... how do you actually go about that? Cuz that seems like a pretty ludicrous task."
    if len(sents) >= 2 and asks(sents[-2]) and len(last.split()) <= 20:
        return True
    # A request in the closing sentence ("Maybe Dan if you can go first.", "... over to you to talk
    # about your role"), also when the captions cut it off mid-sentence.
    return bool(_REQUEST_RE.search(last)) and "you" in last.lower()


class _Profiles:
    """Bag-of-words profile per panelist, grown as turns are attributed."""

    def __init__(self, panelists: list[str]) -> None:
        self.bags: dict[str, Counter[str]] = {p: Counter() for p in panelists}
        self.identity: dict[str, set[str]] = {p: set() for p in panelists}  # from their own intro
        self.df: Counter[str] = Counter()
        self.docs = 0

    def add(self, speaker: str, text: str, *, identity: bool = False) -> None:
        if speaker in self.bags:
            self.bags[speaker].update(content_words(text))
            if identity:
                self.identity[speaker].update(content_words(text))

    def observe(self, text: str) -> None:
        self.docs += 1
        self.df.update(set(content_words(text)))

    def _weight(self, w: str) -> float:
        idf = math.log((1 + self.docs) / (1 + self.df[w])) + 1
        return idf * (0.25 if w in common_stems() else 1.0)

    def scores(self, text: str) -> dict[str, float]:
        """Evidence per panelist from words only *their* profile has (words several panelists use say
        nothing about who is speaking); rarer words weigh more, ordinary English words a quarter, and
        words from their own self-introduction ("RL", "kernels") three times."""
        words_here = set(content_words(text))
        out = {}
        for p, bag in self.bags.items():
            others = set().union(*(b for q, b in self.bags.items() if q != p))
            out[p] = sum(
                self._weight(w) * (3.0 if w in self.identity[p] else 1.0)
                for w in words_here
                if w in bag and w not in others
            )
        return out


def _guess_by_profile(
    profiles: _Profiles, candidates: list[str], answer: str, question: str
) -> str | None:
    """A panelist whose own words the answer clearly uses (2x the next, and enough of them), unless the
    question was clearly framed for someone else. None when that is not clear."""
    a = profiles.scores(answer)
    q = profiles.scores(question)
    ranked = sorted(candidates, key=lambda p: a.get(p, 0.0), reverse=True)
    best = a.get(ranked[0], 0.0)
    second = a.get(ranked[1], 0.0) if len(ranked) > 1 else 0.0
    if best < 2.0 or best < 2.0 * second:
        return None
    q_best = q.get(ranked[0], 0.0)
    q_other = max((q.get(p, 0.0) for p in ranked[1:]), default=0.0)
    if q_other >= 3.0 and q_other >= 2.0 * q_best:
        return None
    return ranked[0]


def identify_speakers(raw: list[RawTurn], title: str = "") -> tuple[list[SpeakerTurn], list[str]]:
    """Attribute each turn. Returns (turns, panelist display names in order of appearance)."""
    # 1. drop back-channel and fragment turns; remember where they were
    kept: list[tuple[RawTurn, bool]] = []  # (turn, an interjection preceded it)
    pending_interjection = False
    for i, t in enumerate(raw):
        nxt = raw[i + 1].text if i + 1 < len(raw) else ""
        words = t.text.split()
        fragment = len(words) <= 2 and nxt.split()[: len(words)] == words
        if is_backchannel(t.text) or fragment:
            if kept:  # an opening "Yeah." is still nothing
                pending_interjection = True
            continue
        kept.append((t, pending_interjection))
        pending_interjection = False

    # 2. names: self-introductions first, then names the host hands over to
    names: list[str] = []
    for t, _ in kept:
        for n in find_intro_names(t.text):
            if n not in names:
                names.append(n)
    title_names = re.findall(r"[\u2014-]\s*([A-Z][a-z]+)\s+[A-Z][a-z]+\s*$", title)
    handover_re = re.compile(
        r"(?:over to you|to you|come to you|thank you|with),?\s+([A-Z][a-z]+)\b|"
        r"(?:^|[.?!]\s+)(?:Maybe |So |And )?([A-Z][a-z]+),?\s+(?:if you|can you|could you|would you|"
        r"what|how|do you|I want)"
    )
    all_text = " ".join(t.text for t, _ in kept)
    for t, _ in kept:
        if not looks_like_question(t.text):
            continue
        for m in handover_re.finditer(t.text):
            n = m.group(1) or m.group(2)
            if not n or n in _NAME_STOP or n in names or n.lower() in stopwords():
                continue
            # a proper name: capitalised also in mid-sentence, and named in the title or addressed twice
            mid = re.search(rf"[a-z,]\s+{n}\b", all_text)
            if mid and (n in title_names or len(re.findall(rf"\b{n}\b", all_text)) >= 2):
                names.append(n)
    ids = [n.lower() for n in names]
    name_re = _name_pattern(names)

    def mentioned(text: str) -> list[str]:
        return [m.group(1).lower() for m in name_re.finditer(text)] if name_re else []

    profiles = _Profiles(ids)
    for t, _ in kept:
        profiles.observe(t.text)
        if looks_like_question(t.text):
            # the host describing a panelist ("dive in with Dan about ... serving") describes them too
            for sent in _sentences(t.text):
                named = [p for p in mentioned(sent) if p in ids]
                if len(set(named)) == 1:
                    profiles.add(named[0], sent)
    questions = [looks_like_question(t.text) for t, _ in kept]

    # 3. classify and attribute in order
    out: list[SpeakerTurn] = []
    last_addressed: list[str] = []
    answered_since_question: list[str] = []
    last_question_text = ""
    for j, (t, after_interjection) in enumerate(kept):
        text = t.text
        intro = [n.lower() for n in find_intro_names(text) if n.lower() in ids]
        ment = mentioned(text)
        question = questions[j] and not intro
        prev = out[-1] if out else None
        sets_up_question = (
            j + 1 < len(kept)
            and questions[j + 1]
            and kept[j + 1][1]
            and prev is not None
            and prev.speaker not in (HOST, UNKNOWN)
            and not after_interjection
        )
        st = SpeakerTurn(UNKNOWN, text, question, sources=[t.index])
        if intro:
            st.speaker, st.why = intro[0], "introduces themselves"
        elif ids and set(ids) <= set(ment):
            st.speaker, st.why = HOST, "names every panelist"
        elif question:
            st.speaker, st.why = HOST, "asks a question"
        elif sets_up_question:
            st.speaker, st.why = HOST, "leads into the host's next question"
        else:
            candidates = [p for p in ids if p not in ment]  # rule 4: not the one spoken to
            if prev is not None and prev.speaker != HOST and after_interjection and prev.speaker in candidates:
                st.speaker, st.why = prev.speaker, "continues after an interjection"
            elif (
                prev is not None
                and prev.speaker not in (HOST, UNKNOWN)
                and len(prev.text.split()) < 25
                and prev.speaker in last_addressed
                and prev.speaker in candidates
            ):
                st.speaker, st.why = prev.speaker, "continues a short answer"
            else:
                if prev is not None and prev.speaker not in (HOST, UNKNOWN):
                    # '>>' after an answer: someone else; the host would be asking
                    candidates = [p for p in candidates if p not in answered_since_question]
                addressed = [p for p in last_addressed if p in candidates]
                if not answered_since_question and addressed:
                    st.speaker, st.why = addressed[-1], "the host handed over to them"
                elif (
                    len(candidates) == 1
                    and ids
                    and len(candidates) < len(ids)
                    # after the one the host asked has answered, more turns are a back-and-forth,
                    # not a round: elimination says nothing about them
                    and not (last_addressed and last_addressed[-1] in answered_since_question)
                ):
                    st.speaker, st.why = candidates[0], "the only panelist left"
                elif candidates:
                    guess = _guess_by_profile(profiles, candidates, text, last_question_text)
                    if guess:
                        st.speaker, st.why = guess, "sounds like their earlier answers"
        # merge with the previous turn when it is the same speaker
        if out and st.speaker == out[-1].speaker and st.speaker != UNKNOWN:
            prev = out[-1]
            prev.text = f"{prev.text} {text}"
            prev.sources.extend(st.sources)
            prev.is_question = prev.is_question or st.is_question
            if st.speaker == HOST:
                prev.addressed = [p for p in ment if p in ids][-1:] or prev.addressed
                last_addressed = prev.addressed
                last_question_text = prev.text
            continue
        if st.speaker == HOST:
            st.addressed = [p for p in ment if p in ids][-1:]
            last_addressed = st.addressed
            answered_since_question = []
            last_question_text = text
        elif st.speaker != UNKNOWN:
            answered_since_question.append(st.speaker)
            if not st.why.startswith("sounds like"):  # grow profiles from firm evidence only
                profiles.add(st.speaker, text, identity=st.why == "introduces themselves")
        out.append(st)
    # The host's own words about a panelist describe them too: fold them into the profiles is done above
    # by order; nothing more to do here.
    return out, names
