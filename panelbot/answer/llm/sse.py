"""An incremental parser for server-sent events (the ``text/event-stream`` wire format).

It follows the WHATWG rules that matter for chat completions: lines end in ``\\r\\n``, ``\\n`` or ``\\r``
(possibly split across network chunks); ``data:`` lines accumulate, joined by newlines; a blank line
dispatches the event; lines starting with ``:`` are comments (keep-alives). Other fields are kept only as
the event name. At the end of the stream, complete ``data:`` lines still pending are dispatched (some
servers omit the final blank line); an unterminated last line is dropped, so a cut-off event never looks
whole.

A server is untrusted: parsing is linear in the input (each character is scanned once, however the stream
is chunked), and memory is bounded. A line longer than ``max_line`` characters or an event whose data grows
past ``max_event`` raises :class:`SSELimitError` at once, before the excess is kept.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_LINE_CHARS = 1 << 20  # one line of the stream (a chat chunk is usually well under 1 KB)
MAX_EVENT_CHARS = 1 << 20  # the data of one event, all its data: lines together

_BREAK_RE = re.compile(r"\r\n|\r|\n")


class SSELimitError(ValueError):
    """The stream broke one of the parser's size limits (a hostile or broken server)."""


@dataclass(frozen=True)
class SSEEvent:
    data: str
    event: str = "message"


class SSEParser:
    """Feed text chunks as they arrive; get back the events they complete."""

    def __init__(self, *, max_line: int = MAX_LINE_CHARS, max_event: int = MAX_EVENT_CHARS) -> None:
        self.max_line = max_line
        self.max_event = max_event
        self._line: list[str] = []  # pieces of the current, unterminated line
        self._line_len = 0
        self._cr = False  # the previous chunk ended in \r: a \n starting the next one belongs to it
        self._data: list[str] = []
        self._data_len = 0
        self._event = ""

    def feed(self, chunk: str) -> list[SSEEvent]:
        events: list[SSEEvent] = []
        if not chunk:
            return events  # an empty read: a pending \r\n half stays pending
        if self._cr and chunk.startswith("\n"):
            chunk = chunk[1:]
        self._cr = False
        pos = 0
        for m in _BREAK_RE.finditer(chunk):
            if m.group() == "\r" and m.end() == len(chunk):
                self._cr = True  # maybe the first half of \r\n: the line ends here either way
            self._extend(chunk, pos, m.start())
            line = "".join(self._line)
            self._line, self._line_len = [], 0
            ev = self._process(line)
            if ev is not None:
                events.append(ev)
            pos = m.end()
        self._extend(chunk, pos, len(chunk))
        return events

    def finish(self) -> list[SSEEvent]:
        """The stream ended: dispatch complete pending data, drop an unterminated line."""
        self._line, self._line_len, self._cr = [], 0, False
        ev = self._dispatch()
        return [ev] if ev is not None else []

    def _extend(self, chunk: str, start: int, end: int) -> None:
        if end <= start:
            return
        self._line_len += end - start
        if self._line_len > self.max_line:
            raise SSELimitError(
                f"a line of the event stream is longer than {self.max_line} characters"
            )
        self._line.append(chunk[start:end])

    def _process(self, line: str) -> SSEEvent | None:
        if line == "":
            return self._dispatch()
        if line.startswith(":"):
            return None
        field, sep, value = line.partition(":")
        if sep and value.startswith(" "):
            value = value[1:]
        if field == "data":
            self._data_len += len(value) + 1
            if self._data_len > self.max_event:
                raise SSELimitError(
                    f"an event of the stream holds more than {self.max_event} characters"
                )
            self._data.append(value)
        elif field == "event":
            self._event = value[:200]
        return None

    def _dispatch(self) -> SSEEvent | None:
        data, event = self._data, self._event
        self._data, self._data_len, self._event = [], 0, ""
        if not data:
            return None
        return SSEEvent("\n".join(data), event or "message")
