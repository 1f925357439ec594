"""Reading a message against the conversation and answering it by the strategy its kind calls for
(``panelbot.conversation.resolve`` adds, to a declined follow-up, what would be answered instead)."""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from typing import TYPE_CHECKING

from panelbot.conversation.cues import NAME_LEAD, OTHER, PERSON_BACK, points_at_a_person
from panelbot.conversation.kinds import (
    Reading,
    far_from_panel_in_meaning,
    nothing_to_follow,
    personal_use_elsewhere,
    read_message,
)
from panelbot.conversation.reasons import asks_why
from panelbot.conversation.strategies.clarification import clarification
from panelbot.conversation.strategies.context import FollowUp
from panelbot.conversation.strategies.continuation import asks_what_it_means, continuation
from panelbot.conversation.strategies.elaboration import elaboration
from panelbot.conversation.strategies.other_panelist import (
    asks_those_who_answered,
    other_panelist,
    panelists_asked,
)
from panelbot.conversation.strategies.overview import panelist_overview
from panelbot.conversation.strategies.reason import reason
from panelbot.conversation.subject import Subject, current_subject, label_moved_to
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
from panelbot.records import replace
from panelbot.retrieval.results import RouteResult

if TYPE_CHECKING:
    from panelbot.conversation.router_view import FollowUpRouter

OFF_TOPIC_FOLLOW_UP = "off-topic: the follow-up asks about something the panel didn't discuss"


def small_talk_kind(router: FollowUpRouter, message: str) -> str:
    """The kind of small talk a message is ("greeting", "thanks", ...; ``panelbot.retrieval.smalltalk``)
    or "": what the panel's people are called may be part of it ("hello Olive")."""
    from panelbot.retrieval.smalltalk import panel_names, small_talk

    return small_talk(message, panel_names(router.panel))


def small_talk_route(router: FollowUpRouter, message: str, social: str) -> RouteResult:
    """Nothing to look up: the reply (``answer.compose``) says who is on the panel and what to ask; it offers
    questions from across the talk (its host questions, in the user's words), three far apart -- which three
    depends on the message, so saying hello again does not offer the same ones. A goodbye offers none."""
    offer: list[str] = []
    if social != "farewell":
        examples = router.example_questions()
        if len(examples) >= 3:
            start = zlib.crc32(message.encode("utf-8", "replace")) % len(examples)
            step = len(examples) / 3
            offer = list(
                dict.fromkeys(examples[(start + round(j * step)) % len(examples)] for j in range(3))
            )
        else:
            offer = router.suggestions(question=message)
    from panelbot.retrieval.smalltalk import reason as small_talk_reason

    return RouteResult(
        message,
        [],
        True,
        [],
        small_talk_reason(social),
        [],
        offer,
        0.0,
        off_topic=False,
        small_talk=social,
    )


def _new_after_framing(
    subject: Subject, reading: Reading, route: RouteResult, alone: RouteResult
) -> bool:
    """After an introduction or the talk's framing ("who is Olive?"), a question answered by the same quote
    on its own as in context is a new question, not more on the introduction ("why would a lab give its
    best model away?" is not "your question about Olive's role")."""
    if not subject.framing or reading.kind != ELABORATION or alone.abstained or not alone.quotes:
        return False
    if PERSON_BACK.search(alone.question):
        return False  # "how does she keep the model from cheating?": about the one just introduced
    return bool(route.quotes) and route.quotes[0].quote.id == alone.quotes[0].quote.id


def _asked_afresh(
    router: FollowUpRouter,
    subject: Subject,
    reading: Reading,
    route: RouteResult,
    alone: RouteResult,
    target: str,
) -> RouteResult | None:
    """After an introduction, the answer to a message read as more on it when it is a new question after all
    (``_new_after_framing``, ``_the_introduced_asked_anew``); None when it is more on it."""
    if _new_after_framing(subject, reading, route, alone):
        return alone
    return _the_introduced_asked_anew(router, subject, reading, route, alone.question, target)


def _new_question(
    router: FollowUpRouter,
    reading: Reading,
    route: RouteResult,
    alone: RouteResult,
    shown: set[str],
    target: str,
) -> RouteResult | None:
    """An elaboration that would stand on its own, put to no one (no name, no "he"/"she", no panelist
    picked), that the conversation cannot answer -- declined, or only with quotes already shown -- while on
    its own it is answered with something new ("what has to happen so a brand new model works on the day
    it's released?" after Olive on RL data: its "it" is its own model, not her subject): a new question,
    answered as one. None otherwise."""
    if reading.kind != ELABORATION or reading.addressed or target != "auto":
        return None
    if reading.evidence < router.settings.scope_floor:
        return None  # "what about for training?": nothing to look up without the subject
    if points_at_a_person(alone.question) or alone.abstained or not alone.quotes:
        return None
    if not route.abstained and not all(sq.quote.id in shown for sq in route.quotes):
        return None
    return alone if any(sq.quote.id not in shown for sq in alone.quotes) else None


def _the_introduced_asked_anew(
    router: FollowUpRouter,
    subject: Subject,
    reading: Reading,
    route: RouteResult,
    message: str,
    target: str,
) -> RouteResult | None:
    """After an introduction ("who is Olive?"), a question about the one introduced that finds nothing more
    on the introduction, or finds someone else ("why would her lab give the model away?", "and what is
    his company's goal?"), is a new question put to them: asked of them on its own (the router says when
    they never spoke to it, and who did), or None when that is declined too or the message is about no
    one in particular."""
    if not (subject.framing and reading.kind == ELABORATION) or target != "auto":
        return None
    if len(subject.speakers) != 1 or not PERSON_BACK.search(message):
        return None
    who = subject.speakers[0]
    if not route.abstained and route.speakers == [who]:
        return None  # more from the one introduced: an elaboration after all
    anew = router.route(message, who)
    if anew.abstained:
        return None
    if anew.speakers != [who]:
        return anew
    return replace(
        anew, reason=f"a new question to {router.panel.display_name(who)}, just introduced"
    )


def _personal_by_pronoun(
    router: FollowUpRouter, history: Sequence[ConversationTurn], message: str, target: str
) -> RouteResult | None:
    """A question on the life outside the talk of the panelist the conversation is on, who is referred to
    by pronoun ("is she married?" after Olive's answer or introduction), answered as that question about
    them by name is (declined, their introduction offered); None when the message names a panelist, the
    last answer was not one panelist's, or it is no such question."""
    if not PERSON_BACK.search(message) or router.addressed(message)[0]:
        return None
    answered = [t for t in history if t.speakers]
    last = list(answered[-1].speakers) if answered else []
    if len(last) != 1 or last[0] not in router.panel.panelists:
        return None
    reader = router.framing_reader()
    framing = reader.personal_about(message, last[0], put_to=False, about=True)
    return reader.answer(message, framing, target) if framing is not None else None


def _declined_off_topic(router: FollowUpRouter, message: str, like: RouteResult) -> RouteResult:
    return RouteResult(
        message,
        [],
        True,
        [],
        OFF_TOPIC_FOLLOW_UP,
        like.addressed,
        router.suggestions(question=message),
        like.scope,
    )


def _standalone(
    router: FollowUpRouter, subject: Subject | None, reading: Reading, message: str, target: str
) -> Resolution:
    route = router.route(reading.question or message, target)
    if reading.question and reading.question != message:
        route.question = message  # "unrelated, ...": judged without the cue, recorded as asked
    if subject is None:
        route = nothing_to_follow(router, route)
    if reading.elsewhere and not route.abstained:
        # "does that work for pizza ovens?": it points back at the conversation, but what it asks
        # about is something the panel never discussed -- declined, never answered from context
        route = _declined_off_topic(router, message, route)
    return Resolution(route, None, STANDALONE)


def _more(f: FollowUp, reading: Reading) -> RouteResult:
    """A continuation: what was not shown yet -- or, for "how so?", the answer just given in context."""
    if asks_what_it_means(f.router, f.message):
        # "how so?", "what do you mean by that?": the answer just given, in context
        clarified = clarification(f, reading)
        if clarified is not None:
            return clarified
    route = continuation(f, reading)
    if route.abstained and reading.terms:
        # "tell me more about those internal evaluations" when all they said of it is on screen: the
        # words it names are answered (as an elaboration) rather than declined
        again = elaboration(f, reading)
        if not again.abstained:
            reading.kind, route = ELABORATION, again
    return route


def _asks_why(message: str) -> bool:
    return asks_why(message) or asks_why(NAME_LEAD.sub("", message))


def _why(f: FollowUp, reading: Reading, history: Sequence[ConversationTurn]) -> RouteResult:
    """A reason; "why?" asked again does not give the reason just given as if new; "why is that hard?"
    when the answer states no cause shows the answer itself, in context."""
    answered = [t for t in history if t.speakers]
    last = " ".join(str(answered[-1].question or "").split()) if answered else ""
    opener = " ".join(f.subject.question.split())
    # "Olive, why does MiniMax give it away?" opened the subject: its answer gives the reason asked for (as
    # an answer, not yet pointed to as the reason)
    if _asks_why(opener):
        f.answered_why = set(f.subject.opening_quotes)
    if last and last != opener and _asks_why(last):
        f.given = {str(q) for q in answered[-1].quote_ids}
    route = reason(f, reading)
    if route.abstained and reading.about_the_answer and not f.given:
        return clarification(f, reading, no_cause=True) or route
    return route


def _their_view(f: FollowUp, reading: Reading) -> RouteResult:
    """Another panelist's view; those asked who already answered the subject here go on with what they
    have not said yet, the rest of their answer first -- or, when nothing is left, that, by id."""
    if asks_those_who_answered(f, reading):
        asked = panelists_asked(f, reading)
        more = Reading(CONTINUATION, reading.terms, reading.evidence, asked, False)
        return continuation(f, more, on_subject=True)
    return other_panelist(f, reading)


def _answered(f: FollowUp, reading: Reading, history: Sequence[ConversationTurn]) -> RouteResult:
    """The follow-up answered by the strategy of its kind (``reading.kind`` may change on the way)."""
    if f.subject.framing and reading.kind in (CONTINUATION, OTHER_PANELIST) and not reading.terms:
        # "tell me more" after "who is Dan?", "and Olive?" after the talk's framing: what they spoke to
        # ("and the other one?" after "who is Dan?": the panelist not introduced, never Dan again)
        if reading.kind == OTHER_PANELIST:
            return panelist_overview(f, reading, panelists_asked(f, reading))
        who = f.forced() or reading.addressed or f.subject.speakers
        return panelist_overview(f, reading, list(who))
    if reading.kind == CONTINUATION:
        return _more(f, reading)
    if reading.kind == REASON:
        return _why(f, reading, history)
    if reading.kind == OTHER_PANELIST:
        return _their_view(f, reading)
    return elaboration(f, reading)


def _discussion(
    router: FollowUpRouter, history: Sequence[ConversationTurn], message: str, target: str
) -> Resolution | None:
    """The message as a request for a discussion, or a follow-up to the one in view
    (``panelbot.discussion.turn``); None when it is neither."""
    from panelbot.discussion.turn import discussion_reading

    def opened() -> Subject | None:
        subject = current_subject(router, history, read_message)[0]
        # a conversation on the talk itself ("what is this talk about?", "who is Olive?") names no subject
        # the panelists could meet on: a discussion then is of the whole talk
        return None if subject is not None and subject.framing else subject

    return discussion_reading(router, history, message, target, opened)


def resolve_message(
    router: FollowUpRouter, history: Sequence[ConversationTurn], message: str, target: str = "auto"
) -> Resolution:
    """``message`` read in the light of ``history`` and answered (``resolve`` documents it); a declined
    follow-up keeps the router's generic suggestions."""
    message = (message or "").strip()
    target = (target or "auto").lower()
    if target not in ("auto", "both") and target not in router.panel.panelists:
        raise ValueError(f"unknown target {target!r}")
    social = small_talk_kind(router, message)
    if social:
        return Resolution(small_talk_route(router, message, social), None, SMALL_TALK)
    discussed = _discussion(router, history, message, target)
    if discussed is not None:
        # "discuss open weights", "where do they disagree?", or a follow-up to the discussion just shown
        return discussed
    if history and not OTHER.search(message) and router.framing(message) is not None:
        # "who is Dan?", "what is this talk about?" mid-conversation: asked afresh, never a follow-up; a
        # message the cues read as asking another panelist ("what about her?", close in meaning to "what
        # is it about?") is not one
        return Resolution(router.route(message, target), None, STANDALONE)
    if not history:
        return Resolution(
            nothing_to_follow(router, router.route(message, target)), None, STANDALONE
        )
    personal = _personal_by_pronoun(router, history, message, target)
    if personal is not None:
        # "how old is she?" after Olive's answer: a question on her life outside the talk, declined as
        # "is Olive married?" is, her introduction offered
        return Resolution(personal, None, STANDALONE)
    subject, shown = current_subject(router, history, read_message)
    reading = read_message(router, subject, message)
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
        return _standalone(router, subject, reading, message, target)
    alone = router.route(message, target)
    if alone.unstated:
        # it asks for a specific the talk never gave (a price, a context length): no earlier subject can
        # answer that, so it is declined as it would be on its own, saying what was said nearby
        return Resolution(alone, None, STANDALONE)
    if reading.kind == ELABORATION and (
        personal_use_elsewhere(router, subject, message, reading.terms)
        or far_from_panel_in_meaning(router, message)
    ):
        # "does that work for caching my website's images?": the user's own use of panel words the talk
        # never says with the subject -- declined, never answered from context
        return Resolution(_declined_off_topic(router, message, alone), None, STANDALONE)
    route = _answered(FollowUp(router, subject, shown, message, target), reading, history)
    fresh = _asked_afresh(router, subject, reading, route, alone, target) or _new_question(
        router, reading, route, alone, shown, target
    )
    if fresh is not None:
        return Resolution(fresh, None, STANDALONE)
    return Resolution(route, _context(router, subject, reading, route), reading.kind)


def _context(
    router: FollowUpRouter, subject: Subject, reading: Reading, route: RouteResult
) -> dict[str, object]:
    """How context was used, JSON-ready: the subject (the one an elaboration moves on to: "what does he think
    about sparse attention?" is about sparse attention), who carried it on, and the turn that opened it."""
    one = route.speakers[0] if len(route.speakers) == 1 else None
    carried = one if reading.kind != OTHER_PANELIST and one in subject.speakers else None
    moved = label_moved_to(router, subject, reading, [sq.quote.id for sq in route.quotes])
    return {
        "kind": reading.kind,
        "subject": moved or subject.label,
        "question": subject.question,
        "speaker": carried,
        "previous_speakers": list(subject.speakers),
        "turn": subject.turn,
    }
