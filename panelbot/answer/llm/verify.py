"""Check a generated answer against the quotes it was given, sentence by sentence, and grade it.

- Every ``[id]`` must name one of the answering speaker's retrieved quotes (case is ignored). Lookalikes
  count as citations too: full-width and other bracket forms (``［id］``, ``【id】``), the text of a
  Markdown link (``[id](url)``), an id broken across lines, full-width letters and Unicode dashes.
- Text in quotation marks must appear, normalised (case and punctuation ignored, whole words only), in a
  quote cited in the same sentence. Quotation marks of every common style count (straight, curly, low,
  reversed ``‟…”``, ornamental ``❝…❞``, ``〝…〟``, guillemets, corner brackets, full-width, ``&quot;``), and
  a quotation may run across a line break or a full stop.
- Every sentence that cites a quote must be *supported* by the quotes it cites (see :func:`support`): at
  least :data:`SUPPORT_THRESHOLD` of its content words are in them, every number it gives is in them, and it
  says "not"/"never" only when they do. Quotation marks are not needed for a claim to be checked.
- The grade (``panelbot.answer.verdict``): grounded when every sentence that says something is supported;
  not grounded when none is, or when a citation or a quotation was invented; partly grounded otherwise.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

from panelbot.answer.events import Citation
from panelbot.answer.verdict import (
    GROUNDED,
    INVALID,
    MISQUOTED,
    NO_CLAIM,
    NOT_GROUNDED,
    PARTLY,
    SEVERE,
    SUPPORTED,
    UNCITED,
    UNSUPPORTED,
    SentenceCheck,
    Verdict,
)
from panelbot.panel import Quote
from panelbot.text import agree, normalize_for_match, split_sentences, words

if TYPE_CHECKING:
    from panelbot.answer.events import SpeakerDone
    from panelbot.retrieval.vocabulary import Normalizer

# The one threshold of the support check: the share of a sentence's content words that the quotes it cites
# must hold. Fitted on tests/fixtures/verifier/support.yaml (labelled supported / unsupported sentences);
# ``python scripts/verifier_support.py`` reports precision and recall there at this value and around it.
SUPPORT_THRESHOLD = 0.7

# Words that frame a claim rather than make it ("as I said", "I think"): not counted as content.
_FRAMING_WORDS = frozenset(
    [
        "said",
        "say",
        "says",
        "saying",
        "mentioned",
        "mention",
        "talked",
        "talk",
        "talking",
        "think",
        "thought",
        "believe",
        "mean",
        "meant",
        "point",
        "noted",
        "explained",
        "argued",
        "told",
        "tell",
        "telling",
        "put",
        "guess",
        "feel",
        "honestly",
        "really",
        "call",
        "called",
        "calls",
        "calling",
        "described",
        "describe",
    ]
)
# Words that turn a claim round: a sentence with one needs a cited quote with one too (any of them).
_NEGATORS = frozenset(
    [
        "not",
        "no",
        "never",
        "nobody",
        "nothing",
        "none",
        "neither",
        "nor",
        "without",
        "cannot",
        "nowhere",
        "unable",
        "impossible",
        "stop",
        "stops",
        "stopped",
        "stopping",
        "refuse",
        "refuses",
        "refused",
        "fail",
        "fails",
        "failed",
        "lack",
        "lacks",
    ]
)

_BRACKET_RE = re.compile(r"\[([^\[\]\n]{1,80})\]")
_TOKEN_SPLIT_RE = re.compile(r"[,;\s]+")
# Sentence punctuation written before the citations ("claim. [a-1] Next") moves after them.
_CITE_AFTER_STOP_RE = re.compile(r"([.!?])((?:[ \t]*\[[^\[\]\n]{1,80}\](?:\([^()\n]*\))?)+)")
_LIST_MARKER_RE = re.compile(r"^\s*(?:\d{1,3}[.)]|[-*\u2022])\s+")
_MD_LINK_TARGET_RE = re.compile(r"(\[[^\[\]\n]{1,80}\])\([^()\n]*\)")
# Bracket lookalikes a model (or a prompt injection) may use instead of [ and ].
_OPEN_BRACKETS = "\uff3b\u3010\u3014\u3016\u3018\u301a\u27e6\u2045\u298b\u298d\u298f\ufe5d"
_CLOSE_BRACKETS = "\uff3d\u3011\u3015\u3017\u3019\u301b\u27e7\u2046\u298c\u298e\u2990\ufe5e"
_BRACKET_MAP = str.maketrans(
    _OPEN_BRACKETS + _CLOSE_BRACKETS, "[" * len(_OPEN_BRACKETS) + "]" * len(_CLOSE_BRACKETS)
)
# Quotation marks of rarer styles, read as the common ones: reversed and ornamental double marks, the
# CJK double prime marks, full-width and prime marks, ornamental single marks, TeX's ``...''.
_QUOTE_MAP = str.maketrans(
    {
        "\u201f": "\u201c",  # ‟
        "\u275d": "\u201c",  # ❝
        "\u275e": "\u201d",  # ❞
        "\u301d": "\u201c",  # 〝
        "\u301e": "\u201d",  # 〞
        "\u301f": "\u201d",  # 〟
        "\uff02": '"',  # ＂
        "\u2033": '"',  # ″
        "\u02ba": '"',  # ʺ
        "\u275b": "\u2018",  # ❛
        "\u275c": "\u2019",  # ❜
        "\u201b": "\u2018",  # ‛
    }
)
_DASHES_RE = re.compile("[\u2010-\u2015\u2212\ufe58\ufe63\uff0d]")
_SPLIT_ID_RE = re.compile(r"\[([^\[\]]{1,80})\]")
# Quotations: "..." and “...”, «...» and ‹...› (either way round), „...“, 「...」,
# 『...』, and single quotes ('...' or ‘...’) that are not apostrophes (not inside a word). A quotation holds
# no opening mark of its own kind, so each match stops at the next mark: linear on any text.
_QUOTED_RE = re.compile(
    '"([^"\n]+)"|\u201c([^\u201c\u201d\n]+)\u201d|\u201e([^\u201e\u201c\u201d\n]+)[\u201c\u201d]'
    "|\u00ab([^\u00ab\u00bb\n]+)\u00bb|\u00bb([^\u00bb\u00ab\n]+)\u00ab"
    "|\u2039([^\u2039\u203a\n]+)\u203a|\u203a([^\u203a\u2039\n]+)\u2039"
    "|\u300c([^\u300c\u300d\n]+)\u300d|\u300e([^\u300e\u300f\n]+)\u300f"
    "|(?<!\\w)'([^'\n]+)'(?!\\w)|(?<!\\w)\u2018([^\u2018\u2019\n]+)\u2019(?!\\w)"
)
_SINGLE_QUOTE_GROUPS = (
    10,
    11,
)  # '...' and ‘...’: one word in single quotes is a term, not a quotation
_OPEN_MARKS = ('"', "\u201c", "\u201e", "\u00ab", "\u2039", "\u300c", "\u300e")
_JOIN_AT_MOST = 3  # an open quotation joins at most this many following lines or sentences


def normalize_citations(text: str) -> str:
    """Citation lookalikes in their plain form: ``[id]`` for bracket lookalikes, Markdown links and ids
    broken across lines; full-width letters and Unicode dashes inside brackets folded to ASCII."""
    text = text.translate(_BRACKET_MAP)

    def fold_inside(m: re.Match[str]) -> str:
        inner = unicodedata.normalize("NFKC", m.group(1))
        inner = _DASHES_RE.sub("-", inner)
        inner = re.sub(r"\s*\n\s*", "", inner)  # an id split by a line break is still that id
        return f"[{inner}]"

    text = _SPLIT_ID_RE.sub(fold_inside, text)
    return _MD_LINK_TARGET_RE.sub(r"\1", text)  # [id](url): the link text is the citation


def normalize_quotation_marks(text: str) -> str:
    """HTML entities decoded (``&quot;`` is a quotation mark) and rarer quotation marks read as the common
    ones, so every style is found by the same rules."""
    if "&" in text:
        text = html.unescape(text)
    return text.replace("``", "\u201c").replace("''", "\u201d").translate(_QUOTE_MAP)


@dataclass
class Verification:
    citations: list[Citation] = field(
        default_factory=list
    )  # each cited id once, in order of first use
    grounded: bool = False
    unsupported_sentences: list[str] = field(
        default_factory=list
    )  # every counted one not supported
    problems: list[str] = field(default_factory=list)  # why a citation is invalid, one line each
    verdict: Verdict = field(default_factory=lambda: Verdict(NOT_GROUNDED))


def cited_ids(text: str) -> list[str]:
    """Every citation token in ``text``, in order, repeats kept."""
    ids: list[str] = []
    for m in _BRACKET_RE.finditer(text):
        for tok in _TOKEN_SPLIT_RE.split(m.group(1)):
            tok = tok.strip(":#*'\"`")
            if tok:
                ids.append(tok)
    return ids


def _unclosed(sentence: str) -> bool:
    """True when a quotation opens in ``sentence`` and does not close there."""
    rest = _QUOTED_RE.sub("", _BRACKET_RE.sub("", sentence))
    return any(mark in rest for mark in _OPEN_MARKS)


def _join_open(parts: list[str], sep: str) -> list[str]:
    """Parts (lines, sentences) with a quotation that opens in one and closes in one of the next few
    joined into one (with ``sep``); a quotation that never closes leaves them as they were."""
    out: list[str] = []
    i = 0
    while i < len(parts):
        cur = parts[i]
        i += 1
        if _unclosed(cur):
            for j in range(i, min(len(parts), i + _JOIN_AT_MOST)):
                joined = sep.join([cur, *parts[i : j + 1]])
                if not _unclosed(joined):
                    cur, i = joined, j + 1
                    break
        out.append(cur)
    return out


def sentences_of(text: str) -> list[str]:
    """Sentences with their citations attached, one line or list item at a time (list markers dropped;
    a citation-only fragment joins the sentence before; a quotation across a line break or a full stop
    keeps its sentence whole)."""
    out: list[str] = []
    for line in _join_open(text.splitlines(), " "):
        line = _CITE_AFTER_STOP_RE.sub(
            lambda m: f"{m.group(2)}{m.group(1)}", _LIST_MARKER_RE.sub("", line)
        )
        for sent in _join_open(split_sentences(line), " "):
            if out and not _BRACKET_RE.sub("", sent).strip(" .!?;:,-*"):
                out[-1] = f"{out[-1]} {sent}"
            else:
                out.append(sent)
    return out


def quoted_spans(sentence: str) -> list[str]:
    """Text in quotation marks; an unclosed double quotation or guillemet runs to the end of the sentence.
    A single word in single quotes is a term ('agents'), not a quotation."""
    text = _BRACKET_RE.sub("", sentence)
    spans: list[str] = []
    for m in _QUOTED_RE.finditer(text):
        group = next(i for i, g in enumerate(m.groups(), 1) if g is not None)
        span = m.group(group)
        if group in _SINGLE_QUOTE_GROUPS and len(normalize_for_match(span).split()) < 2:
            continue
        spans.append(span)
    rest = _QUOTED_RE.sub("", text)
    opened = [rest.rindex(mark) for mark in _OPEN_MARKS if mark in rest]
    if opened:
        spans.append(rest[max(opened) + 1 :])
    return [sp for sp in spans if normalize_for_match(sp)]


def _contains(haystack_norm: str, needle: str) -> bool:
    n = normalize_for_match(needle)
    return not n or f" {n} " in f" {haystack_norm} "


# ------------------------------------------------------------------------------------------ support


@lru_cache(maxsize=1)
def _normalizer() -> Normalizer:
    """The general vocabulary (synonym groups, number words), the same for every panel: the threshold is
    fitted with it."""
    from panelbot.retrieval.vocabulary import Normalizer

    return Normalizer({})


def _mapped_words(text: str) -> list[str]:
    return _normalizer().map_words(words(text))


def content_terms(text: str) -> set[str]:
    """The stemmed content words of ``text`` (no stopwords, no framing words such as "said", "think")."""
    toks = [w for w in _mapped_words(text) if w not in _FRAMING_WORDS]
    return set(_normalizer().terms_of_words(toks, pairs=False))


def _numbers(toks: Iterable[str]) -> set[str]:
    return {t for t in toks if any(c.isdigit() for c in t)}


def _claimed_numbers(text: str) -> set[str]:
    """The numbers a sentence gives: written in digits ("10%", "2.7", "M3") or as number words ("ten"),
    but not "one", which is as often a pronoun ("each one", "one of the")."""
    raw = words(text)
    return _numbers(_normalizer().map_words([w for w in raw if w != "one"]))


def _negated(toks: Iterable[str]) -> bool:
    return any(t in _NEGATORS or t.endswith("n't") for t in toks)


@dataclass(frozen=True)
class Support:
    """How far a sentence's cited quotes hold what it says."""

    share: float  # of its content words, the share they hold (1.0 when it has none)
    found: int
    total: int
    missing_numbers: tuple[str, ...] = ()
    negation_unmatched: bool = False

    @property
    def supported(self) -> bool:
        return (
            self.share >= SUPPORT_THRESHOLD
            and not self.missing_numbers
            and not self.negation_unmatched
        )

    def why(self, ids: Sequence[str]) -> str:
        where = ", ".join(ids)
        if self.missing_numbers:
            return f"{', '.join(self.missing_numbers)} is not in {where}"
        if self.negation_unmatched:
            return f"says not/never where {where} does not"
        return f"{self.found} of {self.total} content words in {where}"


def support(sentence: str, quotes: Sequence[str]) -> Support:
    """How far ``quotes`` (the texts a sentence cites) hold ``sentence``: the share of its content words they
    contain (after stemming and the general synonym groups), whether every number it gives is in them and
    whether a "not"/"never" in it has one in them."""
    sentence = _BRACKET_RE.sub(" ", sentence)
    said = _mapped_words(sentence)
    source_words = [w for q in quotes for w in _mapped_words(q)]
    mine = content_terms(" ".join(said))
    theirs = content_terms(" ".join(source_words))
    found = len(mine & theirs)
    share = found / len(mine) if mine else 1.0
    missing = tuple(sorted(_claimed_numbers(sentence) - _numbers(source_words)))
    negation = _negated(said) and not _negated(source_words)
    return Support(share, found, len(mine), missing, negation)


# ------------------------------------------------------------------------------------------ verify


class _Checker:
    """One answer's verification as it goes, sentence by sentence."""

    def __init__(self, sources: Sequence[Quote], speaker_name: str) -> None:
        self.by_id = {q.id.lower(): q for q in sources}
        self.norm = {qid: normalize_for_match(q.text) for qid, q in self.by_id.items()}
        self.speaker_name = speaker_name
        self.order: list[str] = []
        self.valid: dict[str, bool] = {}
        self.problems: list[str] = []
        self.checks: list[SentenceCheck] = []

    def mark(self, cid: str, ok: bool, why: str = "") -> None:
        if cid not in self.valid:
            self.order.append(cid)
            self.valid[cid] = ok
        else:
            self.valid[cid] = self.valid[cid] and ok
        if why and why not in self.problems:
            self.problems.append(why)

    def sentence(self, sent: str) -> None:
        ids = cited_ids(sent)
        quoted = quoted_spans(sent)
        shown = _BRACKET_RE.sub("", sent).strip()
        shown = re.sub(r"\s+([.!?,;:])", r"\1", shown) or sent
        if not ids:
            for span in quoted:
                self.problems.append(f"quoted \u201c{span.strip()}\u201d cites no source")
            self.checks.append(SentenceCheck(shown, UNCITED if _claims(sent, quoted) else NO_CLAIM))
            return
        known = [self.by_id[i.lower()].id for i in ids if i.lower() in self.by_id]
        unknown = [i for i in ids if i.lower() not in self.by_id]
        for cid in unknown:
            self.mark(
                cid, False, f"[{cid}] is not one of {self.speaker_name}'s sources for this answer"
            )
        misquoted = [
            span for span in quoted if not any(_contains(self.norm[k.lower()], span) for k in known)
        ]
        for span in misquoted:
            for k in known:
                self.mark(k, False, f"quoted \u201c{span.strip()}\u201d does not appear in [{k}]")
        for k in known:
            self.mark(k, True)
        cited = list(dict.fromkeys(known))
        if unknown:
            shown_ids = ", ".join(dict.fromkeys(unknown))
            check = SentenceCheck(shown, INVALID, ids, None, f"{shown_ids}: not a source given")
        elif misquoted:
            where = ", ".join(cited)
            check = SentenceCheck(
                shown, MISQUOTED, ids, None, f"\u201c{misquoted[0].strip()}\u201d is not in {where}"
            )
        else:
            s = support(sent, [self.by_id[k.lower()].text for k in cited])
            status = SUPPORTED if s.supported else UNSUPPORTED
            check = SentenceCheck(shown, status, ids, s.share, "" if s.supported else s.why(cited))
        self.checks.append(check)

    def result(self, removed: Sequence[str]) -> Verification:
        citations = [Citation(cid, self.valid[cid]) for cid in self.order]
        verdict = Verdict(_grade(self.checks), self.checks, citations, list(removed))
        unsupported = [c.text for c in verdict.failing()]
        return Verification(citations, verdict.grounded, unsupported, self.problems, verdict)


def _claims(sentence: str, quoted: Sequence[str]) -> bool:
    """Whether an uncited sentence says something: not a word of interjection ("Sure.", "Exactly!") nor
    nothing but stopwords ("Let me see.")."""
    if quoted or _claimed_numbers(sentence):
        return True
    terms = content_terms(sentence)
    return len(terms) > 1 or (len(terms) == 1 and len(words(sentence)) > 3)


def _grade(checks: Sequence[SentenceCheck]) -> str:
    counted = [c for c in checks if c.status != NO_CLAIM]
    supported = sum(c.status == SUPPORTED for c in counted)
    if not counted or supported == 0 or any(c.status in SEVERE for c in counted):
        return NOT_GROUNDED
    return GROUNDED if supported == len(counted) else PARTLY


def verify_answer(
    text: str,
    sources: Sequence[Quote],
    speaker_name: str = "this speaker",
    removed: Sequence[str] = (),
) -> Verification:
    """Verify ``text`` against ``sources`` (the answering speaker's retrieved quotes only). ``removed``: the
    lines the output guard took out of the model's text (they are part of the verdict)."""
    checker = _Checker(sources, speaker_name)
    clean = normalize_quotation_marks(normalize_citations(text))
    for sent in sentences_of(clean):
        checker.sentence(sent)
    return checker.result(removed)


def verdict(done: SpeakerDone, name: str = "") -> str:
    """One line saying how far a speaker's generated answer is grounded (for CLI and TUI): from its
    :class:`Verdict` when it has one, else from the plain ``grounded`` flag an older record kept."""
    if done.verdict is not None:
        return done.verdict.line()
    if done.grounded is None:
        return ""
    if done.grounded:
        ids = ", ".join(c.id for c in done.citations)
        return f"grounded: cites {ids}"
    bad = [c.id for c in done.citations if not c.valid]
    why = (
        f"{agree(len(bad), 'invalid citation')}: {', '.join(bad)}"
        if bad
        else "it failed verification"
    )
    return f"NOT grounded: {why}"


__all__ = [
    "GROUNDED",
    "PARTLY",
    "NOT_GROUNDED",
    "SUPPORT_THRESHOLD",
    "Support",
    "Verification",
    "cited_ids",
    "content_terms",
    "normalize_citations",
    "normalize_quotation_marks",
    "quoted_spans",
    "sentences_of",
    "support",
    "verdict",
    "verify_answer",
]
