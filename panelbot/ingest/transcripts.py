"""The JSON that transcript tools write -> timed words with their speakers.

* whisperX (and WhisperX-style diarized output): ``{"segments": [{"start", "end", "text", "speaker",
  "words": [{"word", "start", "end"}, ...]}, ...]}``; the speaker is an anonymous ``SPEAKER_00`` unless the
  user named them;
* Podcasting 2.0 transcripts (``podcast:transcript`` JSON): ``{"version": "1.0.0", "segments": [{"speaker",
  "startTime", "endTime", "body"}, ...]}``, usually with real names;
* youtube-transcript-api (what many "chat with a video" tools save): ``[{"text", "start", "duration"}, ...]``,
  no speakers (YouTube's own ``>>`` marks stay in the text).

A change of speaker becomes a ``>>`` mark carrying the speaker (:attr:`Word.speaker`), so the label reaches
attribution without being parsed back out of the text; consecutive segments of one speaker stay one turn.
Each word keeps its time (a whisperX word's own, else its share of the segment). A file that cannot be read as
any of these gets one line in :attr:`Captions.error`; a few unusable segments are skipped with a warning.
"""

from __future__ import annotations

import html
import json
import math

from panelbot.ingest.formats import SPEAKER_MARK, Captions, Word
from panelbot.text import agree, count_of, strip_control

FORMATS = "YouTube json3, whisperX, Podcasting 2.0 or youtube-transcript-api JSON"


def _seconds(value: object) -> float | None:
    """A time in seconds from a JSON number (or a numeric string), None when it is not one."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    try:
        seconds = float(value)
    except (ValueError, OverflowError):
        return None
    return seconds if math.isfinite(seconds) and seconds >= 0 else None


def _speaker(value: object) -> str | None:
    if isinstance(value, int) and not isinstance(value, bool):
        return f"Speaker {value}"
    if not isinstance(value, str):
        return None
    label = " ".join(value.split())
    return label[:80] or None


class _Builder:
    """Words from segments in order, a mark where the speaker changes, times kept moving forward."""

    def __init__(self) -> None:
        self.words: list[Word] = []
        self.speaker: str | None = None
        self.clock = 0.0

    def add(
        self,
        text: str,
        start: float | None,
        end: float | None,
        speaker: str | None,
        timed: list[tuple[str, float | None, float | None]] | None = None,
    ) -> None:
        text = strip_control(text)  # JSON escapes ("\\u001b") decode to control characters
        tokens = text.replace(SPEAKER_MARK, f" {SPEAKER_MARK} ").split()
        if not tokens:
            return
        if start is not None:
            start = max(start, self.clock)
            end = max(end if end is not None else start, start)
        if speaker is not None and speaker != self.speaker:
            self.words.append(Word(SPEAKER_MARK, start, start, speaker=speaker))
            self.speaker = speaker
        if timed is None or len(timed) != len(tokens):
            timed = self._spread(tokens, start, end)
        for word, ws, we in timed:
            if ws is not None:
                ws = max(ws, self.clock)
                we = max(we if we is not None else ws, ws)
                self.clock = ws
            self.words.append(Word(word, ws, we))

    @staticmethod
    def _spread(
        tokens: list[str], start: float | None, end: float | None
    ) -> list[tuple[str, float | None, float | None]]:
        if start is None or end is None:
            return [(t, start, end) for t in tokens]
        step = (end - start) / len(tokens)
        return [
            (t, round(start + i * step, 3), round(start + (i + 1) * step, 3))
            for i, t in enumerate(tokens)
        ]


def _whisperx_words(seg: dict, start: float | None) -> list | None:
    """A whisperX segment's words with their own times (a word without one takes the time before it)."""
    words = seg.get("words")
    if not isinstance(words, list) or not words:
        return None
    out: list[tuple[str, float | None, float | None]] = []
    last = start
    for w in words:
        if not isinstance(w, dict) or not isinstance(w.get("word"), str):
            return None
        for tok in w["word"].split():
            ws = _seconds(w.get("start"))
            we = _seconds(w.get("end"))
            ws = ws if ws is not None else last
            out.append((tok, ws, we if we is not None else ws))
            last = we if we is not None else ws
    return out


def _parse_segments(segments: list, kind: str) -> Captions:
    fmt = "whisperx" if kind == "text" else "podcast"
    b = _Builder()
    skipped = untimed = 0
    for seg in segments:
        text = seg.get(kind) if isinstance(seg, dict) else None
        if not isinstance(text, str):
            skipped += 1
            continue
        keys = ("start", "end") if kind == "text" else ("startTime", "endTime")
        start, end = _seconds(seg.get(keys[0])), _seconds(seg.get(keys[1]))
        if start is None and (seg.get(keys[0]) is not None or seg.get(keys[1]) is not None):
            untimed += 1
        timed = _whisperx_words(seg, start) if kind == "text" else None
        b.add(html.unescape(text), start, end, _speaker(seg.get("speaker")), timed)
    warnings = []
    if skipped:
        warnings.append(
            f"{count_of(skipped, 'segment')} without a text {agree(skipped, 'was', 'were')} skipped"
        )
    if untimed:
        warnings.append(
            f"{count_of(untimed, 'segment')} had unreadable times: kept {agree(untimed, 'its', 'their')} "
            "text untimed"
        )
    if not b.words:
        what = "text" if kind == "text" else "body"
        return Captions(
            fmt,
            "",
            [],
            warnings,
            error=f"none of its {count_of(len(segments), 'segment')} has a {what} to read",
            rolling=False,
        )
    return Captions(fmt, "", b.words, warnings, rolling=False)


def _parse_snippets(snippets: list) -> Captions:
    b = _Builder()
    skipped = 0
    for snip in snippets:
        if not isinstance(snip, dict) or not isinstance(snip.get("text"), str):
            skipped += 1
            continue
        start, duration = _seconds(snip.get("start")), _seconds(snip.get("duration"))
        end = start + duration if start is not None and duration is not None else start
        b.add(html.unescape(snip["text"]), start, end, None)
    warnings = (
        [f"{count_of(skipped, 'snippet')} without a text {agree(skipped, 'was', 'were')} skipped"]
        if skipped
        else []
    )
    if not b.words:
        return Captions(
            "youtube-transcript",
            "",
            [],
            warnings,
            error=f"none of its {count_of(len(snippets), 'snippet')} has a text to read",
            rolling=False,
        )
    return Captions("youtube-transcript", "", b.words, warnings, rolling=False)


def parse_transcript_json(text: str) -> Captions:
    """A transcript tool's JSON -> captions (never raises: an unreadable file has ``error`` set)."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        why = getattr(exc, "msg", None) or "nested too deeply"
        where = f" at line {exc.lineno}" if hasattr(exc, "lineno") else ""
        return Captions("json", "", [], error=f"not valid JSON ({why}{where}): truncated?")
    if isinstance(data, dict) and "segments" in data:
        segments = data["segments"]
        if not isinstance(segments, list):
            return Captions(
                "json", "", [], error=f"'segments' is a {type(segments).__name__}, not a list"
            )
        if not segments:
            return Captions("json", "", [], error="its 'segments' list is empty")
        kinds = [
            ("body" if "body" in s else "text" if "text" in s else None)
            for s in segments
            if isinstance(s, dict)
        ]
        kind = max(("text", "body"), key=kinds.count)
        if not kinds.count(kind):
            return Captions(
                "json", "", [], error="its segments have neither a 'text' (whisperX) nor a 'body'"
            )
        caps = _parse_segments(segments, kind)
        title = data.get("title")
        caps.title = " ".join(title.split())[:200] if isinstance(title, str) else ""
        return caps
    if isinstance(data, list) and data and isinstance(data[0], dict) and "text" in data[0]:
        return _parse_snippets(data)
    if isinstance(data, list) and not data:
        return Captions("json", "", [], error="an empty JSON list: no transcript in it")
    return Captions("json", "", [], error=f"JSON, but not a transcript panelbot reads ({FORMATS})")
