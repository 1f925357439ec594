"""What every follow-up strategy works with: the router, the subject, the quotes already shown, the message
and the panelist picked -- and the measures they share (who spoke to the subject, what is left unsaid)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from panelbot.conversation.subject import Subject, talk_order
from panelbot.conversation.terms import (
    best_first,
    names_a_subject,
    own_terms,
    ranked,
    scored_quote,
    share_of_quotes_saying,
    weighted_scores,
)
from panelbot.retrieval.results import RouteResult, ScoredQuote
from panelbot.text import and_list

if TYPE_CHECKING:
    from panelbot.conversation.router_view import FollowUpRouter

PerSpeaker = dict[str, list[tuple[int, float]]]

SPOKE_RATIO = (
    0.2  # a panelist "spoke to" the subject: best quote at this share of the best anyone has
)
SPOKE_MIN = 2.0  # ... and at least this many times the minimum quote score
RELATED_RATIO = 0.3  # a related quote scores at least this share of the subject's best...
# ... or says one of the subject's distinctive words: one that at most this share of the panelist's quotes
# say ("kv cache" names a subject of Dan's; "inference", said in most of what he said, names none)
DISTINCT_SHARE = 1 / 2
SHOWN_PENALTY = 0.6  # in an elaboration, a quote already shown in this conversation ranks lower
PARALLEL_SHARE = (
    0.5  # a host question sharing this share of words with the subject's is "the same question"
)
# the host's next (or previous) question, put to another panelist, carries the thread on when it says this many
# of the question's words that name a subject
THREAD_TERMS = 2
PER_SPEAKER = 60  # candidates kept per panelist when ranking
SAID_IDS = 12  # "nothing more than what's shown (olive-02, olive-03)": ids named at most
PICK_SHARE = 0.3  # quotes picked score at least this share of the best one


class FollowUp:
    """One follow-up being answered (built per message)."""

    def __init__(
        self,
        router: FollowUpRouter,
        subject: Subject,
        shown: set[str],
        message: str,
        target: str,
    ) -> None:
        self.router = router
        self.panel = router.panel
        self.subject = subject
        self.shown = shown
        self.message = message
        self.target = target
        self.k = router.settings.top_k
        self.floor = router.settings.min_quote_score
        self.given: set[str] = set()  # the quotes that answered a "why?" just before this one
        # the answer to the subject's own question when it asked why ("why does MiniMax give it away?"):
        # the reason it gives is for the subject
        self.answered_why: set[str] = set()

    # ------------------------------------------------------------------------------------ wording

    def names(self, pids: Sequence[str]) -> str:
        return and_list([self.panel.display_name(p) for p in pids])

    def spoke_too(self, pids: Sequence[str]) -> str:
        """ " Dan spoke to this too — ask “and Dan?”" (the question that asks them here), or ""."""
        if not pids:
            return ""
        asks = " or ".join(f"\u201cand {self.panel.display_name(p)}?\u201d" for p in pids)
        return f" {self.names(pids)} spoke to this too \u2014 ask {asks}"

    def about(self) -> str:
        return f"follow-up to your question about {self.subject.label}"

    def decline(self, reason: str, addressed: list[str], *, off_topic: bool) -> RouteResult:
        return RouteResult(
            self.message,
            [],
            True,
            [],
            reason,
            addressed,
            self.router.suggestions(),
            0.0,
            off_topic=off_topic,
        )

    def never_spoke_to_it(
        self, asked: list[str], spoke: list[str], addressed: list[str]
    ) -> RouteResult:
        """ "Olive didn't speak to <subject> on the panel (Dan did)": declined, naming who did."""
        if self.subject.unstated:  # no one answered it: the talk never gave what it asked for
            return self.decline(
                f"The talk never gave {self.subject.unstated}; {self.names(asked)} didn't speak to it",
                addressed,
                off_topic=False,
            )
        did = [p for p in spoke if p not in asked]
        who = f" ({self.names(did)} did)" if did else ""
        return self.decline(
            f"{self.names(asked)} didn't speak to {self.subject.label} on the panel{who}",
            addressed,
            off_topic=False,
        )

    def answer(
        self, speakers: list[str], quotes: list[ScoredQuote], reason: str, addressed: list[str]
    ) -> RouteResult:
        return RouteResult(self.message, speakers, False, quotes, reason, addressed, [], 0.0)

    def forced(self) -> list[str] | None:
        """The panelists picked by the user (a target other than auto), or None."""
        if self.target == "both":
            return list(self.panel.panelists)
        if self.target != "auto":
            return [self.target]
        return None

    def asked(self, addressed: list[str]) -> list[str]:
        """Who answers a follow-up to the same panelists: the picked ones, the named ones, else the last."""
        speakers = self.forced() or list(self.subject.speakers)
        if addressed and self.target == "auto":
            speakers = list(addressed)
        return speakers

    # ------------------------------------------------------------------------------------ measures

    def best_by_speaker(self, terms: dict[str, float]) -> tuple[PerSpeaker, float]:
        scores, top = weighted_scores(self.router, terms, None)
        by_speaker: dict[str, dict[int, float]] = defaultdict(dict)
        for i, s in scores.items():
            by_speaker[self.router.index.quotes[i].speaker][i] = s
        per: PerSpeaker = defaultdict(list)
        for speaker, theirs in by_speaker.items():
            per[speaker] = ranked(theirs, PER_SPEAKER)
        return per, top

    def spoke_bar(self, per: PerSpeaker, top: float) -> float:
        overall = max((100.0 * v[0][1] / top for v in per.values() if v), default=0.0)
        return max(SPOKE_MIN * self.floor, SPOKE_RATIO * overall)

    def who_spoke(self, per: PerSpeaker, top: float) -> list[str]:
        """Panelists whose best quote on these terms is a real answer (near the best anyone has)."""
        best = {p: (100.0 * v[0][1] / top if v else 0.0) for p, v in per.items()}
        overall = max(best.values(), default=0.0)
        return [
            p
            for p in self.panel.panelists
            if best.get(p, 0.0) >= max(SPOKE_MIN * self.floor, SPOKE_RATIO * overall)
            and overall > 0
        ]

    def pick(
        self,
        per: PerSpeaker,
        top: float,
        speakers: list[str],
        terms: dict[str, float],
        *,
        penalise_shown: bool,
    ) -> list[ScoredQuote]:
        """Each speaker's best quotes (a fair share of top_k each), best first, near the best one."""
        each = self.k if len(speakers) == 1 else max(1, -(-self.k // len(speakers)))
        out: list[ScoredQuote] = []
        quotes = self.router.index.quotes
        for p in speakers:
            penalty = {
                i: SHOWN_PENALTY if penalise_shown and quotes[i].id in self.shown else 1.0
                for i, _ in per.get(p, [])
            }
            theirs = sorted(
                ((i, s * penalty[i]) for i, s in per.get(p, [])), key=lambda kv: (-kv[1], kv[0])
            )
            out.extend(scored_quote(self.router, i, s, top, terms) for i, s in theirs[:each])
        out.sort(key=lambda sq: -sq.score)
        if not out:
            return out
        best = out[0].score
        return [sq for sq in out if sq.score >= max(self.floor, PICK_SHARE * best)] or out[:1]

    def index_of(self, quote_ids: list[str]) -> dict[str, int]:
        """Positions in the index of quotes already looked at (a saved bank knows them without decoding
        the rest)."""
        out: dict[str, int] = {}
        for qid in quote_ids:
            i = self.router.position(qid)
            if i is not None:
                out[qid] = i
        return out

    def distinctive_terms(self, speakers: list[str]) -> list[str]:
        """The subject's own words that name it: not everyday English, or one of the panel's terms, and
        distinctive of what these panelists said (not in more than DISTINCT_SHARE of their quotes)."""
        terms = [
            t for t, w in self.subject.terms.items() if w >= 1.0 and names_a_subject(self.router, t)
        ]
        return [
            t for t in terms if share_of_quotes_saying(self.router, t, speakers) <= DISTINCT_SHARE
        ]

    def about_distinctive_terms(self, speakers: list[str]) -> dict[int, float]:
        """Their quotes saying one of the subject's distinctive words (index -> score)."""
        specific = self.distinctive_terms(speakers)
        return self.router.index.score(specific, set(speakers)) if specific else {}

    def answer_being_given(self, speakers: list[str]) -> list[str]:
        """Each speaker's best quote in the last answer retrieved for the subject (its first one): the answer
        to continue -- never the turn a related quote came from ("tell me more" about the KV cache twice
        does not go on to the rest of an answer that mentioned the KV cache in passing). A panelist's
        self-introduction retrieved first is passed over for the next quote of theirs in the answer: "how
        so?" asks what they said of the subject, not what their job is."""
        intros = {q.id for q in self.router.framing_reader().introductions().values()}
        out: dict[str, str] = {}
        for qid in self.subject.answer_quotes or self.subject.quote_ids:
            q = self.panel.quote(qid)
            if q is None or q.speaker not in speakers:
                continue
            if q.speaker not in out or (out[q.speaker] in intros and qid not in intros):
                out[q.speaker] = qid
        return list(out.values())

    @staticmethod
    def position(q: Any) -> int:
        return q.sentences[0] if q.sentences else 0

    def not_yet_shown(
        self, per: PerSpeaker, top: float, speakers: list[str], parallel: set[str]
    ) -> tuple[PerSpeaker, list[str]]:
        """Each speaker's quotes on the subject not shown yet in this conversation -- those still a real
        answer (by the same measure as ``who_spoke``, or an answer to the host's same question) -- and the
        speakers who have nothing left (all they said of it is on screen)."""
        bar = self.spoke_bar(per, top)
        quotes = self.router.index.quotes
        fresh: PerSpeaker = {}
        done: list[str] = []
        for p in speakers:
            left = [(i, s) for i, s in per.get(p, []) if quotes[i].id not in self.shown]
            real = [
                (i, s) for i, s in left if 100.0 * s / top >= bar or quotes[i].question in parallel
            ]
            if real:
                fresh[p] = left
            else:
                done.append(p)
        return fresh, done

    def on_subject(self, scores: dict[int, float], top: float) -> list[int]:
        """The quotes (indices, best first) that match the subject at least the minimum quote score."""
        return [i for i in best_first(scores) if top and 100.0 * scores[i] / top >= self.floor]

    def shown_ids_note(self, speakers: list[str], ranked_ids: Sequence[int]) -> str:
        """ " (olive-02, olive-03)": what these speakers already said on the subject in this conversation, by
        id (``ranked_ids``: quote indices, best match first; then the last answer's), or ""."""
        quotes = self.router.index.quotes
        ids = [
            quotes[i].id
            for i in ranked_ids
            if quotes[i].speaker in speakers and quotes[i].id in self.shown
        ]
        ids += [
            q
            for q in self.subject.quote_ids
            if (found := self.panel.quote(q)) is not None and found.speaker in speakers
        ]
        # every one of them, in the order they were said in the talk (the SAID_IDS best when there are more)
        kept = list(dict.fromkeys(ids))[:SAID_IDS]
        found = {qid: q for qid in kept if (q := self.panel.quote(qid)) is not None}
        kept.sort(key=lambda qid: talk_order(found.get(qid), qid))
        return f" ({', '.join(kept)})" if kept else ""

    def parallel_questions(self) -> set[str]:
        """The host question the subject's first answer responded to, and any host question put to another
        panelist that shares at least half its words (the talk's "and you, Olive?" questions)."""
        lead = next(
            (self.panel.quote(q) for q in self.subject.opening_quotes if self.panel.quote(q)), None
        )
        host = self.panel.question(lead.question) if lead is not None else None
        if host is None:
            return set()
        mine = set(own_terms(self.router, host.text)[2])
        out = {host.id}
        for other in self.panel.questions:
            theirs = set(own_terms(self.router, other.text)[2])
            if (
                other.id != host.id
                and mine
                and theirs
                and len(mine & theirs) >= PARALLEL_SHARE * min(len(mine), len(theirs))
            ):
                out.add(other.id)
        return out | self.thread_goes_on()

    def thread_goes_on(self) -> set[str]:
        """The host questions that carried the subject's thread over to other panelists (``_thread_from``)."""
        lead = next(
            (self.panel.quote(q) for q in self.subject.opening_quotes if self.panel.quote(q)), None
        )
        host = self.panel.question(lead.question) if lead is not None else None
        return self._thread_from(host) if host is not None else set()

    def _thread_from(self, host: Any) -> set[str]:
        """The host question just before or after ``host`` on stage, put to other panelists, when it says
        at least THREAD_TERMS of its words that name a subject: the host carried the same thread over to
        them (a question on post-training for kernel benchmarks, then one on models writing kernels)."""
        asked = sorted(
            (q for q in self.panel.questions if q.turn is not None), key=lambda q: q.turn
        )
        at = next((n for n, q in enumerate(asked) if q.id == host.id), None)
        if at is None:
            return set()
        answering = set(host.answered_by)
        mine = self._subject_words(host.text)
        out = set()
        for other in asked[max(0, at - 1) : at] + asked[at + 1 : at + 2]:
            theirs = set(other.answered_by)
            if (
                theirs
                and not theirs & answering
                and len(mine & self._subject_words(other.text)) >= THREAD_TERMS
            ):
                out.add(other.id)
        return out

    def _subject_words(self, text: str) -> set[str]:
        return {t for t in own_terms(self.router, text)[0] if names_a_subject(self.router, t)}

    @staticmethod
    def strength(ranked_quotes: list[tuple[int, float]], top: float) -> float:
        """How strongly a panelist's best two quotes match (0-100)."""
        if not ranked_quotes:
            return 0.0
        s = ranked_quotes[0][1] + 0.3 * (ranked_quotes[1][1] if len(ranked_quotes) > 1 else 0.0)
        return 100.0 * s / top
