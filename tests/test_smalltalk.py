"""Small talk ("hi", "thanks!", "ok cool", "bye"): a short, friendly, honest reply in the panel's context, never
the off-topic decline -- and a question that only opens with a greeting or thanks is answered as ever."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from panelbot.answer.compose import decline_text
from panelbot.conversation.resolve import resolve
from panelbot.conversation.turns import SMALL_TALK, ConversationTurn
from panelbot.retrieval.lexicon import specificity
from panelbot.retrieval.smalltalk import small_talk

NAMES = ("Dan", "Dan Fu", "dan", "Olive", "Olive Song", "olive")


@pytest.mark.parametrize(
    ("message", "kind"),
    [
        ("hi", "greeting"),
        ("Hello!", "greeting"),
        ("hey there", "greeting"),
        ("heyy", "greeting"),
        ("good afternoon, everyone", "greeting"),
        ("hiya Olive", "greeting"),
        ("hi Dan and Olive!", "greeting"),
        ("Hello 👋", "greeting"),
        ("hi :)", "greeting"),
        ("how's it going?", "wellbeing"),
        ("how are you guys?", "wellbeing"),
        ("nice to meet you both", "wellbeing"),
        ("thanks!", "thanks"),
        ("thank you, that helps", "thanks"),
        ("Thanks a bunch for the answer", "thanks"),
        ("ty", "thanks"),
        ("much appreciated 🙏", "thanks"),
        ("ok thank you dan", "thanks"),
        ("ok cool", "acknowledgement"),
        ("got it", "acknowledgement"),
        ("fair enough.", "acknowledgement"),
        ("that's super interesting", "acknowledgement"),
        ("very helpful", "acknowledgement"),
        ("i see", "acknowledgement"),
        ("bye", "farewell"),
        ("goodbye everyone", "farewell"),
        ("thanks, bye!", "farewell"),
        ("that's all for today", "farewell"),
        ("I'm done, have a great evening", "farewell"),
        ("take care", "farewell"),
        ("help", "help"),
        ("what can I ask about?", "help"),
        ("what should we ask them?", "help"),
        ("what is this bot?", "help"),
        ("good night and thanks", "farewell"),
        ("no further questions, thanks", "farewell"),
        ("nothing else", "farewell"),
        ("are you human?", "wellbeing"),
        ("that's just what I was looking for", "acknowledgement"),
        ("enjoyed the panel!", "acknowledgement"),
        ("anybody here?", "greeting"),
        ("thank you for the detailed answer!", "thanks"),
        ("hey, thanks for doing this", "thanks"),
        ("Hi! I have a question.", "help"),
        ("may I ask you a quick question?", "help"),
    ],
)
def test_small_talk_is_recognised(message: str, kind: str) -> None:
    assert small_talk(message, NAMES) == kind


@pytest.mark.parametrize(
    "message",
    [
        "Hi, how do you handle KV cache growth?",
        "thanks, and what about Olive?",
        "hello, why open source?",
        "ok, tell me more",
        "cool, why?",
        "great, and for training?",
        "thanks! what does Dan think?",
        "why?",
        "more",
        "go on",
        "Olive",
        "and Dan?",
        "so",
        "high",
        "hey what's new in M3?",
        "what's this?",
        "how does that work?",
        "how are you dealing with long context?",
        "what do you do?",
        "is that right?",
        "Good morning, what's the weather in Paris?",
        "",
        "   ",
        "!!!",
        "thanks " * 40,
        "no more questions about kernels?",
        "is anyone there working on KV caches?",
        "what else?",
        "anything else?",
        "thanks for the answer, what about Olive?",
        "thanks for that. why does it grow?",
        "I have a question about KV caches",
    ],
)
def test_anything_more_is_not_small_talk(message: str) -> None:
    assert small_talk(message, NAMES) == ""


_SOCIAL = st.sampled_from(
    [
        "hi",
        "hello",
        "hey",
        "thanks",
        "thank you",
        "ok",
        "cool",
        "great",
        "got it",
        "bye",
        "cheers",
        "good morning",
        "nice",
    ]
)
_SEP = st.sampled_from([" ", ", ", "! ", ". ", " - ", "... "])


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.tuples(_SOCIAL, _SEP), min_size=1, max_size=4),
    st.sampled_from(["", "!", "?", " :)", "."]),
)
def test_any_run_of_social_phrases_is_small_talk(parts: list[tuple[str, str]], end: str) -> None:
    message = "".join(p + s for p, s in parts).strip() + end
    assert small_talk(message, NAMES)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    _SOCIAL,
    _SEP,
    st.sampled_from(
        [
            "kv cache",
            "post-training",
            "open source",
            "GPU kernels",
            "sparse attention",
            "the weather",
            "pizza",
            "agents",
            "M3",
        ]
    ),
    st.sampled_from(
        ["what about {}?", "how do you handle {}?", "tell me about {}", "{}?", "why {}?"]
    ),
)
def test_social_phrase_with_a_subject_is_not_small_talk(
    social: str, sep: str, subject: str, shape: str
) -> None:
    assert small_talk(social + sep + shape.format(subject), NAMES) == ""


def test_resolver_replies_to_a_greeting_with_the_panel_and_answerable_questions(
    router, shipped_panel
) -> None:
    res = resolve(router, [], "hello there")
    assert res.kind == SMALL_TALK and res.context is None
    route = res.route
    assert (
        route.abstained
        and not route.off_topic
        and route.small_talk == "greeting"
        and not route.quotes
    )
    assert route.to_dict()["kind"] == "small_talk"
    assert 2 <= len(route.suggestions) <= 3
    for s in route.suggestions:  # each one is answered
        assert not router.route(s).abstained
    text = decline_text(shipped_panel, route)
    assert "Not something the panel got into" not in text
    for p in shipped_panel.panelists.values():
        assert p.name in text
    assert text.splitlines()[-1].startswith("Try: ")
    assert decline_text(shipped_panel, route, suggest=False).count("\n") == 0


def test_thanks_after_an_answer_offers_its_follow_ups(router) -> None:
    first = resolve(router, [], "How do you deal with a KV cache that keeps growing?")
    history = [
        ConversationTurn(
            first.route.question,
            list(first.route.speakers),
            [sq.quote.id for sq in first.route.quotes],
        )
    ]
    res = resolve(router, history, "thank you, that helps")
    assert res.kind == SMALL_TALK and res.route.small_talk == "thanks"
    from panelbot.conversation.followups import suggest_followups

    assert res.route.suggestions == [f.text for f in suggest_followups(router, history)]
    # ... and the conversation goes on from the answer: the thanks is not a subject
    later = resolve(
        router, [*history, ConversationTurn("thank you, that helps", [], [])], "tell me more"
    )
    assert later.kind == "continuation" and later.route.speakers == ["dan"]


def test_a_goodbye_offers_no_more_questions(router, shipped_panel) -> None:
    route = resolve(router, [], "ok bye!").route
    assert route.small_talk == "farewell" and route.suggestions == []
    assert "\n" not in decline_text(shipped_panel, route)


@pytest.mark.parametrize(
    ("message", "speaker"),
    [
        ("Hi, how do you handle KV cache growth?", "dan"),
        ("Hello! Why did MiniMax make its model open source?", "olive"),
    ],
)
def test_a_question_opening_with_a_greeting_is_answered(router, message: str, speaker: str) -> None:
    res = resolve(router, [], message)
    assert res.kind != SMALL_TALK and not res.route.abstained and res.route.speakers[0] == speaker


def test_thanks_and_a_follow_up_is_still_a_follow_up(router) -> None:
    first = resolve(router, [], "How was M3 trained to be multimodal?")
    assert first.route.speakers == ["olive"]
    history = [
        ConversationTurn(
            first.route.question, ["olive"], [sq.quote.id for sq in first.route.quotes]
        )
    ]
    res = resolve(router, history, "thanks, and what about Dan?")
    assert res.kind == "other_panelist" and not res.route.small_talk


def test_small_talk_on_another_panel_names_its_people(bread_router) -> None:
    panel = bread_router.panel
    route = resolve(bread_router, [], "hey everyone!").route
    assert route.small_talk == "greeting"
    text = decline_text(panel, route)
    assert all(p.name in text for p in panel.panelists.values())
    assert all(not bread_router.route(s).abstained for s in route.suggestions)


def test_specificity_orders_words_by_how_common_they_are() -> None:
    assert specificity("the") == 0.0
    assert specificity("zymurgy") == 1.0
    assert 0 < specificity("year") < specificity("games") < specificity("career") < 1.0


def test_decline_offers_questions_near_the_words_asked(router) -> None:
    # shares "cache" with the KV cache answers: the questions offered are about the cache
    route = router.route("my browser cache fills the disk, how do I empty it?")
    assert route.abstained
    assert any(
        sq.quote.id in {"dan-13", "dan-22", "dan-23", "dan-24"}
        for s in route.suggestions[:2]
        for sq in router.route(s).quotes[:3]
    )
    # nothing near: the rotation as before (every one still answered)
    far = router.route("Who won the football match last night?")
    assert far.abstained and len(far.suggestions) == 3
    assert all(not router.route(s).abstained for s in far.suggestions)


def test_ask_cli_small_talk_human_json_and_history(run_cli) -> None:
    r = run_cli("ask", "hi")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("Hi! ") and "Not something the panel got into" not in r.stdout
    assert "Dan" in r.stdout and "Olive" in r.stdout and "Try:" in r.stdout
    r = run_cli("ask", "--json", "thanks!")
    d = json.loads(r.stdout)
    assert (
        d["kind"] == "small_talk"
        and d["small_talk"] == "thanks"
        and d["abstained"]
        and d["quotes"] == []
    )
    assert d["suggestions"]
    first = run_cli("ask", "--json", "How do you deal with a KV cache that keeps growing?")
    cid = json.loads(first.stdout)["conversation"]
    thanks = json.loads(run_cli("ask", "-c", "--json", "ok cool").stdout)
    assert thanks["small_talk"] == "acknowledgement" and thanks["conversation"] == cid
    more = json.loads(run_cli("ask", "-c", "--json", "tell me more").stdout)
    assert more["context"]["kind"] == "continuation" and more["speakers"] == ["dan"]
    shown = run_cli("history", "show", str(cid)).stdout
    assert "(declined)" not in shown and "Anything else?" in shown


def test_ask_all_small_talk(run_cli) -> None:
    r = run_cli("ask", "--all", "hey there")
    assert (
        r.returncode == 0
        and r.stdout.startswith("Hi! You're asking across")
        and "None of the talks" not in r.stdout
    )
    d = json.loads(run_cli("ask", "--all", "--json", "cheers!").stdout)
    assert (
        d["kind"] == "small_talk"
        and d["small_talk"] == "thanks"
        and d["abstained"]
        and d["suggestions"]
    )
    # a question that opens with a greeting is still answered across the talks
    d = json.loads(
        run_cli(
            "ask", "--all", "--json", "hi, how do you deal with a KV cache that keeps growing?"
        ).stdout
    )
    assert not d["abstained"] and "kind" not in d


def test_smalltalk_words_file_is_current() -> None:
    """If this fails, the phrases changed: run `python scripts/make_smalltalk_words.py`."""
    from panelbot.retrieval.lexicon import _wordlist
    from panelbot.retrieval.smalltalk import WORDS_FILE, spelling_words

    assert set(spelling_words()) == _wordlist(WORDS_FILE)


def test_an_exported_small_talk_reply_is_not_a_decline() -> None:
    from panelbot.conversation.export import ExportMessage, conversation_markdown

    text = conversation_markdown(
        "t",
        "Panel",
        [
            ExportMessage("user", "", "hi"),
            ExportMessage("reply", "Host", "Hi! This is the panel."),
            ExportMessage("decline", "Host", "Not something the panel got into."),
        ],
    )
    assert (
        "### Host\n\nHi! This is the panel." in text
        and "### Host (declines)\n\nNot something" in text
    )


_WORDS_USED = st.sampled_from(
    [
        "hi",
        "hello",
        "heyyy",
        "thanks",
        "thx",
        "you",
        "ok",
        "okay",
        "cool",
        "great",
        "bye",
        "good",
        "night",
        "morning",
        "all",
        "guys",
        "it",
        "that",
        "helps",
        "so",
        "much",
        "Dan",
        "olive",
        "Olive's",
        "kv",
        "cache",
        "pizza",
        "why",
        "how",
        "are",
        "for",
        "the",
        "talk",
        "really",
        "appreciated",
        "nice",
        "meet",
        "u",
        "ya",
        "👋",
        ":)",
        "xD",
        "ok,cool",
        "good-bye",
        "Café",
        "merci",
        "thank-you",
        "see",
        "later",
    ]
)


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.tuples(_WORDS_USED, _SEP), min_size=1, max_size=6),
    st.sampled_from(["", "!", "?", "."]),
)
def test_the_first_look_never_turns_small_talk_away(parts: list[tuple[str, str]], end: str) -> None:
    """The cheap first look (no pattern compiled) only turns away what the full check turns away too."""
    from panelbot.retrieval import smalltalk as mod

    message = "".join(w + s for w, s in parts).strip() + end
    real = mod._surely_not
    try:
        mod._surely_not = lambda text, names: False
        without = small_talk(message, NAMES)
    finally:
        mod._surely_not = real
    assert small_talk(message, NAMES) == without, message


@pytest.mark.parametrize(
    ("message", "asked"),
    [
        ("hi, who are these people?", "who are these people?"),
        ("Hi there! who is Dan?", "who is Dan?"),
        ("hello everyone, what is this talk about?", "what is this talk about?"),
        ("good morning, what is this talk about?", "what is this talk about?"),
        ("hi who are these two", "who are these two"),
        ("Hello!!! Who's hosting?", "Who's hosting?"),
        ("hey guys, tell me about the talk", "tell me about the talk"),
        # no greeting, only small talk, or a greeting word that is part of the question: as it is
        ("who are these people?", "who are these people?"),
        ("hi", "hi"),
        ("hi there", "hi there"),
        ("ok, who is Dan?", "ok, who is Dan?"),
        ("morning routines of Dan?", "morning routines of Dan?"),
        ("highly parallel kernels?", "highly parallel kernels?"),
        ("hey Dan, what do you do?", "hey Dan, what do you do?"),  # never drops whom it is put to
        ("yo, whats up with kernels", "whats up with kernels"),
    ],
)
def test_after_greeting_is_what_a_greeted_message_asks(message, asked):
    from panelbot.retrieval.smalltalk import after_greeting

    assert after_greeting(message) == asked
