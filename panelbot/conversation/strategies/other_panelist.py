"""Another panelist's view ("what does Olive think?", "do you agree?", "how about the other side?"): the same
subject answered by that panelist with what they have not said yet in this conversation; when they never
spoke to it, it says so and names who did; when all they said of it is already shown, it says so by id."""

from __future__ import annotations

from panelbot.conversation.kinds import Reading
from panelbot.conversation.strategies.context import FollowUp, PerSpeaker
from panelbot.conversation.subject import SUBJECT_WEIGHT
from panelbot.conversation.terms import identity_terms, merged, names_a_subject
from panelbot.conversation.turns import OTHER_PANELIST
from panelbot.retrieval.results import RouteResult


def panelists_asked(f: FollowUp, reading: Reading) -> list[str]:
    """The panelist(s) picked or named, both when both are asked, else those who did not answer last."""
    ids = list(f.panel.panelists)
    forced = f.forced()
    if forced:
        return forced
    if reading.addressed:
        return list(reading.addressed)
    if reading.both:
        return ids
    return [p for p in ids if p not in f.subject.speakers] or list(f.subject.speakers)


def asks_those_who_answered(f: FollowUp, reading: Reading) -> bool:
    """The panelists asked already answered this subject here ("and Olive?" after an answer both gave):
    answered as a continuation -- what they have not said yet."""
    speakers = panelists_asked(f, reading)
    answered = {
        q.speaker for qid in f.subject.answer_quotes if (q := f.panel.quote(qid)) is not None
    }
    return not f.forced() and bool(speakers) and set(speakers) <= answered


def _subject_terms(f: FollowUp, reading: Reading) -> dict[str, float]:
    """The same question, without what named the panelist who answered it ("Dan, ... at Together?")."""
    own = identity_terms(f.router, list(f.panel.panelists))
    subject = {t: w for t, w in f.subject.terms.items() if t not in own} or f.subject.terms
    return merged(reading.terms, subject, SUBJECT_WEIGHT) if reading.terms else subject


def _on_its_words(f: FollowUp, terms: dict[str, float]) -> dict[str, float]:
    """The subject's terms without the everyday words carried below its own (the host's question's
    phrasing: "what's the idea *behind* that as a *company*?"): what another panelist's answer on the
    subject is ranked by. The host's words are matched by the host's words of other questions, so their
    quote on something else that shares only the phrasing ("behind the scenes at a launch") read as an
    answer on it."""
    return {
        t: w
        for t, w in terms.items()
        if w >= 1.0 or all(names_a_subject(f.router, part) for part in t.split("_"))
    } or terms


def _their_best(
    f: FollowUp, fresh: PerSpeaker, answering: list[str], terms: dict[str, float]
) -> tuple[PerSpeaker, dict[str, float]]:
    """The answering panelists' quotes not shown yet, ranked on the subject's own words (``_on_its_words``;
    scored against the same maximum, so none passes the minimum score it did not pass before), and those
    words."""
    words = _on_its_words(f, terms)
    if words == terms:
        return fresh, terms
    per, _ = f.best_by_speaker(words)
    out: PerSpeaker = {}
    for p in answering:
        left = {i for i, _ in fresh.get(p, [])}
        out[p] = [(i, s) for i, s in per.get(p, []) if i in left]
    if not all(out.values()):  # none of someone's says the subject's own words: as before
        return fresh, terms
    return out, words


def _host_answers_first(
    f: FollowUp, per: PerSpeaker, spoke: list[str], speakers: list[str], parallel: set[str]
) -> list[str]:
    """The host asked them the same (or a parallel) question on stage: their answer to it comes first, and
    they spoke to it."""
    quotes = f.router.index.quotes
    for p in speakers:
        first = [(i, s) for i, s in per.get(p, []) if quotes[i].question in parallel]
        if first:
            per[p] = first + [(i, s) for i, s in per[p] if (i, s) not in first]
            spoke = [*spoke, p] if p not in spoke else spoke
    return spoke


def _on_the_thread(
    f: FollowUp, ranked: PerSpeaker, answering: list[str], spoke: list[str]
) -> list[str]:
    """Those answering only with their answer to a host question that carried the thread over to them."""
    thread = f.thread_goes_on()
    quotes = f.router.index.quotes
    return [
        p
        for p in answering
        if p not in spoke and ranked.get(p) and quotes[ranked[p][0][0]].question in thread
    ]


def others_who_would_answer(f: FollowUp) -> list[str]:
    """Who would answer "what does the other one think?" here (nobody when it would be declined)."""
    route = other_panelist(f, Reading(OTHER_PANELIST, {}, 0.0, [], False))
    return [] if route.abstained else list(route.speakers)


def _others_with_more(
    f: FollowUp, per: PerSpeaker, top: float, spoke: list[str], asked: list[str], parallel: set[str]
) -> list[str]:
    """Those not asked who spoke to the subject and have more on it not shown yet -- not the one who just
    answered: "and Dan?" right after Dan's answer asks nothing new."""
    return [
        p
        for p in spoke
        if p not in asked
        and p not in f.subject.speakers
        and p in f.not_yet_shown(per, top, [p], parallel)[0]
    ]


def other_panelist(f: FollowUp, reading: Reading) -> RouteResult:
    """The same subject, answered by the panelist named (or the one(s) who did not answer last)."""
    speakers = panelists_asked(f, reading)
    terms = _subject_terms(f, reading)
    per, top = f.best_by_speaker(terms)
    parallel = f.parallel_questions()
    spoke = _host_answers_first(f, per, f.who_spoke(per, top), speakers, parallel)
    silent = [p for p in speakers if p not in spoke]
    # what each has not said yet in this conversation: a quote already shown is never given again
    fresh, said_all = f.not_yet_shown(per, top, [p for p in speakers if p in spoke], parallel)
    answering = [p for p in speakers if p in fresh]
    said = f.shown_ids_note(
        said_all, [i for p in said_all for i, s in per.get(p, []) if 100.0 * s / top >= f.floor]
    )
    if not answering:
        if said_all:
            others = _others_with_more(f, per, top, spoke, speakers, parallel)
            return f.decline(
                f"{f.names(said_all)} had nothing more to say about {f.subject.label} than what's "
                f"already been shown in this conversation{said}.{f.spoke_too(others)}",
                reading.addressed,
                off_topic=False,
            )
        return f.never_spoke_to_it(
            silent, [p for p in spoke if p not in speakers], reading.addressed
        )
    ranked, words = _their_best(f, fresh, answering, terms)
    quotes = f.pick(ranked, top, answering, words, penalise_shown=False)
    reason = f"{f.about()}, asked of {f.names(answering)}"
    carried = _on_the_thread(f, ranked, answering, f.who_spoke(per, top))
    if carried:
        reason += (
            f" ({f.names(carried)} didn't speak to it as such: their answer to the host's question next "
            "to it on stage, on the same thread)"
        )
    if silent:
        reason += f" ({f.names(silent)} didn't speak to it)"
    if said_all:
        reason += f" ({f.names(said_all)}: nothing more than what's shown{said})"
    return f.answer(answering, quotes, reason, reading.addressed)
