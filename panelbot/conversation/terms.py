"""A message's words as the router reads them, and the weighted scoring a follow-up retrieves with: its own
terms and in-scope evidence, the words that name panelists, the words the panel never used, and BM25 scores
for terms with weights (a new message's words weigh more than the subject's)."""

from __future__ import annotations

import contextlib
import heapq
import re
import weakref
from collections import defaultdict
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from panelbot.retrieval.lexicon import common_stems, english_words, stem
from panelbot.retrieval.results import ScoredQuote

if TYPE_CHECKING:
    from panelbot.conversation.router_view import FollowUpRouter

VARIANT_PREFIX = (
    6  # an unknown word sharing this many first letters with a panel word is a variant of it
)
MEMO_SIZE = (
    1024  # texts remembered per router: replaying a conversation re-reads its earlier questions
)

OwnTerms = tuple[dict[str, float], float, list[str], list[str]]
_MEMO: weakref.WeakKeyDictionary[Any, dict[str, OwnTerms]] = weakref.WeakKeyDictionary()
_PREFIXES: weakref.WeakKeyDictionary[Any, frozenset[str]] = weakref.WeakKeyDictionary()
_SHARES: weakref.WeakKeyDictionary[Any, dict[tuple[str, frozenset[str]], float]] = (
    weakref.WeakKeyDictionary()
)


def _memo_of(table: weakref.WeakKeyDictionary[Any, Any], router: Any) -> dict[Any, Any]:
    try:
        return table.setdefault(router, {})
    except TypeError:  # a router that cannot be weakly referenced: no memo
        return {}


def own_terms(router: FollowUpRouter, text: str) -> OwnTerms:
    """A text's retrieval terms (weight 1), its own in-scope evidence, matched and unmatched words."""
    memo = _memo_of(_MEMO, router)
    hit = memo.get(text)
    if hit is None:
        q = router.query_terms(text)
        hit = (dict.fromkeys(q.terms, 1.0), router.scope(q, []), list(q.matched), list(q.unmatched))
        if len(memo) >= MEMO_SIZE:
            memo.clear()
        memo[text] = hit
    terms, evidence, matched, unmatched = hit
    return dict(terms), evidence, list(matched), list(unmatched)


def identity_terms(router: FollowUpRouter, pids: Sequence[str]) -> set[str]:
    """The terms that name panelists: their name, id and organisation."""
    out: set[str] = set()
    for pid in pids:
        p = router.panel.panelists.get(pid)
        if p is not None:
            for text in (p.name, p.organisation, pid):
                out.update(router.norm.terms(text or ""))
    return out


def panelist_by_organisation(router: FollowUpRouter, message: str) -> list[str]:
    """The one panelist whose organisation the message names ("how does Together see it?"): the full name,
    or its first word -- capitalised when that word is also ordinary English ("together"); [] otherwise."""
    hits = []
    known = english_words()
    for pid, p in router.panel.panelists.items():
        org = (p.organisation or "").strip()
        if not org:
            continue
        head = org.split()[0]
        if re.search(rf"\b{re.escape(org)}\b", message, re.IGNORECASE):
            hits.append(pid)
        elif len(head) >= 4 and head.lower() in known:
            if re.search(rf"(?<![.?!]\s)(?<!^)\b{re.escape(head)}\b", message.strip()):
                hits.append(pid)
        elif len(head) >= 4 and re.search(rf"\b{re.escape(head)}\b", message, re.IGNORECASE):
            hits.append(pid)
    return hits if len(hits) == 1 else []


def words_panel_never_used(router: FollowUpRouter, unmatched: list[str]) -> list[str]:
    """Distinctive words the panel never used (not ordinary English, not a number, not a near variant of a
    panel word such as "underused" for "underutilize")."""
    common = common_stems()
    out = []
    for t in dict.fromkeys(unmatched):
        if t in common or t.isdigit() or len(t) < 3:
            continue
        if not is_variant_of_panel_word(router, t):
            out.append(t)
    return out


def outside_english(terms: list[str]) -> list[str]:
    """The terms that are no English word either (a brand, a product, jargon of another field: "shopify"),
    unlike a paraphrase's rare English word the panel never used ("ballooning")."""
    known = english_words()
    return [t for t in terms if t not in known and stem(t) not in known]


def is_variant_of_panel_word(router: FollowUpRouter, term: str) -> bool:
    """A near variant of a word the panel used (same first six letters: "underused", "underutilize")."""
    if len(term) < VARIANT_PREFIX:
        return False
    prefixes = _PREFIXES.get(router)
    if prefixes is None:
        prefixes = frozenset(w[:VARIANT_PREFIX] for w in router.lexicon if len(w) >= VARIANT_PREFIX)
        with contextlib.suppress(TypeError):
            _PREFIXES[router] = prefixes
    return term[:VARIANT_PREFIX] in prefixes


def names_a_subject(router: FollowUpRouter, term: str) -> bool:
    """A word that names a subject: not everyday English, or one of the panel's vocabulary terms."""
    return "_" not in term and (term not in common_stems() or term in router.norm.canonical_terms)


# ------------------------------------------------------------------------------------------ scoring


def weighted_scores(
    router: FollowUpRouter, weighted: dict[str, float], speakers: set[str] | None
) -> tuple[dict[int, float], float]:
    """BM25 scores (quote index -> score) for terms with weights, and the normalising maximum."""
    groups: dict[float, list[str]] = defaultdict(list)
    for t, w in weighted.items():
        if w > 0:
            groups[w].append(t)
    total: dict[int, float] = defaultdict(float)
    top = 0.0
    for w, terms in sorted(groups.items()):
        for i, s in router.index.score(terms, speakers).items():
            total[i] += w * s
        top += w * router.index.max_score(terms)
    return total, top or 1.0


def ranked(scores: dict[int, float], n: int) -> list[tuple[int, float]]:
    """The n best (quote index, score), best first, ties by index (cheap on a bank of 100,000)."""
    return heapq.nsmallest(n, scores.items(), key=lambda kv: (-kv[1], kv[0]))


def best_first(scores: dict[int, float]) -> list[int]:
    """Quote indices, best score first (ties by index)."""
    return [i for i, _ in ranked(scores, len(scores))]


def merged(new: dict[str, float], old: dict[str, float], weight: float) -> dict[str, float]:
    """The new terms at their weight, the old ones at ``weight`` times theirs (the larger when in both)."""
    out = {t: weight * w for t, w in old.items()}
    for t, w in new.items():
        out[t] = max(out.get(t, 0.0), w)
    return out


def subject_weight_under_new_words(
    router: FollowUpRouter, new: dict[str, float], old: dict[str, float], weight: float
) -> float:
    """The weight for the old subject's terms (at most ``weight`` each) so that, all together, they weigh no
    more than the new words: a subject of twenty terms must not outvote the one new word ("and DeepSeek?")."""
    if not new or not old:
        return weight
    mine = sum(w * router.index.max_score([t]) for t, w in new.items())
    theirs = sum(w * router.index.max_score([t]) for t, w in old.items())
    return weight if theirs <= 0 else min(weight, mine / theirs)


def scored_quote(
    router: FollowUpRouter, i: int, score: float, top: float, terms: dict[str, float]
) -> ScoredQuote:
    """The quote at index ``i`` with its 0-100 score and why it matches."""
    q = router.index.quotes[i]
    return ScoredQuote(q, min(100.0, 100.0 * score / top), router.match_reason(q, list(terms)))


def share_of_quotes_saying(router: FollowUpRouter, term: str, speakers: Sequence[str]) -> float:
    """The share of these panelists' quotes that say the term (remembered per router: a bank does not change)."""
    allowed = frozenset(speakers)
    memo = _memo_of(_SHARES, router)
    key = (term, allowed)
    got = memo.get(key)
    if got is None:
        index = router.index
        counts: dict[str, int] = defaultdict(int)
        plist = index.postings.get(term)
        for i in plist[0] if plist else ():
            counts[index.speaker_of[i]] += 1
        total = sum(
            memo.get(("", frozenset((p,))), 0.0) or _quote_count(router, memo, p) for p in allowed
        )
        got = sum(counts[p] for p in allowed) / total if total else 1.0
        if len(memo) >= MEMO_SIZE:
            memo.clear()
        memo[key] = got
    return got


def _quote_count(
    router: FollowUpRouter, memo: dict[tuple[str, frozenset[str]], float], speaker: str
) -> float:
    n = float(sum(1 for s in router.index.speaker_of if s == speaker))
    memo[("", frozenset((speaker,)))] = n
    return n
