"""The panel model: personas, host questions, transcript turns and the quote bank (plain records, ``panelbot.records``).
``panelbot.panel.loader`` reads and validates them from persona_data."""

from __future__ import annotations

from pathlib import Path

from panelbot.records import field, record
from panelbot.text import fold


@record(frozen=True)
class Persona:
    """A person on the panel (or its host): id, display name, role, organisation and the topics they cover."""

    id: str
    name: str
    role: str = ""
    organisation: str = ""
    colour: str = ""
    covers: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()
    voice: str = ""
    bio: str = ""

    @property
    def title(self) -> str:
        """'VP of Kernels, Together AI' style one-liner."""
        return ", ".join(p for p in (self.role, self.organisation) if p)


@record(frozen=True)
class HostQuestion:
    """A question the host asked in the talk, who it was put to and who answered it."""

    id: str
    text: str
    turn: int | None = None
    asked_to: tuple[str, ...] = ()
    answered_by: tuple[str, ...] = ()


@record(frozen=True)
class Turn:
    """One turn of the transcript: who spoke, what they said and (with timed captions) when."""

    index: int
    speaker: str
    text: str
    start: float | None = None  # seconds into the talk (captions with times only)
    end: float | None = None


@record(frozen=True)
class Quote:
    """A verbatim quote of the quote bank: its id, speaker, text and where in the talk it was said."""

    id: str
    speaker: str
    text: str
    question: str | None = None
    turn: int | None = None
    sentences: tuple[int, int] | None = None
    topics: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()
    asks: tuple[
        str, ...
    ] = ()  # questions, in a user's words, that this quote answers (retrieval keys)
    start: float | None = (
        None  # seconds into the talk where the quote begins (captions with times only)
    )
    end: float | None = None
    url: str | None = None  # the panel's source_url at this moment (set by the loader)
    note: str = ""  # the curator's doubt about the caption ("caption doubt: ... may be misheard")


@record
class Panel:
    """A loaded panel: its personas, host questions, transcript turns and quote bank."""

    name: str
    title: str
    path: Path
    status: str
    host: Persona | None
    panelists: dict[str, Persona]
    quotes: list[Quote]
    questions: list[HostQuestion] = field(default_factory=list)
    turns: list[Turn] = field(default_factory=list)
    vocabulary: dict[str, tuple[str, ...]] = field(default_factory=dict)
    topics: tuple[str, ...] = ()
    source: Path | None = None
    source_url: str | None = None  # the video the captions belong to

    def __post_init__(self) -> None:
        self._quotes: dict[str, Quote] | None = (
            None  # by id, made on first use (a saved index's quotes
        )
        self._questions = {q.id: q for q in self.questions}  # are decoded only when asked for)

    def quote(self, quote_id: str) -> Quote | None:
        if self._quotes is None:
            find = getattr(
                self.quotes, "find", None
            )  # a saved index's quotes: decode only this one
            if find is not None:
                return find(quote_id)  # type: ignore[no-any-return]
            self._quotes = {q.id: q for q in self.quotes}
        return self._quotes.get(quote_id)

    def question(self, question_id: str | None) -> HostQuestion | None:
        return self._questions.get(question_id) if question_id else None

    def turn(self, index: int | None) -> Turn | None:
        if index is None or not 0 <= index < len(self.turns):
            return None
        return self.turns[index]

    def quotes_by(self, speaker: str) -> list[Quote]:
        speakers = getattr(
            self.quotes, "speakers", None
        )  # a saved index knows every speaker up front
        if speakers is not None:
            return [self.quotes[i] for i, s in enumerate(speakers) if s == speaker]
        return [q for q in self.quotes if q.speaker == speaker]

    def persona(self, speaker_id: str) -> Persona | None:
        if self.host and speaker_id == self.host.id:
            return self.host
        return self.panelists.get(speaker_id)

    def display_name(self, speaker_id: str) -> str:
        p = self.persona(speaker_id)
        return p.name if p else speaker_id

    def names_as_written(self, label: str) -> str:
        """A label (a quote's topic, often written in lower case: "dan's role", "together's view") with the
        panelists' names, ids and organisations as the panel writes them: "Dan's role", "Together's view".
        A word already written with a capital is left as it is."""
        forms: dict[str, str] = {}
        for p in self.panelists.values():
            for w in (*p.organisation.split(), *p.name.split()):
                forms.setdefault(fold(w), w)
            forms.setdefault(fold(p.id), p.name.split()[0] if p.name.split() else p.id)

        def cased(word: str) -> str:
            bare = word.removesuffix("'s").removesuffix("\u2019s")
            if not bare or bare != bare.lower() or fold(bare) not in forms:
                return word
            return forms[fold(bare)] + word[len(bare) :]

        return " ".join(cased(w) for w in label.split(" "))

    def context(self, quote_id: str) -> tuple[HostQuestion | None, Turn | None, Quote | None]:
        """The host question and the panelist's whole answer around a quote."""
        q = self.quote(quote_id)
        if q is None:
            return None, None, None
        return self.question(q.question), self.turn(q.turn), q


def link_at(url: str, seconds: float) -> str:
    """The URL at a moment: YouTube links get ``t=754s`` (replacing any), other links a ``#t=754`` media
    fragment."""
    from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

    t = max(int(seconds), 0)
    parts = urlsplit(url)
    host = parts.netloc.lower().split(":")[0]
    if host == "youtu.be" or host.endswith("youtube.com") or host.endswith("youtube-nocookie.com"):
        query = [
            (k, v)
            for k, v in parse_qsl(parts.query, keep_blank_values=True)
            if k not in ("t", "start")
        ]
        query.append(("t", f"{t}s"))
        return urlunsplit(
            (parts.scheme, parts.netloc, parts.path, urlencode(query), parts.fragment)
        )
    return urlunsplit((parts.scheme, parts.netloc, parts.path, parts.query, f"t={t}"))


def format_time(seconds: float) -> str:
    """754.2 -> '12:34', 3723 -> '1:02:03'."""
    t = max(int(seconds), 0)
    h, rest = divmod(t, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


@record(frozen=True)
class PanelInfo:
    """An installed panel as listed (by ``panelbot panels`` and the app), without loading its quotes."""

    name: str
    title: str
    path: Path
    status: str
    panelists: tuple[str, ...]
    quotes: int
