"""Captions with no capital letters and no punctuation (old YouTube auto-captions: "thank you henrik so
what actually happens to a cheese"): the talk's names given back their capitals, a name said to its holder
set off by commas, each turn its closing mark, so that the rest of ingest reads them as it reads punctuated
captions, and the guests' names handed to it (``names.ToldNames``).

A word is taken for a name by how the talk uses it, not by a list of names. Names fill the places people's
names take: strong ones -- "i'm …", "my name is …", "thank you …", "with me are …", "… who …" after a full
name -- and weak ones, where a word of the talk could stand too -- "… do you …", "over to you …", "… runs
the …". A word among the language's common words is a name only when it fills two kinds of place, one of them
strong ("i'm dan", "thank you dan"); an uncommon one when it fills one strong place, or a weak one twice. So
"henrik" and "dan" are names, and "excited" ("i'm excited"), "microbes" ("the local microbes do you lose
them") and "compost" are not. The uncommon words after a first name in an introduction or a presentation are
its surname ("sally pennington", "beatriz ferreira da costa"); a name someone goes by ("everyone calls me
kasia") or a short form of a first name ("segun" of "olusegun") is theirs; who introduces themselves in the
opening turn is the host.

A sentence ends with "?" when it opens by asking ("does the bog …", "Beatriz, why …") or its closing words
hold an asking phrase ("what happens", "do you …"), else with "." -- the captions' ">>" separates the
turns; a sentence ends inside a turn before a name said to its holder ("… feel so good? Kwame, is
there …") and where a clause or a question opens after a word that can end one (``clauses.py``: "Crystals
not salt. I did not know that. But why a cave?"). Word counts never change, so the words' timings still
fit.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Collection
from dataclasses import dataclass, replace

from panelbot.ingest.captions import RawTurn
from panelbot.ingest.clauses import may_end, sentence_starts
from panelbot.ingest.names import SURNAME_PARTICLES, TITLES, ToldNames, is_short_form
from panelbot.retrieval.lexicon import common_words, stopwords

# the share of words that may carry a capital or a sentence mark in captions still taken as unpunctuated
UNPUNCTUATED_SHARE = 0.005

# how many of a turn's last words are read for a question
QUESTION_WINDOW = 14

# where a name stands: (kind, pattern with one group before or after the name). The name is the word at
# ``{N}``; the kinds are counted apart, a name is a word found in two kinds (or in one, when uncommon).
# what follows a name said to its holder: "kwame is there …", "ingrid what do you …", "segun you're at the port"
_SPOKEN_TO = (
    r"(?:over to you|what do you|what would you|what's your|what about|do you|did you|can you|could you|"
    r"would you|will you|are you|have you|how do you|how would you|where do you|why do you|is there|if you can|"
    r"you've|you're|you were|you mentioned|you said|you work|you run|that's|what|how|why|where|when|which|"
    r"let's start with you|let me start with you|i want to bring you in)\b"
)
# a name said to its holder before a question opening on a verb: "… nine million bart is it worth it"
_SPOKEN_TO_RE = re.compile(
    rf"{_SPOKEN_TO}|(?:is|are|was|were|do|does|did|can|could|would|will|should|has|have)\s+"
    r"(?:it|that|this|there|you|we|they)\b"
)
_THANKS = frozenset(["thanks", "thank", "you", "cheers", "hi", "hello"])  # "thank you kwame"
_N = r"(?<![\w'-])([^\W\d_][\w'-]*)"  # a whole word (not every tail of one: linear on long words)
_SLOT_RES = (
    ("intro", re.compile(rf"\b(?:i'm|i am|my name is|my name's|i'm called)\s+{_N}")),
    # a second name someone goes by: "… everyone calls me kasia": theirs, not another person's
    ("alias", re.compile(rf"\b(?:calls? me|called me|i go by|known as)\s+{_N}")),
    (
        "greeting",
        re.compile(rf"\b(?:thank you|thanks|thank you so much|welcome|hi|hello|cheers)\s+{_N}"),
    ),
    (
        "presentation",
        re.compile(
            rf"\b(?:with me (?:\w+ )?(?:is|are)|joining (?:me|us)(?: \w+)?(?: (?:is|are))?|i'm joined by|"
            rf"please welcome|(?:guests?|panel(?:ists?)?|speakers?)(?: (?:are|is|tonight|today|here))?)\s+{_N}"
        ),
    ),
    # "… and dr bartholomew kowalczyk reid, a coastal engineer": a title before a name
    ("titled", re.compile(rf"\b(?:dr|prof|professor)\s+{_N}")),
    (
        "handover",
        re.compile(
            rf"\b(?:over to you|to you|back to you|turn to you|come to you|start with you)\s+{_N}"
        ),
    ),
    (
        "called",
        re.compile(rf"{_N}\s+(?:{_SPOKEN_TO}|same question)"),
    ),
)
# a presentation that names the guest before saying who they are: "… and henrik østergaard who is a …"
_DESCRIBED_RES = (
    ("described", re.compile(r"\b(?:who|who's|whose)\b")),
    # "olusegun adeyemi runs the terminal" -- and "bagged peat compost is a …": needs a second kind
    ("does", re.compile(r"\b(?:is an?|runs|leads|heads|works at|works for)\b")),
)
_SURNAME_KINDS = {"intro", "presentation", "greeting", "titled"}
# a name found only where any word could stand before "do you" or after "over to you" needs a second kind
# or a second time
_WEAK_KINDS = {"called", "handover", "does"}
_MAX_SURNAME = 3  # words after a first name
_TITLES = frozenset(t.lower() for t in TITLES)
# who a greeting greets when it is not a person: "hi morning", "thanks everybody", "welcome folks"
_GREETED = frozenset(
    [
        "morning",
        "afternoon",
        "evening",
        "night",
        "everyone",
        "everybody",
        "all",
        "folks",
        "guys",
        "there",
    ]
)
_NUMBERS = frozenset(
    [
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "eleven",
        "twelve",
        "thirteen",
        "fourteen",
        "fifteen",
        "sixteen",
        "seventeen",
        "eighteen",
        "nineteen",
        "twenty",
        "thirty",
        "forty",
        "fifty",
        "sixty",
        "seventy",
        "eighty",
        "ninety",
        "hundred",
        "thousand",
        "million",
        "billion",
    ]
)

# the closing words ask: an asking word followed by what is asked about ("what happens", "how do you", "is it",
# "do you think") -- not "what" or "where" inside a statement ("that's where the flavour comes from")
_ASKING_RE = re.compile(
    r"\b(?:(?:what|how|why)(?: actually| exactly| really| else)?(?:'s| is| are| was| were| do| does| did| can| could| would| will| should| has|"
    r" have| happens| happened| makes| kind| sort| about| if)|"
    r"(?:where|who|which|when) (?:do|does|did|can|could|would|should) (?:you|we|they|i)|"
    r"^(?:and|but|so) who \w+s\b|"
    r"how (?:many|much|long|often|far|big|old)|what then|why not|(?:do|does|did) (?:the|your|our|their|all) \w+|"
    r"(?:do|does|did|is|are|was|were|can|could|would|will|should|have|has|isn't|aren't|don't|doesn't)"
    r" (?:you|we|they|it|that|this|there|he|she|i|anyone|anybody|any|some|people|your|these|those))\b(?!')"
)
# a sentence that opens by asking: "does the bog come back …", "is that the real problem …"
_OPENS_ASKING_RE = re.compile(
    r"^(?:(?:and|so|but|okay|now|well|um|uh)\s+)*(?:do|does|did|is|are|was|were|can|could|would|will|should|"
    r"has|have|isn't|aren't|don't|doesn't|why|how|what (?:actually|exactly|really))\s"
)

_I_FORMS = {"i": "I", "i'm": "I'm", "i've": "I've", "i'd": "I'd", "i'll": "I'll"}


def unpunctuated(raw: list[RawTurn]) -> bool:
    """The captions carry (almost) no capital letter and no sentence mark."""
    toks = [w for t in raw for w in t.text.split()]
    if len(toks) < 20:
        return False
    marked = sum(1 for w in toks if any(c.isupper() for c in w) or w[-1:] in ".?!,")
    return marked <= UNPUNCTUATED_SHARE * len(toks)


@dataclass
class TalkNames:
    """What :func:`talk_names` tells from the words: ``words`` -> their capitalised form (first names,
    surnames, other names people go by), and the names for the rest of ingest (``told``)."""

    words: dict[str, str]
    told: ToldNames


def talk_names(texts: list[str]) -> TalkNames:
    """The people's names in unpunctuated ``texts`` (one text a turn; see the module doc)."""
    found = _Found()
    for k, text in enumerate(texts):
        found.read(text, opening=k == 0)
    firsts = found.first_names()
    words = set(firsts)
    for run in found.full:
        # "i'm sally pennington": a full name, though "sally" is a common word
        if len(run) > 1 and (found.kinds[run[0]] - _WEAK_KINDS or run[0] in firsts):
            words.update(run)
            firsts.add(run[0])
    # "mina what about …" and "… and wilhelmina van der sluis makes cider": a word said to someone that
    # is the start or end of a first name said in full is that person's short form
    for full, short in _full_names_of_short_forms(texts, firsts | set(found.kinds), found):
        firsts.add(full)
        words.add(full)
        found.alias_of.setdefault(short, full)
        firsts.add(short)
    aliases = {a: f for a, f in found.alias_of.items() if f in firsts}
    # "everyone calls me bea": a short form of another's first name is theirs
    aliases.update(
        {a: f for a in firsts - set(aliases) for f in firsts if a != f and is_short_form(a, f)}
    )
    words.update(aliases)
    short = _short_forms(texts, words, firsts, found)
    words.update(short)
    aliases.update(short)
    order: dict[str, int] = {}
    for i, w in enumerate(" ".join(texts).split()):
        order.setdefault(w, i)
    people = sorted(firsts - found.openers - set(aliases), key=lambda w: order.get(w, 0))
    opener = min(
        (w for w in found.openers if w in firsts), key=lambda w: order.get(w, 0), default=""
    )
    return TalkNames(
        {w: w.capitalize() for w in words},
        ToldNames(
            tuple(w.capitalize() for w in people),
            {a.capitalize(): f.capitalize() for a, f in aliases.items()},
            opener.capitalize() or None,
        ),
    )


def _short_forms(
    texts: list[str], words: set[str], firsts: set[str], found: _Found
) -> dict[str, str]:
    """ "please segun is fine", "just bart please": a word of the talk that is a short form of a first
    name ("olusegun", "bartholomew") -> that name, where no common word is one."""
    vocabulary = {w for t in texts for w in t.split()} - words - found.common - found.stop
    return {w: f for w in vocabulary - firsts for f in firsts if is_short_form(w, f)}


# a full first name is this many letters longer than its short form at least ("ports" is not "port"'s)
_LONGER_BY = 3


def _full_names_of_short_forms(
    texts: list[str], said: set[str], found: _Found
) -> list[tuple[str, str]]:
    """(full first name, short form) for each uncommon word of the talk said before a surname ("wilhelmina
    van der sluis") of which a word found in a name's place ("mina what about …") is a short form."""
    out = []
    for text in texts:
        toks = text.split()
        for i, w in enumerate(toks[:-1]):
            if w in said or w in found.common or found.word_like(w):
                continue
            j = i + 1
            while j < len(toks) and toks[j] in SURNAME_PARTICLES:  # "van der sluis"
                j += 1
            if not _surname(toks[j:], found.common, found.word_like):
                continue
            shorts = [
                s
                for s in said
                if len(s) >= 3
                and len(w) - len(s) >= _LONGER_BY
                and s not in found.common
                and is_short_form(s, w)
            ]
            if len(shorts) == 1:
                out.append((w, shorts[0]))
    return out


class _Found:
    """The words found in the places of names: word -> the kinds of place; the names said in full (first
    name, surname words); another name someone goes by -> the name they gave before it; who introduces
    themselves in the opening turn (the host, as a rule)."""

    def __init__(self) -> None:
        self.common, self.stop = common_words(), stopwords()
        self.kinds: dict[str, set[str]] = defaultdict(set)
        self.hits: Counter[str] = Counter()
        self.full: list[list[str]] = []
        self.alias_of: dict[str, str] = {}
        self.openers: set[str] = set()

    def first_names(self) -> set[str]:
        """The words found often and strongly enough to be first names (see the module doc)."""
        out = set()
        for w, ks in self.kinds.items():
            strong = not ks <= _WEAK_KINDS
            if w in self.common:
                if len(ks) >= 2 and strong:
                    out.add(w)
            elif strong or self.hits[w] >= 2:
                out.add(w)
        return out

    def word_like(self, w: str) -> bool:
        """A word that cannot be a name."""
        return w in self.stop or w in _I_FORMS or w in _NUMBERS or w in _TITLES or w in _GREETED

    def read(self, text: str, *, opening: bool) -> None:
        toks = text.split()
        hits: list[tuple[int, str, str]] = []  # (word index, word, kind)
        for kind, rx in _SLOT_RES:
            for m in rx.finditer(text):
                at = len(text[: m.start(1)].split())
                while at < len(toks) - 1 and toks[at] in _TITLES:  # "with me are dr ingrid …"
                    at += 1
                if at < len(toks) and not self.word_like(toks[at]):
                    hits.append((at, toks[at], kind))
        for kind, rx in _DESCRIBED_RES:
            for m in rx.finditer(text):
                at = len(text[: m.start()].split())
                before = toks[max(0, at - 2 * _MAX_SURNAME) : at]
                run = _surname(before[::-1], self.common, self.word_like, _MAX_SURNAME + 1)[::-1]
                if len(run) >= 2:  # a full name: "… and lars erik holm who farms …"
                    hits.append((at - len(run), run[0], kind))
                    self.full.append(run)
        before: str | None = None
        for at, word, kind in sorted(hits):
            self.kinds[word].add(kind)
            self.hits[word] += 1
            if kind in _SURNAME_KINDS:
                self.full.append([word, *_surname(toks[at + 1 :], self.common, self.word_like)])
            if kind == "intro" and opening:
                self.openers.add(word)
            if kind == "alias" and before and before != word:
                self.alias_of[word] = before
            before = word


def _surname(
    run: list[str],
    common: Collection[str],
    word_like: Callable[[str], bool],
    most: int = _MAX_SURNAME,
) -> list[str]:
    """The name words at the start of ``run``: uncommon words, with the particles between them ("ferreira
    da costa" after "beatriz"); the particles themselves are not returned (they stay lower case)."""
    out: list[str] = []
    for word in run:
        if (word in SURNAME_PARTICLES and out) or (word not in common and not word_like(word)):
            out.append(word)
        else:
            break
        if sum(w not in SURNAME_PARTICLES for w in out) == most:
            break
    while out and out[-1] in SURNAME_PARTICLES:
        out.pop()
    return [w for w in out if w not in SURNAME_PARTICLES]


def _asks(words: list[str]) -> bool:
    """Do the words of a sentence ask: by how it opens (after a name said to someone, "Beatriz, why …"),
    or an asking phrase among its closing words?"""
    opening = words[1:] if words and words[0].endswith(",") else words
    return bool(
        # only a sentence short enough to be one question: "can i come in on that because …" goes on
        (
            len(opening) <= 2 * QUESTION_WINDOW
            and _OPENS_ASKING_RE.match(" ".join(opening[:6]).lower())
        )
        or any(
            not _STATED_RE.search(tail[: m.start()])
            for tail in [" ".join(words[-QUESTION_WINDOW:]).lower()]
            for m in _ASKING_RE.finditer(tail)
        )
    )


# a verb after its subject or a modal states, it does not ask: "but i'd do it in stages", "we can have it"
_STATED_RE = re.compile(
    r"(?:^|\s)(?:i|i'd|i'll|we|we'd|we'll|you'd|you'll|they|they'd|they'll|to|can|could|would|will|"
    r"should|might|must)\s+$"
)


def restore(raw: list[RawTurn]) -> tuple[list[RawTurn], ToldNames]:
    """(``raw`` with the names capitalised, "i" as "I", a name said to its holder set off by commas and
    starting a sentence ("… feel so good? Kwame, is there …", "Thanks, Tom, …"), each turn's first word
    capitalised and its last followed by "?" or "."; the first names of the people the talk presents: see
    the module doc). Word counts stay as they were, so the timings still fit."""
    names = talk_names([t.text for t in raw])
    firsts = {p.lower() for p in [*names.told.people, *names.told.aliases]}
    thanked = firsts | ({names.told.opener.lower()} if names.told.opener else set())
    out = []
    for t in raw:
        lower = t.text.split()
        if not lower:
            out.append(t)
            continue
        words = [_capitalised(w, names.words) for w in lower]
        for i, w in enumerate(lower[:-1]):
            if w in _TITLES and lower[i + 1] in names.words:  # "dr kwame" -> "Dr Kwame"
                words[i] = w.capitalize()
        for i in sentence_starts(lower):  # "crystals not salt | i did not know that | but why …"
            if lower[i - 1] not in firsts:  # "beatriz why …": the name said to her starts it
                _end_sentence(words, i)
        for i in _thanks_by_name(
            lower, thanked
        ):  # "… measuring our breakwater | thanks ewan and …"
            _end_sentence(words, i)
        for i, w in enumerate(lower):
            if w in firsts:
                _set_off(words, lower, i, set(names.words) - firsts)
            elif w in names.words and lower[i + 1 : i + 2] in (["who"], ["whose"]):
                words[i] += ","  # "… Beatriz Ferreira da Costa, who ages cheese …": a presentation
        _end_sentence(words, len(words))
        _ask_again(words)
        out.append(replace(t, text=" ".join(words)))
    return out, names.told


def _thanks_by_name(lower: list[str], firsts: Collection[str]) -> list[int]:
    """Where someone thanks a person by first name in mid-turn ("… our breakwater thanks ewan and just
    bart please …"): a sentence starts at the thanks, after a word that can end one."""
    out = []
    for i in range(1, len(lower) - 1):
        at = i + 2 if lower[i : i + 2] == ["thank", "you"] else i + 1
        if (
            lower[i] in ("thanks", "thank")
            and at < len(lower)
            and lower[at] in firsts
            and may_end(lower, i)
        ):
            out.append(i)
    return out


def _capitalised(w: str, names: dict[str, str]) -> str:
    """A word as restored: a name capitalised, its possessive too ("Beatriz's rinds"), "i" as "I"."""
    if w.endswith("'s") and w[:-2] in names:
        return names[w[:-2]] + "'s"
    return names.get(w) or _I_FORMS.get(w) or w


def _set_off(words: list[str], lower: list[str], i: int, surnames: Collection[str]) -> None:
    """Punctuate the name at ``i`` where it is said to its holder (see :func:`restore`)."""
    if _SPOKEN_TO_RE.match(" ".join(lower[i + 1 : i + 6])):
        if i > 0:
            _end_sentence(words, i)
        words[i] += ","
    elif i > 0 and lower[i - 1] in _THANKS:
        words[i - 1] += ","
        if i + 1 < len(words) and lower[i + 1] not in surnames:
            words[i] += ","
    elif i > 0 and i == len(words) - 1:
        words[i - 1] += ","  # "… over to you, Kwame"


def _ask_again(words: list[str]) -> None:
    """Each sentence closed with "." before a name set off after it ("… nothing nine million. Bart, is it
    worth it …") read again as the sentence it now is: "?" when it asks."""
    start = 0
    for k, w in enumerate(words):
        if w[-1:] in ".?!":
            if w.endswith(".") and _asks(words[start : k + 1]):
                words[k] = w[:-1] + "?"
            start = k + 1


def _end_sentence(words: list[str], end: int) -> None:
    """End the sentence before ``words[end]``: "?" when its closing words ask, else "."; the sentence's
    first word capitalised."""
    if words[end - 1][-1:] in ".?!":
        return
    start = end - 1
    while start > 0 and words[start - 1][-1:] not in ".?!":
        start -= 1
    words[end - 1] = words[end - 1].rstrip(",")
    words[start] = words[start][:1].upper() + words[start][1:]
    words[end - 1] += "?" if _asks(words[start:end]) else "."
