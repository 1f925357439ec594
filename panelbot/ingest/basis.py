"""What a turn's attribution rests on, from the reason ingest gives for it (``SpeakerTurn.why``).

A speaker taken from the turn's own words or the captions is *firm*: a label in the file, a
self-introduction, the host asking someone by name, a hand-over, a reply by name, the text running on from
the turn before. A speaker taken only from where the turn sits (after a back-channel, the one left in a
round, the other of two panelists) or from what it talks about (its field) is *doubtful*: the health report
points at every such turn, and ``panelbot check --fix`` walks them.
"""

from __future__ import annotations

FIRM = "firm"
DOUBTFUL = "doubtful"
BY_HAND = "set by hand"
MODEL_WHY = (
    "the model read the turn"  # ingest --llm: a model's judgement, checked, still not a name
)

# reason prefix -> what it rests on; the first matching prefix decides (unlisted reasons are doubtful)
_BASIS: tuple[tuple[str, str], ...] = (
    (BY_HAND, "hand"),
    (MODEL_WHY, "model"),
    ("labelled in the captions", "label"),
    ("introduces themselves", "name"),
    ("names every panelist", "name"),
    ("the host asked them", "name"),
    ("the next speaker answers them by name", "name"),
    ("replies to the one who pushed back", "name"),
    ("the host named them to open the round", "name"),
    ("opens the talk", "text"),
    ("asks a question", "text"),
    ("thanks the panel", "text"),
    ("closes the talk", "text"),
    ("runs the session", "text"),
    ("hands over to the next introduction", "hand-over"),
    ("continues the sentence the '>>' cut", "text"),
    ("leads into the host's next question", "order"),
    ("a short remark on the answer before", "order"),
    ("a short prompt to the answer after", "order"),
    ("a remark between the guest's answers", "order"),
    ("continues after a back-channel", "order"),
    ("goes on", "order"),
    ("continues a short answer", "order"),
    ("the last one in the round", "order"),
    ("the round, in the order", "order"),
    ("the only guest", "order"),
    ("the other panelist", "order"),
    ("the only panelist left", "order"),
    ("their field", "field"),
    ("the round: each panelist answers once", "field"),
)


def attribution_basis(why: str) -> str:
    """ "label", "name", "hand-over", "text", "hand" (firm) or "order", "field" (doubtful); "" for a
    turn with no reason (a panel written by hand)."""
    if not why:
        return ""
    for prefix, basis in _BASIS:
        if why.startswith(prefix):
            return basis
    return "order"


def is_doubtful(why: str) -> bool:
    """Whether a turn's speaker rests only on its place in the talk or its field."""
    return attribution_basis(why) in ("order", "field", "model")


def doubtful_part(reasons: list[tuple[int, str]]) -> tuple[int, str] | None:
    """The first part of a turn (first word's index, why) whose speaker rests only on order or field;
    None when every part is on firm ground. A turn whose first part was set by hand is firm whole."""
    if reasons and attribution_basis(reasons[0][1]) == "hand":
        return None
    return next(((at, why) for at, why in reasons if is_doubtful(why)), None)
