"""An incremental parser for server-sent events (the ``text/event-stream`` wire format).

It follows the WHATWG rules that matter for chat completions: lines end in ``\\r\\n``, ``\\n`` or ``\\r``
(possibly split across network chunks); ``data:`` lines accumulate, joined by newlines; a blank line
dispatches the event; lines starting with ``:`` are comments (keep-alives). Other fields are kept only as
the event name. At the end of the stream, complete ``data:`` lines still pending are dispatched (some
servers omit the final blank line); an unterminated last line is dropped, so a cut-off event never looks
whole.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SSEEvent:
    data: str
    event: str = "message"


class SSEParser:
    """Feed text chunks as they arrive; get back the events they complete."""

    def __init__(self) -> None:
        self._buf = ""
        self._data: list[str] = []
        self._event = ""

    def feed(self, chunk: str) -> list[SSEEvent]:
        self._buf += chunk
        events: list[SSEEvent] = []
        while True:
            line, rest = self._take_line(self._buf)
            if line is None:
                break
            self._buf = rest
            ev = self._line(line)
            if ev is not None:
                events.append(ev)
        return events

    def finish(self) -> list[SSEEvent]:
        """The stream ended: dispatch complete pending data, drop an unterminated line."""
        events = self.feed("")
        if self._buf.endswith("\r"):
            ev = self._line(self._buf[:-1])
            if ev is not None:
                events.append(ev)
        self._buf = ""
        ev = self._dispatch()
        if ev is not None:
            events.append(ev)
        return events

    @staticmethod
    def _take_line(buf: str) -> tuple[str | None, str]:
        n, r = buf.find("\n"), buf.find("\r")
        if r == -1 and n == -1:
            return None, buf
        if r == -1 or (n != -1 and n < r):
            return buf[:n], buf[n + 1 :]
        if r + 1 == len(buf):
            return None, buf  # might be the first half of \r\n: wait for more
        skip = 2 if buf[r + 1] == "\n" else 1
        return buf[:r], buf[r + skip :]

    def _line(self, line: str) -> SSEEvent | None:
        if line == "":
            return self._dispatch()
        if line.startswith(":"):
            return None
        field, sep, value = line.partition(":")
        if sep and value.startswith(" "):
            value = value[1:]
        if field == "data":
            self._data.append(value)
        elif field == "event":
            self._event = value
        return None

    def _dispatch(self) -> SSEEvent | None:
        data, event = self._data, self._event
        self._data, self._event = [], ""
        if not data:
            return None
        return SSEEvent("\n".join(data), event or "message")
