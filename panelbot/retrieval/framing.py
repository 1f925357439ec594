"""The first questions a stranger asks: what the talk is about, who is on the panel, who one of them is.

A question is read as one of these by meaning: its similarity, in the shipped static model
(:mod:`panelbot.retrieval.semantic`), to a labelled bank of general framing questions kept as data
(``panelbot/data/framing_questions.yaml``: kinds ``talk``, ``panel`` and ``person``, the last filled per
panelist from the panel's own data -- name, role, organisation). It is a framing question when

* its best similarity to the filled bank is at least the bank's ``threshold`` (fitted by
  ``scripts/fit_framing.py`` on ``eval/framing_dev.yaml``), and
* that is above its best similarity to any of the panel's quote rows (:mod:`panelbot.retrieval.meaning`)
  and to the bank's ``contrast`` examples (a panelist's view, "tell me more": follow-ups, not framing) and
  to the everyday questions on other subjects (``meaning.background_similarity``), and
* what it asks beyond the framing question it resembles is not a subject of the talk: the words left
  when the closest example's words, stopwords and the panelists' names and organisations are taken away
  ("reward hacking" in "what does Olive think of reward hacking?", close to "what does Olive do?") are
  judged by the router's fitted scope model (and its curated subject terms); about the talk, it is a
  content question.

The answer is the talk's framing (title, topics, the host's opening) and the panelists' introductions:
each one's quote answering the host's introduction question (a host question read as one by meaning, among
the talk's first questions), else their first quote in talk order -- so uncurated drafts get it too.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from panelbot.errors import DataError
from panelbot.panel import Panel, Quote
from panelbot.panel.yaml_lines import load_yaml_remembered, strip_lines
from panelbot.records import record
from panelbot.retrieval.encoder import shipped_model
from panelbot.retrieval.lexicon import specificity, stem, stopwords
from panelbot.retrieval.meaning import background_similarity, embedded
from panelbot.retrieval.results import RouteResult, ScoredQuote
from panelbot.retrieval.semantic import VectorTable
from panelbot.text import LazyPattern, and_list, shorten, split_sentences, words

if TYPE_CHECKING:
    from panelbot.retrieval.router import Router

BANK_FILE = "framing_questions.yaml"
BANK_PATH = Path(__file__).resolve().parent.parent / "data" / BANK_FILE
TALK, PANEL, PERSON, HOST = "talk", "panel", "person", "host"
INTRODUCTION = "introduction"
CONTRAST = "contrast"
PERSONAL = "personal"  # a panelist's life outside the talk ("is {name} married?"): declined, never introduced
KINDS = (TALK, PANEL, PERSON, HOST)
SLOTS = ("name", "role", "organisation")
TOPICS_SHOWN = 8  # the talk's framing lists at most this many of its topics
OPENING_CHARS = 220  # ... and this much of the host's opening
# a curated word of the talk counts as its subject when everyday English uses it this seldom
# (``lexicon.specificity``: 1.0 for a word outside the common-word list): "robots", "reward", not "people"
SUBJECT_SPECIFICITY = 0.9
# ... and words are about the talk when the router's fitted scope model says more likely than not (its own
# answer threshold is lower, set to decline few in-scope questions; one stray word must not count)
REST_ABOUT_THE_TALK = 0.5
_SLOT_RE = LazyPattern(r"\{(\w+)\}")
# a question put to a panelist ("Olive, how old are you?") or about one by pronoun ("how old is she?") is read
# as the same question about them by name ("how old is Olive?"): the bank's templates name the panelist
_TO_THEM = (  # (the words, what they become: {n} the name); verbs agree with a name, the rest follow
    (r"\b(?:are|were) you\b", lambda m: ("is" if m.group(0)[0] in "aA" else "was") + " {n}"),
    (r"\b(?:do|have) you\b", lambda m: ("does" if m.group(0)[0] in "dD" else "has") + " {n}"),
    (r"\byou(?:'re| are)\b", "{n} is"),
    (r"\byou(?:'ve| have)\b", "{n} has"),
    (r"\byou were\b", "{n} was"),
    (r"\byours?\b", "{n}'s"),
    (r"\b(?:you|yourself)\b", "{n}"),
)
_ABOUT_THEM = (
    (r"\b(?:is|was|does|has) (?:she|he)\b", lambda m: m.group(0).rsplit(" ", 1)[0] + " {n}"),
    (r"\b(?:his|hers)\b", "{n}'s"),
    (r"\bher(?= [a-z])(?! (?:a|an|the|to|about|in|on|at|for|with|if|that|this)\b)", "{n}'s"),
    (r"\b(?:she|he|her|him|herself|himself)\b", "{n}"),
)

SECOND_PERSON = LazyPattern(r"\b(?:you|your|yours|yourself|you're|you've)\b", re.IGNORECASE)


def told_of(question: str, name: str, *, put_to: bool = True, about: bool = True) -> str:
    """The question as asked about ``name`` by name: put to them ("Olive, how old are you?": ``put_to``,
    the vocative dropped) or about them by pronoun ("how old is she?": ``about``) -- "how old is Olive?"."""
    out = question
    if put_to:
        called = re.escape(name)
        out = re.sub(rf"^\W*{called}\s*[,:]\s*|,\s*{called}(?=\W*$)", "", out, flags=re.IGNORECASE)
    rules = (_TO_THEM if put_to else ()) + (_ABOUT_THEM if about else ())
    for pattern, to in rules:

        def said(m: re.Match[str], to: Any = to) -> str:
            return str(to(m) if callable(to) else to).replace("{n}", name)

        out = re.sub(pattern, said, out, flags=re.IGNORECASE)
    return out


@record(frozen=True)
class FramingBank:
    """The labelled examples (``person`` ones are templates) and the fitted threshold."""

    threshold: float
    talk: tuple[str, ...]
    panel: tuple[str, ...]
    person: tuple[str, ...]
    host: tuple[str, ...]
    introduction: tuple[str, ...]
    contrast: tuple[str, ...] = ()
    personal: tuple[str, ...] = ()


def parse_bank(data: Any, where: str = BANK_FILE) -> FramingBank:
    """The bank from its YAML data; a DataError naming what is wrong."""
    if not isinstance(data, dict):
        raise DataError(f"{where}: expected a mapping of kinds to example questions")
    threshold = data.get("threshold")
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)):
        raise DataError(f"{where}: threshold must be a number, got {threshold!r}")
    if not 0.0 < float(threshold) <= 1.0:
        raise DataError(f"{where}: threshold must be in (0, 1], got {threshold}")
    lists: dict[str, tuple[str, ...]] = {}
    for kind in (*KINDS, INTRODUCTION, CONTRAST, PERSONAL):
        items = data.get(kind)
        if not isinstance(items, list) or not items:
            raise DataError(f"{where}: {kind} must be a non-empty list of questions")
        if not all(isinstance(t, str) and t.strip() for t in items):
            raise DataError(f"{where}: every {kind} example must be a non-empty string")
        lists[kind] = tuple(t.strip() for t in items)
    for kind in (PERSON, CONTRAST, PERSONAL):
        for template in lists[kind]:
            unknown = set(_SLOT_RE.findall(template)) - set(SLOTS)
            if unknown or (kind in (PERSON, PERSONAL) and not _SLOT_RE.search(template)):
                raise DataError(
                    f"{where}: {kind} example {template!r} may use only the slots "
                    f"{', '.join('{' + s + '}' for s in SLOTS)}"
                    + (", at least one" if kind in (PERSON, PERSONAL) else "")
                )
    return FramingBank(float(threshold), **lists)


@cache
def framing_bank() -> FramingBank:
    """The shipped bank (read once per process; its parse is remembered in the cache dir, so a warm
    start imports no YAML parser)."""
    return parse_bank(strip_lines(load_yaml_remembered(BANK_PATH)), str(BANK_PATH))


@record(frozen=True)
class Example:
    """One filled example: its kind, the panelist it is about (person kind) and its text."""

    kind: str
    speaker: str
    text: str
    by_name: bool = False  # filled with the panelist's name (not only their role or organisation)
    template: str = ""  # as the bank writes it, slots unfilled


def _name_forms(name: str) -> list[str]:
    """A panelist's full name and first name ("Léa Fontaine", "Léa")."""
    return list(dict.fromkeys(n for n in (name.strip(), *name.split()[:1]) if n))


def fill(panel: Panel, kind: str, templates: Sequence[str]) -> list[Example]:
    """Templates filled for every panelist (a template whose slot a panelist lacks is skipped for
    them); one without a slot stands as it is."""
    out: list[Example] = []
    for template in templates:
        slots = set(_SLOT_RE.findall(template))
        if not slots:
            out.append(Example(kind, "", template, False, template))
            continue
        for pid, p in panel.panelists.items():
            values = {"role": p.role.strip(), "organisation": p.organisation.strip()}
            if any(not values.get(s) for s in slots - {"name"}):
                continue
            for name in _name_forms(p.name) if "name" in slots else [""]:
                filled = {**values, "name": name}
                text = _SLOT_RE.sub(lambda m, f=filled: f[m.group(1)], template)
                out.append(Example(kind, pid, text, "name" in slots, template))
    return list(dict.fromkeys(out))


def filled_examples(panel: Panel, bank: FramingBank) -> list[Example]:
    """The bank's talk, panel and host examples, and its person templates filled for every panelist."""
    return (
        fill(panel, TALK, bank.talk)
        + fill(panel, PANEL, bank.panel)
        + fill(panel, PERSON, bank.person)
        + fill(panel, HOST, bank.host)
    )


@record(frozen=True)
class FramingSignals:
    """What the decision weighs for one question (``scripts/fit_framing.py`` fits the threshold on them)."""

    similarity: float  # best similarity to the filled bank
    quote_similarity: float  # best similarity to any quote row of the panel
    contrast_similarity: float  # best similarity to a contrast example ("what does {name} think?")
    background_similarity: float  # ... and to an everyday question on another subject (meaning.py)
    example: Example  # the closest filled example
    rest: str  # what the question asks beyond that example ("reward hacking"), "" when nothing
    rest_in_scope: bool  # ... and whether the router would answer that on its own
    # best similarity to a question on a panelist's life outside the talk ("is {name} married?"), and its example
    personal_similarity: float = 0.0
    personal_example: Example | None = None

    def framing(self, threshold: float) -> bool:
        return (
            self.similarity >= threshold
            and self.similarity > self.quote_similarity
            and self.similarity > self.contrast_similarity
            and self.similarity > self.background_similarity
            and self.similarity >= self.personal_similarity
            and not self.rest_in_scope
        )

    def personal(self, threshold: float) -> bool:
        """About a panelist's life outside the talk: closer to such a question than to any framing example,
        quote or follow-up, and asking nothing the talk covers."""
        return (
            self.personal_similarity >= threshold
            and self.personal_similarity > self.similarity
            and self.personal_similarity > self.quote_similarity
            and self.personal_similarity > self.contrast_similarity
            and not self.rest_in_scope
        )


@record(frozen=True)
class Framing:
    """A framing question: its kind and the panelists it is about, in the panel's order."""

    kind: str
    speakers: list[str]
    signals: FramingSignals


def _stems(text: str) -> set[str]:
    return {stem(w.removesuffix("'s")) for w in words(text)}


class FramingReader:
    """Reads framing questions against one router's panel and answers them. Build once per router."""

    def __init__(self, router: Router, bank: FramingBank | None = None) -> None:
        self.router = router
        self.panel: Panel = router.panel
        self.bank = bank or framing_bank()
        self.threshold = self.bank.threshold
        self.examples = filled_examples(self.panel, self.bank)
        self._table: VectorTable | None = None
        self._contrast: VectorTable | None = None
        self._personal: VectorTable | None = None
        self.personal_examples = fill(self.panel, PERSONAL, self.bank.personal)
        self._intros: dict[str, Quote] | None = None
        self._memo: dict[str, Framing | None] = {}
        identity: set[str] = set()
        for p in self.panel.panelists.values():
            identity |= _stems(f"{p.name} {p.organisation}")
        identity |= set(self.panel.panelists)
        self._identity = frozenset(identity)
        bank = self.bank
        templates = (*bank.talk, *bank.panel, *bank.person)
        self._framing_words = frozenset(_stems(" ".join(_SLOT_RE.sub(" ", t) for t in templates)))
        personal = " ".join(_SLOT_RE.sub(" ", t) for t in bank.personal)
        self._personal_words = self._framing_words | _stems(personal)

    # ------------------------------------------------------------------------------- reading

    @property
    def contrast_table(self) -> VectorTable:
        if self._contrast is None:
            texts = [e.text for e in fill(self.panel, CONTRAST, self.bank.contrast)]
            self._contrast = embedded(texts) if texts else VectorTable([], self.table.dims)
        return self._contrast

    @property
    def personal_table(self) -> VectorTable:
        if self._personal is None:
            texts = [e.text for e in self.personal_examples]
            self._personal = embedded(texts) if texts else VectorTable([], self.table.dims)
        return self._personal

    @property
    def table(self) -> VectorTable:
        if self._table is None:
            self._table = embedded([e.text for e in self.examples])
        return self._table

    def signals(self, question: str) -> FramingSignals:
        """Every signal, computed whatever the threshold (for fitting; :meth:`read` stops early)."""
        return self._signals(question, full=True)

    def _signals(self, question: str, *, full: bool) -> FramingSignals:
        from panelbot.retrieval.smalltalk import after_greeting

        # "hi, who's hosting this?": the greeting only dilutes what it asks
        question = after_greeting(question)
        fixes = self.router.corrections(question)  # "wat does olive thnik?" reads as "think"
        if fixes:
            question = " ".join(fixes.get(w, w) for w in words(question))
        vector = shipped_model().embed(question)
        sims = self.table.similarities(vector)
        best = max(range(len(sims)), key=sims.__getitem__)
        similarity, example = float(sims[best]), self.examples[best]
        personal = self.personal_table.similarities(vector)
        near = max(range(len(personal)), key=personal.__getitem__, default=None)
        personal_similarity = float(personal[near]) if near is not None else 0.0
        personal_example = self.personal_examples[near] if near is not None else None
        if not full and max(similarity, personal_similarity) < self.threshold:
            return FramingSignals(similarity, 1.0, 1.0, 1.0, example, "", False)
        quote_similarity = max(self.router.meanings().similarities(vector), default=0.0)
        contrast = max(self.contrast_table.similarities(vector), default=0.0)
        background = background_similarity(vector)
        if personal_example is not None and personal_similarity > similarity:
            # closest to a question on their life outside the talk: what it asks beyond that one
            rest = self._rest(question, personal_example, self._personal_words)
        else:
            rest = self._rest(question, example, self._framing_words)
        in_scope = False
        top = max(similarity, personal_similarity)
        if rest and (full or top > max(quote_similarity, contrast, background)):
            in_scope = self._about_the_talk(rest)
        return FramingSignals(
            similarity,
            quote_similarity,
            contrast,
            background,
            example,
            rest,
            in_scope,
            personal_similarity,
            personal_example,
        )

    def _about_the_talk(self, rest: str) -> bool:
        """Whether words are a subject of the talk: one of its curated subject terms (keywords, topics,
        vocabulary: ``Router.curated``) that everyday English seldom uses, or words the router's fitted
        scope model finds more likely than not about the talk."""
        router = self.router
        for w in rest.split():
            terms = router.norm.unigrams(router.norm.normalise(w))
            if set(terms) & router.curated and specificity(w) >= SUBJECT_SPECIFICITY:
                return True
        return router.tune.scope.probability(router.scope_signals(rest)) >= REST_ABOUT_THE_TALK

    def _rest(self, question: str, example: Example, said: frozenset[str]) -> str:
        """The question's words that no framing example uses, less stopwords and the panelists' names and
        organisations: what else it asks about ("reward hacking"). The closest example's words as filled
        ("VP of Kernels") count as its own only when the question shares one of the template's own words
        ("who is the ..."): a bare "kernels?" is no question about who. ``said``: the words of the bank's kind
        the example is of (framing or personal)."""
        sw = stopwords()
        if _stems(question) & _stems(_SLOT_RE.sub(" ", example.template)):
            said = said | _stems(example.text)
        rest = []
        for w in words(question):
            bare = w.removesuffix("'s")
            s = stem(bare)
            if w in sw or bare in sw or s in said or s in self._identity:
                continue
            rest.append(bare)
        return " ".join(rest)

    def read(self, question: str) -> Framing | None:
        """The framing question this is, or None (a content question, or anything else)."""
        question = question.strip()
        if question in self._memo:
            return self._memo[question]
        found: Framing | None = None
        if question:
            signals = self._signals(question, full=False)
            if signals.framing(self.threshold):
                found = self.reading(question, signals)
            elif signals.personal(self.threshold):
                found = self._personal_reading(question, signals)
            if found is None or found.kind != PERSONAL:
                # "Olive, how old are you?": read as asked of her by name ("how old is Olive?")
                found = self._put_to_one(question) or found
        if len(self._memo) > 256:
            self._memo.clear()
        self._memo[question] = found
        return found

    def reading(self, question: str, signals: FramingSignals) -> Framing | None:
        """A framing question's kind and panelists (once its signals say it is one); None when it
        resembles a question naming a panelist but names none as the router reads names ("is olive oil
        healthy?" names no Olive). A panelist addressed answers, as the router has it ("Dan, what's
        Olive's role?")."""
        ids = list(self.panel.panelists)
        named = self.router.addressed(question)[0] or self.router.possessive(question)
        kind = signals.example.kind
        if kind == PERSON:
            if signals.example.by_name and not named:
                return None
            # the panelist the question names, else the one whose example it resembles ("who is the
            # person from <organisation>?")
            who = named or [signals.example.speaker]
            if len(who) > 1:
                return Framing(PANEL, [p for p in ids if p in who], signals)
            return Framing(PERSON, who, signals)
        if kind == PANEL and len(named) == 1:
            # "the Together guest, what does he do?" reads like "who are the guests?" but asks one of them
            return Framing(PERSON, named, signals)
        return Framing(kind, ids, signals)

    def _put_to_one(self, question: str) -> Framing | None:
        """A question put to one panelist by name in the second person ("Olive, how old are you?"), read as
        the same question about them ("how old is Olive?"): its personal reading, or None."""
        named = self.router.addressed(question)[0]
        if len(named) != 1 or not SECOND_PERSON.search(question):
            return None
        return self.personal_about(question, named[0], put_to=True, about=False)

    def personal_about(
        self, question: str, pid: str, *, put_to: bool, about: bool
    ) -> Framing | None:
        """The personal reading of a question on panelist ``pid`` -- put to them (``put_to``: "Olive, how old
        are you?") or referred to by pronoun (``about``: "is she married?", once the conversation is on
        her) -- or None when, asked about them by name, it is no such question."""
        name = self.panel.panelists[pid].name
        told = told_of(question, name, put_to=put_to, about=about)
        if told == question:
            return None
        signals = self._signals(told, full=False)
        return Framing(PERSONAL, [pid], signals) if signals.personal(self.threshold) else None

    def _personal_reading(self, question: str, signals: FramingSignals) -> Framing | None:
        """A question on a panelist's life outside the talk, about the panelist it names (None when it names
        none as the router reads names: "is olive oil healthy?")."""
        named = self.router.addressed(question)[0] or self.router.possessive(question)
        if len(named) != 1:
            return None
        return Framing(PERSONAL, named, signals)

    # ------------------------------------------------------------------------------- answering

    def introductions(self) -> dict[str, Quote]:
        """Each panelist's introduction: their quote answering the host's introduction question, else
        their first quote in talk order (a panelist with no quote has none)."""
        if self._intros is None:
            asked = self._introduction_questions()
            firsts: dict[str, tuple[tuple[int, int, int], Quote]] = {}
            answers: dict[str, tuple[tuple[int, int, int], Quote]] = {}
            for n, q in enumerate(self.router.index.quotes):
                order = (
                    q.turn if q.turn is not None else 1 << 62,
                    q.sentences[0] if q.sentences else 0,
                    n,
                )
                if q.speaker not in firsts or order < firsts[q.speaker][0]:
                    firsts[q.speaker] = (order, q)
                if q.question in asked and (
                    q.speaker not in answers or order < answers[q.speaker][0]
                ):
                    answers[q.speaker] = (order, q)
            self._intros = {
                pid: (answers.get(pid) or firsts[pid])[1]
                for pid in self.panel.panelists
                if pid in firsts
            }
        return self._intros

    def _introduction_questions(self) -> set[str]:
        """The host questions read as asking for introductions (any sentence at least as close as the
        threshold to the bank's ``introduction`` examples), among the talk's first questions:
        introductions open a talk, so only the first (panelists + 1) host questions are considered."""
        table = embedded(list(self.bank.introduction))
        model = shipped_model()
        first = sorted(
            self.panel.questions, key=lambda hq: hq.turn if hq.turn is not None else 1 << 62
        )[: len(self.panel.panelists) + 1]
        asked = set()
        for hq in first:
            for sentence in split_sentences(hq.text):
                if max(table.similarities(model.embed(sentence)), default=0.0) >= self.threshold:
                    asked.add(hq.id)
                    break
        return asked

    def opening(self) -> str:
        """The host's opening words (the talk's first turn when the host speaks it), shortened; "" when
        the talk does not open with the host."""
        host = self.panel.host
        first = self.panel.turns[0] if self.panel.turns else None
        if host is None or first is None or first.speaker != host.id:
            return ""
        return shorten(" ".join(first.text.split()), OPENING_CHARS)

    def framing_text(self) -> str:
        """ "“Title”, on a, b and c; the host opens: “…”" (what of it the panel has)."""
        panel = self.panel
        parts = [f"\u201c{panel.title}\u201d" if panel.title else "the talk"]
        topics = [t for t in panel.topics if t.strip()]
        if topics:
            shown = topics[:TOPICS_SHOWN]
            more = len(topics) - len(shown)
            listed = and_list(shown) if not more else ", ".join(shown) + f" and {more} more"
            parts[0] += f", on {listed}"
        opening = self.opening()
        if opening:
            parts.append(f"the host opens: \u201c{opening}\u201d")
        return "; ".join(parts)

    def host_text(self) -> str:
        """ "Name (title); the host opens: “…”", or "not named in the talk; …" when the transcript calls
        them only the host."""
        host = self.panel.host
        if host is None:
            return "the transcript has no host"
        named = host.name.strip().lower() not in {"", "host", host.id.lower()}
        who = (f"{host.name} ({host.title})" if host.title else host.name) if named else ""
        opening = self.opening()
        parts = [who or "not named in the talk"]
        if opening:
            parts.append(f"the host opens: \u201c{opening}\u201d")
        return "; ".join(parts)

    def answer(self, question: str, framing: Framing, target: str = "auto") -> RouteResult:
        """The framing answer: the panelists concerned (the one ``target`` picks, if any), each with their
        introduction."""
        if framing.kind == PERSONAL:
            return self._personal_decline(question, framing)
        speakers = framing.speakers
        if target in self.panel.panelists:  # the panelist picked answers, as for any question
            speakers = [target]
        intros = self.introductions()
        speakers = [p for p in speakers if p in intros]
        quotes = [
            ScoredQuote(intros[p], 100.0, f"{self.panel.display_name(p)}'s introduction")
            for p in speakers
        ]
        people = and_list([self._who(p) for p in speakers])
        note = ""
        if framing.kind == TALK:
            note = self.framing_text()
            reason = f"the talk's framing: {note}; and the panelists' introductions"
        elif framing.kind == HOST:
            note = self.host_text()
            reason = f"the host: {note}; and the panelists' introductions"
        elif framing.kind == PANEL:
            reason = f"the panel's introductions: {people}"
        else:
            reason = " ".join(f"{self._possessive(p)} introduction on the panel" for p in speakers)
            title = self.panel.panelists[speakers[0]].title if speakers else ""
            reason += f": {title}" if title else ""
        addressed, _ = self.router.addressed(question)
        return RouteResult(
            question,
            speakers,
            not speakers,
            quotes,
            reason if speakers else "no panelist of this talk has a quote",
            addressed,
            [],
            framing.signals.similarity,
            note=note,
            framing=True,
        )

    def _personal_decline(self, question: str, framing: Framing) -> RouteResult:
        """Declined: the talk holds what the panelist said on stage, nothing of their life outside it; their
        introduction is offered instead (``Who is <name>?`` is a framing question, so always answered)."""
        pid = framing.speakers[0]
        name = self.panel.display_name(pid)
        offers = [f"Who is {name}?", *self.router.suggestions(2, question)]
        return RouteResult(
            question,
            [],
            True,
            [],
            f"the panel didn't get into that about {name}: the talk has only what {name} said on stage",
            [pid],
            list(dict.fromkeys(offers))[:3],
            framing.signals.personal_similarity,
            off_topic=False,
        )

    def _possessive(self, pid: str) -> str:
        name = self.panel.panelists[pid].name
        return f"{name}'" if name.endswith("s") else f"{name}'s"

    def _who(self, pid: str) -> str:
        p = self.panel.panelists[pid]
        return f"{p.name} ({p.title})" if p.title else p.name


def framing_examples(panel: Panel) -> Sequence[Example]:
    """The shipped bank filled for a panel (for inspection and tests)."""
    return filled_examples(panel, framing_bank())
