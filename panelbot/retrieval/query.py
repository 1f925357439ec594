"""A question read against the panel's vocabulary (``Query``): who it addresses, its typos, its terms.

``QueryReader`` decides what a question says in the panel's terms: the panelists it names ("Dan, ...",
"@olive", "ask both") or names in the possessive ("Olive's background"), the misspelt words it corrects to a
panel word, the everyday word an organisation's lower-case name is ("trained together"), and the terms,
word pairs, verbatim runs, names and organisations the router scores and the scope decision weighs.
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter, defaultdict

from panelbot.config import RetrievalSettings
from panelbot.panel import Panel
from panelbot.retrieval.facets import model_names
from panelbot.retrieval.index import QuoteIndex
from panelbot.retrieval.lexicon import common_words, english_words, stem, stopwords
from panelbot.retrieval.vocabulary import Normalizer
from panelbot.text import GuardedPattern, LazyPattern, fold, words

# "How do I fix my router?": a personal how-to, not a question about the panelists' work
PERSONAL_TASK = LazyPattern(
    r"\b(?:how (?:do|can|should|would) i|should i|can i|do i need|i need to|i want to|my|help me|for me)\b",
    re.IGNORECASE,
)
# ... unless what it asks is what the model can do ("Could the model drive my desktop apps?"): a capability
CAPABILITY = LazyPattern(
    r"\b(?:can|could|will|would|does|do|is|are)\s+(?:the|your|this|their|these|a|an)\s+(?:\w+\s+)?models?\b",
    re.IGNORECASE,
)


def is_personal_task(question: str) -> bool:
    """A personal how-to ("how do I fix my router?"), not a question of what the model can do."""
    return bool(PERSONAL_TASK.search(question)) and not CAPABILITY.search(question)


BOTH_WORDS = LazyPattern(
    r"\b(?:both(?: of you)?|each of you|you two|the two of you|all of you|everyone on the panel|the whole panel|"
    r"ask both|both panelists|either of you|yourselves|you both|you each|you guys|the panelists|the speakers|"
    r"each (?:panelist|speaker|guest|side|of them)|both sides|"
    r"your (?:(?:two|respective|different|own) )?(?:roles|jobs|backgrounds|titles|companies|teams|views|takes))\b",
    re.IGNORECASE,
)
# a panelist spoken of by what they are rather than by name: "the MiniMax person", "the guest from Together",
# "the kernels guy" -- the nouns for a person (or their side) that such a description ends or starts with
PERSON_NOUNS = (
    "person|guy|gal|man|woman|lady|one|side|rep|representative|researcher|engineer|scientist|speaker|"
    "guest|panelist|panellist|expert|folks|folk|people|team|lead|fellow"
)
# words of a job title that say its rank, not its subject ("VP of Kernels" is about kernels)
TITLE_WORDS = frozenset(
    [
        "vp",
        "vice",
        "president",
        "head",
        "lead",
        "leader",
        "chief",
        "director",
        "senior",
        "principal",
        "staff",
        "manager",
        "research",
        "researcher",
        "engineer",
        "engineering",
        "scientist",
        "founder",
        "cofounder",
        "co",
        "officer",
        "member",
        "of",
        "the",
        "and",
        "for",
        "at",
        "in",
        "ceo",
        "cto",
        "coo",
    ]
)
NAME_RUN = LazyPattern(r"\b[A-Z][a-z]+(?:\s+[A-Z][a-z]+)+\b")
PARTICLES = frozenset({"up", "down", "out", "off", "over", "back", "on"})
# words after which an organisation's everyday-word name is the organisation ("partnership with together")
ORG_LEADS = frozenset(
    {
        "at",
        "from",
        "with",
        "to",
        "for",
        "about",
        "by",
        "of",
        "on",
        "and",
        "does",
        "did",
        "is",
        "was",
        "using",
        "via",
        "than",
        "like",
        "vs",
        "versus",
    }
)
# words that put the name after them in the place of a person addressed or asked about: "ask olive ...",
# "does dan ...", "for olive: ..." (general English, written for no talk)
ADDRESS_LEADS = frozenset(
    [
        "ask",
        "asks",
        "asked",
        "tell",
        "told",
        "does",
        "did",
        "do",
        "would",
        "will",
        "could",
        "can",
        "should",
        "has",
        "have",
        "had",
        "for",
        "to",
        "hey",
        "hi",
    ]
)
# the words that say what kind of answer is wanted (a person, a place, a time, what came before or after),
# which are stopwords to BM25: a "who ...?" ask for a "who ...?" question ("why" and "how" ask nearly
# everything: not cues)
ASK_CUES = frozenset({"who", "where", "when", "before", "after"})


@dataclasses.dataclass
class Query:
    """A question read against the panel's vocabulary: its terms, matched or not, and its phrases."""

    terms: list[str]  # stemmed terms to score with, word pairs ("kv_cach") included
    matched: list[str]  # the question's content terms the panel uses
    unmatched: list[str]  # ... and those it never uses
    phrases: dict[str, float]  # terms from a multi-word vocabulary phrase -> their share of it
    corrected: set[str] = dataclasses.field(
        default_factory=set
    )  # terms reached only by correcting a typo
    seq: list[str] = dataclasses.field(
        default_factory=list
    )  # the question's terms in order (matched or not)
    neutral: set[str] = dataclasses.field(
        default_factory=set
    )  # model names and versions: neither for nor against
    surface: list[str] = dataclasses.field(
        default_factory=list
    )  # the question's verbatim word pairs ("day zero")
    vocab: dict[str, float] = dataclasses.field(
        default_factory=dict
    )  # terms reached by one word of the panel's vocabulary
    runs: dict[str, int] = dataclasses.field(
        default_factory=dict
    )  # terms of a multi-word name -> the name's length
    unit: dict[str, str] = dataclasses.field(
        default_factory=dict
    )  # term -> the first term of the word it came from
    named: set[str] = dataclasses.field(
        default_factory=set
    )  # terms of a panelist's organisation named as such ("Together")
    mentioned: list[str] = dataclasses.field(
        default_factory=list
    )  # panelists named in the possessive ("Dan's team")
    cues: set[str] = dataclasses.field(
        default_factory=set
    )  # what kind of answer it asks for ("?who", "?before")
    personal: bool = False  # a personal how-to ("how do I ...", "my website"): PERSONAL_TASK
    # the one panelist whose organisation's own view or work is asked ("Together's take")
    org_view: str | None = None
    sims: list[float] | None = (
        None  # the question's similarity in meaning to each quote (None: unused)
    )


def _panel_lexicon(panel: Panel, index: QuoteIndex) -> Counter[str]:
    """Every word the panel uses, for correcting typos before vocabulary mapping."""
    lexicon: Counter[str] = Counter(index.lexicon)
    texts: list[str] = [q.text for q in panel.questions]
    texts += [k for p in panel.panelists.values() for k in (*p.keywords, *p.covers)]
    texts += [f"{c} {' '.join(v)}" for c, v in panel.vocabulary.items()] + list(panel.topics)
    for t in texts:
        lexicon.update(w for w in words(t) if len(w) >= 4 and w.isalpha())
    return lexicon


def _name_spellings(panel: Panel) -> dict[str, tuple[str, ...]]:
    """A panelist's names as a folded question spells them: full name, id, and first name when no other
    panelist shares it ("Rafał Nowicki", "rafal", "Rafał" -> "rafal")."""
    firsts = Counter(fold(p.name).split()[0] for p in panel.panelists.values() if p.name.split())
    spellings: dict[str, tuple[str, ...]] = {}
    for pid, p in panel.panelists.items():
        first = fold(p.name).split()[:1]
        unique = [f for f in first if firsts[f] == 1]
        spellings[pid] = tuple(dict.fromkeys(n for n in (fold(p.name), pid, *unique) if n))
    return spellings


def _descriptions(panel: Panel) -> dict[str, GuardedPattern]:
    """Each panelist's descriptions as a person ("the MiniMax person", "the guest from Together", "the
    kernels guy"): their organisation's first word, or a subject word of their job title that no other
    panelist's title has, beside a noun for a person (``PERSON_NOUNS``)."""
    sw = stopwords()
    subjects: dict[str, set[str]] = {}
    for pid, p in panel.panelists.items():
        subjects[pid] = {
            w
            for w in words(fold(p.role or ""))
            if w not in TITLE_WORDS and w not in sw and len(w) > 1
        }
    # an organisation's first word names a panelist only when no other panelist is of it
    orgs = {
        pid: fold(p.organisation.split()[0])
        for pid, p in panel.panelists.items()
        if p.organisation and p.organisation.split()
    }
    shared = {o for o, n in Counter(orgs.values()).items() if n > 1}
    out = {}
    for pid in panel.panelists:
        others = set().union(*(v for k, v in subjects.items() if k != pid))
        marks = sorted(subjects[pid] - others)
        if pid in orgs and orgs[pid] not in shared:
            marks.append(orgs[pid])
        if not marks:
            continue
        said = "|".join(re.escape(m) for m in marks)
        out[pid] = GuardedPattern(
            rf"\b(?:the|your|their|that|this)\s+(?:{said})(?:\s+ai)?\s+(?:{PERSON_NOUNS})s?\b"
            rf"|\b(?:{PERSON_NOUNS})s?\s+(?:from|at|of)\s+(?:{said})\b"
            rf"|\b(?:{said})['\u2019]s\s+(?:{PERSON_NOUNS})s?\b",
            re.IGNORECASE,
            tuple(marks),
        )
    return out


def _capitalised_inside(question: str, name: str) -> bool:
    """The name is written capitalised after the first word of a sentence: a name, not an everyday word."""
    prev = ""
    for tok in question.split():
        bare = tok.strip("\"'()[]{}:;,.!?\u201c\u201d\u2018\u2019")
        inside = prev and not prev.endswith((".", "!", "?", ":"))
        if inside and bare[:1].isupper() and fold(bare) == name:
            return True
        prev = tok
    return False


class QueryReader:
    """Reads questions against one panel's names, organisations and vocabulary. Build once per panel."""

    def __init__(
        self, panel: Panel, norm: Normalizer, index: QuoteIndex, settings: RetrievalSettings
    ):
        self.norm = norm
        self.index = index
        self.settings = settings
        self.lexicon = _panel_lexicon(panel, index)
        self._lex_by_initial: dict[str, list[str]] = defaultdict(list)
        for w in self.lexicon:
            self._lex_by_initial[w[0]].append(w)
        self.name_words = {fold(p.name) for p in panel.panelists.values()} | set(panel.panelists)
        self.name_stems = {stem(fold(p.name)) for p in panel.panelists.values()} | {
            stem(pid) for pid in panel.panelists
        }
        self._vocab_words = self._single_vocabulary_words(panel)
        self._models = model_names()
        self._build_organisations(panel)
        spellings = _name_spellings(panel)
        self._possessive_res = {
            pid: GuardedPattern(
                rf"(?<![\w@])(?:{'|'.join(map(re.escape, names))})'s\b", re.IGNORECASE, names
            )
            for pid, names in spellings.items()
        }
        self._name_res = {
            pid: GuardedPattern(
                rf"(?:@{re.escape(pid)}\b|(?<![\w@])(?:{'|'.join(map(re.escape, names))})(?![\w']))",
                re.IGNORECASE,
                names,
            )
            for pid, names in spellings.items()
        }
        self._described_res = _descriptions(panel)

    def _single_vocabulary_words(self, panel: Panel) -> dict[str, list[str]]:
        """Single words of the panel's own vocabulary ("job" -> role, "m3" -> minimax): curated evidence."""
        vocab_words: dict[str, list[str]] = {}
        for canonical, variants in panel.vocabulary.items():
            canon_terms = self.norm.unigrams(self.norm.normalise(canonical))
            for v in (canonical, *variants):
                vw = words(v)
                if len(vw) == 1 and canon_terms:
                    vocab_words.setdefault(vw[0], canon_terms)
        return vocab_words

    def _build_organisations(self, panel: Panel) -> None:
        """The terms of each panelist's organisation, and the patterns that find it named in a question."""
        self.org_terms: dict[str, frozenset[str]] = {}
        self.org_names: dict[str, frozenset[str]] = {}
        for pid, p in panel.panelists.items():
            if p.organisation:
                org = set(self.norm.unigrams(self.norm.normalise(p.organisation)))
                self.org_names[pid] = frozenset(org)
                self.org_terms[pid] = frozenset(org - {"ai"})  # "AI" alone names no organisation
        # an organisation named with its capital ("at Together", "MiniMax's") is that organisation, not the
        # everyday word; a panelist named in the possessive ("Dan's team") is about the panel
        self._org_res = {
            pid: GuardedPattern(rf"(?<!^)(?<![.?!:] )\b{re.escape(org)}\b", 0, (org,))
            for pid, p in panel.panelists.items()
            if p.organisation and pid in self.org_terms
            for org in (p.organisation.split()[0],)
        }
        # an organisation in the possessive ("Together's take", "MiniMax's new model"): its panelist's to say
        self._org_possessive_res = {
            pid: GuardedPattern(rf"\b{re.escape(org)}['\u2019]s\b", re.IGNORECASE, (org,))
            for pid, p in panel.panelists.items()
            if p.organisation and pid in self.org_terms
            for org in (p.organisation.split()[0],)
        }
        # an organisation whose name is an everyday word ("Together") written in lower case is that word
        # ("trained together"), unless said as a name: "together ai", "together's", "at together"
        everyday = common_words()
        self._everyday_org_res = [
            GuardedPattern(
                rf"(?<![\w@'\u2019]){re.escape(first)}(?!['\u2019]s\b)(?!\s+ai\b)(?![\w'\u2019])",
                0,
                (first,),
            )
            for p in panel.panelists.values()
            if p.organisation
            and (first := fold(p.organisation.split()[0])) in everyday
            and first.isalpha()
        ]

    def is_name_word(self, word: str) -> bool:
        """The word is a panelist's name or id (accents folded): never corrected as a typo."""
        return fold(word) in self.name_words

    def addressed(self, question: str) -> tuple[list[str], bool]:
        """Panelists named in the question (in order of mention) -- or, when none is, described ("the
        MiniMax person": ``_descriptions``) -- and whether it asks for both/all."""
        folded = fold(question)
        hits: list[tuple[int, str]] = []
        for pid, rx in self._name_res.items():
            m = rx.search(folded)
            if m and self._is_address(question, folded, m):
                hits.append((m.start(), pid))
        if not hits:  # "Dan, what did the MiniMax folks tell you?" is asked of Dan
            for pid, rx in self._described_res.items():
                if m := rx.search(folded):
                    hits.append((m.start(), pid))
        hits.sort()
        return [pid for _, pid in hits], bool(BOTH_WORDS.search(question))

    def without_descriptions(self, question: str) -> str:
        """The question with its descriptions of panelists (``_descriptions``) blanked out."""
        for rx in self._described_res.values():
            if rx.search(question) is not None:
                question = rx.compiled.sub(" ", question)
        return question

    def possessive(self, question: str) -> list[str]:
        """The panelists named in the possessive ("Olive's background", "Rafał's view"), in order of mention."""
        folded = fold(question)
        hits = sorted(
            (m.start(), pid) for pid, rx in self._possessive_res.items() if (m := rx.search(folded))
        )
        return [pid for _, pid in hits]

    def _is_address(self, question: str, folded: str, m: re.Match[str]) -> bool:
        """'Olive, ...', '@olive', 'ask Olive', 'what does Olive think' -- not 'olive oil'.

        A name that is also an English word is that word, not the person, when it is followed directly by
        a content word the panel never uses ("olive oil", "rose garden"): a name is followed by a verb or
        a function word ("Olive thinks", "Olive, why", "Olive on RL"), a word in its everyday sense by
        the noun it qualifies. It is the person after an address lead ("ask olive", "does olive ..."),
        next to another panelist ("Dan and olive"), or capitalised inside a sentence ("do Dan and Olive
        disagree", where a word in its everyday sense is lower case)."""
        if m.group(0).startswith("@") or m.group(0) not in english_words():
            return True
        before = folded[: m.start()].split()
        if before and before[-1] in ADDRESS_LEADS:
            return True
        if len(before) >= 2 and before[-1] in ("and", "or", "&") and before[-2] in self.name_words:
            return True
        if _capitalised_inside(question, m.group(0)):
            return True
        after = re.match(r"\s+([a-z]+)\b", folded[m.end() :])
        if after is None:  # the end, or punctuation ("Olive, ...", "olive's", "olive?")
            return True
        following = after.group(1)
        return following in stopwords() or self._panel_says(following)

    def _panel_says(self, word: str) -> bool:
        """Whether the panel uses the word (in a quote, its keywords or a host question), in any form."""
        if word in self.lexicon:
            return True
        return any(len(self.index.postings_of(t)[0]) for t in self.norm.terms(word))

    def _everyday_word(self, m: re.Match[str]) -> str:
        """The lower-case name of an organisation that is an everyday word, dropped unless said as a name
        ("at together", "with together") or in a phrase of the vocabulary ("work together")."""
        before = m.string[: m.start()].split()
        prev = fold(before[-1]) if before else ""
        if prev in ORG_LEADS:
            return m.group(0)
        if prev.isalpha() and m.group(0) not in self.norm.unigrams(
            self.norm.normalise(f"{prev} {m.group(0)}")
        ):
            return m.group(0)  # part of a phrase ("work together" reads as partnership)
        return " "

    def corrections(self, question: str) -> dict[str, str]:
        """Misspelt words -> the panel word they most likely mean ("reinforcment" -> "reinforcement").

        Only words the panel never uses and that are not real English are corrected, within one edit (two
        for words of 9+ letters, when still ``typo_ratio`` similar), keeping the first letter."""
        sw, known = stopwords(), english_words()
        fixes: dict[str, str] = {}
        for w in set(words(question)):
            if len(w) < 4 or not w.isalpha() or w in self.lexicon or w in sw or w in known:
                continue
            cands = self._lex_by_initial.get(w[0])
            if not cands:
                continue
            # imported here: most questions have no unknown word, and rapidfuzz is ~15 ms of a start
            from rapidfuzz import fuzz, process
            from rapidfuzz.distance import OSA

            max_edits = 1 if len(w) <= 8 else 2
            hits = process.extract(w, cands, scorer=OSA.distance, score_cutoff=max_edits, limit=5)
            hits = [h for h in hits if h[1] <= 1 or fuzz.ratio(w, h[0]) >= self.settings.typo_ratio]
            if hits:
                best = min(hits, key=lambda h: (h[1], -self.lexicon[h[0]], h[0]))
                fixes[w] = best[0]
        return fixes

    def read(self, question: str) -> Query:
        """Terms (typos corrected, word pairs added); also the content words matched and unmatched."""
        for rx in self._everyday_org_res:
            question = rx.sub(
                self._everyday_word, question
            )  # "trained together": the everyday word
        phrases: dict[str, float] = {}
        fixes = self.corrections(question)
        normalised = self.norm.normalise(question, fixes, phrases)
        corrected = {t for w in fixes.values() for t in self.norm.unigrams(self.norm.normalise(w))}
        toks = [fixes.get(w, w) for w in words(question)]
        vocab, unit = self._vocabulary_units(toks)
        postings = self.index.postings
        uni = [u for u in self.norm.unigrams(normalised) if u not in self.name_stems]
        terms = [u for u in uni if u in postings]
        matched = list(terms)
        unmatched = [u for u in uni if u not in postings]
        terms += [
            f"{a}_{b}"
            for a, b in zip(uni, uni[1:], strict=False)
            if a in postings and b in postings
        ]
        return Query(
            terms,
            matched,
            unmatched,
            phrases,
            corrected,
            uni,
            self._neutral(toks),
            self._verbatim_pairs(toks, set(terms)),
            vocab,
            self._name_runs(question, phrases, vocab),
            unit,
            self._named_organisations(question),
            self.possessive(question),
            {f"?{w}" for w in toks if w in ASK_CUES},
            is_personal_task(question),
            self._organisation_viewed(question, uni),
        )

    def _vocabulary_units(self, toks: list[str]) -> tuple[dict[str, float], dict[str, str]]:
        """Terms reached by a single word of the panel's own vocabulary (curated evidence), each with its
        share of that word; and the terms that came from one word ("together" -> together, ai) as one unit."""
        vocab: dict[str, float] = {}
        unit: dict[str, str] = {}
        for w in toks:
            mapped = self._vocab_words.get(w, ())
            for t in mapped:
                vocab.setdefault(t, 1.0 / len(mapped))
                unit.setdefault(t, mapped[0])
        return vocab, unit

    def _neutral(self, toks: list[str]) -> set[str]:
        """Model names and versions the panel never used: neither for nor against the subject."""
        return {
            t
            for w in toks
            if w in self._models or (any(c.isdigit() for c in w) and any(c.isalpha() for c in w))
            for t in self.norm.unigrams(self.norm.normalise(w))
            if t not in self.index.postings
        }

    def _verbatim_pairs(self, toks: list[str], pair_terms: set[str]) -> list[str]:
        """The question's verbatim word pairs ("day zero", "catch up") a quote may say as such: content
        words, not names, and not an indexed word pair BM25 already scores ("kv cache")."""
        sw = stopwords()

        def scored_already(a: str, b: str) -> bool:
            ta, tb = (
                self.norm.unigrams(self.norm.normalise(a)),
                self.norm.unigrams(self.norm.normalise(b)),
            )
            return len(ta) == 1 and len(tb) == 1 and f"{ta[0]}_{tb[0]}" in pair_terms

        return [
            f"{a} {b}"
            for a, b in zip(toks, toks[1:], strict=False)
            if a not in sw
            and (b not in sw or b in PARTICLES)
            and a.isalpha()
            and b.isalpha()
            and len(a) + len(b) >= 6
            and a not in self.name_words
            and b not in self.name_words
            and not scored_already(a, b)
        ]

    def _name_runs(
        self, question: str, phrases: dict[str, float], vocab: dict[str, float]
    ) -> dict[str, int]:
        """Terms of a multi-word capitalised name ("Las Vegas") -> the name's length (not at a sentence's
        start, where a capital says nothing)."""
        runs: dict[str, int] = {}
        for m in NAME_RUN.finditer(question):
            if m.start() == 0 or question[: m.start()].rstrip()[-1:] in ".?!:":
                continue
            run = [
                t
                for t in self.norm.unigrams(self.norm.normalise(m.group(0)))
                if t not in phrases and t not in vocab
            ]
            for t in run if len(run) > 1 else []:
                runs[t] = len(run)
        return runs

    def _named_organisations(self, question: str) -> set[str]:
        """Terms of the panelists' organisations the question names as such ("at Together")."""
        return {
            t
            for pid, rx in self._org_res.items()
            if rx.search(question)
            for t in self.org_terms[pid]
        }

    def _organisation_viewed(self, question: str, uni: list[str]) -> str | None:
        """The one panelist whose organisation's own view or work is asked ("Together's take"), unless the
        other organisation is named too ("How did Together host MiniMax's model?")."""
        viewed = [pid for pid, rx in self._org_possessive_res.items() if rx.search(question)]
        if viewed and any(
            self.org_terms[pid] & set(uni) for pid in self.org_terms if pid not in viewed
        ):
            viewed = []
        return viewed[0] if len(viewed) == 1 else None
