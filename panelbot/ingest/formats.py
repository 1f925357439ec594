"""Caption files -> timed words, whatever the format: WebVTT (YouTube's rolling auto-captions with inline
``<00:00:05.120><c> word</c>`` timing and 10 ms repeat cues included), SRT, YouTube json3, and plain rolling text.

The format is detected from the content, never the file name. Every format becomes one list of
:class:`Word` (text, start, end in seconds; ``None`` for plain text) in which ``>>`` stays a word of its own
(the change-of-speaker mark). Rolling repeats are left to :mod:`panelbot.ingest.captions`, which keeps each
word's timing through de-duplication; here only whole caption lines that repeat the cue before are dropped
(YouTube shows each line twice: once new, with word timings, then again as the top line of the next cue).

Malformed files are repaired where the intent is clear and each repair is reported once in
``Captions.warnings`` (unreadable or reversed timings, cues out of order, unknown tags); nothing here raises on
any input. Written here rather than with webvtt-py / srt: both reject a file with one broken timing line
instead of repairing it, webvtt-py drops the inline word timings, and neither reads json3.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass, field

from panelbot.text import agree, count_of

SPEAKER_MARK = ">>"

_TS = r"(?:(\d{1,3}):)?(\d{1,2}):(\d{1,2})(?:[.,](\d{1,3}))?"
_TS_RE = re.compile(_TS)
_TIMING_RE = re.compile(rf"^\s*{_TS}\s*-+>\s*{_TS}")
_INLINE_TS_RE = re.compile(r"<(\d{1,3}:\d{2}:\d{2}[.,]\d{1,3}|\d{1,2}:\d{2}[.,]\d{1,3})>")
_VOICE_RE = re.compile(r"<v(?:\.[^\s>]*)?\s+([^>]*)>", re.IGNORECASE)
_KNOWN_TAG_RE = re.compile(r"</?(?:c|i|b|u|v|ruby|rt|lang|font|span|s)\b[^>]*>", re.IGNORECASE)
_ANY_TAG_RE = re.compile(r"</?[A-Za-z][^<>]{0,80}>")
_ASS_RE = re.compile(r"\{\\[^{}]*\}")
# an index line, then a timing line (blank lines between allowed); not "^\s*": from every line start of a
# run of blank lines, that rescanned the run (20,000 newlines: seconds)
_SRT_HEAD_RE = re.compile(rf"^[ \t]*\d+[ \t]*\n\s*{_TS}\s*-->", re.MULTILINE)
_DASH_RE = re.compile(r"^\s*[-\u2010\u2013\u2014]\s+(?=\S)")
_NAME_TOKEN = r"[^\W\d_](?:[^\W\d_]|['\u2019.\-](?=[^\W\d_]))*"
# "DAN: …", "Speaker 2: …", "[Olive Song]: …", and the labels of a diarizer ("SPEAKER_00: …", "[SPEAKER_01]: …")
_ANONYMOUS = r"(?i:speaker)_\d{1,3}"
_LABEL_RE = re.compile(
    rf"^\s*(\[?({_ANONYMOUS}|{_NAME_TOKEN}(?:\s+(?:{_NAME_TOKEN}|\d{{1,2}})){{0,2}})\]?)\s*:\s+(?=\S)"
)
_JSON_START_RE = re.compile(r"\{\s*[\"}]|\[\s*[\[{\"\]\d-]")
_ANONYMOUS_RE = re.compile(r"(?i)speaker(?:\s*|_)\d{1,3}")


def is_anonymous_label(label: str) -> bool:
    """Does a speaker label name nobody ("SPEAKER_00", "Speaker 2"), so a person must be put to it?"""
    return _ANONYMOUS_RE.fullmatch(label.strip()) is not None


_ROLE_LABELS = {
    "host",
    "moderator",
    "interviewer",
    "presenter",
    "chair",
    "mc",
    "q",
    "question",
    "audience",
}
# lower-case words inside a person's name
_NAME_PARTICLES = {
    "de",
    "van",
    "von",
    "der",
    "den",
    "da",
    "di",
    "du",
    "le",
    "la",
    "del",
    "della",
    "dos",
}
_NAME_PARTICLES |= {"das", "do", "bin", "ibn", "al", "el", "ter", "ten", "af", "zu"}
_NOT_LABELS = {
    "so",
    "the",
    "a",
    "an",
    "and",
    "but",
    "or",
    "note",
    "yes",
    "no",
    "okay",
    "ok",
    "well",
    "example",
    "step",
    "update",
    "warning",
    "answer",
    "then",
    "now",
    "here",
    "there",
    "this",
    "that",
    "it",
    "i",
    "we",
    "you",
    "they",
    "he",
    "she",
    "one",
    "two",
    "first",
    "second",
    "finally",
    "also",
    "like",
}


def speaker_label(line: str, *, strict: bool = False) -> str | None:
    """The speaker label a transcript line starts with ("DAN: …", "Speaker 2: …", "Moderator: …",
    "José: …"), or None. ``strict`` (plain text, where a wrapped line may start with any word) accepts only
    ALL-CAPS labels, "Speaker N" and role words."""
    m = _LABEL_RE.match(line)
    if not m:
        return None
    label = m.group(2)
    toks = label.split()
    if toks[0].lower() in _NOT_LABELS:
        return None
    letters = "".join(ch for ch in label if ch.isalpha())
    if is_anonymous_label(label) or label.lower() in _ROLE_LABELS:
        return label
    if letters.isupper() and len(letters) >= 2:
        return label
    if strict or any(t.isdigit() for t in toks):
        return None
    # "Olive Song", "Anneke de Vries", "Ludwig van Beethoven": capitalised words, a particle inside
    inner = [t for t in toks[1:-1] if t.lower() not in _NAME_PARTICLES]
    if len(toks) - len(toks[1:-1]) + len(inner) > 2:
        return None
    return label if all(t[:1].isupper() for t in [toks[0], *inner, toks[-1]]) else None


@dataclass(frozen=True)
class Word:
    text: str
    start: float | None = None
    end: float | None = None
    # on a change-of-speaker mark: who speaks from here, when the format says so (a JSON "speaker" field)
    speaker: str | None = None
    # the first word of a paragraph of plain text (after a blank line): where a transcript may change speaker
    para: bool = False


@dataclass
class Captions:
    # "vtt", "srt", "json3", "text", or a transcript tool's JSON: "whisperx", "podcast", "youtube-transcript"
    format: str
    title: str
    words: list[Word]
    warnings: list[str] = field(default_factory=list)
    # why the file cannot be read at all (malformed JSON, no segments...): one line for the user
    error: str | None = None
    # captions that roll (YouTube shows each line twice) are de-duplicated; a transcript tool's are not
    rolling: bool = True

    @property
    def timed(self) -> bool:
        return any(w.start is not None for w in self.words)


def _seconds(m: re.Match[str] | tuple, offset: int = 0) -> float:
    g = m.groups() if isinstance(m, re.Match) else m
    h, mi, s, ms = g[offset : offset + 4]
    frac = int(ms) / (10 ** len(ms)) if ms else 0.0
    return int(h or 0) * 3600 + int(mi) * 60 + int(s) + frac


def detect_format(text: str) -> str:
    """'vtt', 'srt', 'json3', 'json' (a transcript tool's JSON) or 'text', from the content."""
    head = text.lstrip("\ufeff \t\r\n")
    if head.startswith("WEBVTT"):
        return "vtt"
    if head.startswith("{") and '"events"' in head[:5000]:
        return "json3"
    if _JSON_START_RE.match(head):  # '{"', '[{', '[]', '[[' ...: not "[project]" (TOML) or "{name}"
        return "json"
    sample = head[:20000].replace("\r\n", "\n").replace("\r", "\n")
    if _SRT_HEAD_RE.search(sample):
        return "srt"
    timing_lines = sum(1 for line in sample.split("\n")[:200] if _TIMING_RE.match(line))
    if timing_lines >= 2 or (timing_lines == 1 and len(sample.split("\n")) < 20):
        return "vtt"  # cues without the WEBVTT header: read like WebVTT
    return "text"


def parse_captions(text: str) -> Captions:
    """Parse any supported caption text. Never raises; problems become warnings (or no words at all)."""
    fmt = detect_format(text)
    if fmt == "json3":
        try:
            data = json.loads(text.lstrip("\ufeff"))
        except (ValueError, RecursionError) as exc:
            caps = _parse_text(text)
            caps.warnings.append(
                f"looks like YouTube json3 but is not valid JSON ({getattr(exc, 'msg', 'nested too deep')}): "
                "read as plain text"
            )
            return caps
        return _parse_json3(data)
    if fmt == "json":
        from panelbot.ingest.transcripts import parse_transcript_json

        return parse_transcript_json(text.lstrip("\ufeff"))
    if fmt in ("vtt", "srt"):
        return _parse_cues(text, fmt)
    return _parse_text(text)


# ----------------------------------------------------------------------------------------------- plain text


def _split_marks(text: str) -> list[str]:
    return text.replace(SPEAKER_MARK, f" {SPEAKER_MARK} ").split()


def split_title(text: str) -> tuple[str, str]:
    """Plain text -> (title, body): the title is a first line followed by a blank line (else "")."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").lstrip("\ufeff")
    lines = text.split("\n")
    if (
        len(lines) > 2
        and lines[0].strip()
        and not lines[1].strip()
        and SPEAKER_MARK not in lines[0]
        and len(lines[0].split()) <= 30
    ):
        return lines[0].strip(), "\n".join(lines[2:])
    return "", text


def _parse_text(text: str) -> Captions:
    """Plain rolling text: an optional title line followed by a blank line, then the words (no times)."""
    title, text = split_title(text)
    # transcripts with a speaker label at the start of a line ("DAN: …", "Speaker 2: …") change speaker there
    text = "\n".join(
        f"{SPEAKER_MARK} {ln}" if speaker_label(ln, strict=True) else ln for ln in text.split("\n")
    )
    words: list[Word] = []
    for k, block in enumerate(re.split(r"\n[ \t]*\n", text)):
        words += [Word(w, para=bool(k) and not i) for i, w in enumerate(_split_marks(block))]
    return Captions("text", title, words)


# ----------------------------------------------------------------------------------------------- cues


@dataclass
class _Cue:
    start: float | None
    end: float | None
    lines: list[str]


def _clean_line(line: str, unknown_tags: set[str]) -> str:
    # a voice span names its speaker: keep the name as a label after the change-of-speaker mark
    line = _VOICE_RE.sub(
        lambda m: f" {SPEAKER_MARK} " + (f"{m.group(1).strip()}: " if m.group(1).strip() else ""),
        line,
    )
    line = _KNOWN_TAG_RE.sub("", line)
    for m in _ANY_TAG_RE.finditer(line):
        unknown_tags.add(m.group(0)[:20])
    line = _ANY_TAG_RE.sub("", line)
    line = _ASS_RE.sub("", line)
    line = _DASH_RE.sub(f"{SPEAKER_MARK} ", line)
    if speaker_label(line) and not line.lstrip().startswith(SPEAKER_MARK):
        line = f"{SPEAKER_MARK} {line}"  # "DAN: …" at the start of a cue line: a new speaker
    return html.unescape(line).replace("\u00a0", " ")


def _timed_words(line: str, start: float, end: float, unknown_tags: set[str]) -> list[Word]:
    """Words of one cue line; inline ``<hh:mm:ss.mmm>`` stamps time the words after them, the rest share the
    cue's span evenly."""
    pieces: list[tuple[float | None, str]] = []
    pos, stamp = 0, None
    for m in _INLINE_TS_RE.finditer(line):
        pieces.append((stamp, line[pos : m.start()]))
        ts = _TS_RE.match(m.group(1))
        stamp = _seconds(ts) if ts else stamp
        pos = m.end()
    pieces.append((stamp, line[pos:]))
    toks: list[tuple[float | None, str]] = []
    for t, piece in pieces:
        for w in _split_marks(_clean_line(piece, unknown_tags)):
            toks.append((t, w))
    out: list[Word] = []
    n = sum(1 for _, w in toks if w != SPEAKER_MARK)  # a mark takes no time
    span = max(end - start, 0.0)
    i = 0
    for t, w in toks:
        ws = t if t is not None else start + span * i / max(n, 1)
        i += w != SPEAKER_MARK
        ws = min(max(ws, start), end) if end >= start else ws
        out.append(Word(w, round(ws, 3), None))
    # each word ends where the next begins (or at the cue's end)
    for i, w in enumerate(out):
        nxt = out[i + 1].start if i + 1 < len(out) else end
        out[i] = Word(
            w.text, w.start, round(max(nxt if nxt is not None else end, w.start or 0.0), 3)
        )
    return out


@dataclass
class _Repairs:
    """The timing faults repaired while reading the cues (each one warned about once)."""

    bad_timing: int = 0
    reversed_timing: int = 0
    out_of_order: int = 0

    def warnings(self) -> list[str]:
        """One line per kind of fault found, in a fixed order."""
        out = []
        if self.bad_timing:
            out.append(
                f"{count_of(self.bad_timing, 'cue')} had an unreadable timing line: kept "
                f"{agree(self.bad_timing, 'its', 'their')} text, timed from the cues around "
                f"{agree(self.bad_timing, 'it', 'them')}"
            )
        if self.reversed_timing:
            out.append(
                f"{count_of(self.reversed_timing, 'cue')} ended before "
                f"{agree(self.reversed_timing, 'it', 'they')} started: start and end swapped"
            )
        if self.out_of_order:
            out.append(
                f"{count_of(self.out_of_order, 'cue')} {agree(self.out_of_order, 'starts', 'start')} "
                "earlier than the cue before: kept in file order"
            )
        return out


def _parse_cues(text: str, fmt: str) -> Captions:
    """WebVTT or SRT -> timed words: cues read block by block, untimed ones timed from their neighbours,
    rolled and repeated lines kept once."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").lstrip("\ufeff")
    repairs = _Repairs()
    title, cues = _read_cues(re.split(r"\n[ \t]*\n", text), fmt, repairs)
    _time_from_neighbours(cues)
    warnings = repairs.warnings()
    unknown_tags: set[str] = set()
    words = _cue_words(cues, unknown_tags)
    if unknown_tags:
        shown = ", ".join(sorted(unknown_tags)[:3])
        warnings.append(f"unknown tags removed from the caption text ({shown})")
    return Captions(fmt, title if fmt == "vtt" else "", words, warnings)


def _read_cues(blocks: list[str], fmt: str, repairs: _Repairs) -> tuple[str, list[_Cue]]:
    """(the WEBVTT header's title, the cues in file order) of the blank-line separated blocks."""
    cues: list[_Cue] = []
    title = ""
    for b_index, block in enumerate(blocks):
        lines = [ln for ln in block.split("\n")]
        while lines and not lines[0].strip():
            lines.pop(0)
        if not lines:
            continue
        if b_index == 0 and lines[0].strip().startswith("WEBVTT"):
            title = lines[0].strip()[6:].strip(" -\t")
            lines = _after_vtt_header(lines)
            if not lines:
                continue
        if re.match(r"^(NOTE|STYLE|REGION)\b", lines[0].strip()):
            continue
        _add_cue(lines, fmt, cues, repairs)
    return title, cues


def _after_vtt_header(lines: list[str]) -> list[str]:
    """The first block's lines from its first timing line on (header metadata such as ``Kind:`` and
    ``Language:`` dropped), or none when the block holds no cue."""
    if not any("-->" in ln for ln in lines[1:]):
        return []
    return lines[[i for i, ln in enumerate(lines) if "-->" in ln][0] :]


def _add_cue(lines: list[str], fmt: str, cues: list[_Cue], repairs: _Repairs) -> None:
    """Add one block's cue to ``cues``: timed when its timing line reads, else untimed (counted in
    ``repairs``); a block with no timing line is the text of the cue before (or an SRT cue of its own)."""
    t_idx = next((i for i, ln in enumerate(lines[:3]) if "-->" in ln), None)
    if t_idx is None:
        _add_untimed_text(lines, fmt, cues)
        return
    m = _TIMING_RE.match(lines[t_idx])
    body = [ln for ln in lines[t_idx + 1 :] if ln.strip()]
    if m is None:
        repairs.bad_timing += 1
        cues.append(_Cue(None, None, body))
        return
    start, end = _seconds(m, 0), _seconds(m, 4)
    if end < start:
        repairs.reversed_timing += 1
        start, end = end, start
    if cues and cues[-1].start is not None and start + 1.0 < cues[-1].start:
        repairs.out_of_order += 1
    cues.append(_Cue(start, end, body))


def _add_untimed_text(lines: list[str], fmt: str, cues: list[_Cue]) -> None:
    """A block with no timing line: text after a blank line inside a cue belongs to the cue before; before
    any cue, an SRT block that is not a cue number is a cue of its own (timed later); else it is dropped."""
    if cues:
        cues[-1].lines.extend(ln for ln in lines if ln.strip())
    elif fmt == "srt" and not lines[0].strip().isdigit():
        cues.append(_Cue(None, None, [ln for ln in lines if ln.strip()]))


def _time_from_neighbours(cues: list[_Cue]) -> None:
    """Repair: a cue with no readable timing is timed from its neighbours (from the end of the cues before
    to the next readable start)."""
    last_end = 0.0
    next_start: list[float | None] = [None] * len(cues)  # the next readable start after each cue
    for i in range(len(cues) - 2, -1, -1):
        after = cues[i + 1].start
        next_start[i] = after if after is not None else next_start[i + 1]
    for i, c in enumerate(cues):
        if c.start is None:
            nxt = next_start[i]
            c.start = last_end
            c.end = max(nxt if nxt is not None else last_end, last_end)
        last_end = max(last_end, c.end or 0.0)


def _cue_words(cues: list[_Cue], unknown_tags: set[str]) -> list[Word]:
    """The cues' words, each line once: YouTube's 10 ms repeat cues and a rolled line shown again at the
    top of the next cue are skipped; time never moves backwards. Tags not known are added to
    ``unknown_tags``."""
    words: list[Word] = []
    previous: set[str] = set()
    min_start = 0.0
    for c in cues:
        start, end = c.start or 0.0, c.end or 0.0
        if end - start <= 0.05 and all(_norm_line(ln, unknown_tags) in previous for ln in c.lines):
            continue  # YouTube's 10 ms repeat cue
        emitted: set[str] = set()
        for ln in c.lines:
            key = _norm_line(ln, unknown_tags)
            if not key:
                continue
            emitted.add(key)
            if key in previous:
                continue  # the line shown again as the top line of a rolling cue
            for w in _timed_words(ln, start, end, unknown_tags):
                # keep time moving forward even when cues overlap or come out of order
                ws = max(w.start or 0.0, min_start)
                words.append(Word(w.text, ws, max(w.end or ws, ws)))
                min_start = ws
        if emitted:
            previous = emitted
    return words


def _norm_line(line: str, unknown_tags: set[str]) -> str:
    line = _INLINE_TS_RE.sub("", line)
    return " ".join(_clean_line(line, unknown_tags).split()).lower()


# ----------------------------------------------------------------------------------------------- json3


def _parse_json3(data: object) -> Captions:
    warnings: list[str] = []
    events = data.get("events") if isinstance(data, dict) else None
    if not isinstance(events, list):
        return Captions("json3", "", [], ["json3 without an 'events' list: no captions read"])
    words: list[Word] = []
    skipped = 0
    for ev in events:
        if not isinstance(ev, dict) or not isinstance(ev.get("segs"), list):
            continue
        try:
            t0 = float(ev.get("tStartMs", 0)) / 1000.0
            dur = float(ev.get("dDurationMs", 0) or 0) / 1000.0
        except (TypeError, ValueError):
            skipped += 1
            continue
        segs = [s for s in ev["segs"] if isinstance(s, dict) and isinstance(s.get("utf8"), str)]
        toks: list[tuple[float, str]] = []
        for s in segs:
            try:
                off = float(s.get("tOffsetMs", 0) or 0) / 1000.0
            except (TypeError, ValueError):
                off = 0.0
            for w in _split_marks(html.unescape(s["utf8"])):
                toks.append((t0 + off, w))
        for i, (ws, w) in enumerate(toks):
            nxt = toks[i + 1][0] if i + 1 < len(toks) else t0 + dur
            words.append(Word(w, round(ws, 3), round(max(nxt, ws), 3)))
    if skipped:
        warnings.append(
            f"{count_of(skipped, 'json3 event')} with unreadable times {agree(skipped, 'was', 'were')} skipped"
        )
    words.sort(key=lambda w: w.start or 0.0)  # stable: same-time words keep their order
    return Captions("json3", "", words, warnings)
