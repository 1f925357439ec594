"""The OpenAI-compatible backend: each answering panelist speaks in new words, grounded in their own quotes.

Tokens stream as :class:`TextDelta` events (sanitised: model output is untrusted text), then a
:class:`SpeakerDone` carries the verified citations. When generation fails the SpeakerDone has ``error`` set
and its text is the panelist's verbatim quotes, so the user always gets an answer.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

from panelbot.answer.backends.base import (
    AnswerEvent,
    AnswerRequest,
    BackendError,
    SpeakerDone,
    TextDelta,
)
from panelbot.answer.backends.offline import quotes_text
from panelbot.answer.llm.client import ChatClient
from panelbot.answer.llm.guard import OutputGuard
from panelbot.answer.llm.prompt import PromptBudget, build_messages
from panelbot.answer.llm.verify import verify_answer
from panelbot.config import Config
from panelbot.panel import Panel
from panelbot.redact import StreamRedactor, scrub
from panelbot.text import strip_control

# An escape sequence that may still be incomplete at the end of a piece (held back until the next one).
_PARTIAL_ESC_RE = re.compile(r"(?:\x1b(?:\[[0-?]*[ -/]*|[\]PX^_][^\x07\x1b]{0,256}|[ -/]+)?|\r)\Z")


class StreamSanitizer:
    """strip_control for text arriving in pieces: an escape sequence split across pieces is still removed."""

    def __init__(self) -> None:
        self._held = ""

    def feed(self, piece: str) -> str:
        text = self._held + piece
        m = _PARTIAL_ESC_RE.search(text)
        if m:
            self._held, text = text[m.start() :], text[: m.start()]
        else:
            self._held = ""
        return strip_control(text)

    def flush(self) -> str:
        text, self._held = self._held, ""
        return strip_control(text)


class ThinkFilter:
    """Drops ``<think>…</think>`` reasoning that some models (MiniMax's among them) put in the answer text,
    as it streams: a tag split across pieces is held back until it is complete."""

    OPEN, CLOSE = "<think>", "</think>"

    def __init__(self) -> None:
        self._buf = ""
        self._inside = False

    def feed(self, piece: str) -> str:
        self._buf += piece
        out: list[str] = []
        while self._buf:
            tag = self.CLOSE if self._inside else self.OPEN
            at = self._buf.find(tag)
            if at >= 0:
                if not self._inside:
                    out.append(self._buf[:at])
                self._buf = self._buf[at + len(tag) :]
                self._inside = not self._inside
                continue
            keep = next(
                (
                    k
                    for k in range(min(len(tag) - 1, len(self._buf)), 0, -1)
                    if tag.startswith(self._buf[-k:])
                ),
                0,
            )
            if not self._inside:
                out.append(self._buf[: len(self._buf) - keep])
            self._buf = self._buf[len(self._buf) - keep :]
            break
        return "".join(out)

    def flush(self) -> str:
        text, self._buf = ("" if self._inside else self._buf), ""
        return text


class OpenAICompatBackend:
    name = "openai"

    def __init__(
        self,
        config: Config,
        panel: Panel | None = None,
        *,
        client: ChatClient | None = None,
        budget: PromptBudget | None = None,
    ) -> None:
        self.config = config
        self.panel = panel
        self.client = client or ChatClient(config.backend)
        self.budget = budget or PromptBudget()

    def __repr__(self) -> str:
        return f"OpenAICompatBackend({self.client!r})"

    @property
    def label(self) -> str:
        return self.client.model or self.client.url

    async def answer(self, request: AnswerRequest) -> AsyncIterator[AnswerEvent]:
        route = request.route
        if route.abstained:
            return
        panel = request.panel
        earlier: list[tuple[str, str]] = []
        for speaker in route.speakers:
            scored = route.quotes_for(speaker)
            quotes = [sq.quote for sq in scored]
            if (
                not quotes
            ):  # nothing of theirs to ground an answer in: never ask the model to invent one
                text = f"{panel.display_name(speaker)} said nothing in the talk that answers this."
                yield TextDelta(speaker, text)
                yield SpeakerDone(speaker, text, [])
                earlier.append((speaker, text))
                continue
            messages = build_messages(
                panel, speaker, quotes, request.question, request.history, earlier, self.budget
            )
            # model output is untrusted: escapes stripped first (so none can split the key), then any
            # echo of the API key masked, then <think> blocks dropped, then lines posing as a speaker
            # heading or a verdict removed (panelbot writes those, from its own data)
            sanitizer, think = StreamSanitizer(), ThinkFilter()
            redactor = StreamRedactor(self.client.redactor)
            guard = OutputGuard.for_panel(panel)
            parts: list[str] = []
            error: str | None = None
            try:
                async for piece in self.client.stream(messages):
                    clean = guard.feed(think.feed(redactor.feed(sanitizer.feed(piece))))
                    if clean:
                        parts.append(clean)
                        yield TextDelta(speaker, clean)
                tail = guard.feed(
                    think.feed(redactor.feed(sanitizer.flush()) + redactor.flush()) + think.flush()
                )
                tail += guard.flush()
                if tail:
                    parts.append(tail)
                    yield TextDelta(speaker, tail)
            except BackendError as exc:
                error = scrub(strip_control(str(exc), keep_newlines=False))
            text = "".join(parts).strip()
            if error is None and not text:
                error = f"{self.client.url}: the model returned an empty answer"
            if error is not None:
                fallback = quotes_text(scored)
                yield SpeakerDone(speaker, fallback, scored, error=error)
                earlier.append((speaker, fallback))
                continue
            check = verify_answer(text, quotes, panel.display_name(speaker), guard.removed)
            yield SpeakerDone(
                speaker,
                text,
                scored,
                citations=check.citations,
                grounded=check.grounded,
                unsupported_sentences=check.unsupported_sentences,
                verdict=check.verdict,
            )
            earlier.append((speaker, text))

    async def aclose(self) -> None:
        await self.client.aclose()
