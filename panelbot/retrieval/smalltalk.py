"""Small talk: a message that is only a greeting, thanks, an acknowledgement, a goodbye, a "how are you?" or a
"what can I ask?" -- nothing to look up in the talk, yet not off-topic either.

``small_talk(message, names)`` says which of those a message is ("" when it is anything else). The whole
message must be made of such phrases (and who they are said to: a panelist's name, "everyone", "you two"), so
"Hi, how do you handle KV cache growth?" or "thanks, and what about Olive?" are never small talk: they are
answered as ever. The phrases are general English, never the words of a particular talk. Plain Python.
"""

from __future__ import annotations

import re
from collections.abc import Container, Iterable
from itertools import groupby
from typing import TYPE_CHECKING

from panelbot.text import LazyPattern, fold

if TYPE_CHECKING:
    from typing import Any

GREETING = "greeting"
WELLBEING = "wellbeing"  # "how are you?", "nice to meet you"
THANKS = "thanks"
ACKNOWLEDGEMENT = "acknowledgement"  # "ok cool", "got it", "that helps"
FAREWELL = "farewell"
HELP = "help"  # "what can I ask?", "how do I use this?"
# what a route's reason says of each ("small talk: a greeting")
REASONS = {
    GREETING: "a greeting",
    WELLBEING: "a greeting",
    THANKS: "thanks",
    ACKNOWLEDGEMENT: "an acknowledgement",
    FAREWELL: "a goodbye",
    HELP: "asking what to ask",
}
# when a message mixes them ("ok, thanks a lot. bye!"), the reply is to the first of these it has
PRIORITY = (FAREWELL, HELP, THANKS, WELLBEING, GREETING, ACKNOWLEDGEMENT)

_YOU = r"(?:you|u|ya|y'all|yall)"
_NICE = (
    r"(?:helpful|useful|great|interesting|cool|awesome|good|clear|fascinating|amazing|insightful|"
    r"informative|nice|fun|neat|perfect|excellent|brilliant|super|wonderful|fantastic|lovely|"
    r"illuminating|enlightening|impressive|informative|valuable|thorough)"
)
_VERY = r"(?:(?:really|very|super|so|pretty|quite|truly|extremely|incredibly|most) )*"
_THING = r"(?:answer|answers|reply|point|points|one|stuff|chat|talk|insight|insights|info|information|explanation)"

_QUESTION_WORD = r"(?:what|how|why|who|when|where|which|can|could|would|will|do|does|did|is|are)\b"
_NOT_ASKING = rf"(?!{_QUESTION_WORD})"
_ASKING = LazyPattern(_QUESTION_WORD)

_TALK = r"(?:talk|panel|chat|conversation|session|discussion|answer|answers|explanation)"

# longer phrases first where they share a start with shorter ones of another kind ("good night" / "good")
PHRASES = {
    FAREWELL: (
        r"(?:(?:bye+|bye[- ]bye|good ?bye|good ?night|later|cya|ttyl)(?: for (?:now|today|tonight))?)|"
        r"see (?:you|ya|u)(?: (?:later|soon|around|next time|then))?|"
        r"take care|farewell|so long|"
        r"have a (?:good|nice|great|lovely|wonderful) (?:one|day|evening|night|weekend|afternoon)|"
        r"catch you later|talk (?:to you )?(?:later|soon)|"
        r"that'?s (?:all|it|everything)(?: (?:i (?:had|have|wanted|needed)))?(?: (?:for (?:now|today|me)))?|"
        r"(?:i'?m|i am|we'?re|we are) (?:done|off|all set|good)(?: (?:for (?:now|today)|here))?|"
        r"(?:i (?:have|'ve got|'ve|got) )?no (?:more|other|further) questions(?: for (?:now|today))?|"
        r"nothing (?:else|more)(?: for (?:now|today))?|"
        r"signing off|(?:i )?(?:gotta|got to|have to|need to|must) go"
    ),
    HELP: (
        r"help|help me|what can (?:i|we) ask(?: (?:you|about|them|the panel|here))*|"
        r"what (?:should|could|can|do) (?:i|we) ask(?: (?:you|about|them|the panel|here))*|"
        r"what can (?:you|this) (?:do|answer|tell me(?: about)?|help (?:me )?with)|"
        r"what do you know(?: about)?|what (?:is|'s|s) this (?:panel|bot|thing|chat|app|tool)(?: about)?|"
        r"how do (?:i|we) use (?:this|you|it)(?: (?:panel|bot|thing|chat|app|tool))?|"
        r"what topics(?: (?:are there|do you cover|can (?:i|we) ask(?: about)?))?|any suggestions|"
        r"where (?:do|should) (?:i|we) start|what questions can (?:i|we) ask(?: (?:you|them|here))?|"
        # announcing a question without asking it yet
        r"(?:i (?:have|'ve got|got)|i'?ve|got) (?:a|one|some|a few|another|more) (?:quick |small )?questions?|"
        r"(?:can|could|may) (?:i|we) ask (?:you )?(?:a|one|some|something|another|a few)(?: (?:quick |small )?"
        r"questions?)?"
    ),
    WELLBEING: (
        rf"how (?:are|r) {_YOU}(?: (?:both|two|all|guys|folks))?(?: (?:doing|going|keeping))?"
        r"(?: (?:today|tonight|this (?:morning|afternoon|evening)))?|"
        r"how'?s it going|how (?:is|are) (?:it|things|everyone|everybody|life)(?: going)?|how do you do|"
        rf"(?:(?:it'?s )?(?:nice|good|great|pleased|glad|lovely) to (?:meet|see|talk to|chat with) {_YOU}"
        r"(?: (?:both|two|all))?)|"
        rf"(?:are|r) {_YOU} (?:an? )?(?:bot|robot|human|real|ai|person|chatbot|llm|machine)"
    ),
    GREETING: (
        r"h+i+|hii+ya|hiya|hey+(?:a|o)?|hell+o+|howdy|yo+|greetings|hola|bonjour|salut|ciao|g'?day|hallo|hej|"
        r"namaste|aloha|moin|servus|"
        r"good (?:morning|afternoon|evening|day)|morning|afternoon|evening|"
        r"what'?s up|whats up|wass?up|sup|welcome|(?:is )?any(?:one|body) (?:there|here|home)|"
        r"(?:i'?m|i am) (?:back|new(?: here)?)"
    ),
    THANKS: (
        rf"(?:(?:many |big |huge )?thanks?(?: {_YOU})?|thank {_YOU}|thx|thnx|thanx|tnx|ty|tysm|tyvm|cheers)"
        r"(?: (?:so much|very much|a lot|a bunch|a ton|heaps|loads|kindly|again|a million))*"
        # "thanks for doing this", "thank you for the detailed answer": a few words, none asking anything
        rf"(?: for {_NOT_ASKING}[\w'-]+(?: {_NOT_ASKING}[\w'-]+){{0,3}})?|"
        r"(?:much|greatly|really) appreciated|(?:i |we )?(?:really |do )?appreciate (?:it|that|this|you|your help)"
    ),
    ACKNOWLEDGEMENT: (
        r"ok(?:ay|ey|ie)?|k+|cool|great|nice|neat|awesome|amazing|wow|interesting|fascinating|perfect|excellent|"
        r"brilliant|sweet|lovely|wonderful|fantastic|super|good|very good|sounds (?:good|great|right)|"
        r"got it|gotcha|i see|(?:i )?understood|(?:i )?understand|(?:that |it )?makes sense|fair (?:enough|points?)|"
        r"noted|alright|all right|sure|yeah|yep|yup|indeed|lol|ha(?:ha)+|hm+|oh|ah|aha|"
        r"good to know|nice one|good stuff|no worries|all good|no thanks|no thank you|nope|nah|"
        rf"(?:that|this|it)(?:'s| is| was| were| has been| sounds) {_VERY}{_NICE}|"
        rf"(?:that|this|it|which) (?:really |definitely )?(?:helps|helped|clears (?:it|that|things) up)|"
        r"(?:that|this|it)(?:'s| is| was) (?:exactly |just )?what i (?:needed|wanted|was looking for|"
        r"wanted to know|was after)|"
        r"(?:that|this|it) (?:answers|answered) (?:it|that|my question|everything)|"
        rf"(?:you'?re|you are) (?:{_VERY}{_NICE}|the best|a star)|you rock|"
        rf"{_VERY}{_NICE}(?: {_THING})?|(?:i )?(?:really )?(?:love|loved|like|liked|enjoyed) (?:it|that|this|"
        rf"(?:the|this|your) {_TALK})"
    ),
}

# who it is said to, and words that only join the phrases
_ADDRESS = (
    r"guys|folks|everyone|everybody|all|both|you (?:both|two|all|guys)|y'?all|both of you|there|team|"
    r"panel|panelists|bot|panelbot|friends?|mate|people|again|too|as well|then|and|so|well|um+|uh+|"
    r"just|oh|please|pls|dear|world"
)

_SEPARATOR = r"[\s,.!?;:\u2026\u2014\u2013()'\"-]"
_SEPARATORS = _SEPARATOR + "*"


def _phrase(names: str, *, named: bool) -> str:
    """One phrase (or whom it is said to), ending at a word's end."""

    def group(name: str, body: str) -> str:
        return f"(?P<{name}>{body})" if named else f"(?:{body})"

    kinds = "|".join(group(k, p) for k, p in PHRASES.items())
    address = group("address", _ADDRESS + (f"|{names}" if names else ""))
    return rf"(?:{kinds}|{address})(?![\w'])"


def _piece(names: str, *, named: bool) -> str:
    """One phrase (or whom it is said to) with the punctuation around it."""
    return rf"{_SEPARATORS}{_phrase(names, named=named)}{_SEPARATORS}"


_CACHE: dict[str, tuple[re.Pattern[str], LazyPattern]] = {}
_SYMBOLS = LazyPattern(r"[^\w\s'\u2019,.!?;:\u2026\u2014\u2013()\"-]+")  # emoji, other symbols
_EMOTICON = LazyPattern(r"(?<!\w)[:;=8][-']?[)(DPp3\]\[/\\|oO*]+(?!\w)|<3|\^_?\^")
_ONE_SEPARATOR = LazyPattern(_SEPARATOR)
_WORD_GOES_ON = LazyPattern(r"[\w']")


def _patterns(names: Iterable[str]) -> tuple[re.Pattern[str], LazyPattern]:
    """(one bare phrase, one phrase with its kind and the punctuation around it) for a panel's people."""
    spelled = sorted({fold(n).strip() for n in names if n and n.strip()}, key=len, reverse=True)
    extra = "|".join(re.escape(n) for n in spelled)
    hit = _CACHE.get(extra)
    if hit is None:
        hit = (re.compile(_phrase(extra, named=False)), LazyPattern(_piece(extra, named=True)))
        if len(_CACHE) >= 32:
            _CACHE.clear()
        _CACHE[extra] = hit
    return hit


def made_of_phrases(text: str, phrase: re.Pattern[str]) -> bool:
    """Whether ``text`` is one or more of ``phrase`` with separators (spaces, punctuation) around them: what
    ``(?:SEPARATORS PHRASE SEPARATORS)+`` would fullmatch, decided over positions instead (each start of a
    phrase tried once), so it takes polynomial time. The backtracking engine, given that expression, tries
    every way of splitting a run of phrases ("bye bye bye ...": exponentially many) before it fails on a word
    at the end, and separators next to separators multiply those again: a 120-character message took
    minutes."""
    n = len(text)
    run_end = [0] * (n + 1)  # where the separators starting at each position end
    for i in range(n, -1, -1):
        run_end[i] = run_end[i + 1] if i < n and _ONE_SEPARATOR.match(text, i) else i
    word_ends = [j for j in range(1, n + 1) if j == n or not _WORD_GOES_ON.match(text, j)]
    starts = [False] * (n + 1)  # where a phrase may start (after the separators before it)
    for k in range(run_end[0] + 1):
        starts[k] = True
    for i in range(n):
        if not starts[i]:
            continue
        for j in word_ends:
            if j > i and phrase.fullmatch(text, i, j):
                if run_end[j] == n:
                    return True
                for k in range(j, run_end[j] + 1):
                    starts[k] = True
    return False


MAX_LENGTH = 120  # longer messages say something of their own

_WORDS = LazyPattern(r"[^\W\d_][\w']*|\d+")
_REPEATS = LazyPattern(r"(\w)\1+")
_LETTERS = LazyPattern(r"[a-z]+")
_vocabulary: Container[str] | None = None
WORDS_FILE = "smalltalk_words.txt"  # panelbot/data: spelling_words(), kept current by a test


def _plain(word: str) -> str:
    """A word as the quick check compares it: no apostrophe, no letter twice in a row ("hellooo" -> "helo")."""
    return _REPEATS.sub(r"\1", word.replace("'", ""))


def _words_known() -> Container[str]:
    """The words the phrases are spelt with (``WORDS_FILE``), read once."""
    global _vocabulary
    if (
        _vocabulary is None
    ):  # read as text, searched in place (building a set of them costs a millisecond)
        from panelbot.retrieval.lexicon import DATA_DIR, WordText, _body

        _vocabulary = (
            WordText(_body(WORDS_FILE))
            if (DATA_DIR / WORDS_FILE).is_file()
            else set(spelling_words())
        )
    return _vocabulary


_ENDS = ".,!?;:\"'()\u2026\u2014\u2013-"  # stripped from a word's ends by the first look


def _no_doubles(word: str) -> str:
    return "".join(k for k, _ in groupby(word))


def _surely_not(text: str, names: list[str]) -> bool:
    """The first look, before any pattern is compiled (most messages are questions, and compiling the few a
    closer look needs is most of its cost): a word of plain ASCII letters none of the phrases is spelt with.
    A word it cannot judge (punctuation inside, other letters) and any message with "for" in it ("thanks for
    ...") are left to :func:`_could_be`; so it is never true for small talk that one accepts."""
    low = text.lower()
    if "for" in low:
        return False
    vocabulary = _words_known()
    people: set[str] | None = None
    for token in low.split():
        word = token.strip(_ENDS)
        if not (word.isascii() and word.isalpha()):
            continue
        plain = _no_doubles(word)  # as _plain: no letter twice in a row
        if plain in vocabulary or plain.rstrip("s") in vocabulary or plain + "s" in vocabulary:
            continue
        if people is None:  # as _could_be's, for words of letters (_plain, without its pattern)
            people = {_no_doubles(w.replace("'", "")) for n in names for w in fold(n).split()}
        if not ({plain, plain.rstrip("s"), plain + "s"} & people):
            return True
    return False


def _could_be(text: str, names: Iterable[str]) -> bool:
    """A quick check before the phrases' pattern is compiled (it takes milliseconds, and most messages are
    questions): every word is one the phrases are spelt with (or two of them run together: "goodnight"), a
    name, or one of the few words after "for" in "thanks for ...". Never false for small talk."""
    vocabulary = _words_known()
    people = {_plain(w) for n in names for w in fold(n).split()}

    def known(word: str) -> bool:
        return word in vocabulary or word in people

    free = 0
    for word in _WORDS.findall(text):
        if free:
            free -= 1
            continue
        plain = _plain(word)
        if plain == "for":
            free = 4
        elif not (known(plain) or known(plain.rstrip("s")) or known(plain + "s")):
            return False
    return True


def spelling_words() -> list[str]:
    """The words the phrases are spelt with, as the quick check compares them (``_plain``): each run of
    letters of the patterns, and each run joined with one of the next three (alternatives run together:
    "any(?:one|body)" -> "anybody", "good ?night" -> "goodnight"), sorted. What ``WORDS_FILE`` holds."""
    source = " ".join([*PHRASES.values(), _ADDRESS]).replace(
        _NOT_ASKING, " "
    )  # not the words it refuses
    runs = _LETTERS.findall(_plain(source))
    # two plain runs join as plainly as their joined words would ("good" + "day": "goday")
    return sorted(
        {
            *runs,
            *(
                a + (b[1:] if a[-1:] == b[:1] else b)
                for i, a in enumerate(runs)
                for b in runs[i + 1 : i + 4]
            ),
        }
    )


def small_talk(message: str, names: Iterable[str] = ()) -> str:
    """Which kind of small talk ``message`` is (``GREETING``, ``THANKS``, ...), or "" when it says anything
    else. ``names``: the panel's people (names, first names, ids), which may be who it is said to."""
    text = " ".join((message or "").split())
    if not text or len(text) > MAX_LENGTH:
        return ""
    names = list(names)
    if _surely_not(text, names):
        return ""
    text = _EMOTICON.sub(" ", text)
    text = fold(_SYMBOLS.sub(" ", text)).replace("\u2019", "'").strip()
    if not text:
        return ""
    if not _could_be(text, names):
        return ""
    phrase, piece = _patterns(names)
    if not made_of_phrases(text, phrase):
        return ""
    found = {
        k for m in piece.finditer(text) for k, v in m.groupdict().items() if v and k != "address"
    }
    return next((k for k in PRIORITY if k in found), "")


def after_greeting(message: str) -> str:
    """What a message asks after the greeting it opens with ("hi, who are these people?" -> "who are these
    people?"; "hey there! ..."), for reading it by meaning: the greeting only dilutes the question. A greeting
    ends at punctuation or before a question word ("hi who is ..."), never before other words ("morning
    routines?", "what's up with ..."); whom it is said to goes with it, except a name ("hey Dan, what do you
    do?" keeps "Dan, ..."). The message as it is when it opens with no greeting, or is only small talk."""
    text = " ".join((message or "").split())
    first = text.split(" ", 1)[0].strip(_ENDS).lower()
    if not first or _plain(first) not in _words_known():  # most messages: no pattern compiled
        return text
    folded = fold(text).replace("\u2019", "'").lower()
    if len(folded) != len(text):  # folding changed the offsets: leave it as it is
        return text
    _, piece = _patterns(())
    at = cut = 0
    greeted = False
    while (m := piece.match(folded, at)) and m.end() > at:
        kind = next(k for k, v in m.groupdict().items() if v)
        if kind not in (GREETING, "address"):
            break
        greeted, at = greeted or kind == GREETING, m.end()
        if greeted and (m.group(0).rstrip()[-1:] in _ENDS or _ASKING.match(folded, at)):
            cut = at
    rest = text[cut:].strip()
    return rest or text


def panel_names(*panels: Any) -> list[str]:
    """How the people of a panel (or of several: asking across every talk) may be addressed in small talk:
    each panelist's and the host's name, first name and id."""
    people = [
        person
        for panel in panels
        for person in (*panel.panelists.values(), *([panel.host] if panel.host else []))
    ]
    return [n for p in people for n in (p.name, *p.name.split()[:1], p.id) if n]


def reason(kind: str) -> str:
    """A route's reason for small talk of ``kind``: "small talk: a greeting"."""
    return f"small talk: {REASONS.get(kind, kind)}"
