"""Check a generated answer against the quotes it was given.

- Every ``[id]`` must name one of the answering speaker's retrieved quotes (case is ignored). Lookalikes
  count as citations too: full-width and other bracket forms (``［id］``, ``【id】``), the text of a
  Markdown link (``[id](url)``), an id broken across lines, full-width letters and Unicode dashes.
- Text in quotation marks (double, curly, single, guillemets, corner brackets) must appear, normalised
  (case and punctuation ignored, whole words only), in a quote cited in the same sentence.
- Sentences that cite nothing are listed as unsupported.
- ``grounded`` is true only when at least one citation is valid and none is invalid.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field

from panelbot.answer.events import Citation, SpeakerDone
from panelbot.panel import Quote
from panelbot.text import normalize_for_match, split_sentences

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
_DASHES_RE = re.compile("[\u2010-\u2015\u2212\ufe58\ufe63\uff0d]")
_SPLIT_ID_RE = re.compile(r"\[([^\[\]]{1,80})\]")
# Quotations: "..." and “...”, «...» and ‹...› (either way round), „...“, 「...」,
# 『...』, and single quotes ('...' or ‘...’) that are not apostrophes (not inside a word).
_QUOTED_RE = re.compile(
    '"([^"\n]+)"|\u201c([^\u201d\n]+)\u201d|\u201e([^\u201c\u201d\n]+)[\u201c\u201d]'
    "|\u00ab([^\u00bb\n]+)\u00bb|\u00bb([^\u00ab\n]+)\u00ab|\u2039([^\u203a\n]+)\u203a|\u203a([^\u2039\n]+)\u2039"
    "|\u300c([^\u300d\n]+)\u300d|\u300e([^\u300f\n]+)\u300f"
    "|(?<!\\w)'([^'\n]+)'(?!\\w)|(?<!\\w)\u2018([^\u2018\u2019\n]+)\u2019(?!\\w)"
)
_SINGLE_QUOTE_GROUPS = (
    10,
    11,
)  # '...' and ‘...’: one word in single quotes is a term, not a quotation
_OPEN_MARKS = ('"', "\u201c", "\u201e", "\u00ab", "\u2039", "\u300c", "\u300e")


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


@dataclass
class Verification:
    citations: list[Citation] = field(
        default_factory=list
    )  # each cited id once, in order of first use
    grounded: bool = False
    unsupported_sentences: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # why a citation is invalid, one line each


def cited_ids(text: str) -> list[str]:
    """Every citation token in ``text``, in order, repeats kept."""
    ids: list[str] = []
    for m in _BRACKET_RE.finditer(text):
        for tok in _TOKEN_SPLIT_RE.split(m.group(1)):
            tok = tok.strip(":#*'\"`")
            if tok:
                ids.append(tok)
    return ids


def sentences_of(text: str) -> list[str]:
    """Sentences with their citations attached, one line or list item at a time (list markers dropped;
    a citation-only fragment joins the sentence before)."""
    out: list[str] = []
    for line in text.splitlines():
        line = _CITE_AFTER_STOP_RE.sub(
            lambda m: f"{m.group(2)}{m.group(1)}", _LIST_MARKER_RE.sub("", line)
        )
        for sent in split_sentences(line):
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


def verify_answer(
    text: str, sources: Sequence[Quote], speaker_name: str = "this speaker"
) -> Verification:
    """Verify ``text`` against ``sources`` (the answering speaker's retrieved quotes only)."""
    by_id = {q.id.lower(): q for q in sources}
    norm = {qid: normalize_for_match(q.text) for qid, q in by_id.items()}
    order: list[str] = []
    valid: dict[str, bool] = {}
    problems: list[str] = []
    unsupported: list[str] = []

    def mark(cid: str, ok: bool, why: str = "") -> None:
        if cid not in valid:
            order.append(cid)
            valid[cid] = ok
        else:
            valid[cid] = valid[cid] and ok
        if why and why not in problems:
            problems.append(why)

    for sent in sentences_of(normalize_citations(text)):
        ids = cited_ids(sent)
        quoted = quoted_spans(sent)
        if not ids:
            unsupported.append(sent)
            for span in quoted:
                problems.append(f"quoted \u201c{span.strip()}\u201d cites no source")
            continue
        known = [i for i in ids if i.lower() in by_id]
        for cid in ids:
            if cid.lower() not in by_id:
                mark(cid, False, f"[{cid}] is not one of {speaker_name}'s sources for this answer")
        for span in quoted:
            if not any(_contains(norm[k.lower()], span) for k in known):
                for k in known:
                    mark(
                        by_id[k.lower()].id,
                        False,
                        f"quoted \u201c{span.strip()}\u201d does not appear in [{by_id[k.lower()].id}]",
                    )
        for k in known:
            mark(by_id[k.lower()].id, True)

    citations = [Citation(cid, valid[cid]) for cid in order]
    grounded = any(c.valid for c in citations) and all(c.valid for c in citations)
    return Verification(citations, grounded, unsupported, problems)


def verdict(done: SpeakerDone, name: str) -> str:
    """One line saying whether a speaker's generated answer is grounded and why (for CLI and TUI)."""
    if done.grounded is None:
        return ""
    if done.grounded:
        ids = ", ".join(c.id for c in done.citations)
        text = f"grounded: cites {ids}, each checked against {name}'s quotes"
    else:
        bad = [c.id for c in done.citations if not c.valid]
        why = f"invalid citation(s): {', '.join(bad)}" if bad else "cites none of the quotes given"
        text = f"NOT grounded: {why}"
    if done.unsupported_sentences:
        text += f"; {len(done.unsupported_sentences)} sentence(s) cite nothing"
    return text
