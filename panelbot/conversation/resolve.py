"""Resolve a new message against the conversation so far: the one place every front end (the app, ``panelbot
ask -c``, the model path, the servers) turns "tell me more" or "what does Olive think?" into a routed answer.

Plain Python, deterministic, built on the Router's public parts (``query_terms``, ``scope``, ``addressed``,
``route`` and the quote index's ``score``). A message is read as one of:

* **standalone** -- it makes sense on its own (or the conversation has no subject yet): routed as if first,
  so context can never drag a topic switch back to the old subject or panelist;
* **continuation** ("tell me more", "go on", "how so?"): the same panelist(s) on the same subject; quotes not yet
  shown come first (the rest of the same answer, then related answers -- not for "how so?", which asks about
  the answer itself); when nothing new is left, it says so, naming what they did say by id;
* **reason** ("why?", "how come?", "why's that?"): the passage where the same panelist(s) give a cause or a
  motivation for the subject (``panelbot.conversation.reasons``) -- the rest of the answer first, then their
  related answers, and an already shown one when that is where the reason sits (the note quotes the reason
  and its id); when the talk gives no reason, it says so;
* **elaboration** (a pronoun or an ellipsis: "how long does that take?", "and for training?"): the message's
  words plus the previous subject's words, weighted below them, retrieve; the previous panelist keeps the
  floor unless the new words clearly belong to someone else;
* **other panelist** ("what does Olive think?", "do you agree?", "how about the other side?"): the same
  subject, answered by that panelist with what they have not said yet in this conversation; when they never
  spoke to it, it says so and names who did; when all they said of it is already shown, it says so by id.

A message whose own words are about something the panel never discussed (more words the panel never used than
panel words) is routed on its own, and so declined as before; so is a message that announces a new subject
("unrelated, ...", "by the way, ...").

The cues are general English discourse markers (pronouns, "more", "why", "other side", ...), never phrases of
a particular conversation; the scoring thresholds are measured with ``panelbot eval`` on
``eval/conversations_dev.yaml``.
"""

from __future__ import annotations

import contextlib
import heapq
import re
import weakref
from collections import defaultdict
from collections.abc import Sequence
from typing import TYPE_CHECKING

from panelbot.conversation.reasons import (
    WHY,
    asks_why,
    cause_relevance,
    cause_sentences,
    causes,
    reason_excerpt,
    states_cause,
)
from panelbot.conversation.turns import (
    CONTINUATION,
    ELABORATION,
    OTHER_PANELIST,
    REASON,
    SMALL_TALK,
    STANDALONE,
    ConversationTurn,
    Resolution,
)
from panelbot.records import field, record
from panelbot.retrieval.lexicon import common_stems, common_words, english_words, stopwords
from panelbot.retrieval.results import RouteResult, ScoredQuote
from panelbot.retrieval.router import Router
from panelbot.text import LazyPattern, and_list, cased_like, fold

if TYPE_CHECKING:
    from typing import Any

WINDOW = 24  # earlier turns looked at to find the subject
SUBJECT_WEIGHT = 0.5  # the previous subject's terms, relative to the new message's words
SUBJECT_WEIGHT_STANDING = 0.25  # ... when the message would stand on its own anyway
STAY_RATIO = (
    0.5  # in an elaboration, the previous panelist keeps the floor at this share of the best
)
SPOKE_RATIO = (
    0.2  # a panelist "spoke to" the subject: best quote at this share of the best anyone has
)
SPOKE_MIN = 2.0  # ... and at least this many times the minimum quote score
RELATED_RATIO = (
    0.3  # continuation: a related quote scores at least this share of the subject's best...
)
# ... or says one of the subject's distinctive words: one that at most this share of the panelist's quotes
# say ("kv cache" names a subject of Dan's; "inference", said in most of what he said, names none)
DISTINCT_SHARE = 1 / 2
SHOWN_PENALTY = 0.6  # in an elaboration, a quote already shown in this conversation ranks lower
HOST_WEIGHT = (
    0.4  # the host question the subject's first answer responded to, relative to its own words
)
PARALLEL_SHARE = (
    0.5  # a host question sharing this share of words with the subject's is "the same question"
)
SWITCH_RATIO = (
    0.5  # elaboration: the new words alone must favour another panelist this clearly to switch
)
EXCERPT_SHARE = (
    0.6  # a reason note quotes the passage only when its excerpt is under this share of it
)
PER_SPEAKER = 60  # candidates kept per panelist when ranking
SAID_IDS = 12  # "nothing more than what's shown (olive-02, olive-03)": ids named at most
REASONS_EACH = 2  # passages giving a reason, per panelist
REASON_POOL = (
    5  # a reason from another answer: one of each speaker's this many best passages on the subject
)
CAUSE_BONUS = 0.25  # a passage with two markers of a reason ranks this much above one with one
CAUSE_SHARE = (
    0.5  # a reason just shown is for the subject when its sentence says this share of the best one
)
VARIANT_PREFIX = (
    6  # an unknown word sharing this many first letters with a panel word is a variant of it
)

# a new subject announced ("unrelated, ...", "by the way, ...")
SWITCH = LazyPattern(
    r"\b(?:unrelated|off[- ]topic|different (?:question|topic|subject|note)|chang(?:e|ing) (?:of )?"
    r"(?:the )?(?:subject|topic)|new (?:question|topic|subject)|by the way|btw|random(?:ly)? question|"
    r"switch(?:ing)? gears|on (?:an)?other note|another (?:question|topic)|moving on|separate question|"
    r"something (?:completely |totally )?different)\b",
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
# ... unless it also asks for more ("explain more", "what else do you mean")
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
    r"(?:his|her|their|[^\W\d_]+['\u2019]s) (?:take|view|views|thoughts|opinion|perspective|side)|"
    r"what (?:do|does|did|would) \w+(?: \w+)? (?:think|say)|thoughts|second opinion|(?:weigh|chime) in|"
    r"anything to add|want to add|add to that|same thing|see it the same way|see it differently)\b",
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
    "tell",
    "more",
    "continue",
    "going",
    "elaborate",
    "expand",
    "why",
    "how",
    "what",
    "mean",
    "meaning",
    "explain",
    "clarify",
    "example",
    "examples",
    "else",
    "next",
    "details",
    "further",
    "think",
    "agree",
    "disagree",
    "other",
    "side",
    "same",
    "question",
    "thoughts",
    "opinion",
    "about",
    "that",
    "this",
    "does",
    "again",
    "view",
    "take",
)

# a pronoun or demonstrative pointing back ("does that take long?", "how do you train those?"); a "that"
# right after a content word is a relative clause ("a cache that keeps growing") and does not count
REFERENCE = LazyPattern(
    r"\b(?:this|it|its|it's|those|these|they|them|their|there|then|such|same|he|she|him|her|his|"
    r"the former|the latter)\b",
    re.IGNORECASE,
)
THAT = LazyPattern(r"(?:^|(\b\w+)\W+)that\b", re.IGNORECASE)

# a name in front ("Dan, why?"): what follows is the question
_NAME_LEAD = LazyPattern(r"^\W*@?[^\W\d_][\w.'-]*(?: [^\W\d_a-z][\w.'-]*)?\s*[,:]\s*")

# an elliptical follow-up ("and for training?", "what about multimodal?")
ELLIPSIS = LazyPattern(
    r"^\W*(?:and|but|or|also|so|plus|what about|how about|what of|same for|and what about|and how about)\b",
    re.IGNORECASE,
)


@record
class _Subject:
    """The subject a conversation is on: the question that opened it, its terms and who answered it."""

    question: str  # the message that opened the subject
    terms: dict[str, float]  # weighted retrieval terms
    speakers: list[str]  # who answered it last
    quote_ids: list[str]  # the last answer's quotes
    turn: int  # index of the opening turn in the history
    opening_quotes: list[str] = field(
        default_factory=list
    )  # the first answer's quotes (name the subject)
    # the last answer retrieved for the subject (not a continuation's related quotes): the answer to go on with
    answer_quotes: list[str] = field(default_factory=list)
    label: str = ""


@record
class _Reading:
    """How a message reads against the conversation's subject: its kind, own terms and evidence."""

    kind: str
    terms: dict[
        str, float
    ]  # the message's own retrieval terms (cue words removed for a continuation)
    evidence: float  # its own in-scope evidence
    addressed: list[str]
    both: bool
    elsewhere: bool = (
        False  # leans on the conversation ("does that ...") yet its own words are off the panel
    )


# --------------------------------------------------------------------------------------------- reading

NOTHING_TO_FOLLOW = "nothing to follow up on yet: ask about something from the talk first"


def _nothing_to_follow(router: Router, route: RouteResult) -> RouteResult:
    """ "tell me more", "why?", "what does the other one think?" before anything was answered: declined as
    having nothing to follow up on -- whatever a lookup of its few words found -- not as a subject the panel
    never got into. Anything else as it was."""
    if route.small_talk or not hasattr(router, "query_terms") or not _bare_follow_up(router, route):
        return route
    return RouteResult(
        route.question,
        [],
        True,
        [],
        NOTHING_TO_FOLLOW,
        route.addressed,
        route.suggestions or router.suggestions(question=route.question),
        route.scope,
        off_topic=False,
    )


def _bare_follow_up(router: Router, route: RouteResult) -> bool:
    """The message only points back (follow-up cues, names of panelists): nothing of its own to look up."""
    if not route.abstained and len(route.speakers) > 1:
        return False  # "what do they both think?" is answered as asked
    message = FILLER.sub("", route.question) or route.question
    if not (
        CONTINUE.search(message)
        or WHY.search(message)
        or OTHER.search(message)
        or _references(message)
        or ELLIPSIS.search(message)
    ):
        return False
    rest, _, _, unmatched = _own_terms(
        router, OTHER.sub(" ", CONTINUE.sub(" ", WHY.sub(" ", message)))
    )
    identity = _identity_terms(router, list(router.panel.panelists))
    # it names something of its own ("why is pizza round?"): routed as it was
    return not unmatched and all(t in identity for t in rest)


def _references(message: str) -> bool:
    if REFERENCE.search(message):
        return True
    for m in THAT.finditer(message):
        before = (m.group(1) or "").lower()
        if not before or before in stopwords() or before in ("mean", "explain", "about"):
            return True
    return False


_MEMO: weakref.WeakKeyDictionary[
    Any, dict[str, tuple[dict[str, float], float, list[str], list[str]]]
] = weakref.WeakKeyDictionary()
_PREFIXES: weakref.WeakKeyDictionary[Any, frozenset[str]] = weakref.WeakKeyDictionary()
MEMO_SIZE = (
    1024  # texts remembered per router: replaying a conversation re-reads its earlier questions
)


def _own_terms(router: Router, text: str) -> tuple[dict[str, float], float, list[str], list[str]]:
    """A text's retrieval terms (weight 1), its own in-scope evidence, matched and unmatched words."""
    try:
        memo = _MEMO.setdefault(router, {})
    except TypeError:  # a router that cannot be weakly referenced: no memo
        memo = {}
    hit = memo.get(text)
    if hit is None:
        q = router.query_terms(text)
        hit = (dict.fromkeys(q.terms, 1.0), router.scope(q, []), list(q.matched), list(q.unmatched))
        if len(memo) >= MEMO_SIZE:
            memo.clear()
        memo[text] = hit
    terms, evidence, matched, unmatched = hit
    return dict(terms), evidence, list(matched), list(unmatched)


def _organisations(router: Router, message: str) -> list[str]:
    """Panelists whose organisation the message names ("how does Together see it?"): the full name, or
    its first word -- capitalised when that word is also ordinary English ("together")."""
    hits = []
    known = english_words()
    for pid, p in router.panel.panelists.items():
        org = (p.organisation or "").strip()
        if not org:
            continue
        head = org.split()[0]
        if re.search(rf"\b{re.escape(org)}\b", message, re.IGNORECASE):
            hits.append(pid)
        elif len(head) >= 4 and head.lower() in known:
            if re.search(rf"(?<![.?!]\s)(?<!^)\b{re.escape(head)}\b", message.strip()):
                hits.append(pid)
        elif len(head) >= 4 and re.search(rf"\b{re.escape(head)}\b", message, re.IGNORECASE):
            hits.append(pid)
    return hits if len(hits) == 1 else []


def _foreign(router: Router, unmatched: list[str]) -> list[str]:
    """Distinctive words the panel never used (not ordinary English, not a number, not a near variant of a
    panel word such as "underused" for "underutilize")."""
    common = common_stems()
    out = []
    for t in dict.fromkeys(unmatched):
        if t in common or t.isdigit() or len(t) < 3:
            continue
        if not _variant(router, t):
            out.append(t)
    return out


def _variant(router: Router, term: str) -> bool:
    """A near variant of a word the panel used (same first six letters: "underused", "underutilize")."""
    if len(term) < VARIANT_PREFIX:
        return False
    prefixes = _PREFIXES.get(router)
    if prefixes is None:
        prefixes = frozenset(w[:VARIANT_PREFIX] for w in router.lexicon if len(w) >= VARIANT_PREFIX)
        with contextlib.suppress(TypeError):
            _PREFIXES[router] = prefixes
    return term[:VARIANT_PREFIX] in prefixes


def _overlap(router: Router, subject: _Subject, terms: dict[str, float]) -> float:
    """Share of the message's word terms that belong to the subject (its question or its quotes' keywords)."""
    mine = [t for t in terms if "_" not in t]
    if not mine:
        return 0.0
    common = common_stems()
    shared = [t for t in mine if t in subject.terms]
    pairs = [t for t in terms if "_" in t and t in subject.terms]
    specific = [t for t in shared if t not in common or t in router.curated]
    if not pairs and not specific:
        return 0.0  # only everyday words in common
    return len(shared) / len(mine)


def _fix_cue_typos(router: Router, message: str) -> str:
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
            or fold(w) in router._name_words
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


def _read(router: Router, subject: _Subject | None, message: str) -> _Reading:
    """Classify a message against the subject so far (see module doc)."""
    if subject is not None:
        message = _fix_cue_typos(router, message)
    terms, evidence, matched, unmatched = _own_terms(router, message)
    addressed, both = router.addressed(message)
    possessive = not addressed and not both and bool(addressed := router.possessive(message))
    # ... "what's Olive's take?" asks Olive, as if by name
    floor = router.settings.scope_floor
    if subject is None or SWITCH.search(message):
        return _Reading(STANDALONE, terms, evidence, addressed, both)
    # a reaction in front ("Interesting. Why's that?", "ok, and ...") says nothing about the subject
    message = FILLER.sub("", message) or message
    terms, evidence, matched, unmatched = _own_terms(router, message)
    cue = _references(message) or bool(ELLIPSIS.search(message))
    # judged on the words that are not follow-up cues ("do you agree", "tell me more")
    rest, _, _, unmatched = _own_terms(
        router, OTHER.sub(" ", CONTINUE.sub(" ", WHY.sub(" ", message)))
    )
    unknown = [t for t in dict.fromkeys(unmatched) if not _variant(router, t)]
    if _foreign(router, unmatched):
        # it brings words the panel never used: a new subject, judged on its own (so declined as before)
        return _Reading(STANDALONE, terms, evidence, addressed, both, elsewhere=cue)
    # a panelist's name or organisation is evidence that a message is about the panel, not a subject of its
    # own: "and how does Together see it?" asks the subject so far of Together's panelist
    identity = _identity_terms(router, list(router.panel.panelists))
    stands = evidence >= floor and not (matched and set(matched) <= identity)
    if both and stands:
        # "what do both of them think about open source?": whom it asks and what about, on its own
        return _Reading(STANDALONE, terms, evidence, addressed, both)
    if not stands and not addressed and not both:
        addressed = _organisations(router, message)
    asks_other = not stands and (addressed or both or OTHER.search(message))
    if possessive and OTHER.search(message) and not {t for t in rest if t not in identity}:
        asks_other = (
            True  # "what is Olive's view on that?": her view of the subject, nothing new of its own
        )
    if not asks_other and (
        (unknown and not matched and not cue)
        or (len(unknown) >= 2 and len(unknown) > len(set(matched)))
    ):
        return _Reading(STANDALONE, terms, evidence, addressed, both, elsewhere=cue)
    if asks_other:
        if (
            addressed
            and not both
            and (asks_why(message) or asks_why(_NAME_LEAD.sub("", message)))
            and not {t: w for t, w in rest.items() if t not in identity}
        ):
            # "Dan, why?", "why, Olive?": the reason that panelist gave (or that they gave none)
            return _Reading(REASON, {}, evidence, addressed, both)
        if addressed and not both and set(addressed) <= set(subject.speakers):
            # the panelist who just answered, named again: more from them
            more = not rest or _overlap(router, subject, rest) >= 0.5
            return _Reading(CONTINUATION if more else ELABORATION, rest, evidence, addressed, both)
        # the words that named who is asked ("Together" in "how does Together see it?") are not the subject
        rest = {t: w for t, w in rest.items() if t not in identity}
        return _Reading(OTHER_PANELIST, rest, evidence, addressed, both)
    if asks_why(message):
        # "why?", "how come?", "why does that matter?": the reason behind the subject, when the message adds
        # nothing of its own or only the subject's words
        rest, _, _, rest_unmatched = _own_terms(router, CONTINUE.sub(" ", WHY.sub(" ", message)))
        if (not rest and not rest_unmatched) or (rest and _overlap(router, subject, rest) >= 0.5):
            return _Reading(REASON, rest, evidence, addressed, both)
    if CONTINUE.search(message):
        rest, _, _, rest_unmatched = _own_terms(router, CONTINUE.sub(" ", message))
        if (not stands and not rest and not rest_unmatched) or (
            rest and _overlap(router, subject, rest) >= 0.5
        ):
            return _Reading(CONTINUATION, rest, evidence, addressed, both)
    if cue or (not stands and matched) or (stands and _overlap(router, subject, terms) >= 0.5):
        return _Reading(ELABORATION, terms, evidence, addressed, both)
    return _Reading(STANDALONE, terms, evidence, addressed, both)


def _applies_elsewhere(
    router: Router, subject: _Subject, message: str, terms: dict[str, float]
) -> bool:
    """A follow-up that asks about the user's own case ("my website", "for me") with words the talk never
    says with the subject's own words: the panel's words in the user's sense, not more on the subject."""
    from panelbot.retrieval.router import PERSONAL_TASK

    if not PERSONAL_TASK.search(message):
        return False
    own = [
        t for t, w in subject.terms.items() if w >= 1.0 and "_" not in t and _is_specific(router, t)
    ]
    new = [t for t in terms if "_" not in t and t not in subject.terms and _is_specific(router, t)]
    return bool(own and new) and not any(router._said_together(t, u) for t in new for u in own)


def _elsewhere_by_meaning(router: Router, message: str) -> bool:
    """A message that points back ("is it expensive to buy one for my house?") but whose own meaning is far
    from anything the panel said and near everyday questions on other subjects: off-topic, not more on the
    subject (``tuning.followup_floor``, fitted on conversation dev sets)."""
    signals = router.scope_signals(message)
    return router.tune.scope.probability(signals) < router.tune.followup_floor


# --------------------------------------------------------------------------------------------- scoring


def _weighted_scores(
    router: Router, weighted: dict[str, float], speakers: set[str] | None
) -> tuple[dict[int, float], float]:
    """BM25 scores (quote index -> score) for terms with weights, and the normalising maximum."""
    groups: dict[float, list[str]] = defaultdict(list)
    for t, w in weighted.items():
        if w > 0:
            groups[w].append(t)
    total: dict[int, float] = defaultdict(float)
    top = 0.0
    for w, terms in sorted(groups.items()):
        for i, s in router.index.score(terms, speakers).items():
            total[i] += w * s
        top += w * router.index.max_score(terms)
    return total, top or 1.0


def _ranked(scores: dict[int, float], n: int) -> list[tuple[int, float]]:
    """The n best (quote index, score), best first, ties by index (cheap on a bank of 100,000)."""
    return heapq.nsmallest(n, scores.items(), key=lambda kv: (-kv[1], kv[0]))


def _best_first(scores: dict[int, float]) -> list[int]:
    """Quote indices, best score first (ties by index)."""
    return [i for i, _ in _ranked(scores, len(scores))]


def _merge(new: dict[str, float], old: dict[str, float], weight: float) -> dict[str, float]:
    out = {t: weight * w for t, w in old.items()}
    for t, w in new.items():
        out[t] = max(out.get(t, 0.0), w)
    return out


def _below(router: Router, new: dict[str, float], old: dict[str, float], weight: float) -> float:
    """The weight for the old subject's terms (at most ``weight`` each) so that, all together, they weigh no
    more than the new words: a subject of twenty terms must not outvote the one new word ("and DeepSeek?")."""
    if not new or not old:
        return weight
    mine = sum(w * router.index.max_score([t]) for t, w in new.items())
    theirs = sum(w * router.index.max_score([t]) for t, w in old.items())
    return weight if theirs <= 0 else min(weight, mine / theirs)


def _scored(
    router: Router, i: int, score: float, top: float, terms: dict[str, float]
) -> ScoredQuote:
    q = router.index.quotes[i]
    why = getattr(router, "_why", None)
    reason = why(q, list(terms)) if callable(why) else ""
    return ScoredQuote(q, min(100.0, 100.0 * score / top), reason)


def _expanded(router: Router, terms: dict[str, float], quote_ids: list[str]) -> dict[str, float]:
    """A subject's terms: the question's own, plus (weighted below them) the host's question that the first
    answer responded to -- what was being discussed on stage, in the talk's words."""
    extra: dict[str, float] = {}
    for qid in quote_ids[:1]:
        quote = router.panel.quote(qid)
        host = router.panel.question(quote.question) if quote is not None else None
        if host is not None:
            extra.update(
                dict.fromkeys((t for t in router.query_terms(host.text).terms), HOST_WEIGHT)
            )
    return _merge(terms, extra, 1.0)


_SHARES: weakref.WeakKeyDictionary[Any, dict[tuple[str, frozenset[str]], float]] = (
    weakref.WeakKeyDictionary()
)


def _share(router: Router, term: str, speakers: Sequence[str]) -> float:
    """The share of these panelists' quotes that say the term (remembered per router: a bank does not change)."""
    allowed = frozenset(speakers)
    try:
        memo = _SHARES.setdefault(router, {})
    except TypeError:
        memo = {}
    key = (term, allowed)
    got = memo.get(key)
    if got is None:
        index = router.index
        counts: dict[str, int] = defaultdict(int)
        plist = index.postings.get(term)
        for i in plist[0] if plist else ():
            counts[index.speaker_of[i]] += 1
        total = sum(
            memo.get(("", frozenset((p,))), 0.0) or _quote_count(router, memo, p) for p in allowed
        )
        got = sum(counts[p] for p in allowed) / total if total else 1.0
        if len(memo) >= MEMO_SIZE:
            memo.clear()
        memo[key] = got
    return got


def _quote_count(
    router: Router, memo: dict[tuple[str, frozenset[str]], float], speaker: str
) -> float:
    n = float(sum(1 for s in router.index.speaker_of if s == speaker))
    memo[("", frozenset((speaker,)))] = n
    return n


def _is_specific(router: Router, term: str) -> bool:
    """A word that names a subject: not everyday English, or one of the panel's vocabulary terms."""
    return "_" not in term and (term not in common_stems() or term in router.norm.canonical_terms)


def _identity_terms(router: Router, pids: Sequence[str]) -> set[str]:
    """The terms that name panelists: their name, id and organisation."""
    out: set[str] = set()
    for pid in pids:
        p = router.panel.panelists.get(pid)
        if p is not None:
            for text in (p.name, p.organisation, pid):
                out.update(router.norm.terms(text or ""))
    return out


def _label(router: Router, subject: _Subject) -> str:
    """A few words naming the subject: a topic of its best quote that shares its words, else the question."""
    wanted = {t for t, w in subject.terms.items() if w >= 1.0 and "_" not in t} or set(
        subject.terms
    )
    for qid in (subject.opening_quotes or subject.quote_ids)[:2]:
        quote = router.panel.quote(qid)
        if quote is None:
            continue
        for topic in (*quote.topics, *quote.keywords):
            if set(router.norm.unigrams(router.norm.normalise(topic))) & wanted:
                return cased_like(topic, subject.question, quote.text)
    text = " ".join(subject.question.split())
    return f"\u201c{text if len(text) <= 60 else text[:57].rstrip() + '...'}\u201d"


# --------------------------------------------------------------------------------------------- state


def _subject_of(
    router: Router, history: Sequence[ConversationTurn]
) -> tuple[_Subject | None, set[str]]:
    """Replay the recent turns (each read the same way it was when asked) to find the current subject."""
    shown: set[str] = set()
    for turn in history:
        shown.update(str(q) for q in (turn.quote_ids or ()))
    start = max(0, len(history) - WINDOW)
    subject: _Subject | None = None
    ids = set(router.panel.panelists)
    for n, turn in enumerate(history[start:], start):
        question = str(turn.question or "").strip()
        quote_ids = [
            str(q) for q in (turn.quote_ids or ()) if router.panel.quote(str(q)) is not None
        ]
        speakers = [s for s in (turn.speakers or ()) if s in ids]
        if not speakers:  # only the quotes are known (e.g. ids cited in a chat transcript): theirs
            speakers = list(
                dict.fromkeys(
                    q.speaker
                    for qid in quote_ids
                    if (q := router.panel.quote(qid)) and q.speaker in ids
                )
            )
        if not question or not speakers:
            continue  # declined turns leave the subject where it was
        reading = _read(router, subject, question)
        if reading.kind == STANDALONE or subject is None:
            # the subject is what was asked about, not who was asked ("Dan, why does Together ...?")
            own = _identity_terms(router, list(router.panel.panelists))
            topic = {t: w for t, w in reading.terms.items() if t not in own} or reading.terms
            subject = _Subject(
                question,
                _expanded(router, topic, quote_ids),
                speakers,
                quote_ids,
                n,
                quote_ids,
                list(quote_ids),
            )
            subject.label = _label(router, subject)
        else:
            if reading.kind == OTHER_PANELIST and not set(speakers) & set(subject.speakers):
                # another panelist took the question: what named the first one is no longer the subject
                gone = _identity_terms(router, subject.speakers)
                subject.terms = {
                    t: w for t, w in subject.terms.items() if t not in gone
                } or subject.terms
            if reading.kind == ELABORATION:
                subject.terms = _merge(reading.terms, subject.terms, SUBJECT_WEIGHT)
            elif reading.terms:
                subject.terms = _merge(reading.terms, subject.terms, 1.0)
            subject.speakers = speakers
            subject.quote_ids = quote_ids or subject.quote_ids
            if reading.kind not in (CONTINUATION, REASON) or not set(speakers) <= {
                q.speaker for qid in subject.answer_quotes if (q := router.panel.quote(qid))
            }:
                subject.answer_quotes = list(subject.quote_ids)
    return subject, shown


# --------------------------------------------------------------------------------------------- resolve


def resolve(
    router: Router, history: Sequence[ConversationTurn], message: str, target: str = "auto"
) -> Resolution:
    """Answer ``message`` in the light of ``history`` (earlier turns, oldest first). Never raises on odd
    history; raises ValueError only for an unknown ``target`` (as ``Router.route`` does)."""
    message = (message or "").strip()
    target = (target or "auto").lower()
    ids = list(router.panel.panelists)
    if target not in ("auto", "both") and target not in ids:
        raise ValueError(f"unknown target {target!r}")
    social = _small_talk(router, message)
    if social:
        return Resolution(_small_talk_route(router, history, message, social), None, SMALL_TALK)
    if history and hasattr(router, "framing") and router.framing(message) is not None:
        # "who is Dan?", "what is this talk about?" mid-conversation: asked afresh, never a follow-up
        return Resolution(router.route(message, target), None, STANDALONE)
    if not history or not hasattr(router, "query_terms"):
        # nothing to follow up on (or a router without the parts a follow-up needs): routed as ever
        return Resolution(
            _nothing_to_follow(router, router.route(message, target)), None, STANDALONE
        )
    subject, shown = _subject_of(router, history)
    reading = _read(router, subject, message)
    if (
        reading.kind == CONTINUATION
        and subject is not None
        and target not in ("auto", "both")
        and target not in subject.speakers
    ):
        reading.kind = (
            OTHER_PANELIST  # "tell me more" with another panelist picked: their take on it
        )
    if reading.kind == STANDALONE or subject is None:
        route = router.route(message, target)
        if subject is None:
            route = _nothing_to_follow(router, route)
        if reading.elsewhere and not route.abstained:
            # "does that work for pizza ovens?": it points back at the conversation, but what it asks
            # about is something the panel never discussed -- declined, never answered from context
            route = RouteResult(
                message,
                [],
                True,
                [],
                "off-topic: the follow-up asks about something the panel didn't discuss",
                route.addressed,
                router.suggestions(question=message),
                route.scope,
            )
        return Resolution(route, None, STANDALONE)
    alone = router.route(message, target)
    if getattr(alone, "unstated", None):
        # it asks for a specific the talk never gave (a price, a context length): no earlier subject can
        # answer that, so it is declined as it would be on its own, saying what was said nearby
        return Resolution(alone, None, STANDALONE)
    if reading.kind == ELABORATION and (
        _applies_elsewhere(router, subject, message, reading.terms)
        or _elsewhere_by_meaning(router, message)
    ):
        # "does that work for caching my website's images?": the user's own use of panel words the talk
        # never says with the subject -- declined, never answered from context
        route = RouteResult(
            message,
            [],
            True,
            [],
            "off-topic: the follow-up asks about something the panel didn't discuss",
            alone.addressed,
            router.suggestions(question=message),
            alone.scope,
        )
        return Resolution(route, None, STANDALONE)
    resolver = _Resolver(router, subject, shown, message, target)
    answered = [t for t in history if t.speakers]
    if reading.kind == REASON and answered and asks_why(str(answered[-1].question or "")):
        # "why?" asked again: the reason just given is not given again as if new
        resolver.given = {str(q) for q in answered[-1].quote_ids}
    if reading.kind == CONTINUATION:
        route = resolver.continuation(reading)
        if route.abstained and reading.terms:
            # "tell me more about those internal evaluations" when all they said of it is on screen: the
            # words it names are answered (as an elaboration) rather than declined
            again = resolver.elaboration(reading)
            if not again.abstained:
                reading.kind, route = ELABORATION, again
    elif reading.kind == REASON:
        route = resolver.reason(reading)
    elif reading.kind == OTHER_PANELIST:
        route = resolver.other_panelist(reading)
    else:
        route = resolver.elaboration(reading)
    if route.abstained and not route.off_topic:
        route.suggestions = _followups_instead(router, history) or route.suggestions
    answered = route.speakers[0] if len(route.speakers) == 1 else None
    carried = answered if reading.kind != OTHER_PANELIST and answered in subject.speakers else None
    context = {
        "kind": reading.kind,
        "subject": subject.label,
        "question": subject.question,
        "speaker": carried,
        "previous_speakers": list(subject.speakers),
        "turn": subject.turn,
    }
    return Resolution(route, context, reading.kind)


def _small_talk(router: Router, message: str) -> str:
    """The kind of small talk a message is ("greeting", "thanks", ...; ``panelbot.conversation.smalltalk``) or
    "": what the panel's people are called may be part of it ("hello Olive")."""
    panel = getattr(router, "panel", None)
    if panel is None:
        return ""
    from panelbot.conversation.smalltalk import panel_names, small_talk

    return small_talk(message, panel_names(panel))


def _small_talk_route(
    router: Router, history: Sequence[ConversationTurn], message: str, social: str
) -> RouteResult:
    """Nothing to look up: the reply (``answer.compose``) says who is on the panel and what to ask; the questions
    it offers are the follow-ups of the last answer after thanks or an "ok", else ones the panel answers."""
    offer: list[str] = []  # a goodbye is not answered with more questions
    if social in ("thanks", "acknowledgement") and hasattr(router, "query_terms"):
        offer = _followups_instead(router, history)
    if not offer and social != "farewell":
        # questions from across the talk (its host questions, in the user's words), three far apart: which
        # three depends on the message, so saying hello again does not offer the same ones
        examples = router.example_questions() if hasattr(router, "example_questions") else []
        if len(examples) >= 3:
            import zlib

            start = zlib.crc32(message.encode("utf-8", "replace")) % len(examples)
            step = len(examples) / 3
            offer = list(
                dict.fromkeys(examples[(start + round(j * step)) % len(examples)] for j in range(3))
            )
        else:
            offer = router.suggestions(question=message)
    from panelbot.conversation.smalltalk import reason

    return RouteResult(
        message, [], True, [], reason(social), [], offer, 0.0, off_topic=False, small_talk=social
    )


_SUGGESTING: list[
    bool
] = []  # set while follow-ups are being worked out (they resolve messages themselves)


def _followups_instead(router: Router, history: Sequence[ConversationTurn]) -> list[str]:
    """A follow-up declined mid-conversation ("nothing more", "Olive didn't speak to it") offers what would
    be answered here instead -- the next questions on stage, the other panelist -- not the bank's generic
    suggestions. Declined turns since the last answer change nothing (they leave the subject where it was).
    Empty when nothing was answered yet, or while already working out follow-ups."""
    answered = [n for n, turn in enumerate(history) if turn.speakers]
    if _SUGGESTING or not answered:
        return []
    history = history[: answered[-1] + 1]
    # followups builds on resolve: imported here, not at the top
    from panelbot.conversation.followups import suggest_followups

    _SUGGESTING.append(True)
    try:
        return [f.text for f in suggest_followups(router, history)]
    finally:
        _SUGGESTING.pop()


def _talk_order(quote: Any, qid: str) -> tuple[int, int, str]:
    """Where a quote was said in the talk (its turn, then its first sentence); a quote without them last."""
    turn = getattr(quote, "turn", None)
    sentences = getattr(quote, "sentences", None)
    return (turn if turn is not None else 1 << 62, sentences[0] if sentences else 0, qid)


class _Resolver:
    def __init__(
        self, router: Router, subject: _Subject, shown: set[str], message: str, target: str
    ) -> None:
        self.router = router
        self.panel = router.panel
        self.subject = subject
        self.shown = shown
        self.message = message
        self.target = target
        self.k = router.settings.top_k
        self.floor = router.settings.min_quote_score
        self.given: set[str] = set()  # the quotes that answered a "why?" just before this one

    # ------------------------------------------------------------------------------------ helpers

    def _name(self, pids: Sequence[str]) -> str:
        return and_list([self.panel.display_name(p) for p in pids])

    def _about(self) -> str:
        return f"follow-up to your question about {self.subject.label}"

    def _decline(self, reason: str, addressed: list[str], *, off_topic: bool) -> RouteResult:
        return RouteResult(
            self.message,
            [],
            True,
            [],
            reason,
            addressed,
            self.router.suggestions(),
            0.0,
            off_topic=off_topic,
        )

    def _forced(self) -> list[str] | None:
        if self.target == "both":
            return list(self.panel.panelists)
        if self.target != "auto":
            return [self.target]
        return None

    def _best_by_speaker(
        self, terms: dict[str, float]
    ) -> tuple[dict[str, list[tuple[int, float]]], float]:
        scores, top = _weighted_scores(self.router, terms, None)
        by_speaker: dict[str, dict[int, float]] = defaultdict(dict)
        for i, s in scores.items():
            by_speaker[self.router.index.quotes[i].speaker][i] = s
        per: dict[str, list[tuple[int, float]]] = defaultdict(list)
        for speaker, theirs in by_speaker.items():
            per[speaker] = _ranked(theirs, PER_SPEAKER)
        return per, top

    def _spoke(self, per: dict[str, list[tuple[int, float]]], top: float) -> list[str]:
        """Panelists whose best quote on these terms is a real answer (near the best anyone has)."""
        best = {p: (100.0 * v[0][1] / top if v else 0.0) for p, v in per.items()}
        overall = max(best.values(), default=0.0)
        return [
            p
            for p in self.panel.panelists
            if best.get(p, 0.0) >= max(SPOKE_MIN * self.floor, SPOKE_RATIO * overall)
            and overall > 0
        ]

    def _pick(
        self,
        per: dict[str, list[tuple[int, float]]],
        top: float,
        speakers: list[str],
        terms: dict[str, float],
        *,
        penalise_shown: bool,
    ) -> list[ScoredQuote]:
        each = self.k if len(speakers) == 1 else max(1, -(-self.k // len(speakers)))
        out: list[ScoredQuote] = []
        for p in speakers:
            ranked = [
                (
                    i,
                    s
                    * (
                        SHOWN_PENALTY
                        if penalise_shown and self.router.index.quotes[i].id in self.shown
                        else 1.0
                    ),
                )
                for i, s in per.get(p, [])
            ]
            ranked.sort(key=lambda kv: (-kv[1], kv[0]))
            out.extend(_scored(self.router, i, s, top, terms) for i, s in ranked[:each])
        out.sort(key=lambda sq: -sq.score)
        if not out:
            return out
        best = out[0].score
        return [sq for sq in out if sq.score >= max(self.floor, 0.3 * best)] or out[:1]

    # ------------------------------------------------------------------------------------ kinds

    def continuation(self, reading: _Reading, *, on_subject: bool = False) -> RouteResult:
        """The same panelist(s), the same subject; what was not shown yet, the rest of the answer first --
        where it matches the subject at least the minimum quote score (a turn can move on to something
        else). ``on_subject``: asked for their view again ("What does Dan think?" after his answer), the rest
        of the answer counts only where it is about the subject as a related answer must be. When nothing
        is left, it says so, by id."""
        speakers = self._forced() or list(self.subject.speakers)
        if reading.addressed and self.target == "auto":
            speakers = reading.addressed
        on_subject = on_subject or bool(
            OTHER.search(self.message)
        )  # their view, not the rest of the turn
        terms = _merge(reading.terms, self.subject.terms, 1.0)
        scores, top = _weighted_scores(self.router, terms, set(speakers))
        best = max(scores.values(), default=0.0)
        seen: set[str] = set()
        # 1. the rest of the same answer: the same speaker's quotes in the same turn, in spoken order
        positions: dict[tuple[str, int | None], int] = {}
        for qid in self._leading(speakers):
            q = self.panel.quote(qid)
            if q is not None and q.turn is not None:  # a quote with no turn is no part of an answer
                key = (q.speaker, q.turn)
                positions[key] = max(positions.get(key, -1), self._position(q))
        rest = []
        for speaker in {sp for sp, _ in positions}:
            for q in self.panel.quotes_by(speaker):
                key = (q.speaker, q.turn)
                if key in positions and q.id not in self.shown:
                    after = self._position(q) > positions[key]
                    rest.append((0 if after else 1, self._position(q), q.id))
        index_of = self._index_of([qid for _, _, qid in rest])
        # 2. related answers by the same panelist(s), not shown: close to the subject's best match, or
        #    about one of the subject's own specific words ("kv cache", "rl") -- not when the message asks
        #    what was just said means ("how so?"): that is in the answer itself, never in another one
        clarifying = bool(CLARIFY.search(self.message)) and not MORE.search(self.message)
        specific = self._specific_terms(speakers)
        about = (
            self.router.index.score(specific, set(speakers)) if specific and not clarifying else {}
        )

        def related(i: int, s: float) -> bool:
            return 100.0 * s / top >= self.floor and (
                s >= RELATED_RATIO * best or about.get(i, 0.0) > 0
            )

        chosen: list[tuple[int, float]] = []
        for _, _, qid in sorted(rest):
            i = index_of[qid]
            s = max(scores.get(i, 0.0), 0.0)
            if not top or (not related(i, s) if on_subject else 100.0 * s / top < self.floor):
                continue
            chosen.append((i, s))
            seen.add(qid)
        for i, s in (
            []
            if clarifying
            else _ranked(scores, len(self.shown) + len(seen) + self.k + PER_SPEAKER)
        ):
            q = self.router.index.quotes[i]
            if q.id in self.shown or q.id in seen:
                continue
            if related(i, s):
                chosen.append((i, s))
                seen.add(q.id)
            if len(chosen) >= self.k:
                break
        picked = [_scored(self.router, i, s, top, terms) for i, s in chosen[: self.k]]
        if not picked:
            # named only when asking them would be answered (the other panelist's own reading of it)
            others = self.other_panelist(_Reading(OTHER_PANELIST, {}, 0.0, [], False), go_on=False)
            spoke = (
                [p for p in others.speakers if p not in speakers] if not others.abstained else []
            )
            tail = f" {self._name(spoke)} also spoke to it: ask what they think." if spoke else ""
            return self._decline(
                f"{self._name(speakers)} had nothing more to say on {self.subject.label} than what you've "
                f"already seen{self._said(speakers, self._on_subject(scores, top))}.{tail}",
                reading.addressed,
                off_topic=False,
            )
        answering = [p for p in speakers if any(sq.quote.speaker == p for sq in picked)]
        reason = f"{self._about()}: more from {self._name(answering)}, not shown yet"
        return RouteResult(
            self.message, answering, False, picked, reason, reading.addressed, [], 0.0
        )

    def _index_of(self, quote_ids: list[str]) -> dict[str, int]:
        """Positions in the index of quotes already looked at (a saved bank knows them without decoding
        the rest)."""
        out: dict[str, int] = {}
        for qid in quote_ids:
            i = self.router.position(qid)
            if i is not None:
                out[qid] = i
        return out

    def _specific_terms(self, speakers: list[str]) -> list[str]:
        """The subject's own words that name it: not everyday English, or one of the panel's terms, and
        distinctive of what these panelists said (not in more than DISTINCT_SHARE of their quotes)."""
        terms = [
            t for t, w in self.subject.terms.items() if w >= 1.0 and _is_specific(self.router, t)
        ]
        return [t for t in terms if _share(self.router, t, speakers) <= DISTINCT_SHARE]

    def _leading(self, speakers: list[str]) -> list[str]:
        """Each speaker's best quote in the last answer retrieved for the subject (its first one): the answer
        to continue -- never the turn a related quote came from ("tell me more" about the KV cache twice
        does not go on to the rest of an answer that mentioned the KV cache in passing)."""
        out: dict[str, str] = {}
        for qid in self.subject.answer_quotes or self.subject.quote_ids:
            q = self.panel.quote(qid)
            if q is not None and q.speaker in speakers and q.speaker not in out:
                out[q.speaker] = qid
        return list(out.values())

    @staticmethod
    def _position(q: Any) -> int:
        return q.sentences[0] if q.sentences else 0

    def _unsaid(
        self,
        per: dict[str, list[tuple[int, float]]],
        top: float,
        speakers: list[str],
        parallel: set[str],
    ) -> tuple[dict[str, list[tuple[int, float]]], list[str]]:
        """Each speaker's quotes on the subject not shown yet in this conversation -- those still a real
        answer (by the same measure as ``_spoke``, or an answer to the host's same question) -- and the
        speakers who have nothing left (all they said of it is on screen)."""
        overall = max((100.0 * v[0][1] / top for v in per.values() if v), default=0.0)
        bar = max(SPOKE_MIN * self.floor, SPOKE_RATIO * overall)
        fresh: dict[str, list[tuple[int, float]]] = {}
        done: list[str] = []
        for p in speakers:
            left = [
                (i, s)
                for i, s in per.get(p, [])
                if self.router.index.quotes[i].id not in self.shown
            ]
            real = [
                (i, s)
                for i, s in left
                if 100.0 * s / top >= bar or self.router.index.quotes[i].question in parallel
            ]
            if real:
                fresh[p] = left
            else:
                done.append(p)
        return fresh, done

    def _on_subject(self, scores: dict[int, float], top: float) -> list[int]:
        """The quotes (indices, best first) that match the subject at least the minimum quote score."""
        return [i for i in _best_first(scores) if top and 100.0 * scores[i] / top >= self.floor]

    def _said(self, speakers: list[str], ranked: Sequence[int]) -> str:
        """ " (olive-02, olive-03)": what these speakers already said on the subject in this conversation, by
        id (``ranked``: quote indices, best match first; then the last answer's), or ""."""
        quotes = self.router.index.quotes
        ids = [
            quotes[i].id
            for i in ranked
            if quotes[i].speaker in speakers and quotes[i].id in self.shown
        ]
        ids += [
            q
            for q in self.subject.quote_ids
            if (found := self.panel.quote(q)) is not None and found.speaker in speakers
        ]
        # every one of them, in the order they were said in the talk (the SAID_IDS best when there are more)
        ids = list(dict.fromkeys(ids))
        kept = ids[:SAID_IDS]
        found = {qid: q for qid in kept if (q := self.panel.quote(qid)) is not None}
        kept.sort(key=lambda qid: _talk_order(found.get(qid), qid))
        return f" ({', '.join(kept)})" if kept else ""

    def reason(self, reading: _Reading) -> RouteResult:
        """Why: the passages where the same panelist(s) give a cause or motivation for the subject -- the
        rest of the last answer first, then their related answers -- including one already shown when the
        reason sits there (the note quotes it, with its id); when the talk gives none, it says so."""
        speakers = self._forced() or list(self.subject.speakers)
        if reading.addressed and self.target == "auto":
            speakers = list(reading.addressed)
        terms = _merge(reading.terms, self.subject.terms, 1.0)
        scores, top = _weighted_scores(self.router, terms, set(speakers))
        best = max(scores.values(), default=0.0)
        quotes = self.router.index.quotes
        last = [
            qid
            for qid in self.subject.quote_ids
            if (q := self.panel.quote(qid)) is not None and q.speaker in speakers
        ]
        # the answer each speaker was giving for the subject (as continuing does): never the answer a related
        # quote of the last turn came from
        turns = {
            (q.speaker, q.turn)
            for qid in self._leading(speakers)
            if (q := self.panel.quote(qid)) is not None and q.turn is not None
        }  # no turn: no answer
        # 0: what they just said and the rest of that answer; 1: their related answers on the subject
        tier: dict[str, int] = {qid: 0 for qid in last}
        for speaker in {sp for sp, _ in turns}:
            for q in self.panel.quotes_by(speaker):
                if (q.speaker, q.turn) in turns:
                    tier.setdefault(q.id, 0)
        # related: close to the subject's best match, or about one of its own specific words (as continuing)
        specific = self._specific_terms(speakers)
        about = self.router.index.score(specific, set(speakers)) if specific else {}
        # ... among each speaker's few best passages on it: a reason given in another answer is a reason for
        # the subject only when that answer is about it too
        for i, sc in _ranked(scores, REASON_POOL * max(1, len(speakers))):
            if 100.0 * sc / top >= self.floor and (
                sc >= RELATED_RATIO * best or about.get(i, 0.0) > 0
            ):
                tier.setdefault(quotes[i].id, 1)
        index_of = self._index_of(list(tier))
        norm = self.router.norm
        # a reason in what was just shown must be given for the subject: its sentence says at least CAUSE_SHARE
        # as much of the subject (its words and those of its answers) as the passage's most relevant sentence

        def relevance(sentence: str) -> float:  # how much of the subject a sentence says
            return sum(terms.get(t, 0.0) for t in set(norm.terms(sentence)))

        def off_subject(text: str) -> bool:
            cause, most = cause_relevance(text, relevance)
            return cause < CAUSE_SHARE * most

        found: list[tuple[tuple[int, int, float], int, float]] = []
        for qid, t in tier.items():
            i = index_of.get(qid)
            if i is None:
                continue
            n = causes(quotes[i].text)
            if n and qid in last and off_subject(quotes[i].text):
                continue  # what was just shown gives a reason for something else: not the reason asked for
            if (
                n
                and t == 1
                and not any(
                    relevance(said) > 0 for _, said in cause_sentences(quotes[i].text, relevance)
                )
            ):
                continue  # another answer's reason, given with no word of the subject: a reason for something else
            stated = n > 0 and states_cause(quotes[i].text)
            # grounds only ("we found", "we're seeing") count in the answer itself, not in another one
            if n and (stated or t == 0):
                # how well it matches the subject, a little more for a second marker, a little less when shown
                sc = max(scores.get(i, 0.0), 0.0)
                rank = (
                    sc
                    * (1.0 + CAUSE_BONUS * (min(n, 2) - 1))
                    * (SHOWN_PENALTY if qid in self.shown else 1.0)
                )
                # a cause stated outright comes before grounds only ("we found"), shown or not
                found.append(((t, 0 if stated else 1, -rank), i, sc))
        found.sort(key=lambda f: (f[0], f[1]))
        again = [f for f in found if quotes[f[1]].id in self.given]
        found = [f for f in found if quotes[f[1]].id not in self.given]
        if again and not found:
            # asked "why?" again: the only reasons in the talk are the ones just given
            ids = ", ".join(dict.fromkeys(quotes[i].id for _, i, _ in again))
            return self._decline(
                f"{self._name(speakers)} gave no other reason for that on the panel than the "
                f"one just shown ({ids}).",
                reading.addressed,
                off_topic=False,
            )
        per: dict[str, list[tuple[int, float]]] = defaultdict(list)
        for key, i, sc in found:
            theirs = per[quotes[i].speaker]
            # a second passage only when it states a cause and is new: a quote already shown comes again only
            # as the speaker's main reason, grounds alone ("we found") only when nothing states one
            if not theirs or (
                len(theirs) < REASONS_EACH and key[1] == 0 and quotes[i].id not in self.shown
            ):
                theirs.append((i, sc))
        answering = [p for p in speakers if per.get(p)]
        if not answering:
            others = [p for p in speakers if p not in self.subject.speakers]
            if others:
                # asked of someone who never spoke to it ("Olive, why?" after Dan's answer): that, not a reason
                per_all, top_all = self._best_by_speaker(terms)
                spoke = self._spoke(per_all, top_all)
                if not set(others) & set(spoke):
                    did = [p for p in spoke if p not in others]
                    who = f" ({self._name(did)} did)" if did else ""
                    return self._decline(
                        f"{self._name(others)} didn't speak to {self.subject.label} on the "
                        f"panel{who}",
                        reading.addressed,
                        off_topic=False,
                    )
            return self._decline(
                f"{self._name(speakers)} gave no reason for that on the panel; what was said on "
                f"{self.subject.label} is in what you've already seen{self._said(speakers, self._on_subject(scores, top))}.",
                reading.addressed,
                off_topic=False,
            )
        picked = [_scored(self.router, i, sc, top, terms) for p in answering for i, sc in per[p]]

        notes = []
        for p in answering:
            q = quotes[per[p][0][0]]
            again = " (shown above)" if q.id in self.shown else ""
            excerpt = reason_excerpt(q.text, relevance)
            # the passage itself is shown with the note: its words again only when they single out its reason
            said = (
                f": \u201c{excerpt}\u201d"
                if len(excerpt.split()) < EXCERPT_SHARE * len(q.text.split())
                else ""
            )
            notes.append(f"the reason {self._name([p])} gave [{q.id}]{again}{said}")
        silent = [p for p in speakers if p not in answering]
        tail = f"; {self._name(silent)} gave no reason for it" if silent else ""
        reason = f"{self._about()}: " + "; ".join(notes) + tail
        return RouteResult(
            self.message, answering, False, picked, reason, reading.addressed, [], 0.0
        )

    def other_panelist(self, reading: _Reading, *, go_on: bool = True) -> RouteResult:
        """The same subject, answered by the panelist named (or the one(s) who did not answer last); one who
        already answered it goes on with what they have not said yet (``go_on``: as a continuation)."""
        ids = list(self.panel.panelists)
        forced = self._forced()
        if forced:
            speakers = forced
        elif reading.addressed:
            speakers = list(reading.addressed)
        elif reading.both:
            speakers = ids
        else:
            speakers = [p for p in ids if p not in self.subject.speakers] or list(
                self.subject.speakers
            )
        answered = {
            q.speaker
            for qid in self.subject.answer_quotes
            if (q := self.panel.quote(qid)) is not None
        }
        if go_on and not forced and speakers and set(speakers) <= answered:
            # they already answered this subject here ("and Olive?" after an answer both gave): what they
            # have not said yet, the rest of their answer first -- or, when nothing is left, that, by id
            return self.continuation(
                _Reading(CONTINUATION, reading.terms, reading.evidence, speakers, False),
                on_subject=True,
            )
        # the same question, without what named the panelist who answered it ("Dan, ... at Together?")
        own = _identity_terms(self.router, list(self.panel.panelists))
        subject = {
            t: w for t, w in self.subject.terms.items() if t not in own
        } or self.subject.terms
        terms = _merge(reading.terms, subject, SUBJECT_WEIGHT) if reading.terms else subject
        per, top = self._best_by_speaker(terms)
        spoke = self._spoke(per, top)
        # the host asked them the same (or a parallel) question on stage: their answer to it comes first
        parallel = self._parallel_questions()
        for p in speakers:
            first = [
                (i, s)
                for i, s in per.get(p, [])
                if self.router.index.quotes[i].question in parallel
            ]
            if first:
                per[p] = first + [(i, s) for i, s in per[p] if (i, s) not in first]
                spoke = [*spoke, p] if p not in spoke else spoke
        silent = [p for p in speakers if p not in spoke]
        # what each has not said yet in this conversation: a quote already shown is never given again
        fresh, said_all = self._unsaid(per, top, [p for p in speakers if p in spoke], parallel)
        answering = [p for p in speakers if p in fresh]
        said = self._said(
            said_all,
            [i for p in said_all for i, s in per.get(p, []) if 100.0 * s / top >= self.floor],
        )
        if not answering:
            if said_all:
                others = [
                    p
                    for p in spoke
                    if p not in speakers and p in self._unsaid(per, top, [p], parallel)[0]
                ]
                tail = (
                    f" {self._name(others)} also spoke to it: ask what they think."
                    if others
                    else ""
                )
                return self._decline(
                    f"{self._name(said_all)} had nothing more to say on {self.subject.label} than what's already "
                    f"been shown in this conversation{said}.{tail}",
                    reading.addressed,
                    off_topic=False,
                )
            did = [p for p in spoke if p not in speakers]
            who = f" ({self._name(did)} did)" if did else ""
            return self._decline(
                f"{self._name(silent)} didn't speak to {self.subject.label} on the panel{who}",
                reading.addressed,
                off_topic=False,
            )
        quotes = self._pick(fresh, top, answering, terms, penalise_shown=False)
        reason = f"{self._about()}, asked of {self._name(answering)}"
        if silent:
            reason += f" ({self._name(silent)} didn't speak to it)"
        if said_all:
            reason += f" ({self._name(said_all)}: nothing more than what's shown{said})"
        return RouteResult(
            self.message, answering, False, quotes, reason, reading.addressed, [], 0.0
        )

    def elaboration(self, reading: _Reading) -> RouteResult:
        """The new words plus the previous subject (weighted below them); the previous panelist keeps the
        floor unless the new words clearly belong to someone else."""
        weight = (
            SUBJECT_WEIGHT_STANDING
            if reading.evidence >= self.router.settings.scope_floor
            else SUBJECT_WEIGHT
        )
        if reading.evidence >= self.router.settings.scope_floor:
            # new words that would stand on their own ("is that what DeepSeek does?") lead, however many
            # terms the subject has
            weight = _below(self.router, reading.terms, self.subject.terms, weight)
        terms = _merge(reading.terms, self.subject.terms, weight)
        per, top = self._best_by_speaker(terms)
        strength = {p: self._strength(per.get(p, []), top) for p in self.panel.panelists}
        forced = self._forced()
        if forced:
            speakers = forced
        elif reading.addressed:
            speakers = list(reading.addressed)
        else:
            best = max(strength.values(), default=0.0)
            previous = [
                p for p in self.subject.speakers if strength.get(p, 0.0) >= STAY_RATIO * best
            ]
            specific = {t: w for t, w in reading.terms.items() if _is_specific(self.router, t)}
            if previous and specific:
                # the new words that name a subject clearly belong to someone else ("and how did MiniMax
                # train it?"); everyday words ("a practical use") never move the floor
                own, own_top = self._best_by_speaker(specific)
                mine = {p: self._strength(own.get(p, []), own_top) for p in self.panel.panelists}
                lead = max(mine.values(), default=0.0)
                if lead > 0 and all(mine[p] < SWITCH_RATIO * lead for p in previous):
                    previous = []
                    strength = mine
            order = list(self.panel.panelists)
            speakers = previous or [max(order, key=lambda p: (strength[p], -order.index(p)))]
        spoke = set(self._spoke(per, top))
        answering = [p for p in speakers if p in spoke]
        if not answering:
            did = [p for p in self.panel.panelists if p in spoke and p not in speakers]
            who = f" ({self._name(did)} did)" if did else ""
            return self._decline(
                f"{self._name(speakers)} didn't speak to that on the panel{who}",
                reading.addressed,
                off_topic=not did,
            )
        quotes = self._pick(per, top, answering, terms, penalise_shown=True)
        kept = [p for p in answering if p in self.subject.speakers]
        if kept:
            reason = f"{self._about()}: {self._name(answering)} on that"
        else:
            reason = f"{self._about()}: {self._name(answering)}'s best-matching quotes"
        return RouteResult(
            self.message, answering, False, quotes, reason, reading.addressed, [], 0.0
        )

    def _parallel_questions(self) -> set[str]:
        """The host question the subject's first answer responded to, and any host question put to another
        panelist that shares at least half its words (the talk's "and you, Olive?" questions)."""
        lead = next(
            (self.panel.quote(q) for q in self.subject.opening_quotes if self.panel.quote(q)), None
        )
        host = self.panel.question(lead.question) if lead is not None else None
        if host is None:
            return set()
        mine = set(_own_terms(self.router, host.text)[2])
        out = {host.id}
        for other in self.panel.questions:
            theirs = set(_own_terms(self.router, other.text)[2])
            if (
                other.id != host.id
                and mine
                and theirs
                and len(mine & theirs) >= PARALLEL_SHARE * min(len(mine), len(theirs))
            ):
                out.add(other.id)
        return out

    def _strength(self, ranked: list[tuple[int, float]], top: float) -> float:
        if not ranked:
            return 0.0
        s = ranked[0][1] + 0.3 * (ranked[1][1] if len(ranked) > 1 else 0.0)
        return 100.0 * s / top
