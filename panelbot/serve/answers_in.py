"""Earlier answers a client passes back as panelbot's own JSON: read for who answered and which quotes.

A client that keeps an MCP ``ask_panel`` result (``{"answered_by": [...], "quotes": [{"id", ...}], ...}``) or a
chat answer's ``panelbot`` record (``{"speakers": [...], "quotes": [...], "answer": ...}``) may hand it back as
an earlier assistant turn: as the message's content (an object, or its JSON text, alone or as a text part), or
as the whole conversation item. Such a turn becomes an assistant message whose text is the answer's words and
whose ``panelbot`` field names the speakers and quotes, the form :func:`panelbot.serve.conversation.
parse_messages` reads best. Anything else is left exactly as it came.
"""

from __future__ import annotations

import json
from typing import Any

from panelbot.answer.compose import speaker_heading
from panelbot.panel import Panel

MAX_RECORD_TEXT = (
    200_000  # characters of JSON text tried as a record (the request's own cap comes first)
)


def _joined_text(content: Any) -> str | None:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [
            p if isinstance(p, str) else p.get("text")
            for p in content
            if isinstance(p, (str, dict))
        ]
        if all(isinstance(p, str) for p in parts):
            return "".join(parts)  # type: ignore[arg-type]
    return None


def answer_record(content: Any) -> dict[str, Any] | None:
    """The panelbot answer record ``content`` holds (an object or its JSON text), or None."""
    if not isinstance(content, dict):
        text = _joined_text(content)
        if text is None or len(text) > MAX_RECORD_TEXT or not text.lstrip().startswith("{"):
            return None
        try:
            content = json.loads(text)
        except ValueError:
            return None
    if not isinstance(content, dict) or not isinstance(content.get("quotes"), list):
        return None
    if not any(isinstance(content.get(k), list) for k in ("answered_by", "speakers")):
        return None
    return content


def _speakers(panel: Panel, record: dict[str, Any], ids: list[str]) -> list[str]:
    named = record.get("speakers")
    if not isinstance(named, list) or not named:
        answered = record.get("answered_by")
        named = (
            [a.get("id") for a in answered if isinstance(a, dict)]
            if isinstance(answered, list)
            else []
        )
    out = [s for s in named if isinstance(s, str) and s in panel.panelists]
    for qid in ids:  # who the quotes are by, when the record named nobody this panel has
        q = panel.quote(qid)
        if q is not None and q.speaker in panel.panelists and q.speaker not in out:
            out.append(q.speaker)
    return out


def _words(panel: Panel, record: dict[str, Any], speakers: list[str], ids: list[str]) -> str:
    """What the answer said: its own text when it has one, else each speaker's quotes under a heading."""
    for key in ("answer", "decline"):
        if isinstance(record.get(key), str) and record[key].strip():
            return record[key]
    blocks = []
    for sid in speakers:
        mine = [q for qid in ids if (q := panel.quote(qid)) is not None and q.speaker == sid]
        if mine:
            cited = "\n".join(f"\u201c{q.text}\u201d [{q.id}]" for q in mine)
            blocks.append(f"{speaker_heading(panel, sid)}:\n{cited}")
    return "\n\n".join(blocks)


def as_assistant_message(panel: Panel, record: dict[str, Any]) -> dict[str, Any]:
    """A record -> ``{"role": "assistant", "content": its words, "panelbot": {speakers, quotes}}``."""
    ids = [
        q["id"]
        for q in record["quotes"]
        if isinstance(q, dict) and isinstance(q.get("id"), str) and panel.quote(q["id"]) is not None
    ]
    speakers = _speakers(panel, record, ids)
    return {
        "role": "assistant",
        "content": _words(panel, record, speakers, ids),
        "panelbot": {"speakers": speakers, "quotes": [{"id": i} for i in ids]},
    }


def with_answer_records(panel: Panel, messages: Any) -> Any:
    """``messages`` with every earlier answer given as a panelbot record read as an assistant message (see
    the module's doc); anything that is not a list, and every other item, unchanged."""
    if not isinstance(messages, list):
        return messages
    out = []
    for m in messages:
        record = None
        if isinstance(m, dict) and "role" not in m:
            record = answer_record(m)  # the tool's result itself, passed back as a turn
        elif isinstance(m, dict) and m.get("role") == "assistant":
            record = answer_record(m.get("content"))
        if record is None:
            out.append(m)
            continue
        msg = as_assistant_message(panel, record)
        if isinstance(m.get("panelbot"), dict):  # the client kept the answer's own field: it wins
            msg["panelbot"] = m["panelbot"]
        out.append(msg)
    return out
