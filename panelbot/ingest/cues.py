"""What a turn's words say about its place in a moderated panel, before anyone is named: a question or a
request (the host's), a back-channel ("Mm-hm.", "[laughter]"), a round put to everyone, a follow-up on the last
answer, a reply to a push-back."""

from __future__ import annotations

import re

_BACKCHANNEL = {
    "yeah",
    "yes",
    "yep",
    "mhm",
    "mm",
    "hmm",
    "uh",
    "um",
    "okay",
    "ok",
    "right",
    "sure",
    "wow",
    "nice",
    "cool",
    "awesome",
    "great",
    "exactly",
    "totally",
    "absolutely",
    "true",
    "indeed",
    "so",
    "and",
    "oh",
    "ah",
    "haha",
    "no",
    "yup",
    "thanks",
    "go",
    "ahead",
    "like",
    "huh",
    "interesting",
    "definitely",
    "mm-hm",
    "mm-hmm",
    "uh-huh",
    "hm",
    "agreed",
    "laughter",
    "applause",
}

# a sentence that opens as a question does ("What's …", "And how do you …", "Is there …")
_ASKS_OPENING_RE = re.compile(
    r"^\W*(?:(?:so|and|but|okay|ok|now|well)[,]?\s+)*(?:what|what's|how|why|who|whom|whose|where|when|which|"
    r"do|does|did|is|isn't|are|aren't|was|were|can|could|would|will|should|have|has|had)\b",
    re.IGNORECASE,
)

_TAG_QUESTION_RE = re.compile(
    r"(?:^|[\s,])(?:right|isn't it|no|you know|okay|ok|yeah|huh|correct|true|eh|don't you think)\?$",
    re.IGNORECASE,
)

_REQUEST_RE = re.compile(
    r"\b(?:can you|could you|would you|will you|if you can|if you could|wondering if you|tell us|"
    r"talk (?:to us )?(?:a little bit |more )?(?:about|on)|walk us|over to you|throw it|go first|"
    r"shed (?:some |more )?light|I want(?:ed)? to ask|let's hear|why don't you|you start|"
    r"your turn|your take|what about you)\b",
    re.IGNORECASE,
)

# asking without a question mark or a "you": "Kofi, tell me about battery life.", "Walk us through recycling.",
# "I'm curious what limits battery life."
_ASKING_RE = re.compile(
    r"(?:^|[.!?]\s+)(?:(?:so|and|okay|now)[,]?\s+)?(?:[^\W\d_]+,\s+)?(?:please\s+)?"
    r"(?:tell (?:me|us)|walk (?:me|us)|explain|give (?:me|us) a sense|describe|talk (?:to us |to me )?about)\b|"
    r"\bI(?:'m| am) (?:really )?curious (?:what|how|why|whether|if|about)\b|"
    r"\bI(?:'d| would) love to (?:know|hear|understand)\b",
    re.IGNORECASE,
)

ROUND_RE = re.compile(
    r"\b(?:each of you|all of you|both of you|you both|you all|each one of you|everyone on (?:the|this) panel|"
    r"down the line|(?:down|along|across) the (?:row|line|table|panel)|one by one|(?:for|to) the (?:whole |entire )?panel|"
    r"for all (?:two|three|four|five|six) of you|same question (?:to|for) (?:all|everyone|everybody)|around the (?:table|panel)|quick introductions|introduce yourselves|"
    r"anyone (?:can|could|want|wants)|whoever wants|who (?:wants|would like|'d like) to (?:take|start|go|answer)|jump in|(?:one )?(?:more )?for (?:everyone|everybody)|"
    r"each of (?:our|the) (?:panelists|guests)|(?:a|quick|lightning|speed|final|last|closing) round|"
    r"(?:opening|closing) (?:statements?|remarks|thoughts|words)|\w+ (?:seconds|minutes) each)\b",
    re.IGNORECASE,
)

FOLLOW_UP_RE = re.compile(
    r"\b(?:this thread|that thread|follow[- ]up|following up|more on (?:this|that)|build(?:ing)? on (?:this|that)|"
    r"pick on (?:this|that)|dig (?:into|deeper)|go deeper|on that note|you mentioned|you said|"
    r"stay(?:ing)? (?:on|with) (?:this|that))\b",
    re.IGNORECASE,
)

_SENT_END_RE = re.compile(r"(?<=[.!?])\s+")

# a panelist adding to what was just said: "I'd add that …", "Can I add to that?", "To build on that, …"
ADDS_RE = re.compile(
    r"^\W*(?:(?:yeah|yes|and|so|well|sorry)[,.]?\s+)*(?:I'd (?:add|push back|just add|also add)|I would add|"
    r"I (?:agree|disagree)|(?:can|could|may) I (?:add|jump in|come in)|to add to (?:that|this)|just to add|"
    r"to build on (?:that|this)|building on (?:that|this)|if I (?:can|could|may) add|I'll add|let me add)\b",
    re.IGNORECASE,
)

REPLY_RE = re.compile(
    r"^\W*(?:that's fair|fair enough|fair|agreed|i agree|true|that's true|good point|that's a good point|"
    r"yes,? but|yeah,? but|sure,? but|no,? i)\b",
    re.IGNORECASE,
)

FOLLOW_ON_RE = re.compile(
    r"^\W*(?:and|but|how so|why|really|wait|is that|does that|isn't (?:that|it)|doesn't (?:that|it)|"
    r"aren't you|(?:was|is|were|are|did|does|has|had)\s+(?:he|she|they|it|that|this))\b",
    re.IGNORECASE,
)


def sentences(text: str) -> list[str]:
    return [s for s in _SENT_END_RE.split(text.strip()) if s]


def is_backchannel(text: str) -> bool:
    """'Yeah.', 'Mhm. Mhm.', 'Mm-hm.', '[laughter]', 'Yeah, like go ahead.' -- no content of its own."""
    # innermost brackets only: "[^\]]*" from every "[" of "[[[[…" to the end was quadratic
    stripped = re.sub(r"\[[^\[\]]*\]|\([^()]*\)", " ", text)
    toks = re.findall(r"[a-z'\-]+", stripped.lower())
    toks = [t.strip("-'") for t in toks if t.strip("-'")]
    if not toks:
        return not re.search(r"[^\W\d_]{2,}", stripped)
    return len(toks) <= 5 and all(t in _BACKCHANNEL for t in toks)


# the host running the session: "Let's take a question from the audience.", "Okay, let's open it up."
MODERATING_RE = re.compile(
    r"^\W*(?:(?:okay|ok|alright|all right|great|good|so|well|now|and|right)[,.!]?\s+)*(?:let's|let us)\s+"
    r"(?:take|open|move|turn|go|get|hear|switch|come back|wrap|bring|pause|have a (?:question|look)|"
    r"thank|give|welcome)\b",
    re.IGNORECASE,
)

# the host giving the floor to the audience: "We have time for a couple of questions from the floor. Yes, you,
# sir.", "And one more. Over there."
FLOOR_RE = re.compile(
    r"\b(?:questions? from the (?:floor|audience|room)|open (?:it )?up to (?:the )?(?:floor|audience|room|questions)|"
    r"(?:we have|we've got|there's) (?:time|a few minutes|a couple of minutes) for|one more(?: question)?[.!]|"
    r"over there[.!]|(?:at|in) the (?:back|front|middle)[.!]|(?:yes|okay|right),? (?:you|sir|madam)\b)",
    re.IGNORECASE,
)

_REMARK_MAX_WORDS = 8

# what a panelist's own short turn has and a host's comment on an answer does not: "I", "we", a disagreement
_OWN_VOICE_RE = re.compile(
    r"\b(?:i|i'm|i'd|i've|i'll|me|my|mine|we|we're|we've|our|us|not|no|never|but|n't)\b|n't\b",
    re.IGNORECASE,
)


def is_remark(text: str) -> bool:
    """A short comment on what was just said, in nobody's own voice: "That sounds terrifying.", "That must be
    hard to hear.", "What a story." (not "I agree.", "That's not true.", nor a question)."""
    toks = text.split()
    return (
        0 < len(toks) <= _REMARK_MAX_WORDS
        and "?" not in text
        and not _OWN_VOICE_RE.search(text)
        and bool(_REMARK_OPENING_RE.match(text))
        and not is_backchannel(text)
    )


# how a comment on what was just said opens (a short answer in a round, "Old barriers.", does not)
_REMARK_OPENING_RE = re.compile(
    r"^\W*(?:that|this|it|what an?|how|wow|oh|gosh|amazing|fascinating|interesting|incredible|great|lovely|"
    r"wonderful|terrific|remarkable|brilliant|sounds|must be|quite|really)\b",
    re.IGNORECASE,
)


def looks_like_question(text: str) -> bool:
    """Does the turn end by asking something (not a tag question like '..., right?')?"""
    sents = sentences(text)
    if not sents:
        return False

    def asks(sentence: str) -> bool:
        sentence = sentence.strip().rstrip("\"'\u201d\u2019)")
        # "What's one game that gets it right?" asks; "It's cheaper, right?" only checks
        return sentence.endswith("?") and (
            bool(_ASKS_OPENING_RE.match(sentence)) or not _TAG_QUESTION_RE.search(sentence)
        )

    last = sents[-1].strip()
    if asks(last):
        return True
    # "... how do you actually go about that? Cuz that seems like a pretty ludicrous task."
    if len(sents) >= 2 and asks(sents[-2]) and len(last.split()) <= 20:
        return True
    # A request in the closing sentence ("Maybe Dan if you can go first.", "... over to you to talk
    # about your role"), also when the captions cut it off mid-sentence.
    return (bool(_REQUEST_RE.search(last)) and "you" in last.lower()) or bool(
        _ASKING_RE.search(last)
    )


# the host closing the talk anywhere in a turn: "We're out of time. Thank you all, and please thank our panel.",
# "Please join me in thanking our panel."
CLOSING_RE = re.compile(
    r"\b(?:thank(?:s| you)|please thank|join me in thanking|a (?:big )?(?:round of applause|hand) for)\b"
    r"[^.?!]{0,40}\b(?:both|all|everyone|everybody|panel\w*|guests?|speakers?)\b",
    re.IGNORECASE,
)

# the host thanking the panel: "Thanks, both.", "Thank you all so much.", "Please thank our panelists."
THANKS_ALL_RE = re.compile(
    r"^\W*(?:(?:ok(?:ay)?|well|great|wonderful|fantastic|alright|all right)[,.!]?\s+)?(?:thank(?:s| you)|please thank)\b"
    r"[^.?!]{0,40}\b(?:both|all|everyone|everybody|panel\w*|guests?)\b",
    re.IGNORECASE,
)
