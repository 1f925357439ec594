"""Field profiles: what each panelist talks about, from their own introduction (weighed most), what the host
says about them, and the turns already attributed to them; used to give an unaddressed question to the
panelist whose field it is."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from functools import cache

from panelbot.retrieval.lexicon import common_stems, stem, stopwords
from panelbot.retrieval.vocabulary import Normalizer
from panelbot.text import words as word_tokens

_ALPHA = 2.0  # additive smoothing of the field profiles

_IDENTITY_WEIGHT = 4.0

_THIN_PROFILE = 12  # terms: a profile this small cannot be compared with the others  # one word of someone's own introduction, against the profile evidence

_NORMALIZER: Normalizer | None = None


def terms(text: str) -> list[str]:
    """Stemmed content terms with the general synonyms applied ("reinforcement learning" -> "rl")."""
    global _NORMALIZER
    if _NORMALIZER is None:
        _NORMALIZER = Normalizer({})
    sw = stopwords()
    out = []
    for t in _NORMALIZER.terms_of_words(word_tokens(text), pairs=False):
        parts = [t] + ([stem(x) for x in t.split("-") if x] if "-" in t else [])
        out.extend(x for x in parts if x not in sw and len(x) > 1)
    return out


def _identity_terms(text: str) -> list[str]:
    """Terms of a self-introduction that say what the person does: lowercase words and acronyms ("RL",
    "GPU", "MiniMax"), not capitalised ordinary words ("Together", "Kernels" as part of a title)."""
    # the organisation ("at Together AI") says where they work, not what they do; the most ordinary English
    # words ("try", "use", "role") say nothing about a field unless the general thesaurus knows them as a
    # subject term ("train", "serve", "optimize")
    text = _without_organisations(text)
    subject = _subject_terms()
    return [t for t in terms(text) if t not in _generic_stems() or t in subject]


@cache
def generic_words() -> frozenset[str]:
    """The 1,000 most frequent English words ("use", "try", "work", "better"): too general to say what
    someone works on. (common_en.txt is in frequency order.)"""
    from importlib import resources

    lines = (
        resources.files("panelbot.data")
        .joinpath("common_en.txt")
        .read_text(encoding="utf-8")
        .splitlines()
    )
    return frozenset([ln.strip() for ln in lines if ln.strip() and not ln.startswith("#")][:1000])


@cache
def _generic_stems() -> frozenset[str]:
    return frozenset(stem(w) for w in generic_words())


def _without_proper_nouns(text: str) -> str:
    """Drops capitalised words inside a sentence ("… farms corn in northwest Ohio", "Vogel restores …"):
    surnames and places say who and where, not what about. Acronyms and inner capitals ("GPU", "MiniMax")
    stay, and so does a sentence's first word."""
    out = []
    for k, tok in enumerate(text.split()):
        bare = tok.strip("\"'()[],;:.!?")
        first = k == 0 or text.split()[k - 1].endswith((".", "!", "?"))
        title_case = bare[:1].isupper() and bare[1:].islower() and len(bare) > 1
        if title_case and not first:
            continue
        out.append(tok)
    return " ".join(out)


def _without_organisations(text: str) -> str:
    """ "… an economist at the Baltic Farm Institute who …" -> "… an economist who …"."""
    toks = text.split()
    out: list[str] = []
    i = 0
    while i < len(toks):
        out.append(toks[i])
        if toks[i].lower() in ("at", "with", "from", "for") and i + 1 < len(toks):
            j = i + 1 + (toks[i + 1].lower() == "the")
            k = j
            while k < len(toks) and toks[k][:1].isupper() and toks[k] != "I":
                k += 1
            if k > j:
                out.pop()
                i = k
                continue
        i += 1
    return " ".join(out)


_SUBJECT: frozenset[str] | None = None


def _subject_terms() -> frozenset[str]:
    global _SUBJECT
    if _SUBJECT is None:
        from panelbot.retrieval.vocabulary import thesaurus

        # the groups' single-word terms ("computer use" does not make "use" a subject), not the group of
        # words about introductions themselves ("role", "background")
        _SUBJECT = frozenset(
            t
            for group in thesaurus()
            if "introduction" not in group and " " not in group[0]
            for t in terms(group[0])
        )
    return _SUBJECT


def same_root(a: str, b: str) -> bool:
    """Two stems of one word family: equal, or one the other plus a short ending ("farm"/"farmer",
    "econom"/"economist", "volcano"/"volcanolog" is not: the ending is too long)."""
    if a == b:
        return True
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    return len(short) >= 4 and long_.startswith(short) and len(long_) - len(short) <= 3


class Profiles:
    """Bag-of-words profile per panelist: their own introduction, what the host says about them, and the
    turns attributed to them with firm evidence."""

    def __init__(self, panelists: list[str]) -> None:
        self.bags: dict[str, Counter[str]] = {p: Counter() for p in panelists}
        self.identity: dict[str, set[str]] = {p: set() for p in panelists}  # from their own intro
        self.df: Counter[str] = Counter()
        self.docs = 0
        self.names: set[str] = set()  # terms of the panelists' names: never evidence of a field
        self.topic: set[str] = set()  # terms of what the whole talk is about: nobody's own field
        # evidence by meaning (text, candidates) -> per candidate: how the panelists were presented
        self.meaning: Callable[[str, list[str]], dict[str, float]] | None = None
        self.own: dict[
            int, tuple[str, Counter[str]]
        ] = {}  # raw turn -> what it added (to leave it out)

    def add(
        self, speaker: str, text: str, *, identity: bool = False, sources: list[int] | None = None
    ) -> None:
        if speaker in self.bags:
            counts = Counter(terms(text))
            self.bags[speaker].update(counts)
            for i in sources or ():
                self.own[i] = (speaker, counts)
            if identity:
                self.identity[speaker].update(set(_identity_terms(text)) - self.names)

    def without(self, sources: list[int]) -> dict[str, Counter[str]]:
        """The bags without what the given turns added: a turn is never evidence for its own speaker."""
        bags = dict(self.bags)
        for speaker, counts in {
            self.own[i][0]: self.own[i] for i in sources if i in self.own
        }.values():
            bags[speaker] = bags[speaker] - counts
        return bags

    def observe(self, text: str) -> None:
        self.docs += 1
        self.df.update(set(terms(text)))

    def _weight(self, w: str) -> float:
        idf = math.log((1 + self.docs) / (1 + self.df[w])) + 1
        return idf * (0.25 if w in common_stems() else 1.0)

    def identity_scores(self, text: str, candidates: list[str]) -> dict[str, float]:
        """Evidence from the words of each candidate's own introduction (and what the host said about them)
        that no other candidate's has: "train" for the one who leads training, "inference" for the one who
        leads inference. Words nearly every turn uses count little."""
        out = {p: 0.0 for p in candidates}
        vocab = len(set().union(*(self.bags[p] for p in candidates))) or 1
        totals = {p: sum(self.bags[p].values()) + _ALPHA * vocab for p in candidates}
        for w in set(terms(text)):
            if w in self.topic or (self.docs >= 6 and self.df[w] > self.docs / 3):
                continue  # what the talk is about (or a third of its turns use) is not one person's field
            ident = [p for p in candidates if any(same_root(w, x) for x in self.identity[p])]
            if len(ident) == 1:
                p = ident[0]
                rarity = math.log((1 + self.docs) / (1 + self.df[w])) / math.log(2 + self.docs)
                # weighed by how much more they use the word than the others do (a word of Olive's
                # introduction that Dan says all the time says little about Olive)
                rates = {q: (self.bags[q][w] + _ALPHA) / totals[q] for q in candidates}
                share = rates[p] / sum(rates.values())
                out[p] += max(rarity, 0.35) * share * len(candidates)
        return out

    def scores(
        self, text: str, candidates: list[str], sources: list[int] | None = None
    ) -> dict[str, float]:
        """Evidence per candidate: each word of the text counts for the panelists who use it relatively
        more than the others (its smoothed share of their use), rarer words more, ordinary English words a
        quarter; plus the identity evidence of :meth:`identity_scores`. The turns in ``sources`` (the one
        being scored) are left out of the profiles."""
        out = self._share_scores(text, candidates, sources)
        ident = self.identity_scores(text, candidates)
        return {p: out[p] + _IDENTITY_WEIGHT * ident[p] for p in candidates}

    def echo_scores(self, text: str, candidates: list[str]) -> dict[str, float]:
        """What a question picks up from one panelist's earlier answers ("You mentioned the old ledgers." for
        the only one who spoke of ledgers): each uncommon word of it that exactly one candidate has used
        counts for them, rarer words more."""
        out = {p: 0.0 for p in candidates}
        for w in set(terms(text)) - self.names - self.topic:
            if w in _generic_stems() or (self.docs >= 6 and self.df[w] > self.docs / 4):
                continue
            owners = [p for p in candidates if self.bags[p][w]]
            if len(owners) == 1:
                rarity = math.log((1 + self.docs) / (1 + self.df[w])) / math.log(2 + self.docs)
                out[owners[0]] += max(rarity, 0.2)
        return out

    def _share_scores(
        self, text: str, candidates: list[str], sources: list[int] | None
    ) -> dict[str, float]:
        bags = self.without(sources or [])
        if any(sum(bags[p].values()) < _THIN_PROFILE for p in candidates):
            # someone nobody has heard speak yet: a word only the others used says nothing against them
            return {p: 0.0 for p in candidates}
        words_here = set(terms(text)) - self.names
        vocab = len(set().union(*(bags[p] for p in candidates))) or 1
        totals = {p: sum(bags[p].values()) + _ALPHA * vocab for p in candidates}
        out = {p: 0.0 for p in candidates}
        for w in words_here:
            if not any(bags[p][w] for p in candidates):
                continue
            # smoothed rates: one use in a long profile says less than several in a short one
            rates = {p: (bags[p][w] + _ALPHA) / totals[p] for p in candidates}
            norm = sum(rates.values())
            for p in candidates:
                share = rates[p] / norm if norm else 0.0
                out[p] += self._weight(w) * max(share - 1.0 / len(candidates), 0.0) * 2
        return out


def clear_lead(best: float, second: float) -> bool:
    """A lead worth deciding on: some evidence, and 15% ahead of the next (near-ties stay ``unknown``).
    Measured on the seed and the fixtures: raising this turned right answers into ``unknown`` and never a wrong
    one into ``unknown`` (scripts/attribution_accuracy.py)."""
    return (best >= 0.3 and best >= 1.15 * second) or (
        best >= 1.0 and best - second >= max(0.3, 0.05 * best)
    )


# ----------------------------------------------------------------------------------------------- names
