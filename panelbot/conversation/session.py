"""A conversation's one record, as the turn pipeline (:mod:`panelbot.conversation.pipeline`) keeps it for every
front end: its earlier turns for the resolver, what was said (for a model), and writing each new turn whole to
the history database (the app's, the shell's ``ask -c``/``--cid``; none for a server, which builds the record
from a request's messages). Plain Python (no Textual, no httpx)."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from panelbot.conversation.turns import ConversationTurn, Resolution, turns_from_messages
from panelbot.errors import UsageError

if TYPE_CHECKING:  # the store (and sqlite3) is imported only when the history is read or written
    from typing import Any

    from panelbot.conversation.store import ConversationStore


PANEL_DIR = "panel_dir"  # meta key of a conversation's first question: the directory of its panel


def panel_dir_of(messages: Sequence[Any]) -> str:
    """The panel directory kept with a conversation's first question ("" when not kept: an older one)."""
    return next(
        (
            str(m.meta.get(PANEL_DIR) or "")
            for m in messages
            if m.role == "user" and isinstance(m.meta, dict)
        ),
        "",
    )


def _stopped(message: Any) -> bool:
    """A stored answer stopped before it was finished (Esc in the app)."""
    meta = getattr(message, "meta", None)
    return isinstance(meta, dict) and bool(meta.get("cancelled"))


def panel_to_open(name: str, panel_dir: str) -> str:
    """What to load for a conversation held with panel ``name``: its kept directory when that still holds
    the panel (a panel given by path is not installed, so its name alone finds nothing), else the name."""
    if panel_dir and Path(panel_dir).name == name and (Path(panel_dir) / "panel.yaml").is_file():
        return panel_dir
    return name


class ConversationLog:
    """One conversation: its earlier turns (``turns``), what was said (``said``) and, when logging, where new
    turns are written.

    ``conversation_id`` is None until something is written (or when not logging and starting afresh);
    ``unsaved`` says why nothing can be written when the history could not even be opened (a full disk)."""

    def __init__(
        self,
        store: ConversationStore | None,
        conversation_id: int | None,
        panel: str,
        turns: Sequence[ConversationTurn] = (),
        *,
        log: bool = True,
        source: str = "cli",
        panel_dir: str = "",
    ) -> None:
        self.store = store
        self.conversation_id = conversation_id
        self.panel = panel
        # the panel's directory, kept with the conversation's first question: ``ask -c`` reopens a panel given
        # by path (``--panel /some/dir``, not installed) from it; "" when not known (an older conversation)
        self.panel_dir = panel_dir
        self.turns: list[ConversationTurn] = list(turns)
        # what was said, for a model: ("user" or a panelist id, text), oldest first
        self.said: list[tuple[str, str]] = []
        self.log = log and store is not None
        self.source = source
        self.unsaved: str | None = (
            None  # why the history cannot be written at all (it could not open)
        )
        self.last_ids: list[int] = []  # the history's ids of the last turn written
        self._last_said = 0  # how many of ``said`` the last turn added
        self._fresh = False  # started in the history, nothing written to it yet

    @classmethod
    def open(
        cls,
        path: Path,
        panel: str,
        *,
        continue_last: bool = False,
        conversation_id: int | None = None,
        log: bool = True,
        panel_dir: str = "",
    ) -> ConversationLog:
        """The conversation to answer in: a given id, the most recent one, or a new one.

        The database is not created just to read it (no log and nothing to continue)."""
        wants_old = continue_last or conversation_id is not None
        if not log and not (wants_old and path.exists()):
            if conversation_id is not None:
                raise UsageError(f"no conversation {conversation_id} (the history is empty)")
            return cls(None, None, panel, log=False, panel_dir=panel_dir)
        from panelbot.conversation.store import ConversationStore, StoreError

        try:
            store = ConversationStore(path)
        except StoreError as exc:
            if wants_old:  # what to continue cannot be read: nothing can be answered in it
                raise
            # a new conversation on a disk that cannot take the history (full, read-only): answered all
            # the same, and each turn says it was not saved
            conv = cls(None, None, panel, log=False, panel_dir=panel_dir)
            conv.unsaved = str(exc)
            return conv
        cid: int | None = None
        turns: list[ConversationTurn] = []
        if conversation_id is not None:
            summary = store.conversation(conversation_id)
            if summary is None:
                store.close()
                raise UsageError(f"no conversation {conversation_id} (see 'panelbot history')")
            cid, panel = summary.id, summary.panel
        elif continue_last:
            cid = store.last_conversation_id()
            summary = store.conversation(cid) if cid is not None else None
            if summary is not None:
                panel = summary.panel
        said: list[tuple[str, str]] = []
        if cid is not None:
            messages = store.messages(cid)
            panel_dir = panel_dir_of(messages)
            turns = turns_from_messages(messages)
            said = [  # what was said; an answer stopped half way (Esc) was not
                ("user" if m.role == "user" else m.speaker, m.text)
                for m in messages
                if m.role in ("user", "assistant", "decline") and m.text and not _stopped(m)
            ]
        conv = cls(store, cid, panel, turns, log=log, panel_dir=panel_dir)
        conv.said = said
        return conv

    def fresh(self) -> ConversationLog:
        """A new conversation in the same database (``ask -`` without -c: each line on its own)."""
        conv = ConversationLog(
            self.store, None, self.panel, log=self.log, source=self.source, panel_dir=self.panel_dir
        )
        conv.unsaved = self.unsaved
        return conv

    def record_or_why_not(self, *turn: Any, **options: Any) -> str | None:
        """``record(*turn, **options)``, or why the history could not be written (a full or read-only
        disk): the caller shows the answer all the same and this reason after it."""
        from panelbot.conversation.store import StoreError

        try:
            self.record(*turn, **options)
        except StoreError as exc:
            return str(exc)
        return None

    def record(
        self,
        question: str,
        target: str,
        resolution: Resolution,
        answers: Sequence[tuple[str, str, Sequence[str], dict[str, Any]]],
        decline: tuple[str, str] | None = None,
        *,
        stopped: Sequence[tuple[str, str, Sequence[str]]] = (),
        failed: str | None = None,
        remembered: ConversationTurn | None = None,
        user_meta: dict[str, Any] | None = None,
        before: Sequence[tuple[str, str, str, Sequence[str], dict[str, Any] | None]] = (),
        after: Sequence[tuple[str, str, str, Sequence[str], dict[str, Any] | None]] = (),
    ) -> None:
        """Add one turn: the question, then each panelist's answer (speaker, text, quote ids, meta) or the
        decline (speaker, text); ``stopped``: answers cut off before they were finished (speaker, text so
        far, quote ids), kept marked but not counted as shown; ``failed``: why answering broke off.
        Remembered for the next turn (as ``remembered`` when given); written when logging. A discussion
        (``panelbot.conversation.pipeline``) gives its question's own meta (``user_meta``) and the host's
        lines around the answers (``before``, ``after``: rows as ``write_rows`` takes them)."""
        route = resolution.route
        speakers = [a[0] for a in answers]
        quote_ids = [q for a in answers for q in a[2]]
        self.turns.append(remembered or ConversationTurn(question, speakers, quote_ids, target))
        said = len(self.said)
        self.said.append(("user", question))
        self.said.extend((a[0], a[1]) for a in answers)
        if decline is not None:
            self.said.append(decline)
        self._last_said = len(self.said) - said
        meta: dict[str, Any] = {"target": target, "reason": route.reason}
        if resolution.context is not None:
            meta["context"] = resolution.context
        rows: list[tuple[str, str, str, Sequence[str], dict[str, Any] | None]] = [
            ("user", "", question, (), meta if user_meta is None else user_meta),
            *before,
        ]
        rows += [
            ("assistant", speaker, text, list(ids), {"target": target, **extra})
            for speaker, text, ids, extra in answers
        ]
        rows += [
            ("assistant", speaker, text, list(ids), {"cancelled": True})
            for speaker, text, ids in stopped
        ]
        if decline is not None:
            social = (
                {"small_talk": route.small_talk} if route.small_talk else {}
            )  # a reply, not a decline
            # the questions a front end offers to pick with it (the app shows three), to offer again
            # when the conversation is reopened; the text's "Try:" line names fewer
            offered = {"suggestions": list(route.suggestions[:3])} if route.suggestions else {}
            rows.append(
                (
                    "decline",
                    decline[0],
                    decline[1],
                    (),
                    {"reason": route.reason, **social, **offered},
                )
            )
        rows += after
        if failed is not None:
            rows.append(("error", "", failed, (), None))
        self._write(question, rows)

    def write_rows(
        self,
        question: str,
        rows: Sequence[tuple[str, str, str, Sequence[str], dict[str, Any] | None]],
    ) -> str | None:
        """Write one turn's rows as they are (the question first), or why the history could not keep them."""
        from panelbot.conversation.store import StoreError

        try:
            self._write(question, rows)
        except StoreError as exc:
            return str(exc)
        return None

    def _write(
        self,
        question: str,
        rows: Sequence[tuple[str, str, str, Sequence[str], dict[str, Any] | None]],
    ) -> None:
        self.last_ids = []
        if self.unsaved is not None:
            from panelbot.conversation.store import StoreError

            raise StoreError(self.unsaved)
        if not self.log or self.store is None:
            return
        rows = list(rows)
        self.start(question[:80])
        if self._fresh and self.panel_dir and rows and rows[0][0] == "user":
            role, speaker, text, ids, meta = rows[0]
            rows[0] = (role, speaker, text, ids, {**(meta or {}), PANEL_DIR: self.panel_dir})
        self._fresh = False
        # the turn whole, in one transaction
        self.last_ids = self.store.add_messages(self.conversation_id, rows)

    def start(self, title: str) -> int | None:
        """The conversation's id in the history, started now when it has none (titled ``title``); None when
        not logging. The app starts it as a question is asked, before the turn is written."""
        if self.conversation_id is None and self.log and self.store is not None:
            self.conversation_id = self.store.new_conversation(
                self.panel, title, source=self.source
            )
            self._fresh = True  # its first question keeps the panel's directory
        return self.conversation_id

    def forget_last(self) -> None:
        """Take the last turn back (to answer it again): out of memory, and out of the history when it was
        written there."""
        if self.turns:
            self.turns.pop()
            del self.said[len(self.said) - self._last_said :]
            self._last_said = 0
        if self.last_ids and self.store is not None:
            from panelbot.conversation.store import StoreError

            with contextlib.suppress(StoreError):
                self.store.delete_messages(self.last_ids)
        self.last_ids = []

    def close(self) -> None:
        if self.store is not None:
            self.store.close()
