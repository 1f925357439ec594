"""Resolve a new message against the conversation so far: the one place every front end (the app, ``panelbot
ask -c``, the model path, the servers) turns "tell me more" or "what does Olive think?" into a routed answer.

Plain Python, deterministic, built on the router's declared public interface
(``panelbot.conversation.router_view.FollowUpRouter``). Where each decision lives:

* ``kinds`` reads the message against the subject (``subject``) as one of:

  * **standalone** -- it makes sense on its own (or the conversation has no subject yet): routed as if first,
    so context can never drag a topic switch back to the old subject or panelist; a message that announces a
    new subject ("unrelated, ...") is one, judged without that cue;
  * **continuation** ("tell me more", "go on", "how so?"; ``strategies.continuation``): the same panelist(s)
    on the same subject; quotes not yet shown come first (the rest of the same answer, then related answers
    -- not for "how so?", which asks about the answer itself); when nothing new is left, it says so, naming
    what they did say by id;
  * **reason** ("why?", "how come?"; ``strategies.reason``): the passage where the same panelist(s) give a
    cause or a motivation for the subject (``reasons``); when the talk gives no reason, it says so;
  * **elaboration** (a pronoun or an ellipsis: "how long does that take?", "and for training?";
    ``strategies.elaboration``): the message's words plus the previous subject's words, weighted below
    them, retrieve; the previous panelist keeps the floor unless the new words clearly belong to someone else;
  * **other panelist** ("what does Olive think?", "do you agree?"; ``strategies.other_panelist``): the same
    subject, answered by that panelist with what they have not said yet; when they never spoke to it, it
    says so and names who did.

* A message whose own words are about something the panel never discussed is routed on its own, and so
  declined as before -- also when it points back ("is it expensive to buy one of those for my house?").

The cues are general English discourse markers (``cues``), never phrases of a particular conversation.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from panelbot.conversation.followups import suggest_followups
from panelbot.conversation.kinds import NOTHING_TO_FOLLOW
from panelbot.conversation.resolution import resolve_message
from panelbot.conversation.strategies.reason import EXCERPT_SHARE
from panelbot.conversation.subject import WINDOW
from panelbot.conversation.turns import SMALL_TALK, STANDALONE, ConversationTurn, Resolution

if TYPE_CHECKING:
    from panelbot.conversation.router_view import FollowUpRouter

__all__ = ["EXCERPT_SHARE", "NOTHING_TO_FOLLOW", "WINDOW", "resolve"]

OFFERED_AFTER = (
    "thanks",
    "acknowledgement",
)  # small talk answered with the last answer's follow-ups


def resolve(
    router: FollowUpRouter,
    history: Sequence[ConversationTurn],
    message: str,
    target: str = "auto",
) -> Resolution:
    """Answer ``message`` in the light of ``history`` (earlier turns, oldest first). Never raises on odd
    history; raises ValueError only for an unknown ``target`` (as ``Router.route`` does).

    A follow-up declined mid-conversation ("nothing more", "Olive didn't speak to it") offers what would
    be answered here instead -- the next questions on stage, the other panelist -- not the bank's generic
    suggestions; so do thanks and an "ok" after an answer."""
    res = resolve_message(router, history, message, target)
    route = res.route
    if res.kind == SMALL_TALK:
        if route.small_talk in OFFERED_AFTER:
            route.suggestions = _answerable_follow_ups(router, history, target) or route.suggestions
    elif res.kind != STANDALONE and route.abstained and not route.off_topic:
        route.suggestions = _answerable_follow_ups(router, history, target) or route.suggestions
    if route.suggestions and history:
        route.suggestions = _not_asked_yet(route.suggestions, history)
    return res


def _not_asked_yet(suggestions: Sequence[str], history: Sequence[ConversationTurn]) -> list[str]:
    """The suggestions less the questions this conversation already asked ("Who is Olive?" is not offered
    after "who is Olive?" and "how old is she?")."""
    asked = {_plain(str(t.question or "")) for t in history}
    return [s for s in suggestions if _plain(s) not in asked]


def _plain(question: str) -> str:
    return " ".join(question.casefold().replace("?", " ").split())


def _answerable_follow_ups(
    router: FollowUpRouter, history: Sequence[ConversationTurn], target: str = "auto"
) -> list[str]:
    """The follow-ups of the last answer (declined turns since it change nothing: they leave the subject
    where it was), each answered when asked of ``target`` as this message was (with Olive picked, "Tell me
    more" after her decline is hers again: not offered); empty when nothing was answered yet."""
    answered = [n for n, turn in enumerate(history) if turn.speakers]
    if not answered:
        return []
    turns = history[: answered[-1] + 1]
    return [f.text for f in suggest_followups(router, turns, target=(target or "auto").lower())]
