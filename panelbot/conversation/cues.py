"""General English discourse cues a follow-up is made of ("tell me more", "why?", "do you agree?", a pronoun
pointing back), used to take them out of a message before its own words are judged, and to correct their
typos. Which kind a message is is decided by meaning (``panelbot.conversation.kind_bank``) and by the
reading in ``panelbot.conversation.kinds``; these patterns only locate the cue words. Never words of one talk.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from panelbot.conversation.reasons import WHY
from panelbot.retrieval.lexicon import common_words, stopwords
from panelbot.text import LazyPattern, fold, split_sentences

if TYPE_CHECKING:
    from panelbot.conversation.router_view import FollowUpRouter

# a new subject announced ("unrelated, ...", "by the way, ...")
SWITCH = LazyPattern(
    r"\b(?:unrelated|off[- ]topic|different (?:question|topic|subject|note)|chang(?:e|ing) (?:of )?"
    r"(?:the )?(?:subject|topic)|new (?:question|topic|subject)|by the way|btw|random(?:ly)? question|"
    r"switch(?:ing)? gears|on (?:an)?other note|another (?:question|topic)|moving on|separate question|"
    r"something (?:completely |totally )?different)\b",
    re.IGNORECASE,
)
# ... as a lead-in to the question that follows ("Unrelated, but how do you ...?"): taken off before the
# question is judged on its own
SWITCH_LEAD = LazyPattern(
    r"^\W*(?:(?:ok(?:ay)?|so|well|now|and|also|oh|hey)\b[\s,]*)*(?:" + SWITCH.pattern + r")"
    r"(?:[\s,:;.!?\u2014-]+(?:but|though|then|here'?s one|question|quick question)\b)*[\s,:;.!?\u2014-]*",
    re.IGNORECASE,
)

# asking for more of the same; these words are removed before judging whether new content was added
CONTINUE = LazyPattern(
    r"\b(?:(?:tell|say|share|give|show)(?: me| us)?(?: a (?:bit|little|lot))? more(?: about (?:that|this|it))?|"
    r"more(?: on| about)? (?:that|this|it)|(?:any|some|much|a bit|a little) more|more|go on|carry on|"
    r"continue|keep going|elaborate(?: on (?:that|this|it))?|expand(?: on (?:that|this|it))?|"
    r"how so|in what (?:way|sense)|"
    r"what (?:do|did) you mean(?: by (?:that|this|it))?|meaning|mean|explain(?: (?:that|this|it))?|"
    r"clarify|unpack(?: that| this)?|(?:give|show|share|got)(?: me| us)? (?:an?|any|some|one) examples?|"
    r"(?:for|an|any|some) examples?|examples?|such as|like what|"
    r"what else|anything else|and then|then what|what(?: happened| happens)? (?:next|then|after(?:wards)?)|"
    r"after that|afterwards|next|details?|deeper|further|specifically|is that (?:so|true|right)|go deeper)\b",
    re.IGNORECASE,
)

# asking what was just said means ("how so?", "what do you mean?"): answered from the same answer only ...
CLARIFY = LazyPattern(
    r"\b(?:how so|in what (?:way|sense)|what (?:do|did) (?:you|he|she|they) mean|meaning|mean|explain|"
    r"clarify|unpack|is that (?:so|true|right))\b",
    re.IGNORECASE,
)
# ... unless it asks for more as well ("explain more", "what else do you mean"): not only what was just said means
MORE = LazyPattern(
    r"\b(?:more|else|go on|carry on|keep going|continue|expand|elaborate|examples?|like what|such as|next|"
    r"after|then|further|deeper|details?|also)\b",
    re.IGNORECASE,
)

# the other side of the panel, or a named panelist asked the same thing
OTHER = LazyPattern(
    r"\b(?:(?:the )?other (?:side|panelist|guest|speaker|person|one|expert)|"
    r"(?:do|does|would|will) (?:you|he|she|they) agree|agree|disagree|same question|same for you|"
    r"(?:what|how) about you|and you|you too|your (?:take|view|views|thoughts|opinion|perspective|side)|"
    r"(?:what|how) about (?:him|her|them)(?=\W*$)|"
    r"(?:his|her|their|[^\W\d_]+['\u2019]s) (?:take|view|views|thoughts|opinion|perspective|side)|"
    r"what (?:do|does|did|would) \w+(?: \w+)? (?:think|say)|thoughts|second opinion|(?:weigh|chime) in|"
    r"anything to add|want to add|add to that|same thing|see it the same way|see it differently)\b",
    re.IGNORECASE,
)

# the other side asked to agree or not, even with a subject of its own ("does she agree with him about open
# models?"): someone else's view of what was just said, not more from the one who said it
ASKS_ANOTHER_TO_AGREE = LazyPattern(
    r"\b(?:(?:do|does|did|would|will) (?:he|she|they) (?:dis)?agree|(?:dis)?agrees? with (?:him|her|them))\b",
    re.IGNORECASE,
)

# reactions and back-channel words in front of a follow-up ("Interesting. Why's that?", "ok so, ...")
FILLER = LazyPattern(
    r"^(?:\W*(?:ok(?:ay)?|so|well|hm+|interesting|cool|great|nice|wow|right|i see|got it|thanks|thank you|"
    r"sure|yeah|yes|yep|oh|ah|huh|really|fair enough|makes sense|neat|amazing|fascinating|please|pls|plz)"
    r"\b[\s,.!?;:\u2014-]*)+",
    re.IGNORECASE,
)

# the words the cues above are made of, for correcting their typos
CUE_WORDS = (
    *("tell", "more", "continue", "going", "elaborate", "expand", "why", "how", "what", "mean"),
    *("meaning", "explain", "clarify", "example", "examples", "else", "next", "details", "further"),
    *("think", "agree", "disagree", "other", "side", "same", "question", "thoughts", "opinion"),
    *("about", "that", "this", "does", "again", "view", "take"),
)

# a pronoun or demonstrative pointing back ("does that take long?", "how do you train those?"); a "that"
# right after a content word is a relative clause ("a cache that keeps growing") and does not count
REFERENCE = LazyPattern(
    r"\b(?:this|it|its|it's|those|these|they|them|their|there|then|such|same|he|she|him|her|his|"
    r"the former|the latter)\b",
    re.IGNORECASE,
)
# ... one that points back at a person (a panelist just heard or introduced), not at what was said
PERSON_BACK = LazyPattern(r"\b(?:she|he|her|him|his|hers|himself|herself)\b", re.IGNORECASE)
THAT = LazyPattern(r"(?:^|(\b\w+)\W+)that\b", re.IGNORECASE)
# "there is", "is there": existential, pointing at no place said before
EXISTENTIAL_THERE = LazyPattern(
    r"\b(there)(?=\s+(?:is|are|was|were|'s|be|been|will|would|might|may|could|should|has|have|had|seems?)\b)"
    r"|\b(?:is|are|was|were)\s+(there)\b",
    re.IGNORECASE,
)

# a name in front ("Dan, why?"): what follows is the question
NAME_LEAD = LazyPattern(r"^\W*@?[^\W\d_][\w.'-]*(?: [^\W\d_a-z][\w.'-]*)?\s*[,:]\s*")

# an elliptical follow-up ("and for training?", "what about multimodal?")
ELLIPSIS = LazyPattern(
    r"^\W*(?:and|but|or|also|so|plus|what about|how about|what of|same for|and what about|and how about)\b",
    re.IGNORECASE,
)


# a noun phrase that brings in someone or something new: "a company", "some labs", a bare plural right after
# the question's verb ("why do labs ..."), "people"; the possessive or "they" after it refers to it
INDEFINITE = LazyPattern(
    r"\b(?:(?P<det>a|an|each|every|any|another)\s+(?P<one>[^\W\d_][\w-]*)"
    r"|(?:some|many|most|all|other|few|several)\s+(?P<many>[^\W\d_][\w-]*)"
    r"|(?:do|did|would|should|can|could|will|might|must)\s+(?P<bare>[^\W\d_][\w-]*s)"
    r"|(?P<who>someone|somebody|anyone|anybody|everyone|everybody|people|nobody))\b",
    re.IGNORECASE,
)
BINDABLE = frozenset(
    {"its", "their", "they"}
)  # not "it", "them": in its own clause it would be "itself"
# "a bit", "a lot": measures, not things
MEASURES = frozenset(
    {"bit", "lot", "little", "few", "while", "moment", "sec", "second", "minute", "couple"}
)


def _introduced_before(message: str, end: int) -> bool:
    """A new referent is brought in before ``end`` (``INDEFINITE``), so a pronoun there can refer to it."""
    for m in INDEFINITE.finditer(message, 0, end):
        noun = next(g for g in (m["one"], m["many"], m["bare"], m["who"]) if g).lower()
        if m["who"] or (noun not in stopwords() and noun not in MEASURES):
            return True
    return False


def points_back(message: str) -> bool:
    """A pronoun or a demonstrative pointing at what was said before ("does that ...", "those"); not a
    possessive or "they" whose referent the message itself brought in ("why would a company give its model
    away?")."""
    existential = {
        m.start(1) if m.group(1) else m.start(2) for m in EXISTENTIAL_THERE.finditer(message)
    }
    for m in REFERENCE.finditer(message):
        if m.start() in existential:
            continue
        if m.group(0).lower() not in BINDABLE or not _introduced_before(message, m.start()):
            return True
    for m in THAT.finditer(message):
        before = (m.group(1) or "").lower()
        if not before or before in stopwords() or before in ("mean", "explain", "about"):
            return True
    return False


def points_at_a_person(message: str) -> bool:
    """ "he", "she", "her" pointing back at a person heard before (a panelist): in the message's first
    sentence, with no one the message brings in before it ("a friend of mine ... she said" is the friend)."""
    sentences = split_sentences(message)
    first = sentences[0] if sentences else message
    return any(not _introduced_before(first, m.start()) for m in PERSON_BACK.finditer(first))


def leans_on_context(message: str) -> bool:
    """It points back or continues an ellipsis ("and for training?"). In a message of several sentences,
    only its first can point back at the conversation: a pronoun after it has the message's own sentences
    before it to refer to ("The model reproduced a paper. How do you train for that?", a pasted text)."""
    sentences = split_sentences(message)
    return points_back(sentences[0] if sentences else message) or bool(ELLIPSIS.search(message))


def without_cues(message: str) -> str:
    """The message less its follow-up cues ("why", "tell me more", "do you agree"): its own words."""
    return OTHER.sub(" ", CONTINUE.sub(" ", WHY.sub(" ", message)))


def has_follow_up_cue(message: str) -> bool:
    return bool(
        CONTINUE.search(message)
        or WHY.search(message)
        or OTHER.search(message)
        or leans_on_context(message)
    )


def without_reaction(message: str) -> str:
    """A reaction in front ("Interesting. Why's that?", "ok, and ...") taken off."""
    return FILLER.sub("", message) or message


def without_switch_lead(message: str) -> str:
    """ "unrelated, how do you avoid reward hacking?" -> "how do you avoid reward hacking?" (the announced
    new subject is judged on its own words); the message itself when nothing follows the cue."""
    rest = SWITCH_LEAD.sub("", message, count=1).strip()
    return rest if len(rest.split()) >= 2 else message


def fix_cue_typos(router: FollowUpRouter, message: str) -> str:
    """Misspelt follow-up words ("tel me mroe", "wat does olive thnik") -> the words (one edit, a swap
    counting as one; never an everyday English word or one of the panel's own)."""
    known = common_words()

    def fix(m: re.Match[str]) -> str:
        w = m.group(0)
        low = w.lower()
        if (
            len(low) < 3
            or low in known
            or low in router.lexicon
            or low in CUE_WORDS
            or router.is_name_word(fold(w))
        ):
            return w
        from rapidfuzz.distance import OSA  # only for a word that is neither known nor a cue word

        near = [
            c
            for c in CUE_WORDS
            if abs(len(c) - len(low)) <= 1
            and OSA.distance(low, c) <= 1
            and (len(c) >= 4 or c[0] == low[0])
        ]
        return near[0] if len(near) == 1 else w

    return re.sub(r"[^\W\d_]+", fix, message)  # every letter, not only ASCII ("Rafał" is one word)
