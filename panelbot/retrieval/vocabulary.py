"""A panel's vocabulary: variant phrases mapped to one term, number words to digits, and words to stemmed terms.

The panel's own ``vocabulary:`` (panel.yaml) comes first, then the general synonym groups shipped in
``panelbot/data/thesaurus.txt``. Phrases are replaced in one pass of a trie-shaped regex; single words also
match after stemming, so plurals and -ing forms follow their group.
"""

from __future__ import annotations

import re
from importlib import resources

from panelbot.retrieval.lexicon import stem, stopwords
from panelbot.text import words

_NUMBER_WORDS = {
    "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7",
    "eight": "8", "nine": "9", "ten": "10", "twelve": "12", "fourteen": "14", "hundred": "100",
    "thousand": "1000", "million": "1m",
}


def _trie_regex(phrases: list[str]) -> str:
    """One alternation, factored as a character trie, so matching costs about one pass over the text
    instead of one try per phrase at every position. Longer phrases win (greedy alternatives first)."""
    trie: dict = {}
    for p in phrases:
        node = trie
        for ch in p:
            node = node.setdefault(ch, {})
        node[""] = {}

    def build(node: dict) -> str:
        alts = [re.escape(ch) + build(child) for ch, child in sorted(node.items()) if ch]
        end = "" in node
        if not alts:
            return ""
        body = alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
        return f"(?:{body})?" if end else body

    return build(trie) or "(?!)"


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
            for _ in range(3):  # a general synonym of a panel word reads as the panel's term: hosts -> serve -> inference
                term, prev = self.synonyms.get(term, term), term
                if term == prev:
                    break
        self[w] = term
        return term


def thesaurus() -> list[list[str]]:
    """The general synonym groups shipped in panelbot/data/thesaurus.txt (first entry = the term)."""
    text = resources.files("panelbot.data").joinpath("thesaurus.txt").read_text(encoding="utf-8")
    groups = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            groups.append([e.strip() for e in line.split(",") if e.strip()])
    return groups


class Normalizer:
    """Applies the panel's vocabulary (variant phrase -> canonical phrase) and number words ("three" -> "3")
    in one regex pass, then tokenises to stemmed terms."""

    def __init__(self, vocabulary: dict[str, tuple[str, ...]], *, general: bool = True) -> None:
        mapping: dict[str, str] = {}
        synonyms: dict[str, str] = {}

        def with_numbers(t: str) -> str:
            return " ".join(_NUMBER_WORDS.get(w, w) for w in t.split())

        groups: list[tuple[str, tuple[str, ...]]] = list(vocabulary.items())  # the panel's own first
        if general:
            groups += [(g[0], tuple(g[1:])) for g in thesaurus()]
        for canonical, variants in groups:
            canon = with_numbers(" ".join(words(canonical)))
            canon_stem = stem(canon) if " " not in canon else None
            for v in (*variants, canonical):
                raw = " ".join(words(v))
                for form in (raw, with_numbers(raw)):
                    if form and (form != canon or " " in canon):  # canonical phrases map to themselves
                        mapping.setdefault(form, canon)
                if canon_stem and raw and " " not in raw:
                    synonyms.setdefault(stem(raw), canon_stem)
        mapping.update({w: d for w, d in _NUMBER_WORDS.items() if w not in mapping})
        self._re = re.compile(rf"(?<![\w.'])(?:{_trie_regex(list(mapping))})(?![\w'])")
        self._map = mapping
        self._terms = _TermMap(synonyms)
        self.canonical_terms = {
            t for canon in vocabulary for t in self.unigrams(with_numbers(" ".join(words(canon))))
        }

    def _sub(self, s: str, phrases: dict[str, float] | None = None) -> str:
        def repl(m: re.Match[str]) -> str:
            out = self._map[m.group(0)]
            if phrases is not None and " " in m.group(0):
                terms = self.unigrams(out)
                for t in terms:  # one phrase is one piece of evidence, however many words it has
                    phrases[t] = max(phrases.get(t, 0.0), 1.0 / len(terms))
            return out

        return self._re.sub(repl, s)

    def normalise(self, text: str, fix: dict[str, str] | None = None,
                  phrases: dict[str, float] | None = None) -> str:
        """Vocabulary- and number-mapped text; terms produced from a multi-word phrase ("day zero" ->
        launch) are recorded in ``phrases`` with their share of that phrase."""
        toks = words(text)
        if fix:
            toks = [fix.get(w, w) for w in toks]
        return self._sub(" ".join(toks), phrases)

    def unigrams(self, normalised: str) -> list[str]:
        return [t for t in map(self._terms.__getitem__, normalised.split()) if t]

    def terms(self, text: str) -> list[str]:
        """Stemmed content words plus adjacent pairs ("kv_cach")."""
        return self.terms_of_words(words(text))

    def terms_of_words(self, toks: list[str], *, pairs: bool = True) -> list[str]:
        uni = self.unigrams(self._sub(" ".join(toks)))
        return uni + [f"{a}_{b}" for a, b in zip(uni, uni[1:], strict=False)] if pairs else uni
