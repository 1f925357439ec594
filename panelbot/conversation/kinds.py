"""Message kinds: how a new message reads against the conversation's subject -- standalone, continuation,
reason, elaboration or another panelist's view -- with its own terms and evidence (``Reading``), and the
vetoes that keep a message pointing back at the conversation from being answered from it when what it asks
about is something the panel never discussed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from panelbot.conversation import kind_bank
from panelbot.conversation.cues import (
    ASKS_ANOTHER_TO_AGREE,
    CONTINUE,
    NAME_LEAD,
    OTHER,
    SWITCH,
    fix_cue_typos,
    has_follow_up_cue,
    leans_on_context,
    without_cues,
    without_reaction,
    without_switch_lead,
)
from panelbot.conversation.reasons import WHY, asks_why
from panelbot.conversation.subject import Subject, share_about_subject
from panelbot.conversation.terms import (
    identity_terms,
    is_variant_of_panel_word,
    names_a_subject,
    outside_english,
    own_terms,
    panelist_by_organisation,
    words_panel_never_used,
)
from panelbot.conversation.turns import (
    CONTINUATION,
    ELABORATION,
    OTHER_PANELIST,
    REASON,
    STANDALONE,
)
from panelbot.records import record
from panelbot.retrieval.results import RouteResult
from panelbot.text import split_sentences

if TYPE_CHECKING:
    from panelbot.conversation.router_view import FollowUpRouter

ON_SUBJECT = (
    0.5  # a message's words are the subject's when at least this share of them belong to it
)
NOTHING_TO_FOLLOW = "nothing to follow up on yet: ask about something from the talk first"


@record
class Reading:
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
    about_the_answer: bool = (
        False  # "why is that hard?": the reason in the answer itself, not elsewhere
    )
    question: str = (
        ""  # what a standalone message is routed on ("unrelated, X?" -> "X?"); "" = itself
    )


@dataclass
class _Words:
    """A message's words against the panel: what the reading weighs."""

    message: str
    terms: dict[str, float]
    evidence: float
    matched: list[str]
    rest: dict[str, float]  # its terms less the follow-up cues
    unmatched: list[str]  # ... and the words of those the panel never used
    identity: set[str]  # the terms that name panelists
    cue: bool  # it points back or is an ellipsis
    stands: bool  # it would be answered on its own, and not only for naming a panelist

    @property
    def unknown(self) -> list[str]:
        return list(dict.fromkeys(self.unmatched))

    def new_words(self) -> dict[str, float]:
        """Its own words beyond the cues and the panelists' names."""
        return {t: w for t, w in self.rest.items() if t not in self.identity}


def _words(router: FollowUpRouter, message: str) -> _Words:
    # "what does the MiniMax person think?": the words that describe whom it asks are not its subject
    message = router.without_descriptions(message)
    terms, evidence, matched, _ = own_terms(router, message)
    rest, _, _, unmatched = own_terms(router, without_cues(message))
    identity = identity_terms(router, list(router.panel.panelists))
    # a panelist's name or organisation is evidence that a message is about the panel, not a subject of its
    # own: "and how does Together see it?" asks the subject so far of Together's panelist
    stands = evidence >= router.settings.scope_floor and not (matched and set(matched) <= identity)
    return _Words(
        message,
        terms,
        evidence,
        matched,
        rest,
        unmatched,
        identity,
        leans_on_context(message),
        stands,
    )


def read_message(router: FollowUpRouter, subject: Subject | None, message: str) -> Reading:
    """Classify a message against the subject so far (``panelbot.conversation.resolve`` says how)."""
    if subject is not None:
        message = fix_cue_typos(router, message)
    terms, evidence, _, _ = own_terms(router, message)
    addressed, both = router.addressed(message)
    possessive = not addressed and not both and bool(addressed := router.possessive(message))
    # ... "what's Olive's take?" asks Olive, as if by name
    if subject is None:
        return Reading(STANDALONE, terms, evidence, addressed, both)
    if SWITCH.search(message):
        # a new subject announced: the question after the cue, judged on its own words
        question = without_switch_lead(message)
        terms, evidence, _, _ = own_terms(router, question)
        return Reading(STANDALONE, terms, evidence, addressed, both, question=question)
    return _read_against(router, subject, without_reaction(message), addressed, both, possessive)


BY_MEANING = {
    kind_bank.CONTINUE: CONTINUATION,
    kind_bank.CLARIFY: CONTINUATION,
    kind_bank.REASON: REASON,
    kind_bank.OTHER: OTHER_PANELIST,
}


def _read_by_meaning(
    router: FollowUpRouter, w: _Words, addressed: list[str], both: bool
) -> Reading | None:
    """The bank of follow-up messages reads it (``kind_bank``): the user's own matters pointing back
    ("is that safe for my kids?") are a new question, judged on its own and declined when off the panel; a
    bare follow-up in words no cue has ("keep talking") is the kind of its nearest example."""
    kind = kind_bank.kind_of(router, w.message)
    if kind == kind_bank.OFFTOPIC and not w.stands:
        return Reading(STANDALONE, w.terms, w.evidence, addressed, both, elsewhere=w.cue)
    if kind in BY_MEANING and not w.new_words() and not has_follow_up_cue(w.message):
        return Reading(BY_MEANING[kind], {}, w.evidence, addressed, both)
    return None


def _read_against(
    router: FollowUpRouter,
    subject: Subject,
    message: str,
    addressed: list[str],
    both: bool,
    possessive: bool,
) -> Reading:
    w = _words(router, message)
    by_meaning = _read_by_meaning(router, w, addressed, both)
    if by_meaning is not None:
        return by_meaning
    foreign = words_panel_never_used(router, w.unmatched)
    if foreign:
        # it brings words the panel never used: a new subject, judged on its own; pointing back, it is
        # declined when some are no English word either ("could it build me a Shopify store?") -- a
        # paraphrase's own English words ("does that help when memory keeps ballooning?") are the router's
        # to judge
        elsewhere = w.cue and bool(
            outside_english(_foreign_where_it_asks(router, message, foreign))
        )
        return Reading(STANDALONE, w.terms, w.evidence, addressed, both, elsewhere=elsewhere)
    if both and w.stands:
        # "what do both of them think about open source?": whom it asks and what about, on its own
        return Reading(STANDALONE, w.terms, w.evidence, addressed, both)
    if not w.stands and not addressed and not both:
        addressed = panelist_by_organisation(router, message)
    asks_other = (not w.stands and bool(addressed or both or OTHER.search(message))) or bool(
        not addressed and not both and ASKS_ANOTHER_TO_AGREE.search(message)
    )
    if possessive and OTHER.search(message) and not w.new_words():
        asks_other = True  # "what is Olive's view on that?": her view of the subject, nothing new
    if asks_other:
        return _read_as_asking_a_panelist(router, subject, w, addressed, both)
    if _brings_unknown_words(router, w):
        return Reading(STANDALONE, w.terms, w.evidence, addressed, both, elsewhere=w.cue)
    return _read_as_same_panelists(router, subject, w, addressed, both)


def _foreign_where_it_asks(router: FollowUpRouter, message: str, foreign: list[str]) -> list[str]:
    """The foreign words of the sentence that asks (the last one): in a pasted text that ends in a question,
    what comes before is the user's background ("... so what do you think about the KV cache?"), not what is
    asked about -- a word of it the panel never used does not take the question off the panel."""
    sentences = split_sentences(message)
    if len(sentences) < 2:
        return foreign
    asking = set(own_terms(router, sentences[-1])[3])
    return [t for t in foreign if t in asking]


def _brings_unknown_words(router: FollowUpRouter, w: _Words) -> bool:
    """Words the panel never used (not near variants of its own) outweigh the ones it did."""
    unknown = [t for t in w.unknown if not is_variant_of_panel_word(router, t)]
    return bool(
        (unknown and not w.matched and not w.cue)
        or (len(unknown) >= 2 and len(unknown) > len(set(w.matched)))
    )


def _read_as_asking_a_panelist(
    router: FollowUpRouter, subject: Subject, w: _Words, addressed: list[str], both: bool
) -> Reading:
    """A panelist named or the other side asked: their reason, more from the one who just answered, or
    another panelist's view of the subject."""
    one = bool(addressed) and not both
    if (
        one
        and (asks_why(w.message) or asks_why(NAME_LEAD.sub("", w.message)))
        and not w.new_words()
    ):
        # "Dan, why?", "why, Olive?": the reason that panelist gave (or that they gave none)
        return Reading(REASON, {}, w.evidence, addressed, both)
    if one and set(addressed) <= set(subject.speakers):
        # the panelist who just answered, named again: more from them
        more = not w.rest or share_about_subject(router, subject, w.rest) >= ON_SUBJECT
        return Reading(CONTINUATION if more else ELABORATION, w.rest, w.evidence, addressed, both)
    # the words that named who is asked ("Together" in "how does Together see it?") are not the subject
    return Reading(OTHER_PANELIST, w.new_words(), w.evidence, addressed, both)


def _only_the_subject(
    router: FollowUpRouter,
    subject: Subject,
    text: str,
    *,
    or_nothing: bool = True,
    or_everyday: bool = False,
) -> tuple[bool, dict[str, float]]:
    """The text (cues taken off) adds nothing of its own, or only the subject's words -- or, with
    ``or_everyday``, only everyday words that name no subject ("why is that hard?")."""
    rest, _, _, unmatched = own_terms(router, text)
    empty = or_nothing and not rest and not unmatched
    everyday = (
        or_everyday
        and not unmatched
        and bool(rest)
        and not any(names_a_subject(router, t) for t in rest)
    )
    same = bool(rest and share_about_subject(router, subject, rest) >= ON_SUBJECT)
    return empty or everyday or same, rest


def _read_as_same_panelists(
    router: FollowUpRouter, subject: Subject, w: _Words, addressed: list[str], both: bool
) -> Reading:
    """No other panelist asked: the reason, more of the same, an elaboration -- or a new question."""
    message = w.message
    if asks_why(message):
        # "why?", "how come?", "why does that matter?": the reason behind the subject
        bare = CONTINUE.sub(" ", WHY.sub(" ", message))
        same, rest = _only_the_subject(router, subject, bare)
        if same:
            return Reading(REASON, rest, w.evidence, addressed, both)
        # ... "why is that hard?" in everyday words asks about the answer when it points back (or would not
        # stand on its own); "why would a company give its weights away?" brings a subject of its own
        everyday, rest = _only_the_subject(router, subject, bare, or_everyday=True)
        if everyday and (w.cue or not w.stands):
            return Reading(REASON, rest, w.evidence, addressed, both, about_the_answer=True)
    if CONTINUE.search(message):
        same, rest = _only_the_subject(
            router, subject, CONTINUE.sub(" ", message), or_nothing=not w.stands
        )
        if same:
            return Reading(CONTINUATION, rest, w.evidence, addressed, both)
    if (
        w.cue
        or (not w.stands and w.matched)
        or (w.stands and share_about_subject(router, subject, w.terms) >= ON_SUBJECT)
    ):
        return Reading(ELABORATION, w.terms, w.evidence, addressed, both)
    return Reading(STANDALONE, w.terms, w.evidence, addressed, both)


# ------------------------------------------------------------------------------------------ vetoes


def only_points_back(router: FollowUpRouter, route: RouteResult) -> bool:
    """The message only points back (follow-up cues, names of panelists): nothing of its own to look up."""
    if not route.abstained and len(route.speakers) > 1:
        return False  # "what do they both think?" is answered as asked
    message = without_reaction(route.question)
    if not has_follow_up_cue(message):
        return False
    rest, _, _, unmatched = own_terms(router, without_cues(message))
    identity = identity_terms(router, list(router.panel.panelists))
    # it names something of its own ("why is pizza round?"): routed as it was
    return not unmatched and all(t in identity for t in rest)


def nothing_to_follow(router: FollowUpRouter, route: RouteResult) -> RouteResult:
    """ "tell me more", "why?", "what does the other one think?" before anything was answered: declined as
    having nothing to follow up on -- whatever a lookup of its few words found -- not as a subject the panel
    never got into. Anything else as it was."""
    if route.small_talk or not only_points_back(router, route):
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


def personal_use_elsewhere(
    router: FollowUpRouter, subject: Subject, message: str, terms: dict[str, float]
) -> bool:
    """A follow-up that asks about the user's own case ("my website", "for me") with words the talk never
    says with the subject's own words: the panel's words in the user's sense, not more on the subject."""
    from panelbot.retrieval.query import PERSONAL_TASK

    if not PERSONAL_TASK.search(message):
        return False
    own = [
        t
        for t, w in subject.terms.items()
        if w >= 1.0 and "_" not in t and names_a_subject(router, t)
    ]
    new = [
        t for t in terms if "_" not in t and t not in subject.terms and names_a_subject(router, t)
    ]
    return bool(own and new) and not any(router.said_together(t, u) for t in new for u in own)


def far_from_panel_in_meaning(router: FollowUpRouter, message: str) -> bool:
    """A message that points back ("is it expensive to buy one for my house?") but whose own meaning is far
    from anything the panel said and near everyday questions on other subjects: off-topic, not more on the
    subject (``tuning.followup_floor``, fitted on conversation dev sets)."""
    return router.scope_signals(message).margin < router.tune.followup_floor
