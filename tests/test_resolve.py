"""The conversation resolver: follow-ups read against the conversation so far (panelbot.conversation.resolve)."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from panelbot.conversation.resolve import resolve
from panelbot.conversation.turns import ConversationTurn, Resolution

KV = "How do you deal with a KV cache that keeps growing?"
OPEN = "Why did MiniMax open source its strongest model?"


def turn_of(res: Resolution, question: str) -> ConversationTurn:
    return ConversationTurn(
        question, list(res.route.speakers), [sq.quote.id for sq in res.route.quotes]
    )


def talk(router, *messages: str) -> list[Resolution]:
    """Ask the messages in order as one conversation."""
    history: list[ConversationTurn] = []
    out = []
    for m in messages:
        res = resolve(router, history, m)
        out.append(res)
        history.append(turn_of(res, m))
    return out


def ids(res: Resolution) -> list[str]:
    return [sq.quote.id for sq in res.route.quotes]


def test_first_message_is_routed_as_before(router):
    res = resolve(router, [], KV)
    plain = router.route(KV)
    assert res.context is None and res.kind == "standalone"
    assert res.route.speakers == plain.speakers and ids(res) == [sq.quote.id for sq in plain.quotes]


def test_continuation_same_panelist_new_quotes_first(router):
    first, more = talk(router, KV, "tell me more")
    assert more.kind == "continuation"
    assert more.route.speakers == first.route.speakers == ["dan"]
    assert more.route.quotes and not set(ids(more)) & set(ids(first))
    assert more.route.reason.startswith("follow-up to your question about")
    assert more.context is not None and more.context["kind"] == "continuation"
    assert more.context["speaker"] == "dan"
    json.dumps(more.context)  # JSON-ready


def test_continuation_gives_the_rest_of_the_same_answer_first(router, shipped_panel):
    # an answer cut after its first quote: the next quote of the same turn comes next
    q = shipped_panel.quote("dan-22")
    history = [ConversationTurn(KV, ["dan"], ["dan-22"])]
    res = resolve(router, history, "go on")
    assert res.route.quotes[0].quote.turn == q.turn
    assert res.route.quotes[0].quote.id == "dan-23"


def test_continuation_says_so_when_nothing_is_left(router):
    history = [
        ConversationTurn(KV, ["dan"], [q.id for q in router.panel.quotes if q.speaker == "dan"])
    ]
    res = resolve(router, history, "tell me more")
    assert res.route.abstained and not res.route.off_topic
    assert "nothing more" in res.route.reason and not res.route.quotes
    # ... and names what was said on it, by id
    assert "dan-22" in res.route.reason


def test_other_panelist_who_never_spoke_to_it_is_not_given_a_random_quote(router):
    _, other = talk(router, KV, "what does Olive think?")
    assert other.kind == "other_panelist"
    assert other.route.abstained and not other.route.off_topic and not other.route.quotes
    assert "Olive didn't speak to" in other.route.reason and "Dan did" in other.route.reason


def test_other_panelist_after_a_specific_the_talk_never_gave_says_so_not_who_did(router):
    """The first question was declined because the talk never gave a context length: asking Olive next
    does not claim that Dan spoke to it (he only spoke nearby), with an off-topic turn between."""
    first, _, other = talk(
        router,
        "What's the context length of M3?",
        "what's the best pizza in town?",
        "what does Olive think?",
    )
    assert first.route.unstated == "a context length"
    assert other.route.abstained and not other.route.quotes
    assert other.route.reason == "The talk never gave a context length; Olive didn't speak to it"


def test_after_an_introduction_a_question_about_her_in_new_words_is_put_to_her(router):
    """'who is Olive?' then 'why would her lab give the model away?': nothing more on her introduction
    answers it, so it is a new question to Olive (her quote on open source), not 'Olive didn't speak to
    that (Dan did)'."""
    _, then = talk(router, "who is Olive?", "so why would her lab give the model away?")
    assert not then.route.abstained and then.route.speakers == ["olive"]
    assert ids(then)[0] == "olive-02"
    assert then.route.reason == "a new question to Olive, just introduced"
    # ... and one the introduction's context gave to someone else ("his" is Dan's)
    _, his = talk(router, "who is Dan?", "and what is his company's goal?")
    assert his.route.speakers == ["dan"] and ids(his)[0] == "dan-03"
    # ... while one about something the panel never discussed stays declined
    _, off = talk(router, "who is Dan?", "does he like pizza?")
    assert off.route.abstained and off.route.off_topic


def test_other_panelist_who_spoke_to_it_answers(router):
    first = resolve(router, [], "Dan, why does Together care about open source?")
    assert first.route.speakers == ["dan"]
    history = [turn_of(first, "Dan, why does Together care about open source?")]
    other = resolve(router, history, "how about the other side?")
    assert other.kind == "other_panelist" and other.route.speakers == ["olive"]
    assert {sq.quote.question for sq in other.route.quotes[:1]} == {"q03"}


def test_elaboration_carries_the_subject_below_new_words(router):
    first, then = talk(
        router,
        "How do you train a model to replicate a 12-hour research paper run?",
        "was that stable?",
    )
    assert then.kind == "elaboration" and then.route.speakers == first.route.speakers == ["olive"]
    assert then.context is not None and then.context["subject"]


def test_topic_switch_is_answered_on_its_own(router):
    msg = "How do you evaluate long-horizon runs with intermediate checks?"
    _, switched = talk(router, KV, msg)
    plain = router.route(msg)
    assert switched.context is None
    assert switched.route.speakers == plain.speakers == ["olive"]
    assert ids(switched) == [sq.quote.id for sq in plain.quotes]


@pytest.mark.parametrize(
    "msg",
    [
        "cool - unrelated, any good hiking trails near Denver?",
        "what about the best pizza in Naples?",
        "and does that work for sourdough baking?",
    ],
)
def test_off_topic_in_the_middle_is_declined(router, msg):
    _, res = talk(router, KV, msg)
    assert res.route.abstained and res.route.off_topic


@pytest.mark.parametrize(
    "msg", ["How much does it cost to serve M3?", "what's its context length?"]
)
def test_a_specific_never_given_is_declined_mid_conversation_as_on_its_own(router, msg):
    """No earlier subject can answer a price or a context length: declined, saying what was said nearby,
    never answered as an elaboration of the KV-cache answer."""
    _, res = talk(router, KV, msg)
    assert res.route.abstained and res.route.unstated and res.context is None
    assert res.route.unstated == router.route(msg).unstated


def test_declined_turn_leaves_the_subject(router):
    *_, more = talk(router, KV, "unrelated: any good hiking trails near Denver?", "tell me more")
    assert more.kind == "continuation" and more.route.speakers == ["dan"]


def test_target_is_checked_and_respected(router):
    with pytest.raises(ValueError):
        resolve(router, [], "tell me more", target="nobody")
    history = [ConversationTurn(OPEN, ["olive"], ["olive-02"])]
    res = resolve(router, history, "tell me more", target="dan")
    assert res.route.speakers in (["dan"], [])


def test_deterministic(router):
    a = [
        (r.kind, r.route.speakers, ids(r), r.route.reason)
        for r in talk(router, KV, "why?", "do you agree?")
    ]
    b = [
        (r.kind, r.route.speakers, ids(r), r.route.reason)
        for r in talk(router, KV, "why?", "do you agree?")
    ]
    assert a == b


_text = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=60)
_turn = st.builds(
    ConversationTurn,
    question=_text | st.sampled_from([KV, OPEN, "tell me more", "why?", "what does Olive think?"]),
    speakers=st.lists(st.sampled_from(["dan", "olive", "", "nobody"]), max_size=3),
    quote_ids=st.lists(st.sampled_from(["dan-22", "olive-02", "x", "", "dan-99"]), max_size=4),
    target=st.sampled_from(["auto", "both", "dan", "olive", "???"]),
)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    history=st.lists(_turn, max_size=6),
    message=_text
    | st.sampled_from(["tell me more", "why?", "Dan, same question?", "do you agree?"]),
    target=st.sampled_from(["auto", "both", "dan", "olive"]),
)
def test_never_crashes_on_arbitrary_conversations(router, history, message, target):
    res = resolve(router, history, message, target)
    json.dumps(res.context)
    assert res.route.abstained == (not res.route.speakers)
    assert all(sq.quote.speaker in res.route.speakers for sq in res.route.quotes)


@pytest.mark.parametrize("typo", ["tel me mroe", "pls go on", "explian that"])
def test_misspelt_follow_up_words(router, typo):
    _, more = talk(router, KV, typo)
    assert more.kind == "continuation" and more.route.speakers == ["dan"]


def test_misspelt_other_panelist(router):
    _, other = talk(router, KV, "wat does olive thnik?")
    assert other.kind == "other_panelist" and "Dan did" in other.route.reason


def test_reaction_in_front_is_ignored(router):
    _, more = talk(router, KV, "Interesting. Why's that?")
    assert more.kind == "reason" and more.route.speakers == ["dan"]


def test_continue_with_another_panelist_picked_is_their_take(router):
    history = [ConversationTurn(KV, ["dan"], ["dan-22", "dan-23", "dan-24"])]
    res = resolve(router, history, "tell me more", target="olive")
    assert (
        res.kind == "other_panelist"
        and res.route.abstained
        and "Olive didn't speak to" in res.route.reason
    )


def test_follow_up_to_both_continues_both(router):
    first = resolve(router, [], "What do you both think about open source?")
    assert set(first.route.speakers) == {"dan", "olive"}
    more = resolve(router, [turn_of(first, "What do you both think about open source?")], "go on")
    assert more.kind == "continuation" and more.route.speakers
    assert set(more.route.speakers) <= {"dan", "olive"}
    assert not set(ids(more)) & set(ids(first))


def test_speakers_are_taken_from_the_quotes_when_not_given(router):
    """A front end that only knows which quote ids were cited (an OpenAI-style transcript) still follows up."""
    res = resolve(
        router, [ConversationTurn(KV, [], ["dan-22", "dan-23", "dan-24"])], "tell me more"
    )
    assert res.kind == "continuation" and res.route.speakers == ["dan"]
    assert not {"dan-22", "dan-23", "dan-24"} & set(ids(res))


# --- after the router merge: first answers show the whole answer, so continuations lean on related quotes


def test_organisation_alone_asks_its_panelist_the_same_subject(router):
    # the organisation is evidence the message is about the panel, not a subject of its own
    first, other, more = talk(
        router,
        "Olive, why open source your strongest model?",
        "and how does Together see it?",
        "say more about that",
    )
    assert first.route.speakers == ["olive"]
    assert other.kind == "other_panelist" and other.route.speakers == ["dan"]
    # what named Dan ("Together") did not become the subject: more of Dan on open source, nothing repeated
    assert more.kind == "continuation" and more.route.speakers == ["dan"]
    assert not set(ids(more)) & (set(ids(first)) | set(ids(other)))


def test_continuation_related_by_a_distinctive_word(router):
    # every KV quote of the first answer shown: "keep going" goes on to Dan's other KV cache quotes
    first, why = talk(router, KV, "keep going")
    assert why.kind == "continuation" and why.route.speakers == ["dan"]
    assert ids(why) and not set(ids(why)) & set(ids(first))
    assert all("kv cache" in sq.quote.text.lower() for sq in why.route.quotes)


def test_continuation_not_related_by_a_word_said_everywhere(router):
    # "inference" and "optimize" run through most of what Dan said: they make no quote "more on this"
    q = "Where do you get the biggest speedups in inference?"
    history = [ConversationTurn(q, ["dan"], ["dan-17", "dan-18", "dan-14"])]
    res = resolve(router, history, "anything else?")
    assert res.route.abstained and not res.route.off_topic
    assert "nothing more" in res.route.reason


def test_continuation_naming_what_was_shown_answers_it_again(router):
    # "tell me more about X" when all that was said of X is on screen: answered, not declined
    history = [
        ConversationTurn(
            "How do you evaluate long-horizon runs?", ["olive"], ["olive-13", "olive-11"]
        ),
        ConversationTurn(
            "what do you do when the model hacks the test?", ["olive"], ["olive-13", "olive-14"]
        ),
    ]
    res = resolve(router, history, "tell me more about those internal evaluations")
    assert res.kind == "elaboration" and res.route.speakers == ["olive"]
    assert "olive-14" in ids(res)[:3]


def test_declined_follow_up_offers_what_would_be_answered_here(router):
    first, more, olive, again = talk(router, KV, "go on", "what does Olive think?", "tell me more")
    assert olive.route.abstained and again.route.abstained and not again.route.off_topic
    assert again.route.suggestions
    history = [turn_of(r, m) for r, m in zip((first, more), (KV, "go on"), strict=True)]
    for text in again.route.suggestions:  # each one is answered in this very conversation
        res = resolve(router, history, text)
        assert not res.route.abstained and res.route.quotes


def test_elaboration_new_word_that_stands_outweighs_a_long_subject(router):
    # "DeepSeek" is one word against the KV subject's many: the quote that says it leads
    first, same = talk(router, KV, "is that the same as what DeepSeek does?")
    assert same.kind == "elaboration" and same.route.speakers == ["dan"]
    assert "deepseek" in same.route.quotes[0].quote.text.lower()


def test_continuation_goes_on_with_the_answer_not_with_a_related_quote(router):
    # "go on" brought in quotes that mention the KV cache in passing; "tell me more" does not go on to the
    # rest of the answers those came from (the day-zero story), it stays on the KV cache or says so
    *_, more = talk(router, KV, "go on", "tell me more")
    assert more.kind == "continuation"
    assert more.route.abstained or all(
        "kv cache" in sq.quote.text.lower() for sq in more.route.quotes
    )


@pytest.mark.parametrize(
    "question",
    [
        KV,
        OPEN,
        "What matters most when you design RL environments for hard domains?",
        "How did the partnership between Together and MiniMax start?",
    ],
)
def test_nothing_more_names_the_other_panelist_only_when_they_would_answer(router, question):
    history: list[ConversationTurn] = []
    for message in (question, "tell me more", "tell me more", "tell me more"):
        res = resolve(router, history, message)
        history.append(turn_of(res, message))
        if res.route.abstained and "spoke to this too" in res.route.reason:
            other = next(p for p in router.panel.panelists if p not in history[0].speakers)
            for ask in (
                f"what does {router.panel.panelists[other].name.split()[0]} think?",
                f"and {router.panel.display_name(other)}?",  # the question the reason names
            ):
                assert f"\u201cand {router.panel.display_name(other)}?\u201d" in res.route.reason
                asked = resolve(router, history, ask)
                assert not asked.route.abstained and asked.route.speakers == [other]


# --- a named panelist never repeats herself; "why?" looks for the reason; "how so?" stays in the answer


def _said_by(router, speaker: str, history: list[ConversationTurn]) -> set[str]:
    return {q for t in history for q in t.quote_ids if router.panel.quote(q).speaker == speaker}


@pytest.mark.parametrize("ask", ["and Olive?", "what does Olive think?", "Olive, your view?"])
def test_named_panelist_after_an_answer_both_gave_only_adds(router, ask):
    first = resolve(router, [], OPEN, "both")
    assert set(first.route.speakers) == {"olive", "dan"}
    history = [turn_of(first, OPEN)]
    res = resolve(router, history, ask)
    shown_olive = _said_by(router, "olive", history)
    assert shown_olive  # she spoke in the first answer
    if res.route.abstained:
        # nothing left: said plainly, naming what she did say, by id
        assert "nothing more" in res.route.reason and all(
            q in res.route.reason for q in shown_olive
        )
    else:
        assert res.route.speakers == ["olive"] and not set(ids(res)) & shown_olive


def test_named_panelist_with_nothing_left_says_so_by_id(router):
    history = [
        ConversationTurn(OPEN, ["olive", "dan"], [q.id for q in router.panel.quotes]),
        ConversationTurn("and Dan?", ["dan"], []),
    ]
    for ask in ("and Olive?", "what does Dan think?"):
        res = resolve(router, history, ask)
        assert res.route.abstained and not res.route.off_topic and not res.route.quotes
        assert "nothing more" in res.route.reason
        assert re.search(r"\((?:dan|olive)-\d+(?:, (?:dan|olive)-\d+)*\)", res.route.reason)


def test_other_panelist_never_repeats_a_shown_quote(router):
    # Dan answers, Olive is asked, then Dan again: each time only what that panelist has not said yet
    history: list[ConversationTurn] = []
    for message in (
        "Dan, why does Together care about open source?",
        "and Olive?",
        "and Dan?",
        "Olive?",
    ):
        res = resolve(router, history, message)
        if history:
            assert not set(ids(res)) & {q for t in history for q in t.quote_ids}
        history.append(turn_of(res, message))


@pytest.mark.parametrize(
    "why", ["why?", "Why is that?", "how come?", "ok, why's that?", "and why?"]
)
def test_why_gives_the_reason_in_the_talk(router, why):
    # Dan said what the benchmark is; why they put it out is the rest of that answer ("one of the reasons")
    history = [
        ConversationTurn(
            "Did Together release a benchmark for kernels?", ["dan"], ["dan-07", "dan-08"]
        )
    ]
    res = resolve(router, history, why)
    assert res.kind == "reason" and res.route.speakers == ["dan"]
    assert ids(res)[0] == "dan-09"
    assert "the reason Dan gave [dan-09]" in res.route.reason
    assert (
        "reasons" in res.route.reason or "intentions" in res.route.reason
    )  # the sentence giving it


def test_why_may_point_at_a_quote_already_shown_and_says_so(router):
    # the reason sits in what was just shown ("because it's very long horizon"): its sentences that give it,
    # not the same passage again, and the note says where it was
    history = [
        ConversationTurn(
            "Is it hard to train a model to replicate a paper?", ["olive"], ["olive-11"]
        )
    ]
    res = resolve(router, history, "why?")
    assert res.kind == "reason" and "olive-11" in ids(res)
    assert "the reason Olive gave is in what was shown above [olive-11]" in res.route.reason
    given = next(sq.quote.text for sq in res.route.quotes if sq.quote.id == "olive-11")
    whole = " ".join(router.panel.quote("olive-11").text.split())
    assert "because" in given and given != whole and given in whole


def test_why_without_a_reason_in_the_talk_says_so(router):
    history = [
        ConversationTurn("Can M3 help people make games?", ["olive"], ["olive-05", "olive-06"])
    ]
    res = resolve(router, history, "why?")
    assert res.kind == "reason" and res.route.abstained and not res.route.off_topic
    assert "gave no reason" in res.route.reason and "olive-05" in res.route.reason


def test_reasons_module_markers():
    from panelbot.conversation.reasons import asks_why, causes, reason_excerpt, states_cause

    assert all(
        asks_why(m)
        for m in ("why?", "Why's that?", "how come?", "and why not?", "what's the reasoning?")
    )
    assert not any(
        asks_why(m) for m in ("tell me more", "what does Olive think?", "how so?", "who said why")
    )
    assert causes("We did it because it was cheap, so that everyone can use it.") == 2
    assert causes("We trained it on images and text.") == 0
    assert states_cause("We ship weekly so that it gets faster.") and not states_cause(
        "We found it was slow."
    )
    text = "We started early. " + "word " * 40 + "and that is why we ship weekly."
    excerpt = reason_excerpt(text)
    assert "that is why" in excerpt and len(excerpt.split()) <= 32 and excerpt.startswith("\u2026")
    assert reason_excerpt("No cause here.") == ""


def test_how_so_stays_in_the_answer_given(router):
    # "how so?" asks what was just said means: the rest of that answer, never a related one elsewhere
    history = [ConversationTurn("How do you evaluate long runs?", ["olive"], ["olive-14"])]
    res = resolve(router, history, "how so?")
    turn = router.panel.quote("olive-14").turn
    assert res.kind == "continuation" and res.route.quotes
    assert all(sq.quote.turn == turn for sq in res.route.quotes)
    history = [
        ConversationTurn("How do you evaluate long runs?", ["olive"], ["olive-13", "olive-14"])
    ]
    res = resolve(router, history, "how so?")
    # all of it shown: the passage again, in context (its turn, in spoken order), never "nothing more"
    assert not res.route.abstained and "nothing more" not in res.route.reason
    assert all(sq.quote.turn == turn for sq in res.route.quotes)
    assert "in context" in res.route.reason
    # "tell me more" may still go on to related answers
    more = resolve(router, history, "tell me more")
    assert more.route.quotes and all(sq.quote.turn != turn for sq in more.route.quotes)


def test_a_stated_reason_already_shown_beats_new_grounds(router):
    # the reason (dan-09, "one of the reasons") was in the answer; dan-08 only says what they found
    history = [
        ConversationTurn("Did Together release a kernel benchmark?", ["dan"], ["dan-07", "dan-09"])
    ]
    res = resolve(router, history, "why?")
    assert ids(res)[0] == "dan-09"
    assert "the reason Dan gave is in what was shown above [dan-09]" in res.route.reason


@pytest.mark.parametrize("why", ["Dan, why?", "why, Dan?"])
def test_why_asked_of_a_panelist_by_name(router, why):
    history = [
        ConversationTurn(
            "Did Together release a benchmark for kernels?", ["dan"], ["dan-07", "dan-08"]
        )
    ]
    res = resolve(router, history, why)
    assert res.kind == "reason" and res.route.speakers == ["dan"] and ids(res)[0] == "dan-09"
    # asked of the panelist who never spoke to it: said so, no reason made up
    res = resolve(
        router, [ConversationTurn(KV, ["dan"], ["dan-22", "dan-23"])], why.replace("Dan", "Olive")
    )
    assert res.kind == "reason" and res.route.abstained and not res.route.quotes
    assert "Olive didn't speak to" in res.route.reason and "Dan did" in res.route.reason


def test_why_asked_again_does_not_give_the_same_reason_as_new(router):
    history = [
        ConversationTurn(
            "Did Together release a benchmark for kernels?", ["dan"], ["dan-07", "dan-08"]
        )
    ]
    first = resolve(router, history, "why?")
    history.append(turn_of(first, "why?"))
    again = resolve(router, history, "but why would they do that?")
    assert again.kind == "reason"
    assert not set(ids(again)) & set(ids(first))
    if again.route.abstained:
        assert "no other reason" in again.route.reason and ids(first)[0] in again.route.reason


@pytest.mark.parametrize(
    "follow_up",
    [
        "could I use that to cache the photos on my blog?",
        "would that help me store images for my website?",
    ],
)
def test_a_follow_up_about_the_users_own_case_in_another_sense_is_declined(router, follow_up):
    # the panel's words ("cache", "images", "website") in the user's own sense: nothing the talk says of the
    # KV cache is about them, so no KV cache quote answers it
    first, res = talk(router, KV, follow_up)
    assert first.route.speakers == ["dan"]
    assert res.route.abstained and res.route.off_topic and not res.route.quotes


def test_a_follow_up_about_the_users_own_case_on_the_subject_is_answered(router):
    _, res = talk(router, KV, "how would I handle that for my own long-context requests?")
    assert res.route.speakers == ["dan"] and not res.route.abstained


def test_a_follow_up_names_a_panelist_spelt_with_a_letter_nfkd_keeps(bread_router) -> None:
    r = bread_router
    first, other = talk(r, "Zoë, how long does it take to breed a new variety?", "and Rafał?")
    assert first.route.speakers == ["zoe"]
    assert other.route.speakers == ["rafal"]
    _, by_lead = talk(r, "Zoe, how long does it take to breed a new variety?", "Rafał, and you?")
    assert by_lead.route.speakers == ["rafal"]


def _said_ids(reason: str) -> list[str]:
    return re.findall(r"\b[a-z]+-\d+\b", reason)


def test_asking_a_panelist_again_gives_only_what_they_said_on_the_subject(router):
    # asked of both, then of the other one; asking the first again must stay on the subject -- the rest of
    # the turn that moved on to another subject is not "what Dan thinks" of it
    question = "Why did you open source M3?"
    history = [turn_of(resolve(router, [], question, target="both"), question)]
    res = resolve(router, history, "and Olive?")
    history.append(turn_of(res, "and Olive?"))
    floor = router.settings.min_quote_score
    for _ in range(8):
        res = resolve(router, history, "What does Dan think?")
        if res.route.abstained:
            break
        assert res.route.speakers == ["dan"]
        assert all(sq.score >= floor for sq in res.route.quotes), [
            (sq.quote.id, sq.score) for sq in res.route.quotes
        ]
        history.append(turn_of(res, "What does Dan think?"))
    assert res.route.abstained and not res.route.off_topic and "nothing more" in res.route.reason
    # ... and it names everything of his that was shown on it, in the order he said it in the talk
    shown_dan = {q for t in history for q in t.quote_ids if q.startswith("dan-")}
    named = _said_ids(res.route.reason)
    assert set(named) == shown_dan
    order = [(router.panel.quote(q).turn, router.panel.quote(q).sentences[0]) for q in named]
    assert order == sorted(order)


def test_nothing_more_names_what_was_said_in_the_talks_order(router):
    dan = [q.id for q in router.panel.quotes if q.speaker == "dan"]
    history = [ConversationTurn(KV, ["dan"], list(reversed(dan)))]
    res = resolve(router, history, "tell me more")
    named = _said_ids(res.route.reason)
    assert named and "dan-22" in named
    order = [(router.panel.quote(q).turn, router.panel.quote(q).sentences[0]) for q in named]
    assert order == sorted(order)


def test_a_reason_just_shown_must_be_given_for_the_subject(router):
    # every "why?" answer's reason sentence (quoted in the note) shares the subject's words; a cause given in
    # passing for something else in a passage just shown is not offered as the reason
    from panelbot.conversation.reasons import CAUSE

    for question in (
        "How does the KV cache affect agents?",
        "How do you deal with a KV cache that keeps growing?",
        "Why did MiniMax open source its strongest model?",
    ):
        first, why = talk(router, question, "why?")
        if why.route.abstained:
            assert not why.route.quotes and "reason" in why.route.reason
            continue
        shown = set(ids(first))
        for sq in why.route.quotes:
            if sq.quote.id in shown:
                # reprinted: only its part that gives the reason, and that on the subject
                excerpt = sq.quote.text
                assert CAUSE.search(excerpt)
                assert any(
                    w in excerpt.lower() for w in ("cache", "agent", "open", "model", "grow")
                ), excerpt
    _, why = talk(router, "How does the KV cache affect agents?", "why?")
    assert "chat world" not in why.route.reason


def test_a_panelist_named_in_the_possessive_mid_conversation_is_asked(router):
    for ask in (
        "What's Olive's take?",
        "What is Olive's view on that?",
        "and Olive\u2019s thoughts?",
    ):
        _, other = talk(router, "Dan, why does Together care about open source?", ask)
        assert other.kind == "other_panelist" and other.route.speakers == ["olive"], ask
    _, other = talk(router, KV, "What's Olive's take?")
    assert (
        other.route.abstained
        and not other.route.off_topic
        and "Olive didn't speak to" in other.route.reason
    )
    _, intro = talk(router, KV, "What's Olive's background?")
    assert intro.route.speakers == ["olive"] and ids(intro)[0] == "olive-01"


_WORD = st.sampled_from(
    ["we", "model", "serve", "cache", "fast", "the", "data", "train", "users", "long"]
)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(_WORD, min_size=2, max_size=28), min_size=1, max_size=5), st.data())
def test_a_reason_is_quoted_from_a_sentence_start_with_its_marker(sentences, data):
    from panelbot.conversation.reasons import reason_excerpt

    n = data.draw(st.integers(0, len(sentences) - 1))
    at = data.draw(st.integers(0, len(sentences[n])))
    sentences[n] = [*sentences[n][:at], "because", *sentences[n][at:]]
    starts = [" ".join(s) for s in sentences]
    text = " ".join(f"{s}." for s in starts)
    excerpt = reason_excerpt(text)
    assert "because" in excerpt
    assert any(
        excerpt.startswith(s[:30]) for s in starts
    )  # every sentence here is short enough to start at


def test_the_reason_note_starts_at_a_sentence_and_names_the_subject(router, shipped_panel):
    # "why?" after the KV cache answer: Dan's reason comes from another answer (dan-15) whose "because"
    # sentence leans on the one before it ("So, it informs ...") -- the reason is taken from the start of both
    from panelbot.conversation import resolve as resolve_mod
    from panelbot.conversation.reasons import reason_excerpt

    first, why = talk(router, "How do you deal with a growing KV cache?", "why?")
    assert why.kind == "reason" and why.route.speakers == ["dan"]
    note = why.route.reason
    qid = re.search(r"gave \[([\w-]+)\]", note).group(1)
    assert qid in [
        sq.quote.id for sq in why.route.quotes
    ]  # the passage itself is shown with the note
    text = " ".join(shipped_panel.quote(qid).text.split())
    excerpt = reason_excerpt(text, lambda s: float("cache" in s.lower())).rstrip("\u2026")
    assert not excerpt.startswith("\u2026") and (text.startswith(excerpt) or f". {excerpt}" in text)
    assert "cache" in excerpt.lower() and "because" in excerpt
    # the note quotes the reason only when that singles out part of the passage; most of it again, never
    quoted = note.split("\u201c", 1)[1].rsplit("\u201d", 1)[0] if "\u201c" in note else ""
    assert len(quoted.split()) < resolve_mod.EXCERPT_SHARE * len(text.split())


def test_another_answers_reason_must_say_something_of_the_subject():
    from panelbot.conversation.reasons import cause_sentences, reason_excerpt

    def about(s: str) -> float:
        return float("cache" in s.lower())

    text = "We keep the cache on fast disks. So it stays close because moving it is slow. Lunch was good."
    assert cause_sentences(text, about) == [
        (
            "So it stays close because moving it is slow.",
            "We keep the cache on fast disks. So it stays close because moving it is slow.",
        )
    ]
    assert reason_excerpt(text, about).startswith("We keep the cache")
    other = "We like pizza. The oven is hot because it is big."
    assert not any(about(said) for _, said in cause_sentences(other, about))


def test_the_subject_is_named_with_its_acronyms_capitalised(router):
    """A topic is stored in lower case ("kv cache storage"); the note says it as the talk writes it."""
    _, other = talk(router, KV, "and Olive?")
    assert other.route.abstained and "KV cache" in other.route.reason
    assert "kv cache" not in other.route.reason


def test_cased_takes_acronyms_and_mixed_case_never_a_sentence_capital():
    from panelbot.text import cased_like as _cased

    assert _cased("kv cache storage", "How do you deal with a KV cache?") == "KV cache storage"
    assert (
        _cased("minimax sparse attention", "So the MiniMax sparse attention. Sparse is fine.")
        == "MiniMax sparse attention"
    )
    assert (
        _cased("gpu kernels", "Kernels matter. GPUs too.") == "GPU kernels"
    )  # an acronym's plural writes it too: "GPUs" is "GPU" (a reader saw "talked about gpu underutilization")
    assert _cased("post-training data", "Post-training is hard.") == "post-training data"
    assert _cased("m3 launch", "So, for M3, for example") == "M3 launch"


@pytest.mark.parametrize(
    "message",
    [
        "tell me more",
        "why?",
        "go on",
        "ok, why?",
        "what does the other panelist think?",
        "can you explain that?",
    ],
)
def test_a_follow_up_before_anything_was_answered_says_so(router, message):
    from panelbot.conversation.resolve import NOTHING_TO_FOLLOW

    for history in ([], [ConversationTurn("hi", [], [])]):  # nothing yet, or only small talk
        res = resolve(router, history, message)
        assert (
            res.route.abstained
            and res.route.reason == NOTHING_TO_FOLLOW
            and not res.route.off_topic
        )
        assert res.route.suggestions  # questions that do have an answer


@pytest.mark.parametrize(
    "message", ["why is pizza round?", "tell me more about pizza", "what about the weather?"]
)
def test_an_off_topic_question_with_a_follow_up_word_is_still_off_topic(router, message):
    res = resolve(router, [], message)
    assert (
        res.route.abstained
        and res.route.off_topic
        and res.route.reason != "nothing to follow up on yet"
    )


def test_nothing_to_follow_reads_as_a_decline_line(router, shipped_panel):
    from panelbot.answer.compose import decline_text

    text = decline_text(shipped_panel, resolve(router, [], "tell me more").route)
    assert text.startswith(
        "Nothing to follow up on yet: ask about something from the talk first.\nTry: "
    )


@pytest.mark.parametrize("pointer", ["what about her?", "And how about him?", "what about them"])
def test_someone_pointed_at_by_a_pronoun_is_the_other_panelist_not_the_talks_framing(
    router, pointer
):
    # "what about her?" reads close to "what is it about?" by meaning; after Dan's answer it asks the
    # other panelist, exactly as naming her does -- never the talk's framing with both introductions
    named = talk(router, KV, "what about Olive?")[-1]
    pointed = talk(router, KV, pointer)[-1]
    assert pointed.kind == named.kind == "other_panelist"
    assert pointed.route.speakers == named.route.speakers
    assert pointed.route.reason == named.route.reason
    assert "framing" not in pointed.route.reason
    # the talk's framing asked mid-conversation is still the framing
    framing = talk(router, KV, "what is this talk about?")[-1]
    assert framing.kind == "standalone" and "framing" in framing.route.reason


@pytest.mark.parametrize("other", ["and the other one?", "what about her?"])
def test_the_other_one_after_a_panelists_introduction_is_the_other_panelist(router, other):
    # "who is Dan?" then "and the other one?": Olive's introduction, as "and Olive?" gives -- never more of
    # Dan, the one just introduced
    named = talk(router, "What does Dan do?", "and Olive?")[-1]
    pointed = talk(router, "What does Dan do?", other)[-1]
    assert named.route.speakers == ["olive"]
    assert pointed.route.speakers == ["olive"]
    assert ids(pointed) == ids(named)


def test_how_so_after_an_answer_led_by_an_introduction_explains_the_answer_not_the_job(router):
    # a paraphrase whose best quote is Dan's self-introduction ("I lead inference, GPU optimization"):
    # "how so?" asks what he said of the subject -- the passage of the next quote, not his job again
    question = "how do you make the graphics cards run the model faster?"
    first, how_so = talk(router, question, "how so?")
    intro = router.framing_reader().introductions()["dan"].id
    assert ids(first)[0] == intro and len(ids(first)) > 1  # the case this is about
    assert how_so.kind == "continuation" and how_so.route.speakers == ["dan"]
    assert intro not in ids(how_so)
    assert ids(first)[1] in ids(how_so)  # the next quote of the answer, in its passage


def test_a_panelist_asked_about_after_the_framing_names_the_subject(router):
    """After "what is this talk about?" then "who is Olive?", a follow-up about "her" is on Olive's
    introduction, not on the first panelist's (the subject was named by the framing's first quote)."""
    *_, last = talk(
        router,
        "what is this talk about?",
        "who is Olive?",
        "how does she keep the model from cheating on its tests?",
    )
    assert last.route.speakers == ["olive"]
    assert "Dan" not in last.route.reason and "Olive's role" in last.route.reason


def test_a_panelist_described_by_organisation_is_asked_for_their_view(router):
    """ "the MiniMax person" asks Olive, as "and Olive?" would: her view of the subject so far, or that she
    did not speak to it -- never a new question about "minimax person"."""
    first, other = talk(router, KV, "what does the MiniMax person think?")
    assert first.route.speakers == ["dan"]
    assert other.context is not None and other.context["kind"] == "other_panelist"
    assert other.route.speakers == [] and "Olive didn't speak to" in other.route.reason
    first, other = talk(router, "How do you design RL environments?", "and the Together side?")
    assert other.context["kind"] == "other_panelist" and "Dan didn't speak to" in other.route.reason


def test_does_she_agree_with_him_asks_the_other_panelist_even_with_a_subject_of_its_own(router):
    """Seen in the app: after Dan's answer, 'and does she agree with him about open models?' was read as
    more from Dan. Asking someone else to agree is their view, on the words it names."""
    first, then = talk(
        router,
        "so what does the guy from together do all day?",
        "and does she agree with him about open models?",
    )
    assert first.route.speakers == ["dan"]
    assert then.kind == "other_panelist" and then.route.speakers == ["olive"]
    assert "olive-02" in ids(then)
    # ... while a question that only names its own subject stays with whoever answers it best
    _, own = talk(
        router, "so what does the guy from together do all day?", "and what about open models?"
    )
    assert own.kind != "other_panelist"


def test_after_an_introduction_an_answer_on_something_else_moves_the_subject(router):
    """Seen in the app: 'who is Olive?', 'how does she stop the model from cheating?' (olive-13), then
    'does he agree with her?' gave Dan's introduction -- the subject had stayed her role. Answered by none
    of the introduction's quotes, the conversation is on reward hacking now."""
    _, cheating, agree = talk(
        router,
        "who is Olive?",
        "how does she stop the model from cheating?",
        "does he agree with her?",
    )
    assert cheating.route.speakers == ["olive"] and "olive-01" not in ids(cheating)
    assert agree.kind == "other_panelist" and agree.route.abstained
    assert "dan-01" not in ids(agree)
    assert agree.route.reason == "Dan didn't speak to reward hacking on the panel (Olive did)"


@pytest.mark.parametrize(
    "question",
    [
        "why would a company give its model away?",
        "why do labs open source their models?",
        "what makes a model good at its job as an agent?",
    ],
)
def test_a_possessive_the_question_binds_itself_does_not_point_back(router, question):
    """After "who is Dan?", a question whose "its"/"their" refers to a noun it brought in itself ("a
    company ... its model") is a question of its own, answered as if asked first."""
    _, res = talk(router, "who is Dan?", question)
    alone = router.route(question)
    assert res.kind == "standalone" and res.context is None
    assert res.route.speakers == alone.speakers and ids(res) == [sq.quote.id for sq in alone.quotes]


@pytest.mark.parametrize(
    "message", ["can you say a bit about its design?", "what do they think?", "and their weights?"]
)
def test_a_pronoun_with_nothing_in_the_message_to_refer_to_still_points_back(message):
    from panelbot.conversation.cues import points_back

    assert points_back(message)
