"""The conversations ``ask_panel`` keeps for a ``conversation_id``: each one the pipeline's own record of its
turns (:class:`panelbot.conversation.session.ConversationLog`), kept in the server's memory apart per client
(its key and MCP session over HTTP), bounded in number per client, in total, in age and in turns -- as ``/v1/responses`` keeps
responses for ``previous_response_id``. Nothing is written to disk."""

from __future__ import annotations

import hashlib
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from panelbot.conversation.session import ConversationLog

MAX_PER_CLIENT = 64  # conversations kept per client (the least recently used goes first)
MAX_TOTAL = 1024  # conversations kept in all
MAX_AGE = 3600.0  # seconds a conversation is kept after its last turn
MAX_TURNS = (
    50  # turns kept of one conversation (the oldest go first; follow-ups read the recent ones)
)


@dataclass
class _Kept:
    owner: str
    log: ConversationLog
    at: float


class ConversationMemory:
    """``conversation_id`` -> its conversation, for the client that started it only."""

    def __init__(
        self,
        per_client: int = MAX_PER_CLIENT,
        total: int = MAX_TOTAL,
        max_age: float = MAX_AGE,
        max_turns: int = MAX_TURNS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.per_client, self.total, self.max_age, self.max_turns = (
            per_client,
            total,
            max_age,
            max_turns,
        )
        self.clock = clock
        self._items: OrderedDict[str, _Kept] = OrderedDict()  # least recently used first

    def __len__(self) -> int:
        return len(self._items)

    @staticmethod
    def owner_of(headers: Any) -> str:
        """A client's key: over HTTP its credentials and MCP session (hashed; the key itself is never
        kept), so a conversation is reachable only with the key and session that started it; over stdio
        (no headers) the one client of the process."""
        if not headers:
            return ""
        seen = f"{headers.get('authorization', '')}\0{headers.get('mcp-session-id', '')}"
        return hashlib.sha256(seen.encode("utf-8", "surrogatepass")).hexdigest()

    def _expire(self) -> None:
        limit = self.clock() - self.max_age
        while self._items:
            cid, kept = next(iter(self._items.items()))
            if kept.at > limit:
                return
            del self._items[cid]

    def get(self, owner: str, cid: str) -> ConversationLog | None:
        self._expire()
        kept = self._items.get(cid)
        return kept.log if kept is not None and kept.owner == owner else None

    def put(self, owner: str, cid: str, log: ConversationLog) -> None:
        """Keep (or keep again, as the most recent) ``log`` under ``cid``, within the bounds."""
        self._expire()
        del log.turns[: max(0, len(log.turns) - self.max_turns)]
        del log.said[: max(0, len(log.said) - 4 * self.max_turns)]
        self._items.pop(cid, None)
        self._items[cid] = _Kept(owner, log, self.clock())
        mine = [c for c, kept in self._items.items() if kept.owner == owner]
        for c in mine[: max(0, len(mine) - self.per_client)]:
            del self._items[c]
        while len(self._items) > self.total:
            self._items.popitem(last=False)
