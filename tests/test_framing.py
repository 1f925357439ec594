"""The first questions a stranger asks (panelbot.retrieval.framing): the talk's framing and the panelists'
introductions, on the shipped panel and on an uncurated draft built by ingest's own code."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from panelbot.conversation.resolve import resolve
from panelbot.conversation.turns import STANDALONE, ConversationTurn
from panelbot.errors import DataError
from panelbot.ingest.draft import build_draft, write_draft
from panelbot.panel import load_panel
from panelbot.retrieval.framing import (
    PANEL,
    PERSON,
    TALK,
    FramingReader,
    framing_bank,
    parse_bank,
)
from panelbot.retrieval.router import Router
from panelbot.text import words

BANK_FILE = Path(__file__).resolve().parent.parent / "panelbot" / "data" / "framing_questions.yaml"
SHIPPED_INTROS = {"dan": "dan-01", "olive": "olive-01"}


@pytest.fixture(scope="module")
def storage_router(tmp_path_factory: pytest.TempPathFactory, fixtures_dir: Path) -> Router:
    """The storage panel (Priya of Acme Cloud, Marcus of Bluefin Labs) as `panelbot ingest` drafts it."""
    caps = (fixtures_dir / "storage_panel_captions.txt").read_text(encoding="utf-8")
    out = tmp_path_factory.mktemp("storage") / "storage"
    write_draft(build_draft(caps, "storage"), caps, out)
    return Router(load_panel(out))


def intro_ids(route) -> dict[str, str]:
    return {sq.quote.speaker: sq.quote.id for sq in route.quotes}


@pytest.mark.parametrize(
    "question",
    [
        "What is this talk about?",
        "summarize the talk",
        "Can you give me an overview of this session?",
        "what topics does the panel cover?",
    ],
)
def test_talk_questions_give_the_framing_and_every_introduction(router, question):
    route = router.route(question)
    assert not route.abstained
    assert route.speakers == ["dan", "olive"]
    assert intro_ids(route) == SHIPPED_INTROS
    assert route.reason.startswith("the talk's framing: ")
    assert router.panel.title in route.reason and "KV cache" in route.reason
    assert "the host opens: \u201cThis is a discussion" in route.reason
    assert route.note and route.note in route.reason  # the app shows the note


@pytest.mark.parametrize(
    "question",
    [
        "who is on the panel?",
        "Who's on this panel?",
        "who are the speakers?",
        "what do the two of them do?",
        "introduce yourselves",
    ],
)
def test_panel_questions_give_both_introductions(router, question):
    route = router.route(question)
    assert route.speakers == ["dan", "olive"]
    assert intro_ids(route) == SHIPPED_INTROS
    assert route.reason == (
        "the panel's introductions: Dan (VP of Kernels, Together AI) and "
        "Olive (Research lead of RL, MiniMax)"
    )


@pytest.mark.parametrize(
    ("question", "who"),
    [
        ("who is Dan?", "dan"),
        ("Who's Dan", "dan"),
        ("where does Dan work?", "dan"),
        ("who is the person from Together AI?", "dan"),
        ("what does Olive do?", "olive"),
        ("where does Olive work?", "olive"),
        ("what is Olive's role?", "olive"),
        ("tell me about Olive", "olive"),
        ("who is the person from MiniMax?", "olive"),
    ],
)
def test_person_questions_give_that_panelists_introduction(router, question, who):
    route = router.route(question)
    assert route.speakers == [who]
    assert [sq.quote.id for sq in route.quotes] == [SHIPPED_INTROS[who]]
    assert route.reason.startswith(
        f"{router.panel.display_name(who)}'s introduction on the panel: "
    )


@pytest.mark.parametrize(
    "question",
    [
        "what does Dan think about quantization?",
        "what does Olive think of reward hacking?",
        "who is responsible for reward design?",
        "where does Olive see RL going?",
        "what does Olive think?",
        "what about Dan?",
        "tell me more",
        "how do I boil an egg?",
    ],
)
def test_look_alike_content_questions_are_not_framing(router, question):
    assert router.framing(question) is None
    assert "introduction" not in router.route(question).reason


def test_content_question_keeps_its_answer(router):
    route = router.route("what does Olive think of reward hacking?")
    assert route.speakers == ["olive"]
    assert "olive-01" not in {sq.quote.id for sq in route.quotes}


def test_kinds_and_panelists_read(router):
    reader = router.framing_reader()
    assert reader.read("so what is the talk about").kind == TALK
    assert reader.read("who are the guests?").kind == PANEL
    found = reader.read("who's the VP of Kernels?")
    assert (found.kind, found.speakers) == (PERSON, ["dan"])


def test_a_picked_panelist_answers_as_for_any_question(router):
    assert intro_ids(router.route("who is on the panel?", "olive")) == {"olive": "olive-01"}
    assert intro_ids(router.route("what is this talk about?", "dan")) == {"dan": "dan-01"}
    assert router.route("who is Dan?", "both").speakers == ["dan"]


# ------------------------------------------------------------------------ an uncurated draft


@pytest.mark.parametrize(
    ("question", "speakers"),
    [
        ("What is this talk about?", ["priya", "marcus"]),
        ("summarize the talk", ["priya", "marcus"]),
        ("who is on the panel?", ["priya", "marcus"]),
        ("what do the two of them do?", ["priya", "marcus"]),
        ("who is Priya?", ["priya"]),
        ("where does Marcus work?", ["marcus"]),
        ("what does Marcus do?", ["marcus"]),
        ("who is the person from Acme Cloud?", ["priya"]),
    ],
)
def test_a_draft_answers_framing_questions_with_its_introductions(
    storage_router, question, speakers
):
    route = storage_router.route(question)
    assert route.speakers == speakers
    assert intro_ids(route) == {
        pid: {"priya": "priya-01", "marcus": "marcus-01"}[pid] for pid in speakers
    }


def test_a_draft_reads_the_hosts_introduction_question(storage_router):
    reader = FramingReader(storage_router)
    # "So let's start with quick intros, tell us about your role ..." asks for Priya's introduction; the
    # hand-over to Marcus ("Great. And Marcus, over to you.") does not read as one: his first quote stands
    asked = reader._introduction_questions()
    assert "q01" in asked and "q02" not in asked
    intros = reader.introductions()
    assert intros["priya"].question == "q01"
    assert intros["marcus"].id == "marcus-01"
    route = storage_router.route("what is this talk about?")
    assert "\u201cThe Future of Storage and Robots\u201d" in route.reason
    assert "the host opens: \u201cWelcome everyone to this session" in route.reason


@pytest.mark.parametrize(
    "question",
    [
        "what does Priya think about replication lag?",
        "who is responsible for the block storage?",
        "what does Priya think?",
        "what about Marcus?",
    ],
)
def test_draft_look_alikes_are_not_framing(storage_router, question):
    assert storage_router.framing(question) is None


# ------------------------------------------------------------------------ in a conversation


def test_a_framing_question_mid_conversation_is_standalone(router):
    first = router.route("How do you deal with a KV cache that keeps growing?")
    assert first.speakers == ["dan"]
    history = [ConversationTurn(first.question, first.speakers, [q.quote.id for q in first.quotes])]
    for question, ids in [
        ("who is Olive?", ["olive-01"]),
        ("what is this talk about?", ["dan-01", "olive-01"]),
        ("who's on the panel?", ["dan-01", "olive-01"]),
    ]:
        res = resolve(router, history, question)
        assert (res.kind, res.context) == (STANDALONE, None)
        assert [sq.quote.id for sq in res.route.quotes] == ids
    # ... while a follow-up naming a panelist is still one
    res = resolve(router, history, "what does Olive think?")
    assert res.context is not None and res.kind != STANDALONE


@pytest.mark.parametrize(
    "question", ["who is the host?", "who moderated the panel?", "who asks the questions?"]
)
def test_host_questions_say_who_hosts_and_how_they_open(router, question):
    """The shipped talk never names its host: said so, with the host's opening, and the panelists the host
    asks (their introductions) -- not the panel's introductions passed off as the answer."""
    route = router.route(question)
    assert not route.abstained and route.framing
    assert intro_ids(route) == SHIPPED_INTROS
    assert route.reason.startswith("the host: not named in the talk; the host opens: \u201cThis is")
    assert route.note and route.note in route.reason


def test_a_named_host_is_given_by_name(router):
    from panelbot.records import replace

    panel = router.panel
    named = replace(
        panel, host=replace(panel.host, name="Ana Ruiz", role="", organisation="Example Events")
    )
    route = Router(named).route("who is the host?")
    assert route.reason.startswith("the host: Ana Ruiz (Example Events); the host opens:")


@pytest.mark.parametrize(
    "question", ["who hosts open models like M3?", "how do you moderate what an agent does?"]
)
def test_host_look_alikes_are_content_questions(router, question):
    assert not router.route(question).framing


@pytest.mark.parametrize(
    ("question", "who"),
    [
        ("is Olive married?", "olive"),
        ("does Olive have children?", "olive"),
        ("how old is Dan?", "dan"),
        ("what is Dan's salary?", "dan"),
    ],
)
def test_a_panelists_life_outside_the_talk_is_declined_not_introduced(router, question, who):
    """Nothing of a panelist's private life is in the talk: declined as such (not off-topic), naming them,
    with their introduction offered -- never their introduction passed off as the answer."""
    route = router.route(question)
    name = router.panel.display_name(who)
    assert route.abstained and not route.quotes and not route.off_topic
    assert (
        route.reason
        == f"the panel didn't get into that about {name}: the talk has only what {name} said on stage"
    )
    assert route.suggestions[0] == f"Who is {name}?"
    assert intro_ids(router.route(route.suggestions[0])) == {who: SHIPPED_INTROS[who]}


@pytest.mark.parametrize(
    "question",
    ["how old is the universe?", "is the ocean married to the moon?", "what car should I buy?"],
)
def test_personal_look_alikes_naming_no_panelist_are_not_declined_as_personal(router, question):
    assert "didn't get into that about" not in router.route(question).reason


# ------------------------------------------------------------------------ the bank


def test_the_bank_holds_no_word_of_any_talk(router, storage_router):
    text = BANK_FILE.read_text(encoding="utf-8")
    bank_words = set(words(text))
    for panel in (router.panel, storage_router.panel):
        for p in panel.panelists.values():
            own = set(words(f"{p.name} {p.organisation}")) | {p.id}
            assert not own & bank_words, own & bank_words
    assert not {"minimax", "together", "kernels", "rl", "storage", "robots"} & bank_words


@pytest.mark.parametrize(
    "path",
    sorted((Path(__file__).resolve().parent.parent / "eval").glob("**/framing_*.yaml")),
    ids=lambda p: p.name,
)
def test_every_framing_set_names_known_kinds_and_panelists(path, router):
    """Each labelled framing set (dev and held-out) is in the format scripts/fit_framing.py reads: kinds the
    bank knows, and panelist ids of the shipped talk where it is the panel."""
    from panelbot.retrieval.framing import KINDS

    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert data["panels"]
    for entry in data["panels"]:
        framing = entry.get("framing") or {}
        assert set(framing) <= set(KINDS), set(framing) - set(KINDS)
        if entry["panel"] == router.panel.name and PERSON in framing:
            assert set(framing[PERSON]) <= set(router.panel.panelists)
        assert all(isinstance(q, str) and q.strip() for q in entry.get("content") or [])


def test_the_threshold_is_declared_once_in_the_bank():
    data = yaml.safe_load(BANK_FILE.read_text(encoding="utf-8"))
    assert framing_bank().threshold == data["threshold"]
    assert 0.0 < data["threshold"] < 1.0


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"threshold": "high"}, "threshold must be a number"),
        ({"threshold": 1.5}, "threshold must be in (0, 1]"),
        ({"talk": []}, "talk must be a non-empty list"),
        ({"person": ["Who is {nickname}?"]}, "may use only the slots"),
        ({"person": ["Who is on stage?"]}, "at least one"),
        ({"personal": ["Is anyone married?"]}, "at least one"),
    ],
)
def test_a_bad_bank_is_refused_with_what_is_wrong(change, message):
    data = {**yaml.safe_load(BANK_FILE.read_text(encoding="utf-8")), **change}
    with pytest.raises(
        DataError,
        match=message.replace("(", r"\(")
        .replace(")", r"\)")
        .replace("[", r"\[")
        .replace("]", r"\]"),
    ):
        parse_bank(data)


# ------------------------------------------------------------------------ the real CLI


def test_panelbot_ask_answers_who_is_dan(run_cli):
    r = run_cli("ask", "--offline", "--no-log", "Who is Dan?")
    assert r.returncode == 0, r.stderr
    assert "[dan-01]" in r.stdout and "Dan (VP of Kernels, Together AI):" in r.stdout
    assert "(Dan's introduction on the panel: VP of Kernels, Together AI)" in r.stdout
    r = run_cli("ask", "--offline", "--no-log", "--json", "What is this talk about?")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert [q["id"] for q in d["quotes"]] == ["dan-01", "olive-01"]
    assert d["reason"].startswith("the talk's framing: \u201cAgents at Scale")
    assert d["context"] is None


# ------------------------------------------------------------------- put to them, or about them by pronoun


def _declined_as_personal(route, name: str, *, intro_asked: bool = False) -> bool:
    """Declined as personal, their introduction offered first -- unless the conversation asked for it
    already (then it is not offered again)."""
    intro = f"Who is {name}?"
    return (
        route.abstained
        and not route.quotes
        and not route.off_topic
        and route.reason
        == f"the panel didn't get into that about {name}: the talk has only what {name} said on stage"
        and (intro not in route.suggestions if intro_asked else route.suggestions[0] == intro)
    )


@pytest.mark.parametrize(
    ("question", "who"),
    [
        ("Olive, how old are you?", "olive"),
        ("Dan, what's your favourite food?", "dan"),
        ("are you married, Olive?", "olive"),
        ("Olive, do you have any pets?", "olive"),
    ],
)
def test_a_personal_question_put_to_a_panelist_is_declined_not_introduced(router, question, who):
    """Put to the panelist by name in the second person, it reads as the same question about them ("how old
    is Olive?"): declined as personal, never answered with their introduction."""
    assert _declined_as_personal(router.route(question), router.panel.display_name(who))


@pytest.mark.parametrize(
    ("question", "who"),
    [
        ("is Dan on twitter?", "dan"),
        ("How can I get in touch with Olive?", "olive"),
        ("Is Dan on LinkedIn?", "dan"),
        ("Olive, what's your email?", "olive"),
    ],
)
def test_social_and_contact_details_are_declined_as_personal(router, question, who):
    assert _declined_as_personal(router.route(question), router.panel.display_name(who))


@pytest.mark.parametrize(
    ("question", "who", "quote"),
    [("Olive, what is your job?", "olive", "olive-01"), ("Dan, what do you do?", "dan", "dan-01")],
)
def test_a_framing_question_put_to_a_panelist_is_still_their_introduction(
    router, question, who, quote
):
    assert intro_ids(router.route(question)) == {who: quote}


def test_a_content_question_put_to_a_panelist_is_not_personal(router):
    route = router.route("Dan, what do you think about sparse attention?")
    assert route.speakers == ["dan"] and "didn't get into that" not in route.reason


def test_a_drafts_panelists_are_read_the_same_way(storage_router):
    """The rule is the bank's and the panel's names, nothing of one talk: a draft's panelists too."""
    assert _declined_as_personal(storage_router.route("Priya, how old are you?"), "Priya")
    assert _declined_as_personal(storage_router.route("is Marcus on social media?"), "Marcus")


@pytest.mark.parametrize(
    ("opening", "question", "who"),
    [
        ("who is Olive?", "how old is she?", "olive"),
        ("who is Olive?", "is she married?", "olive"),
        ("How do you deal with a KV cache that keeps growing?", "does he have kids?", "dan"),
    ],
)
def test_a_personal_question_by_pronoun_is_about_the_conversations_panelist(
    router, opening, question, who
):
    """After one panelist's answer or introduction, "how old is she?" asks about them: declined as "how old
    is Olive?" is, their introduction offered -- not as off-topic with unrelated suggestions."""
    first = resolve(router, [], opening).route
    history = [ConversationTurn(opening, first.speakers, [sq.quote.id for sq in first.quotes])]
    assert first.speakers == [who]
    res = resolve(router, history, question)
    assert res.kind == STANDALONE
    name = router.panel.display_name(who)
    asked = opening.casefold() == f"who is {name}?".casefold()
    assert _declined_as_personal(res.route, name, intro_asked=asked)


def test_a_pronoun_question_on_the_talk_after_an_introduction_is_still_answered(router):
    first = resolve(router, [], "who is Olive?").route
    history = [
        ConversationTurn("who is Olive?", first.speakers, [q.quote.id for q in first.quotes])
    ]
    route = resolve(router, history, "how does she keep the model from cheating?").route
    assert route.speakers == ["olive"] and "didn't get into that" not in route.reason


# ------------------------------------------------------------------------- a new user's trial (2026-12-04)


@pytest.mark.xfail(
    strict=True,
    reason="three general 'panel' examples read them, but on their held-out first run "
    "(eval/heldout/framing_host.yaml) 'who was asking the questions?' was read as the panel, not "
    "the host (10/12 -> 9/12): not shipped (docs/quality.md)",
)
@pytest.mark.parametrize(
    "question",
    ["who are these people?", "who are these two?", "hi, who are these people?"],
)
def test_who_are_these_people_asks_who_the_panelists_are(router, question):
    """They got quotes of one panelist, or the off-topic decline ("hi, ..."), not the introductions."""
    route = router.route(question)
    assert route.speakers == ["dan", "olive"]
    assert intro_ids(route) == SHIPPED_INTROS


@pytest.mark.parametrize(
    "greeting", ["hi, ", "Hello! ", "hey there, ", "good morning: ", "Hi there!! ", "hi "]
)
def test_a_greeting_in_front_does_not_dilute_the_question(router, greeting):
    """The greeting is left out of what is compared by meaning: the same signals as without it (without,
    "hi there! who's hosting this?" fell from 0.677 to 0.584, near the threshold)."""
    reader = router.framing_reader()
    for question in ("who's hosting this?", "who are the panelists?", "what is this talk about?"):
        alone, greeted = reader.signals(question), reader.signals(greeting + question)
        assert greeted.similarity == alone.similarity and greeted.example == alone.example
        assert reader.read(greeting + question).kind == reader.read(question).kind


@pytest.mark.xfail(strict=True, reason="as test_who_are_these_people_asks_who_the_panelists_are")
def test_panelbot_ask_answers_hi_who_are_these_people(isolated_env, capsys):
    from panelbot.cli.main import main as cli

    assert cli(["ask", "--offline", "--no-log", "hi, who are these people?"]) == 0
    out = capsys.readouterr().out
    assert "[dan-01]" in out and "[olive-01]" in out and "Not something the panel" not in out
