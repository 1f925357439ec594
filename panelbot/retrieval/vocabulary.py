"""A panel's vocabulary: variant phrases mapped to one term, number words to digits, and words to stemmed terms.

The panel's own ``vocabulary:`` (panel.yaml) comes first, then the general synonym groups shipped in
``panelbot/data/thesaurus.txt``. Phrases are replaced in one pass over the words (longest first, a dict
lookup per candidate: nothing to compile, so a cached normaliser is ready at once); single words also match
after stemming, so plurals and -ing forms follow their group.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from panelbot.retrieval.lexicon import DATA_DIR, stem, stopwords
from panelbot.text import words

if TYPE_CHECKING:
    from collections.abc import KeysView

_NUMBER_WORDS = {
    "one": "1",
    "two": "2",
    "three": "3",
    "four": "4",
    "five": "5",
    "six": "6",
    "seven": "7",
    "eight": "8",
    "nine": "9",
    "ten": "10",
    "twelve": "12",
    "fourteen": "14",
    "hundred": "100",
    "thousand": "1000",
    "million": "1m",
}


class _TermMap(dict):
    """word -> stemmed term ('' for stopwords and single letters), read through stem-level synonyms;
    filled on first sight."""

    def __init__(self, synonyms: dict[str, str]) -> None:
        super().__init__()
        self.synonyms = synonyms

    def __missing__(self, w: str) -> str:
        if w in stopwords() or (len(w) < 2 and not w.isdigit()):
            term = ""
        else:
            term = stem(w)
            for _ in range(
                3
            ):  # a general synonym of a panel word reads as the panel's term: hosts -> serve -> inference
                term, prev = self.synonyms.get(term, term), term
                if term == prev:
                    break
        self[w] = term
        return term


def thesaurus() -> list[list[str]]:
    """The general synonym groups shipped in panelbot/data/thesaurus.txt (first entry = the term)."""
    text = (DATA_DIR / "thesaurus.txt").read_text(encoding="utf-8")
    groups = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            groups.append([e.strip() for e in line.split(",") if e.strip()])
    return groups


def _dot_prefixes(token: str) -> list[tuple[str, str]]:
    """'3.5.1' -> [('3.5', '.1'), ('3', '.5.1')]: a phrase may end where a dotted token continues."""
    out = []
    j = len(token)
    while (j := token.rfind(".", 0, j)) > 0:
        out.append((token[:j], token[j:]))
    return out


class Normalizer:
    """Applies the panel's vocabulary (variant phrase -> canonical phrase) and number words ("three" -> "3")
    in one left-to-right pass over the words (the longest phrase wins), then maps words to stemmed terms.

    A phrase matches whole words; its last word may also end where a dotted token continues ("kv" in
    "kv.cache"). Everything it holds is plain data (:meth:`state`), so an index cache can store it and
    :meth:`from_state` can restore it without re-reading the thesaurus.
    """

    def __init__(self, vocabulary: dict[str, tuple[str, ...]], *, general: bool = True) -> None:
        mapping: dict[str, str] = {}
        synonyms: dict[str, str] = {}

        def with_numbers(t: str) -> str:
            return " ".join(_NUMBER_WORDS.get(w, w) for w in t.split())

        groups: list[tuple[str, tuple[str, ...]]] = list(
            vocabulary.items()
        )  # the panel's own first
        if general:
            groups += [(g[0], tuple(g[1:])) for g in thesaurus()]
        for canonical, variants in groups:
            canon = with_numbers(" ".join(words(canonical)))
            canon_stem = stem(canon) if " " not in canon else None
            for v in (*variants, canonical):
                raw = " ".join(words(v))
                for form in (raw, with_numbers(raw)):
                    if form and (
                        form != canon or " " in canon
                    ):  # canonical phrases map to themselves
                        mapping.setdefault(form, canon)
                if canon_stem and raw and " " not in raw:
                    synonyms.setdefault(stem(raw), canon_stem)
        mapping.update({w: d for w, d in _NUMBER_WORDS.items() if w not in mapping})
        self._setup(mapping, synonyms)
        self.canonical_terms = frozenset(
            t for canon in vocabulary for t in self.unigrams(with_numbers(" ".join(words(canon))))
        )

    def _setup(self, mapping: dict[str, str], synonyms: dict[str, str]) -> None:
        self._map = mapping
        self._terms = _TermMap(synonyms)
        heads: dict[
            str, int
        ] = {}  # a phrase's first word -> the most words a phrase starting so has
        for key in mapping:
            parts = key.split(" ")
            heads[parts[0]] = max(heads.get(parts[0], 0), len(parts))
        self._heads = heads

    def state(self) -> dict[str, object]:
        """Plain data from which :meth:`from_state` rebuilds an equal normaliser."""
        return {
            "mapping": self._map,
            "synonyms": self._terms.synonyms,
            "canonical_terms": sorted(self.canonical_terms),
        }

    @classmethod
    def from_state(cls, state: dict) -> Normalizer:
        mapping, synonyms, canonical = state["mapping"], state["synonyms"], state["canonical_terms"]
        for d in (mapping, synonyms):
            if not isinstance(d, dict) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in d.items()
            ):
                raise ValueError("normaliser state: mappings of text expected")
        if not isinstance(canonical, list) or not all(isinstance(t, str) for t in canonical):
            raise ValueError("normaliser state: canonical_terms must be a list of text")
        self = cls.__new__(cls)
        self._setup(mapping, synonyms)
        self.canonical_terms = frozenset(canonical)
        return self

    def _match(self, toks: list[str], i: int) -> tuple[str, int, str] | None:
        """The longest phrase starting at word i: (phrase, words it spans, rest of a dotted last word)."""
        m = self._map
        tok = toks[i]
        for n in range(min(self._heads.get(tok, 0), len(toks) - i), 1, -1):
            head = " ".join(toks[i : i + n - 1])
            last = toks[i + n - 1]
            if (key := f"{head} {last}") in m:
                return key, n, ""
            if "." in last:
                for prefix, rest in _dot_prefixes(last):
                    if (key := f"{head} {prefix}") in m:
                        return key, n, rest
        if tok in m:
            return tok, 1, ""
        if "." in tok:
            for prefix, rest in _dot_prefixes(tok):
                if prefix in m:
                    return prefix, 1, rest
        return None

    def phrase_heads(self) -> KeysView[str]:
        """The words a vocabulary phrase can start with (a set-like view)."""
        return self._heads.keys()

    def plain(self, toks: list[str]) -> bool:
        """True when no vocabulary phrase and no dotted token can apply to these words (most quotes of a
        large bank): their terms are then simply each word's own term (:meth:`word_terms`), in order."""
        return self._heads.keys().isdisjoint(toks) and "." not in "".join(toks)

    def word_terms(self) -> dict[str, str]:
        """word -> its stemmed term ('' for a stopword), filled on first sight (index it for each word)."""
        return self._terms

    def _map_words(self, toks: list[str], phrases: dict[str, float] | None = None) -> list[str]:
        heads = self._heads
        if self.plain(toks):
            return toks  # nothing to map: no per-word work
        starts = [
            i for i, t in enumerate(toks) if t in heads or "." in t
        ]  # where a phrase may begin
        out: list[str] = []
        done = 0  # toks[:done] are handled
        for i in starts:
            if i < done:
                continue  # inside a phrase already replaced
            hit = self._match(toks, i)
            if hit is None:
                continue
            key, span, rest = hit
            out.extend(toks[done:i])
            canon = self._map[key]
            if phrases is not None and span > 1:
                terms = self.unigrams(canon)
                for t in terms:  # one phrase is one piece of evidence, however many words it has
                    phrases[t] = max(phrases.get(t, 0.0), 1.0 / len(terms))
            pieces = canon.split()
            if rest:
                if pieces:
                    pieces[-1] += rest
                else:
                    pieces = [rest]
            out.extend(pieces)
            done = i + span
        if not done:
            return toks  # no phrase matched: the words as they were (the same list)
        out.extend(toks[done:])
        return out

    def map_words(self, toks: list[str]) -> list[str]:
        """The words with the vocabulary's phrases and number words mapped; ``toks`` itself (the same
        list) when nothing applied."""
        return self._map_words(toks)

    def normalise(
        self, text: str, fix: dict[str, str] | None = None, phrases: dict[str, float] | None = None
    ) -> str:
        """Vocabulary- and number-mapped text; terms produced from a multi-word phrase ("day zero" ->
        launch) are recorded in ``phrases`` with their share of that phrase."""
        toks = words(text)
        if fix:
            toks = [fix.get(w, w) for w in toks]
        return " ".join(self._map_words(toks, phrases))

    def unigrams(self, normalised: str) -> list[str]:
        return list(filter(None, map(self._terms.__getitem__, normalised.split())))

    def terms(self, text: str) -> list[str]:
        """Stemmed content words plus adjacent pairs ("kv_cach")."""
        return self.terms_of_words(words(text))

    def terms_of_words(self, toks: list[str], *, pairs: bool = True) -> list[str]:
        uni = list(filter(None, map(self._terms.__getitem__, self._map_words(toks))))
        return uni + [f"{a}_{b}" for a, b in zip(uni, uni[1:], strict=False)] if pairs else uni
