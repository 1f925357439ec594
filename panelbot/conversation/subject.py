"""Subject tracking: what a conversation is on -- the question that opened it, its weighted terms, who
answered it and with which quotes -- found by replaying the recent turns, each read as it was when asked."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from panelbot.conversation.terms import (
    identity_terms,
    merged,
    names_a_subject,
    own_terms,
    ranked,
    weighted_scores,
)
from panelbot.conversation.turns import (
    CONTINUATION,
    ELABORATION,
    OTHER_PANELIST,
    REASON,
    STANDALONE,
    ConversationTurn,
)
from panelbot.records import field, record
from panelbot.retrieval.lexicon import common_stems
from panelbot.text import cased_like

if TYPE_CHECKING:
    from panelbot.conversation.kinds import Reading
    from panelbot.conversation.router_view import FollowUpRouter

WINDOW = 24  # earlier turns looked at to find the subject
SUBJECT_WEIGHT = 0.5  # the previous subject's terms, relative to the new message's words
HOST_WEIGHT = (
    0.4  # the host question the subject's first answer responded to, relative to its own words
)


@record
class Subject:
    """The subject a conversation is on: the question that opened it, its terms and who answered it."""

    question: str  # the message that opened the subject
    terms: dict[str, float]  # weighted retrieval terms
    speakers: list[str]  # who answered it last
    quote_ids: list[str]  # the last answer's quotes
    turn: int  # index of the opening turn in the history
    opening_quotes: list[str] = field(
        default_factory=list
    )  # the first answer's quotes (name the subject)
    # the last answer retrieved for the subject (not a continuation's related quotes): the answer to go on with
    answer_quotes: list[str] = field(default_factory=list)
    label: str = ""
    framing: bool = (
        False  # opened by a framing question ("who is Dan?", "what is this talk about?")
    )
    # opened by a question declined because the talk never gave what it asked for ("a context length"):
    # no one answered it, though the words of one panelist's quotes are nearest
    unstated: str = ""


def share_about_subject(router: FollowUpRouter, subject: Subject, terms: dict[str, float]) -> float:
    """Share of the message's word terms that belong to the subject (its question or its quotes' keywords);
    0 when they share only everyday words."""
    mine = [t for t in terms if "_" not in t]
    if not mine:
        return 0.0
    common = common_stems()
    shared = [t for t in mine if t in subject.terms]
    pairs = [t for t in terms if "_" in t and t in subject.terms]
    specific = [t for t in shared if t not in common or t in router.curated]
    if not pairs and not specific:
        return 0.0  # only everyday words in common
    return len(shared) / len(mine)


def with_host_question(
    router: FollowUpRouter, terms: dict[str, float], quote_ids: list[str]
) -> dict[str, float]:
    """A subject's terms: the question's own, plus (weighted below them) the host's question that the first
    answer responded to -- what was being discussed on stage, in the talk's words."""
    extra: dict[str, float] = {}
    for qid in quote_ids[:1]:
        quote = router.panel.quote(qid)
        host = router.panel.question(quote.question) if quote is not None else None
        if host is not None:
            extra.update(dict.fromkeys(router.query_terms(host.text).terms, HOST_WEIGHT))
    return merged(terms, extra, 1.0)


def subject_label(router: FollowUpRouter, subject: Subject) -> str:
    """A few words naming the subject: a topic of its best quote that shares its words, else the question."""
    wanted = {t for t, w in subject.terms.items() if w >= 1.0 and "_" not in t} or set(
        subject.terms
    )
    for qid in (subject.opening_quotes or subject.quote_ids)[:2]:
        quote = router.panel.quote(qid)
        if quote is None:
            continue
        for topic in (*quote.topics, *quote.keywords):
            if set(router.norm.unigrams(router.norm.normalise(topic))) & wanted:
                return router.panel.names_as_written(
                    cased_like(topic, subject.question, quote.text)
                )
    text = " ".join(subject.question.split())
    return f"\u201c{text if len(text) <= 60 else text[:57].rstrip() + '...'}\u201d"


def talk_order(quote: Any, qid: str) -> tuple[int, int, str]:
    """Where a quote was said in the talk (its turn, then its first sentence); a quote without them last."""
    turn = getattr(quote, "turn", None)
    sentences = getattr(quote, "sentences", None)
    return (turn if turn is not None else 1 << 62, sentences[0] if sentences else 0, qid)


def _answered_by(router: FollowUpRouter, turn: ConversationTurn) -> tuple[list[str], list[str]]:
    """A turn's known quotes and its speakers (when only the quotes are known, e.g. ids cited in a chat
    transcript: theirs)."""
    ids = set(router.panel.panelists)
    quote_ids = [str(q) for q in (turn.quote_ids or ()) if router.panel.quote(str(q)) is not None]
    speakers = [s for s in (turn.speakers or ()) if s in ids]
    if not speakers:
        speakers = list(
            dict.fromkeys(
                q.speaker
                for qid in quote_ids
                if (q := router.panel.quote(qid)) and q.speaker in ids
            )
        )
    return quote_ids, speakers


def _declined_yet_about_the_talk(
    router: FollowUpRouter, question: str
) -> tuple[tuple[list[str], list[str]], str]:
    """A declined first question that was about the talk -- it asked for a specific the talk never gave
    ("how many GPUs did they train M3 on?") -- still opens its subject: the panelist(s) whose quotes best
    match its words, with no answer shown, and what the talk never gave. (([], []), "") for a question
    declined as off-topic."""
    unstated = router.route(question).unstated
    if not unstated:
        return ([], []), ""
    terms = own_terms(router, question)[0]
    scores, _ = weighted_scores(router, terms, None)
    best = ranked(scores, 1)
    if not best:
        return ([], []), ""
    return ([], [router.index.quotes[best[0][0]].speaker]), unstated


def _opened(
    router: FollowUpRouter,
    question: str,
    reading: Reading,
    answer: tuple[list[str], list[str]],
    n: int,
) -> Subject:
    """The subject a standalone question opens: what was asked about, not who was asked ("Dan, why does
    Together ...?")."""
    quote_ids, speakers = answer
    own = identity_terms(router, list(router.panel.panelists))
    topic = {t: w for t, w in reading.terms.items() if t not in own} or reading.terms
    subject = Subject(
        question,
        with_host_question(router, topic, quote_ids),
        speakers,
        quote_ids,
        n,
        quote_ids,
        list(quote_ids),
    )
    subject.label = subject_label(router, subject)
    subject.framing = router.framing(question) is not None
    return subject


def moves_on(
    router: FollowUpRouter, subject: Subject, reading: Reading, quote_ids: list[str]
) -> bool:
    """An elaboration whose own words name a subject and would stand on their own ("what does he think about
    sparse attention?"), answered by none of the quotes of the answer it follows nor from an answer to the same
    host question: a new subject, reached by a pronoun (not after an introduction: ``_carried`` moves on from
    one by its own rule)."""
    if reading.kind != ELABORATION or subject.framing or not quote_ids:
        return False
    if set(quote_ids) & set(subject.quote_ids) or reading.evidence < router.settings.scope_floor:
        return False
    if _host_questions(router, quote_ids) & _host_questions(router, _leads(router, subject)):
        return False  # "and what about quantization?": more of the answer given on stage to the same question
    return any(names_a_subject(router, t) for t in reading.terms)


def _leads(router: FollowUpRouter, subject: Subject) -> list[str]:
    """Each panelist's first quote in the subject's opening answer and in its last one: what answered it (a
    fourth quote that touched another host question in passing does not make that question the subject's)."""
    out: dict[tuple[int, str], str] = {}
    for n, ids in enumerate((subject.opening_quotes, subject.quote_ids)):
        for qid in ids:
            q = router.panel.quote(qid)
            if q is not None:
                out.setdefault((n, q.speaker), qid)
    return list(out.values())


def _host_questions(router: FollowUpRouter, quote_ids: list[str]) -> set[str]:
    """The host questions these quotes answered on stage."""
    return {q.question for qid in quote_ids if (q := router.panel.quote(qid)) and q.question}


def label_moved_to(
    router: FollowUpRouter, subject: Subject, reading: Reading, quote_ids: list[str]
) -> str:
    """What a follow-up that moves on (``moves_on``) is about ("sparse attention"), named as the subject it
    opens will be; "" when it stays on the subject."""
    if not moves_on(router, subject, reading, quote_ids):
        return ""
    terms = with_host_question(
        router, merged(reading.terms, subject.terms, SUBJECT_WEIGHT), quote_ids
    )
    moved = Subject(subject.question, terms, [], list(quote_ids), subject.turn, list(quote_ids))
    return subject_label(router, moved)


def _carried(
    router: FollowUpRouter,
    subject: Subject,
    reading: Reading,
    answer: tuple[list[str], list[str]],
    asked: tuple[str, int],
) -> None:
    """A follow-up's answer moves the subject on: its words join the subject's, its answer is the last
    (``asked``: the follow-up and its turn, which open the subject when it moves on to new words)."""
    quote_ids, speakers = answer
    if quote_ids:
        subject.unstated = ""  # answered since: what was said is the subject now
    if reading.kind == OTHER_PANELIST and not set(speakers) & set(subject.speakers):
        # another panelist took the question: what named the first one is no longer the subject
        gone = identity_terms(router, subject.speakers)
        subject.terms = {t: w for t, w in subject.terms.items() if t not in gone} or subject.terms
    if reading.kind == ELABORATION:
        subject.terms = merged(reading.terms, subject.terms, SUBJECT_WEIGHT)
    elif reading.terms:
        subject.terms = merged(reading.terms, subject.terms, 1.0)
    if moves_on(router, subject, reading, quote_ids):
        # "what does he think about sparse attention?" after his answer on agentic workloads: new words that
        # stand on their own, answered by none of the last answer's quotes -- the conversation is on them now,
        # not on the old subject's words carried below them
        subject.terms = with_host_question(router, reading.terms, quote_ids)
        subject.opening_quotes = list(quote_ids)
        subject.question, subject.turn = asked
        subject.label = subject_label(router, subject)
    if (
        subject.framing
        and reading.kind == ELABORATION
        and quote_ids
        and not set(quote_ids) & set(subject.opening_quotes)
    ):
        # "who is Olive?", then "how does she stop the model from cheating?": answered by none of the
        # introduction's quotes, the conversation is on what that answer is about now, not on her role
        subject.framing = False
        subject.terms = with_host_question(router, subject.terms, quote_ids)
        subject.opening_quotes = list(quote_ids)
        subject.label = subject_label(router, subject)
    if subject.framing and quote_ids and set(speakers) != set(subject.speakers):
        # "who is Olive?" after the talk's framing: the subject is now her introduction, named by it
        subject.opening_quotes = list(quote_ids)
        subject.speakers = speakers
        subject.label = subject_label(router, subject)
    subject.speakers = speakers
    subject.quote_ids = quote_ids or subject.quote_ids
    answering = {q.speaker for qid in subject.answer_quotes if (q := router.panel.quote(qid))}
    if reading.kind not in (CONTINUATION, REASON) or not set(speakers) <= answering:
        subject.answer_quotes = list(subject.quote_ids)


def current_subject(
    router: FollowUpRouter,
    history: Sequence[ConversationTurn],
    read: Callable[[FollowUpRouter, Subject | None, str], Reading],
) -> tuple[Subject | None, set[str]]:
    """Replay the recent turns (each read by ``read`` as it was when asked) to find the current subject, and
    every quote id shown in the conversation. Declined turns leave the subject where it was."""
    shown: set[str] = set()
    for turn in history:
        shown.update(str(q) for q in (turn.quote_ids or ()))
    start = max(0, len(history) - WINDOW)
    subject: Subject | None = None
    for n, turn in enumerate(history[start:], start):
        question = str(turn.question or "").strip()
        answer = _answered_by(router, turn)
        unstated = ""
        if question and not answer[1] and subject is None:
            answer, unstated = _declined_yet_about_the_talk(router, question)
        if not question or not answer[1]:
            continue
        reading = read(router, subject, question)
        if reading.kind == STANDALONE or subject is None:
            subject = _opened(router, question, reading, answer, n)
            subject.unstated = unstated
        else:
            _carried(router, subject, reading, answer, (question, n))
    return subject, shown
