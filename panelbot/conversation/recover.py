"""Recover what earlier answers showed when a client kept only the words.

The resolver finds a conversation's subject from who answered each earlier question and with which quotes.
A client does not always keep that: a plain list of earlier questions (the form the MCP tool offers), an
answer a client summarised or edited, a model's answer that cites nothing. Such a turn is answered again here,
in its place in the conversation (resolved against the turns before it, themselves recovered), so it carries
the speakers and quote ids panelbot gives that question there. Answering is deterministic, so this is what
was shown, as long as the panel is unchanged.

A turn that already names quotes is kept as it is; so is one answered again as a decline (nothing to carry).
A panelist named by the answer (a heading such as ``Olive:``) is who answers it again.
"""

from __future__ import annotations

from collections.abc import Sequence

from panelbot.conversation.resolve import WINDOW, resolve
from panelbot.conversation.turns import ConversationTurn
from panelbot.records import replace
from panelbot.retrieval.router import Router


def _target_of(router: Router, turn: ConversationTurn) -> str:
    """Who answers the turn again: the panelist(s) its answer named, else whoever it was asked of."""
    known = [s for s in turn.speakers if s in router.panel.panelists]
    if (turn.target or "auto") != "auto" or not known:
        return turn.target or "auto"
    return known[0] if len(known) == 1 else "both"


def recover_turns(router: Router, turns: Sequence[ConversationTurn]) -> list[ConversationTurn]:
    """``turns`` with every recent turn that names no quotes answered again (see the module's doc). Only the
    turns the resolver reads for the subject (its last ``WINDOW``) are answered again; never raises."""
    out: list[ConversationTurn] = []
    start = max(0, len(turns) - WINDOW)
    for n, turn in enumerate(turns):
        question = str(turn.question or "").strip()
        if n < start or not question or turn.quote_ids:
            out.append(turn)
            continue
        try:
            route = resolve(router, out, question, _target_of(router, turn)).route
        except ValueError:  # a target this panel does not have: left as the client sent it
            out.append(turn)
            continue
        if route.abstained or not route.quotes:
            out.append(turn)
            continue
        out.append(
            replace(
                turn,
                speakers=list(route.speakers),
                quote_ids=[sq.quote.id for sq in route.quotes],
            )
        )
    return out
