"""Is a plain-text file a talk's captions at all? ``panelbot ingest`` reads any text as rolling captions, so a
README, a source file or a note would otherwise become a "panel" (a Markdown file once gave a panelist called
"YouTube" and the title "# Test fixtures"). Timed formats (WebVTT, SRT, json3) are captions by their syntax and
are not second-guessed here."""

from __future__ import annotations

import re

from panelbot.ingest.captions import RawTurn, dedupe_text
from panelbot.ingest.formats import SPEAKER_MARK, Captions, speaker_label, split_title
from panelbot.ingest.restore import restore, unpunctuated
from panelbot.ingest.unmarked import reads_as_conversation
from panelbot.text import count_of

# A line of Markdown: a heading, a list item, a numbered item, a fence, a table row, a quote (not ">>"), a rule.
# Or inline Markdown anywhere in it: `code`, [a link](url), **bold** (a link's text holds no "[": from
# every "[" of "[a,[a,…" to the line's end was quadratic).
_MARKDOWN_RE = re.compile(
    r"^(?:#{1,6}\s|[-*+]\s+\S|\d+[.)]\s+\S|```|~~~|\|.*\||>(?!>)\s|(?:={3,}|-{3,}|\*{3,})$)"
    r"|`[^`\s][^`]*`|\[[^\[\]]+\]\([^)\s]+\)|\*\*\S[^*]*\*\*"
)
# A line of code or configuration: ends in ; { } or [ ], starts with a keyword, or assigns (key = value,
# key: value with nothing spoken before the colon).
_CODE_RE = re.compile(
    r"(?:[;{}\[\]]$|^(?:def|class|import|from\s+\S+\s+import|return|elif|else:|try:|except\b|const|let|var"
    r"|function|public|private|package|#include|#!|@\w+|//|/\*|\"\"\"|''')"
    r"|^[\w.\-\"'\[\]]+\s*=\s*\S|^[\w\-]+:(?:\s|$))"
)
_STOP_RE = re.compile(r"[.?!]")
_WORD_CHAR_RE = re.compile(r"\w")
MIN_WORDS = 60  # fewer spoken words than this is not a talk (a panel needs several answers)
MIN_SENTENCES = 4  # ... nor, in punctuated text, fewer sentences than this
MARKUP_SHARE = 0.25  # this share of the lines (or more) being Markdown or code: not captions


def _sentences(text: str) -> int:
    """How many sentences end in ., ? or ! and hold at least two word characters. The text between two
    stops is counted, not matched by one expression: ``\\w[^.?!]*?\\w[^.?!]*[.?!]`` was cubic on text
    without punctuation (4 KB of unpunctuated captions took minutes)."""
    pieces = _STOP_RE.split(text)[:-1]  # the last piece ends no sentence
    return sum(1 for piece in pieces if len(_WORD_CHAR_RE.findall(piece)) >= 2)


def _sentenced(text: str) -> str:
    """The text, its sentences restored when it has no capitals or punctuation (``restore``)."""
    one = [RawTurn(text, 0)]
    return restore(one)[0][0].text if unpunctuated(one) else text


def not_captions(caps: Captions, text: str) -> str | None:
    """Why the plain text ``text`` (parsed as ``caps``) is not a talk's captions, or None when it may be.

    Refused: Markdown or source code (a quarter of the lines or more are headings, list items, table rows, code
    or ``key = value`` lines), too little speech (under 60 words, or punctuated text with under four
    sentences), and text with no change of speaker at all (no ``>>`` and no ``NAME:`` label)."""
    if caps.format != "text":
        return None
    title, body = split_title(text)
    lines = [ln.strip() for ln in [title, *body.splitlines()] if ln.strip()]
    if lines:
        markdown = sum(1 for ln in lines if _MARKDOWN_RE.search(ln))
        code = sum(
            1
            for ln in lines
            if not speaker_label(ln, strict=True)
            and not _MARKDOWN_RE.search(ln)
            and _CODE_RE.search(ln)
        )
        if markdown + code >= MARKUP_SHARE * len(lines) and markdown + code >= 2:
            kind = "Markdown" if markdown >= code else "source code or configuration"
            return (
                f"this looks like {kind} ({markdown + code} of {len(lines)} lines are headings, lists, "
                "tables or code), not a talk's captions"
            )
    spoken = [w.text for w in caps.words if w.text != SPEAKER_MARK]
    sentences = _sentences(" ".join(spoken))
    punctuated = any(ch in ".?!" for w in spoken for ch in w)
    if len(spoken) < MIN_WORDS or (punctuated and sentences < MIN_SENTENCES):
        return (
            f"too little speech for a talk ({count_of(len(spoken), 'word')}, "
            f"{count_of(sentences, 'sentence')}): "
            "expected the captions of a whole talk"
        )
    said = dedupe_text(" ".join(spoken)) if caps.rolling else " ".join(spoken)
    if not any(w.text == SPEAKER_MARK for w in caps.words) and not reads_as_conversation(
        _sentenced(said)
    ):
        return (
            "no change of speaker anywhere: a talk's captions mark each new speaker with '>>' "
            "(or a 'NAME:' label at the start of a line)"
        )
    return None
