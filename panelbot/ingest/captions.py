"""Raw auto-captions -> clean speaker turns.

YouTube-style "rolling" captions repeat each caption line two or three times and mark a change of speaker
with ``>>`` (not always reliably). This module undoes that:

* :func:`dedupe_words` collapses the rolling repeats (a phrase of 3+ words repeated back to back, or a one- or
  two-word phrase repeated three or more times) without dropping any spoken word;
* :func:`split_turns` cuts the de-duplicated words into turns at ``>>``;
* :func:`clean_quote_text` removes caption stutters ("the the", "you just you just") and fillers ("um").

Nothing here knows about any particular panel.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass, field

from panelbot.ingest.formats import SPEAKER_MARK, Word, split_title

# A phrase this long repeated back to back is a caption artefact, not speech.
_MIN_ECHO = 3
_MAX_ECHO = 80


class Timed:
    """``start``/``end`` seconds of a stretch of text, from the (start, end) of each of its words."""

    times: list[tuple[float | None, float | None]]

    @property
    def start(self) -> float | None:
        return next((a for a, _ in self.times if a is not None), None)

    @property
    def end(self) -> float | None:
        return next((b for _, b in reversed(self.times) if b is not None), None)


@dataclass
class RawTurn(Timed):
    """A stretch of captions between two ``>>`` marks."""

    text: str
    index: int  # position among the raw turns
    # (start, end) seconds of each word of ``text.split()``; None when the captions carry no times
    times: list[tuple[float | None, float | None]] = field(default_factory=list)
    # the speaker the format gives this turn (a transcript tool's JSON), not parsed from its text
    label: str | None = None
    # the word indices where a paragraph of plain text starts inside the turn (not its first word)
    breaks: tuple[int, ...] = ()
    # a turn made of whole paragraphs of a transcript laid out in turns (``unmarked.paragraph_cuts``)
    paragraph: bool = False


def read_captions(text: str) -> tuple[str, str]:
    """Split a captions file into (title, body). The title is a first line followed by a blank line."""
    return split_title(text)


def _echo(words: list[str], i: int, k: int) -> bool:
    """Do the k words at i repeat the k words just before i?"""
    return (
        i >= k
        and i + k <= len(words)
        and words[i] == words[i - k]  # the cheap test first: most k fail at the first word
        and words[i : i + k] == words[i - k : i]
    )


def dedupe_words(words: list[str]) -> list[str]:
    """Collapse rolling-caption repeats, keeping one copy of every phrase.

    At each position the longest phrase that repeats the words just before it is skipped. Phrases of one or
    two words only count when they occur three or more times in a row, so a spoken "really really" stays.
    """
    return [words[i] for i in dedupe_indices(words)]


def dedupe_indices(words: list[str]) -> list[int]:
    """The positions :func:`dedupe_words` keeps (so each kept word keeps its own timing: the first copy).
    Repeated until nothing changes, so the result is its own de-duplication."""
    keep = list(range(len(words)))
    for _ in range(5):
        step = _dedupe_once([words[i] for i in keep])
        if len(step) == len(keep):
            break
        keep = [keep[i] for i in step]
    return keep


def _dedupe_once(words: list[str]) -> list[int]:
    out: list[int] = []
    n = len(words)
    # where each word occurred (the last _MAX_ECHO words): a phrase at i can only repeat the k words before
    # it when its first word is at i - k, so only those k are tried, longest first. Trying every k from 80
    # down cost 80 slice comparisons a word (3,000 cues: seconds).
    seen: dict[str, deque[int]] = {}
    i = 0
    while i < n:
        skip = 0
        before = seen.get(words[i])
        while before and before[0] < i - _MAX_ECHO:
            before.popleft()
        for j in before or ():  # ascending positions: descending lengths
            k = i - j
            if (
                k <= n - i
                and _echo(words, i, k)
                and (k >= _MIN_ECHO or _echo(words, i - k, k) or _echo(words, i + k, k))
            ):
                skip = k
                break
        step = skip or 1
        for p in range(i, i + step):
            seen.setdefault(words[p], deque()).append(p)
        if not skip:
            out.append(i)
        i += step
    return out


def dedupe_text(body: str) -> str:
    return " ".join(dedupe_words(body.split()))


def split_turns(body: str | list[Word], *, rolling: bool = True) -> list[RawTurn]:
    """De-duplicate (``rolling`` captions only) and cut at ``>>``. Empty turns are dropped; text outside any
    mark is the first turn.

    ``body`` is plain caption text or timed words (:mod:`panelbot.ingest.formats`); each kept word keeps the
    timing of the copy that was kept, and a turn the speaker of the mark it starts at."""
    if isinstance(body, str):
        body = [Word(w) for w in body.replace(SPEAKER_MARK, f" {SPEAKER_MARK} ").split()]
    keep = dedupe_indices([w.text for w in body]) if rolling else range(len(body))
    turns: list[RawTurn] = []
    cur: list[Word] = []
    label: str | None = None

    def flush() -> None:
        if cur:
            times = [(w.start, w.end) for w in cur]
            breaks = tuple(k for k, w in enumerate(cur) if k and w.para)
            turns.append(RawTurn(" ".join(w.text for w in cur), len(turns), times, label, breaks))

    for i in keep:
        w = body[i]
        if w.text == SPEAKER_MARK:
            flush()
            cur = []
            label = w.speaker
        else:
            cur.append(w)
    flush()
    return turns


_FILLER_RE = re.compile(r"(?<![\w'-])(?:um+|uh+|erm|hmm+)(?![\w'-])[,.]?\s*", re.IGNORECASE)


# a listener's "Mm-hm." caught inside someone's answer (no '>>' before it): a sentence of its own, not theirs
_BACKCHANNEL_SENTENCE_RE = re.compile(
    r"(?:(?<=[.!?])|^)\s*(?:mm-?hm+|mhm+|uh-huh|mm+)[.!]+(?=\s|$)", re.IGNORECASE
)


def clean_quote_text(text: str) -> str:
    """Remove caption stutters, fillers and a listener's back-channel sentence, keep every other word as
    spoken."""
    text = _BACKCHANNEL_SENTENCE_RE.sub("", text)
    text = _FILLER_RE.sub("", text)
    toks = text.split()
    changed = True
    while changed:
        changed = False
        for k in (3, 2, 1):
            out: list[str] = []
            i = 0
            while i < len(toks):
                if (
                    i >= k
                    and [t.lower() for t in toks[i : i + k]] == [t.lower() for t in out[-k:]]
                    and not re.search(r"[.!?]$", out[-1])
                ):
                    i += k
                    changed = True
                    continue
                out.append(toks[i])
                i += 1
            toks = out
    text = " ".join(toks)
    text = re.sub(r"(?<!\s)\s+([,.!?])", r"\1", text)  # from a run's start only: linear
    text = re.sub(r"^[,.\s]+", "", text)
    if text and text[0].islower():
        text = text[0].upper() + text[1:]
    return text.strip()
