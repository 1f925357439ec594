"""Standalone questions mid-conversation (panelbot.conversation.resolve), from the second new-user trial: a
question that brings its own subject is answered as it would be on its own, not as a follow-up of the answer
before it; a follow-up's label and the next turn name the subject it moved to; "why?" after a question that
asked why points to the reason in its answer."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from test_resolve import ids, talk

from panelbot.conversation.cues import leans_on_context, points_at_a_person, points_back
from panelbot.conversation.resolve import resolve
from panelbot.conversation.turns import STANDALONE

OPEN = "Why did MiniMax open source its strongest model?"
WEIGHTS = "why would a company hand out its model weights for nothing?"
LAUNCH = "what has to happen so a brand new model works on the day it's released?"
KV_QUOTES = {"dan-22", "dan-23", "dan-24"}


def _pasted(name: str) -> str:
    """The long pasted question of a conversation of eval/conversations_newuser2.yaml (its second turn)."""
    path = Path(__file__).resolve().parent.parent / "eval" / "conversations_newuser2.yaml"
    convs = yaml.safe_load(path.read_text(encoding="utf-8"))
    return next(c for c in convs if c["conversation"] == name)["turns"][1]["question"]


@pytest.mark.parametrize(
    "first", ["what is this talk about?", "How did you train M3 to be multimodal?"]
)
def test_a_why_question_with_its_own_subject_is_asked_afresh(router, first):
    """ "why would a company hand out its weights?" after the framing or another answer: a new question
    (it points back at nothing), answered as on its own -- not the reason behind what was just shown."""
    _, res = talk(router, first, WEIGHTS)
    alone = resolve(router, [], WEIGHTS)
    assert res.kind == STANDALONE
    assert res.route.speakers == alone.route.speakers == ["olive"]
    assert {"olive-02", "olive-03"} & set(ids(res))


def test_a_question_whose_pronoun_is_its_own_is_not_kept_on_the_last_panelist(router):
    """After Olive's answers on RL data, a question on launching a new model ("the day it's released": its
    own model) that Olive never spoke to is Dan's, as on its own -- not "Olive didn't speak to that"."""
    *_, res = talk(
        router,
        "how do you build the training worlds for reinforcement learning?",
        "what makes the data good?",
        LAUNCH,
    )
    assert not res.route.abstained and res.route.speakers == ["dan"]
    assert {"dan-06", "dan-12", "dan-14"} & set(ids(res))


@pytest.mark.parametrize(
    "name",
    ["nu2-long-paste-kv-cache", "nu2-long-paste-kv-cache-2", "nu2-long-paste-kv-cache-3"],
)
def test_a_long_pasted_question_is_answered_as_on_its_own(router, name):
    """A pasted text ending "so what do you think about the KV cache?" after an answer on open source: Dan
    on the KV cache -- its pronouns refer to its own sentences, and a word of its background the panel
    never used does not take the question off the panel."""
    _, res = talk(router, OPEN, _pasted(name))
    assert res.kind == STANDALONE and not res.route.abstained
    assert res.route.speakers == ["dan"] and KV_QUOTES & set(ids(res))


def test_a_follow_up_on_new_words_moves_the_subject_for_the_next_turn(router):
    """ "what about the KV cache?" after open source is labelled by the KV cache, and "and Olive?" then asks
    about the KV cache: declined naming it, never offering "and Dan?" right after Dan's answer."""
    _, kv, olive = talk(router, OPEN, "what about the KV cache?", "and Olive?")
    assert kv.route.speakers == ["dan"] and "kv cache" in kv.route.reason.lower()
    assert "open source" not in kv.route.reason.lower()
    assert olive.route.abstained and "kv cache" in olive.route.reason.lower()
    assert "open source" not in olive.route.reason.lower()
    assert "and Dan?" not in olive.route.reason


def test_why_after_a_question_that_asked_why_points_to_the_reason_given(router):
    """ "Olive, why does MiniMax give the model away?" then "why?": the reason in her answer (olive-02),
    not "Olive gave no reason"; asked again, that she gave no other."""
    first, why, again = talk(router, "Olive, why does MiniMax give the model away?", "why?", "why?")
    assert "olive-02" in ids(first)
    assert why.route.speakers == ["olive"] and "olive-02" in ids(why)
    assert "no reason" not in why.route.reason and "[olive-02]" in why.route.reason
    assert again.route.abstained and "no other reason" in again.route.reason


def test_only_the_first_sentence_of_a_message_points_back():
    assert leans_on_context("how do you train for that?")
    assert not leans_on_context("The model reproduced a paper in a day. How do you train for that?")
    assert leans_on_context("Is that right? I thought it was faster.")


def test_an_existential_there_points_at_no_place():
    assert not points_back("is there a limit to how long a run can go?")
    assert not points_back("there are many ways to build a cache")
    assert points_back("does it work there?")


def test_a_person_the_message_brings_in_is_not_a_panelist():
    assert points_at_a_person("how does she keep the model from cheating?")
    assert not points_at_a_person("a friend told me she hates long prompts, is that common?")
