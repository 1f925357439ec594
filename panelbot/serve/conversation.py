"""An OpenAI-style ``messages`` list -> the conversation so far, resolved the way the app resolves it.

The server keeps no state: every request carries the whole conversation. Earlier assistant messages are read
back for who answered and which quotes they showed: from the ``panelbot`` field when the client kept it, else
from the text itself (speaker headings ``Dan (VP of Kernels, Together AI):`` and ``[quote-id]`` citations,
counted only when the id is one of the panel's quotes). The last user message is then resolved against those
turns by the pipeline's :meth:`panelbot.conversation.pipeline.Session.read`, as in the app and ``ask -c``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from panelbot.answer.events import Message
from panelbot.config import ServeLimits
from panelbot.conversation.pipeline import Session
from panelbot.conversation.recover import recover_turns
from panelbot.conversation.turns import ConversationTurn, Resolution
from panelbot.panel import Panel
from panelbot.retrieval.results import RouteResult
from panelbot.serve.answers_in import with_answer_records

ROLES = ("system", "developer", "user", "assistant", "tool", "function")
_ID_RE = re.compile(r"\[([^\[\]\n]{1,80})\](?!\()")
MAX_HEADING_NAME = 60  # characters of a speaker's name in a heading
MAX_HEADING_LINE = 300  # a longer line is never a speaker heading


class RequestError(ValueError):
    """The request is malformed; ``str()`` says what is wrong, ``param`` names the field, ``code`` is the
    error's code in the API's error body (None for a plain malformed request)."""

    def __init__(self, message: str, param: str | None = None, code: str | None = None) -> None:
        super().__init__(message)
        self.param = param
        self.code = code


def shown(value: Any, width: int = 60) -> str:
    """A value a client sent, for an error message: its repr, cut to about ``width`` characters (a request
    may hold a megabyte of text or a 4,000-digit number where a word belongs)."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**width:
        return f"a {len(str(abs(value)))}-digit number"
    text = repr(value)
    return text if len(text) <= width else text[: width - 1] + "\u2026"


@dataclass
class Conversation:
    """What a request asks: the new message and the turns before it (oldest first)."""

    message: str
    turns: list[ConversationTurn] = field(default_factory=list)
    history: list[Message] = field(default_factory=list)  # for a generative backend's prompt


def content_text(content: Any, where: str) -> str:
    """A message's text: a string, or the text parts of a list of content parts (images are ignored)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for i, part in enumerate(content):
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, dict) and part.get("type") in ("text", "input_text"):
                if not isinstance(part.get("text"), str):
                    raise RequestError(
                        f"{where}.content[{i}].text must be a string", f"{where}.content"
                    )
                parts.append(part["text"])
            elif not isinstance(part, dict):
                raise RequestError(
                    f"{where}.content[{i}] must be an object with a type", f"{where}.content"
                )
        return "\n".join(parts)
    raise RequestError(
        f"{where}.content must be a string or a list of content parts", f"{where}.content"
    )


def heading_name(line: str) -> str | None:
    """The name a speaker heading gives, or None when ``line`` is not one: ``Dan (VP of Kernels, Together
    AI):`` or ``**Dan**:`` -> ``Dan``. A heading is a name (at most ``MAX_HEADING_NAME`` characters, no
    ``:()*``), maybe in ``*`` (Markdown bold), maybe followed by a parenthesis, then a colon ending the line.

    Read with string methods, not a regular expression, so the cost is linear in the line (the expression
    this replaces backtracked catastrophically on runs of whitespace: 600 bytes of " \\n" took 30 s)."""
    s = line.strip()
    if len(line) > MAX_HEADING_LINE or not s.endswith(":") or line[:1].isspace():
        return None  # panelbot writes headings at column 0; an indented line is someone's words
    s = s[:-1].rstrip()
    paren = s.find("(")
    if paren >= 0:  # the parenthesis runs from the first "(" to a ")" just before the colon
        if not s.endswith(")"):
            return None
        s = s[:paren]
    name = s.rstrip().rstrip("*").lstrip("*")
    if not 0 < len(name) <= MAX_HEADING_NAME or any(c in name for c in ":()*"):
        return None
    return name


def headings(text: str) -> Iterator[tuple[int, int, str]]:
    """Each speaker-heading line of ``text``: (where the line starts, where it ends before its newline, the
    name). Linear in the length of ``text``."""
    start = 0
    while start <= len(text):
        end = text.find("\n", start)
        if end < 0:
            end = len(text)
        if end - start <= MAX_HEADING_LINE:
            name = heading_name(text[start:end])
            if name is not None:
                yield start, end, name
        start = end + 1


def _speaker_of_heading(panel: Panel, name: str) -> str | None:
    n = name.strip().lower()
    for pid, p in panel.panelists.items():
        if n in (pid, p.name.lower()):
            return pid
    return None


def read_answer(panel: Panel, text: str, extra: Any = None) -> tuple[list[str], list[str]]:
    """Who answered and which quote ids an earlier assistant message showed: from panelbot's own record
    passed back with it (``extra``) when that names any, else read from the text."""
    recorded = _recorded_answer(panel, extra)
    if recorded is not None:
        return recorded
    ids = _quote_ids_in(panel, text)
    return _speakers_in(panel, text, ids), ids


def _recorded_answer(panel: Panel, extra: Any) -> tuple[list[str], list[str]] | None:
    """(speakers, quote ids) named by an answer's record (``{"speakers": [...], "quotes": [{"id": ...}]}``),
    only those this panel knows; None when the record names none."""
    if not isinstance(extra, dict):
        return None
    listed = [
        v if isinstance(v, list) else [] for v in (extra.get("speakers"), extra.get("quotes"))
    ]
    speakers = [s for s in listed[0] if isinstance(s, str) and s in panel.panelists]
    ids = [q.get("id") for q in listed[1] if isinstance(q, dict)]
    ids = [i for i in ids if isinstance(i, str) and panel.quote(i) is not None]
    return (speakers, ids) if speakers or ids else None


def _quote_ids_in(panel: Panel, text: str) -> list[str]:
    """The panel's quote ids an answer's text cites ("[id: a, b]"), first mention first, once each."""
    ids: list[str] = []
    for m in _ID_RE.finditer(text):
        for tok in re.split(r"[,;\s]+", m.group(1)):
            tok = tok.strip(":#*'\"`")
            if tok and panel.quote(tok) is not None and tok not in ids:
                ids.append(tok)
    return ids


def _speakers_in(panel: Panel, text: str, ids: list[str]) -> list[str]:
    """Who an answer's text gives words to: its speaker headings in order, then the speakers of the
    quotes it cites (``ids``) that no heading named."""
    speakers: list[str] = []
    for _, _, name in headings(text):
        sid = _speaker_of_heading(panel, name)
        if sid and sid not in speakers:
            speakers.append(sid)
    for qid in ids:
        q = panel.quote(qid)
        if q is not None and q.speaker not in speakers and q.speaker in panel.panelists:
            speakers.append(q.speaker)
    return speakers


# panelbot's own lines about an answer (the graded verdict, the sentences not supported, misquotes, a quote
# the curator doubts): never the panelist's words when a client sends the answer back
_VERDICT_RE = re.compile(
    r"^\[(?:grounded|partly grounded|NOT grounded|not grounded|not supported|misquoted|cites nothing|"
    r"cites a quote not given|the model failed|note on)\b[^\n]*$\n?|\(note on [^()\n]{1,300}\)",
    re.MULTILINE | re.IGNORECASE,
)


def _split_by_speaker(panel: Panel, text: str, speakers: list[str]) -> list[tuple[str, str]]:
    """An answer -> (speaker, their words) per speaker heading, without the headings and verdict lines."""
    text = _VERDICT_RE.sub("", text)
    if len(speakers) <= 1:
        kept, at = [], 0
        for start, end, name in headings(text):
            if _speaker_of_heading(panel, name):
                kept.append(text[at:start])
                at = end
        body = "".join([*kept, text[at:]])
        return [(speakers[0] if speakers else "assistant", body.strip())]
    cuts = [
        (start, end, sid)
        for start, end, name in headings(text)
        if (sid := _speaker_of_heading(panel, name))
    ]
    if not cuts:
        return [(speakers[0], text)]
    out = []
    for i, (_, end, sid) in enumerate(cuts):
        stop = cuts[i + 1][0] if i + 1 < len(cuts) else len(text)
        part = text[end:stop].strip()
        if part:
            out.append((sid, part))
    return out or [(speakers[0], text)]


def _message_text(message: Any, where: str, limits: ServeLimits) -> tuple[str, str]:
    """(role, text) of one message, or RequestError when it is malformed or longer than the limits allow."""
    if not isinstance(message, dict):
        raise RequestError(f"{where} must be an object with 'role' and 'content'", "messages")
    role = message.get("role")
    if not isinstance(role, str) or role not in ROLES:
        raise RequestError(
            f"{where}.role must be one of {', '.join(ROLES)} (got {shown(role)})", "messages"
        )
    text = content_text(message.get("content"), where)
    if role == "user" and len(text) > limits.max_question:
        raise RequestError(
            f"{where} is {len(text):,} characters long; a question may be at most "
            f"{limits.max_question:,}: shorten it",
            "messages",
            "question_too_long",
        )
    if len(text) > limits.max_message:
        raise RequestError(
            f"{where} is {len(text):,} characters long; a message may be at most "
            f"{limits.max_message:,}",
            "messages",
            "message_too_long",
        )
    return role, text


def parse_messages(
    panel: Panel, messages: Any, target: str = "auto", limits: ServeLimits | None = None
) -> Conversation:
    """Validate an OpenAI ``messages`` list and read it as a conversation. RequestError when malformed or
    beyond ``limits`` (how many messages, how long a question or another message may be)."""
    limits = limits or ServeLimits()
    messages = with_answer_records(panel, messages)  # panelbot's own JSON passed back
    if not isinstance(messages, list) or not messages:
        raise RequestError(
            "'messages' must be a non-empty list of {role, content} objects", "messages"
        )
    if len(messages) > limits.max_messages:
        raise RequestError(
            f"'messages' holds {len(messages):,} messages; at most {limits.max_messages:,}",
            "messages",
            "too_many_messages",
        )
    parsed: list[tuple[str, str, Any]] = []
    for i, m in enumerate(messages):
        role, text = _message_text(m, f"messages[{i}]", limits)
        parsed.append((role, text, m.get("panelbot")))
    last_user = max((i for i, (role, _, _) in enumerate(parsed) if role == "user"), default=None)
    if last_user is None:
        raise RequestError("'messages' has no user message to answer", "messages")
    after = [role for role, _, _ in parsed[last_user + 1 :] if role not in ("system", "developer")]
    if after:
        raise RequestError(
            f"the last message to answer must be the user's (found {after[-1]!r} after it)",
            "messages",
        )
    message = parsed[last_user][1].strip()
    if not message:
        raise RequestError(f"messages[{last_user}] (the question) is empty", "messages")

    conv = Conversation(message)
    pending: str | None = None
    for role, text, extra in parsed[:last_user]:
        if role == "user":
            if pending is not None:  # a question that got no answer: still part of the conversation
                conv.turns.append(ConversationTurn(pending, [], [], target))
            pending = text.strip()
            conv.history.append(Message("user", pending))
        elif role == "assistant":
            speakers, ids = read_answer(panel, text, extra)
            if pending is not None:
                conv.turns.append(ConversationTurn(pending, speakers, ids, target))
                pending = None
            for sid, part in _split_by_speaker(panel, text, speakers):
                conv.history.append(Message(sid, part))
    if pending is not None:
        conv.turns.append(ConversationTurn(pending, [], [], target))
    return conv


def session_of(router: Any, conv: Conversation, backend: Any = None) -> Session:
    """The pipeline's session for a conversation a request carried: its turns (earlier answers that kept
    no quote ids -- plain strings, edited or summarised text -- answered again to recover them) and what
    was said in it. Nothing is written to the history."""
    turns = recover_turns(router, list(conv.turns))
    return Session.from_messages(router.panel, router, turns, conv.history, backend)


def read_conversation(
    router: Any, conv: Conversation, target: str = "auto", backend: Any = None
) -> tuple[Session, Resolution]:
    """The pipeline's session for a request's conversation and how its question reads in it (CPU work:
    a server runs this in a worker thread, then answers with the session)."""
    session = session_of(router, conv, backend)
    return session, session.read(conv.message, target)


def route_conversation(
    router: Any, turns: Sequence[ConversationTurn], message: str, target: str = "auto"
) -> tuple[RouteResult, dict | None]:
    """Resolve ``message`` against the earlier turns: (the route, what context was carried over or None)."""
    # earlier answers that kept no quote ids (plain strings, edited or summarised text) are answered again
    session = Session.from_messages(router.panel, router, recover_turns(router, list(turns)))
    res = session.read(message, target)
    return res.route, res.context
