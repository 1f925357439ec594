"""Follow-ups from the new-user trials (panelbot.conversation.resolve): a follow-up that moves on to new words
names them as its subject, for itself and for the turns after it; "why?" gives the passage that explains, not
the quote it explains again."""

from __future__ import annotations

from test_resolve import ids, talk

from panelbot.conversation.resolve import resolve
from panelbot.conversation.turns import ELABORATION, OTHER_PANELIST, ConversationTurn

AGENTIC = "Do agentic workloads with lots of tool calls change how you build inference?"
MULTIMODAL = "How did you train M3 to be multimodal?"


def test_a_follow_up_on_new_words_is_labelled_by_them(router):
    """ "what does he think about sparse attention?" after Dan on agentic workloads: his answer on sparse
    attention, labelled as a follow-up about it -- not "your question about agentic workloads"."""
    first, moved = talk(router, AGENTIC, "what does he think about sparse attention?")
    assert first.route.speakers == ["dan"] and moved.kind == ELABORATION
    assert moved.route.speakers == ["dan"]
    assert "sparse attention" in moved.context["subject"].lower()
    assert "agentic" not in moved.route.reason.lower()
    assert "sparse attention" in moved.route.reason.lower()


def test_the_next_turn_is_on_the_subject_the_follow_up_moved_to(router):
    """ "does Olive agree with him?" then asks about sparse attention: declined naming it, not agentic
    workloads."""
    *_, agree = talk(
        router, AGENTIC, "what does he think about sparse attention?", "does Olive agree with him?"
    )
    assert agree.kind == OTHER_PANELIST and agree.route.abstained
    assert "sparse attention" in agree.route.reason.lower()
    assert "agentic" not in agree.route.reason.lower()


def test_the_other_panelist_answers_on_the_subject_moved_to(router):
    *_, agree = talk(
        router, MULTIMODAL, "what does she think about open source?", "does Dan agree with her?"
    )
    assert agree.route.speakers == ["dan"]
    assert "open source" in agree.context["subject"].lower()
    assert {"dan-02", "dan-27", "dan-03"} & {q.quote.id for q in agree.route.quotes}


def test_a_follow_up_on_the_same_answer_keeps_the_subject(router):
    """An elaboration answered from the answer it follows ("how long does that take?" after the KV cache)
    stays on its subject, as "tell me more" does."""
    kv = "How do you deal with a KV cache that keeps growing?"
    _, more = talk(router, kv, "tell me more")
    _, moved = talk(router, kv, "how long does that take?")
    assert moved.kind == ELABORATION
    assert moved.context["subject"] == more.context["subject"]


def _text(router, qid: str) -> str:
    return " ".join(router.panel.quote(qid).text.split())


def test_why_gives_the_passage_that_explains_not_the_quote_again(router):
    """ "why?" after an answer whose reason sits in it: the sentences that give the reason, verbatim, never
    the whole passage printed again; the note says it is in what was shown."""
    first, why = talk(router, MULTIMODAL, "why?")
    shown = {q.quote.id for q in first.route.quotes}
    assert why.kind == "reason" and why.route.speakers == ["olive"]
    again = [sq for sq in why.route.quotes if sq.quote.id in shown]
    assert again, "the reason sits in the answer just shown"
    for sq in again:
        whole = _text(router, sq.quote.id)
        assert sq.quote.text != whole and sq.quote.text in whole
    assert "in what was shown above" in why.route.reason


def test_why_says_so_when_the_whole_passage_shown_is_the_reason(router):
    """When the sentences giving the reason are all of a passage already shown (dan-15), nothing new explains
    it: the note says it is that passage, all of it."""
    agents = "Do agent workloads with hundreds of tool calls change your inference stack?"
    history = [ConversationTurn(agents, ["dan"], ["dan-15", "dan-16"])]
    res = resolve(router, history, "how come?")
    assert res.kind == "reason" and ids(res)[:1] == ["dan-15"]
    assert (
        "the reason Dan gave is the passage already shown above [dan-15], all of it"
        in res.route.reason
    )


def test_the_other_one_answers_from_the_host_question_that_carried_the_thread_on(router):
    """ "What does the other one think?" after Olive on post-training for kernel tasks: Dan never spoke to
    post-training, but the host's question next to it on stage, put to him, carried its thread on (models
    writing kernels, the kernel benchmark): his answer to it, and the reason says so."""
    first, other = talk(
        router,
        "What does it take to post-train a model for hard domains like kernels?",
        "What does the other one think?",
    )
    assert first.route.speakers == ["olive"] and other.kind == OTHER_PANELIST
    assert other.route.speakers == ["dan"]
    assert {"dan-07", "dan-08", "dan-09"} & set(ids(other)[:3])
    assert "on the same thread" in other.route.reason


def test_the_other_one_is_still_declined_when_no_thread_leads_to_them(router):
    _, other = talk(
        router, "How do you store a KV cache that keeps growing?", "and the other panelist?"
    )
    assert other.route.abstained and "didn't speak to" in other.route.reason


def test_a_decline_does_not_offer_a_question_the_conversation_already_asked(router):
    """A new user's trial: "who is Olive?", then "how old is she?" offered "Try: Who is Olive?"."""
    first, second = talk(router, "who is Olive?", "how old is she?")
    assert second.route.abstained and second.route.suggestions
    assert "who is olive?" not in {s.casefold() for s in second.route.suggestions}
    assert first.route.speakers == ["olive"]
