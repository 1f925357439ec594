"""Where sentences start inside a stretch of lowercase, unpunctuated speech (old YouTube auto-captions):
"crystals not salt i did not know that but why a cave why not a fridge" -> "crystals not salt | i did not
know that | but why a cave | why not a fridge".

Spoken English opens a sentence with a clause's subject or with a question's first words; it does not end
one on a word that needs what follows it. So a sentence is taken to start before a word that opens a
clause -- a subject pronoun that cannot be an object ("i", "we", "they", "it's", "that's"), an asking word
followed by what is asked ("why a", "is that", "can i"), one of these after a linking word ("and can i",
"but why", "so i'd") -- or after a lone yes, right or okay at a stretch's start ("mostly yes | the rind …"),
when the word before it can end a sentence: not an article, a preposition, a linking word, an auxiliary, a
subject or possessive pronoun, nor a verb of saying or thinking ("people think | it's salt" is no
boundary). The word classes are English grammar's closed classes, not any talk's words; a sentence is
at least ``MIN_SENTENCE`` words long.
"""

from __future__ import annotations

MIN_SENTENCE = 3  # words: a cue closer than this to the last start starts nothing ("i mean i …")


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# subject pronouns, and a pronoun with its verb: a clause starts here
_SUBJECTS = _words(
    "i i'm i've i'd i'll we we're we've we'd we'll they they're they've they'd they'll he he's she she's "
    "it's it'll that's let's there's there're here's you're you've you'll what's"
)
# words that ask when they open a sentence and something follows ("where do you", "what about")
_WH = _words("what where when who which")
# these ask wherever a sentence may start ("that's why" and "i know how" end on no word that can end one)
_OPEN_WH = _words("why how")
# what after "what" asks: "what about", "what then", "what if", "what else"
_WHAT_NEXT = _words("about then if else")
_ASKING_ADVERBS = _words("actually exactly really")
# an auxiliary opens a question before its subject ("is that safe", "could i age", "do you lose")
_AUX = _words("is are was were do does did can could would will should have has")
_MODALS = _words("can could would will should might must need have don't can't won't")
_AUX_SUBJECTS = _words("i you we they he she it that this there")
_GREETINGS = _words("hi hello")
_DO = _words("do does did")
_DETERMINERS = _words("the a an your our their all any these those")
# who may do something: "you do the", "people do a", not a question
_DOERS = _words("i you we they people who that which what to")
_LINKS = _words("and but so or because well now okay oh um uh")
_JOINS = _words("and or because")  # "and i …" goes on the sentence
# a lone word of assent or acknowledgement closing its own short sentence ("mostly yes | the rind …")
_ASSENT = _words("yes yeah right okay ok sure exactly absolutely great indeed mm hm mhm")
# what an assent word runs on into ("right now", "sure enough")
_RUNS_ON = _words("now there here away enough of to that")
# verbs of saying and thinking, which take a clause after them
_SAYING = (
    "think thinks thought say says said know knows knew mean means guess suppose believe hope feel "
    "reckon realise realize told tell"
)
# a sentence does not end on these: they need what follows them
_NO_END = _words(
    # articles, determiners, possessives
    "a an the my your our their his her its every each some any no "
    # asking words inside a sentence ("what | we can measure")
    "what which who whose "
    # prepositions
    "of in on at to for with from by about into onto over under after before between through like "
    "than as "
    # linking words and complementisers
    "and but or so because if when while whether though although where "
    # auxiliaries and modals
    "is are was were be been being am do does did have has had can could will would should may might "
    "must shall isn't aren't wasn't don't doesn't didn't can't won't "
    # subject pronouns, and a pronoun with its verb
    "i we they he she it's that's there's here's what's i'm we're they're you're he's she's "
    # intensifiers and negation
    "very really quite just not never also even " + _SAYING
)
_THAT_JOINS = _words(_SAYING + " so such is was and")


def _opens(toks: list[str], i: int) -> bool:
    """Does a clause or a question open at ``toks[i]``?"""
    w = toks[i]
    nxt = toks[i + 1] if i + 1 < len(toks) else ""
    if w in _LINKS and nxt:
        # "and i …", "because we …" join a clause to the sentence; "and can i …" asks anew; "and who
        # pays for that" (no relative "who" comes after "and")
        then = toks[i + 2] if i + 2 < len(toks) else ""
        asks_who = nxt == "who" and w in ("and", "but", "so") and _verb_s(then)
        return (nxt in _SUBJECTS and w not in _JOINS) or _asks_at(toks, i + 1) or asks_who
    if _asks_at(toks, i):
        return True
    if w in _GREETINGS and nxt:
        return True  # "… yes at the front | hi thanks my dad fished here"
    return w in _SUBJECTS or _subject_verb(w, nxt)


def _subject_verb(w: str, nxt: str) -> bool:
    """ "it means", "it can", "you can", "you'd": a pronoun that may be an object ("cut it off", "thank
    you") is a subject before an auxiliary, or ("it") before a verb's -s form."""
    if w == "it":
        return (
            nxt in _AUX or nxt in _MODALS or (len(nxt) > 3 and nxt.endswith("s") and nxt != "its")
        )
    return w == "you" and nxt in _MODALS


def _asks_at(toks: list[str], i: int) -> bool:
    """Does a question open at ``toks[i]``: "why a cave", "how long", "what about", "where do you",
    "is that safe" (not "who is an affineur", "what makes it", "when you pasteurise": those go on a
    sentence)?"""
    w, nxt, then = (toks[i : i + 3] + ["", ""])[:3]
    if w in _OPEN_WH:
        if i and _verb_form(toks[i - 1]):
            return False  # "measuring how hot …", "wondered why …": a question inside a sentence
        return bool(nxt) and (nxt not in _NO_END or nxt in _AUX or nxt in ("a", "an", "the", "not"))
    if w == "what" and (nxt in _AUX or nxt in _ASKING_ADVERBS):
        return True  # "what is happening", "what actually counts" (not "what makes it")
    if w in _WH:
        return (nxt in _AUX and then in _AUX_SUBJECTS) or nxt in _WHAT_NEXT
    if (
        w in _DO and nxt in _DETERMINERS
    ):  # "does the room actually matter" (not "what you do the most")
        return not i or toks[i - 1] not in _DOERS
    return w in _AUX and nxt in _AUX_SUBJECTS


def sentence_starts(toks: list[str]) -> list[int]:
    """The indices (> 0) of ``toks`` (lowercase words) where a new sentence starts (see the module doc)."""
    out: list[int] = []
    last = 0
    for i in range(1, len(toks)):
        prev = toks[i - 1]
        assent = prev in _ASSENT and i - last <= 2 and i + 1 < len(toks)
        if assent and toks[i] not in _RUNS_ON:
            out.append(i)  # "mostly yes | the rind …", "right | and every wheel …"
            last = i
            continue
        if (
            _answer_opens(toks, i, last)
            and may_end(toks, i)
            and i + 1 < len(toks)
            and toks[i + 1] not in _RUNS_ON
        ):
            out.append(i)  # "what does a harbourmaster do all day | um a bit of everything"
            last = i
            continue
        if i - last < MIN_SENTENCE or not may_end(toks, i) or not _opens(toks, i):
            continue
        if toks[i] in _DO and toks[i + 1] in _DETERMINERS and _opened_asking(toks, last):
            continue  # "what does a miller | do all day": the question's own verb
        if i + 1 >= len(toks):
            continue
        out.append(i)
        last = i
    return out


# words an answer opens with after a question that has been asked ("… or a bad thing | both really")
_ANSWER_OPENERS = _words("um uh well yes yeah no both honestly")
QUESTION_WORDS = 5  # a question runs this many words at least before an answer opens


def _opened_asking(toks: list[str], last: int) -> bool:
    """Did the sentence starting at ``toks[last]`` open by asking (after a linking word)?"""
    start = last + 1 if toks[last] in _LINKS and last + 1 < len(toks) else last
    return _asks_at(toks, start)


def _answer_opens(toks: list[str], i: int, last: int) -> bool:
    """Does an answer open at ``toks[i]``, inside a sentence that opened by asking ("is that a good thing
    or a bad thing | both really …")?"""
    if toks[i] not in _ANSWER_OPENERS or i - last < QUESTION_WORDS:
        return False
    return _opened_asking(toks, last)


def may_end(toks: list[str], i: int) -> bool:
    """Can a sentence end on ``toks[i - 1]``? Not on a word that needs what follows, nor on "that" after a
    verb of saying ("said that | we …" is none; "i love that | we've got …" is one)."""
    prev = toks[i - 1]
    if prev == "that":  # "did not know that | but why …": no clause follows a "that" before "but"
        return i < 2 or toks[i - 2] not in _THAT_JOINS or toks[i] in _LINKS
    if prev == "no":  # "not so much no | i'd agree …": "no" as a determiner comes before no pronoun
        return toks[i] in _SUBJECTS
    return prev not in _NO_END


def _verb_s(w: str) -> bool:
    """A verb's -s form, as far as its letters tell ("pays", "decides"; not "was", "is", "this")."""
    return len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is"))


def _verb_form(w: str) -> bool:
    """A verb's -ing or -ed form (it takes a question after it: "measuring how hot the flats get")."""
    return len(w) > 4 and w.endswith(("ing", "ed"))
