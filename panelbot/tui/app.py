"""The panelbot terminal app: ask the panel, see who answers in whose words, dig into the sources."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

from rich.table import Table
from rich.text import Text
from textual import events, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Footer, Static
from textual.worker import Worker

from panelbot.answer.backends.base import AnswerRequest, Backend, Message, SpeakerDone, TextDelta
from panelbot.answer.backends.offline import quotes_text
from panelbot.answer.compose import decline_text
from panelbot.answer.llm.verify import verdict
from panelbot.config import Config
from panelbot.conversation.resolve import ConversationTurn, resolve
from panelbot.conversation.store import ConversationStore
from panelbot.errors import PanelbotError
from panelbot.panel import Panel, PanelInfo
from panelbot.redact import scrub
from panelbot.retrieval.results import RouteResult, ScoredQuote
from panelbot.text import question_too_long, strip_control
from panelbot.tui import engine
from panelbot.tui.conversation import ConversationActions
from panelbot.tui.render import safe
from panelbot.tui.widgets.chat import AnswerBlock, ChatLog
from panelbot.tui.widgets.followups import FollowUps
from panelbot.tui.widgets.panelists import PanelistsPane
from panelbot.tui.widgets.prompt import Prompt
from panelbot.tui.widgets.sidepane import ToInput
from panelbot.tui.widgets.sources import SourcesList
from panelbot.tui.widgets.suggestions import DeclineChoices, SuggestionsList

NARROW_WIDTH = 110  # below this the side panes collapse; the toggle key flips between chat and panes


def _palette_provider() -> type:
    from panelbot.tui.palette import PanelbotCommands

    return PanelbotCommands


class PanelbotApp(ConversationActions, App[int]):
    CSS_PATH = "app.tcss"
    TITLE = "panelbot"
    COMMANDS = App.COMMANDS | {_palette_provider}
    ENABLE_COMMAND_PALETTE = True

    # Every binding has an id; config.tui.keys remaps them through Textual's keymap.
    BINDINGS: ClassVar[list[Binding]] = [  # type: ignore[assignment]
        Binding("escape", "cancel", "Stop", id="cancel", show=False),
        Binding("ctrl+e", "export", "Export", id="export", priority=True),
        Binding("f1", "help", "Help", id="help", priority=True),
        # not in the footer (F1 lists it): with it every other key fits at 80 columns
        Binding("ctrl+y", "copy", "Copy", id="copy", show=False, priority=True),
        Binding("ctrl+b", "toggle_sidebar", "Panes", id="toggle_sidebar", priority=True),
        Binding("ctrl+r", "regenerate", "Again", id="regenerate", priority=True),
        Binding("ctrl+o", "conversations", "History", id="conversations", priority=True),
        Binding("ctrl+g", "followups", "Follow-ups", id="followups", show=False, priority=True),
        Binding("ctrl+p", "command_palette", "Commands", id="command_palette", show=False, priority=True),
        Binding("ctrl+q", "quit", "Quit", id="quit", priority=True),
    ]

    def __init__(
        self,
        config: Config | None = None,
        panel_name: str | None = None,
        resume: bool | int = False,
        *,
        config_error: str | None = None,
        store: ConversationStore | None = None,
        backend: Backend | None = None,
        router_factory: Callable[[Panel, Config], Any] | None = None,
    ) -> None:
        super().__init__()
        self.config = config or Config()
        self._startup_notices: list[tuple[str, str]] = []
        if config_error:
            self._startup_notices.append((f"Config problem: {config_error} (using the defaults)", "error"))
        for warning in self.config.warnings:
            self._startup_notices.append((warning, "warning"))
        self._router_factory = router_factory or engine.make_router
        self._fixed_backend = backend
        self.panel: Panel | None = None
        self.router: Any = None
        self.backend: Backend | None = None
        self.target = "auto"
        self.all_talks = False  # questions go to every installed talk (the palette switches it)
        self._library: Any = None
        self.resume = resume
        self.conversation_id: int | None = None
        self.history: list[Message] = []
        self.turns: list[ConversationTurn] = []  # what the resolver reads follow-ups against
        # the last answered question, to regenerate it with the same quotes
        self._last_answer: dict[str, Any] | None = None
        self.last_quotes: list[ScoredQuote] = []
        self._answer_worker: Worker[None] | None = None
        self._panes_shown = True  # wide: side panes visible; narrow: panes replace the chat
        self._narrow = False
        self._store = store
        self._store_error: str | None = None
        self._load_panel(panel_name or self.config.panel, initial=True)
        try:
            self.set_keymap(dict(self.config.tui.keys))
        except Exception as exc:  # a key string Textual can't use: keep the defaults
            self._startup_notices.append((f"tui.keys: {exc}", "warning"))

    # ------------------------------------------------------------------------------------------ setup

    @property
    def store(self) -> ConversationStore | None:
        if self._store is None and self._store_error is None:
            from panelbot import paths

            try:
                self._store = ConversationStore(paths.history_db_path())
            except PanelbotError as exc:
                self._store_error = str(exc)
                self.chat_notice(f"History is off: {exc}", "error")
        return self._store

    def _load_panel(self, name: str, *, initial: bool = False) -> bool:
        from panelbot.panel import load_panel

        note = None
        try:
            if self._router_factory is engine.make_router:  # the real router: from the saved index
                panel, router, note = engine.open_panel(name, self.config)
            else:
                panel = load_panel(name)
                router = self._router_factory(panel, self.config)
        except PanelbotError as exc:
            message = f"Cannot load panel {name!r}: {exc}"
            if initial:
                self._startup_notices.append((message + "  Use /panel NAME to pick another.", "error"))
            else:
                self.chat_notice(message, "error")
            return False
        except Exception as exc:  # anything else from loading: a message, never a traceback
            message = f"Cannot load panel {name!r}: {type(exc).__name__}: {exc}"
            if initial:
                self._startup_notices.append((message, "error"))
            else:
                self.chat_notice(message, "error")
            return False
        self.panel, self.router = panel, router
        if note:
            if initial:
                self._startup_notices.append((note, "info"))
            else:
                self.chat_notice(note, "info")
        if self._fixed_backend is not None:
            self.backend = self._fixed_backend
        else:
            self.backend, warning = engine.make_backend(self.config, panel)
            if warning and initial:
                self._startup_notices.append((warning, "warning"))
            elif warning:
                self.chat_notice(warning, "warning")
        self.target = "auto"
        return True

    def compose(self) -> ComposeResult:
        yield Static(self._header_text(), id="header")
        with Horizontal(id="body"):
            with Vertical(id="sidebar"):
                yield PanelistsPane(self.panel, self.target, id="panelists")
                yield SuggestionsList(self.panel, id="suggestions")
            with Vertical(id="main"):
                yield ChatLog(id="chat")
                keys = self.config.tui.keys
                yield Prompt(engine.key_label(keys.get("send", "enter")),
                             engine.key_label(keys.get("newline", "ctrl+j")), id="prompt")
            yield SourcesList(id="sources")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        theme = self.config.tui.theme
        if theme in self.available_themes:
            self.theme = theme
        else:
            self._startup_notices.append((f"unknown theme {theme!r}; using textual-dark", "warning"))
        self._apply_layout(self.size.width)
        self.query_one(SourcesList).show(self.panel, [])
        for text, kind in self._startup_notices:
            self.chat_notice(text, kind)
        self._startup_notices.clear()
        if self.resume:
            self._resume(None if self.resume is True else int(self.resume))
        elif self.panel is not None and not self.query(AnswerBlock):
            self._welcome()
        self.query_one(Prompt).focus()
        if not self.resume:  # after the first frame: Up recalls questions from earlier sessions too
            self.call_after_refresh(self._load_question_history)

    def _load_question_history(self) -> None:
        from panelbot import paths

        if self._store is None and not paths.history_db_path().exists():
            return  # nothing asked yet: don't create the database just to read it
        store = self.store
        if store is None:
            return
        prompt = self.query_one(Prompt)
        try:
            earlier = store.recent_questions(exclude=self.conversation_id)  # this session's are there
        except Exception:
            return
        prompt.question_history[:0] = earlier

    def _header_text(self) -> Table:
        """Panel title (cut with an ellipsis when narrow) on the left, the answer mode on the right."""
        grid = Table.grid(expand=True, padding=(0, 1))
        grid.add_column(ratio=1, no_wrap=True, overflow="ellipsis")
        grid.add_column(justify="right", no_wrap=True)
        title = safe(self.panel.title, one_line=True) if self.panel else "panelbot: no panel"
        mode = self.backend.label if self.backend else "offline quotes"
        grid.add_row(Text(title, style="bold"), Text(safe(mode, one_line=True), style="italic"))
        return grid

    def _refresh_header(self) -> None:
        self.query_one("#header", Static).update(self._header_text())

    def _welcome(self) -> None:
        assert self.panel is not None
        names = " and ".join(safe(p.name, one_line=True) for p in self.panel.panelists.values())
        text = Text()
        text.append(f"Ask {names} anything about the talk.\n", style="bold")
        text.append("Answers are their own words, with quote ids. Pick a source to read it in context; "
                    "F1 for keys and commands.")
        self.chat_notice(text, "welcome")

    # ------------------------------------------------------------------------------------------ layout

    def on_resize(self, event: events.Resize) -> None:
        # the event's size: self.size still holds the previous one while the App handles its Resize
        self._apply_layout(event.size.width)

    def _apply_layout(self, width: int) -> None:
        narrow = width < NARROW_WIDTH
        if narrow != self._narrow:
            self._narrow = narrow
            self._panes_shown = not narrow
        body = self.query_one("#body")
        body.set_class(narrow, "-narrow")
        body.set_class(self._panes_shown, "-panes")

    def action_toggle_sidebar(self) -> None:
        self._show_panes(not self._panes_shown)

    def _show_panes(self, show: bool) -> None:
        self._panes_shown = show
        self.query_one("#body").set_class(show, "-panes")
        if self._narrow and not show:
            self.query_one(Prompt).focus()
        elif self._narrow:  # the chat is hidden: put the keyboard in the panes
            targets = self.query("#target")
            (targets.first() if targets else self.query_one(SuggestionsList)).focus()

    # ------------------------------------------------------------------------------------------ helpers

    def chat_notice(self, text: str | Text, kind: str = "info") -> None:
        try:
            chat = self.query_one(ChatLog)
        except Exception:  # not mounted yet
            self._startup_notices.append((text if isinstance(text, str) else text.plain, kind))
            return
        chat.add_notice(text, kind)

    def installed_panels(self) -> list[PanelInfo]:
        from panelbot.panel import list_panels

        try:
            return list_panels()
        except Exception:
            return []

    def set_target(self, target: str) -> None:
        self.target = target
        self.query_one(PanelistsPane).select(target)

    def on_panelists_pane_target_changed(self, event: PanelistsPane.TargetChanged) -> None:
        self.target = event.target

    def _save(self, role: str, speaker: str, text: str, quote_ids: list[str] | None = None,
              meta: dict[str, Any] | None = None, *, title: str = "", conv_id: int | None = None) -> int | None:
        """Commit one message now (to ``conv_id``, else the current conversation, started on demand)."""
        store = self.store
        if store is None or self.panel is None:
            return None
        try:
            if conv_id is None:
                if self.conversation_id is None:
                    self.conversation_id = store.new_conversation(self.panel.name, title or text[:80])
                conv_id = self.conversation_id
            return store.add_message(conv_id, role, speaker, text, quote_ids or [], meta or {})
        except Exception as exc:
            self.chat_notice(f"Could not save to history: {exc}", "error")
            return None

    @property
    def answering(self) -> bool:
        return self._answer_worker is not None and self._answer_worker.is_running

    # ------------------------------------------------------------------------------------------ input

    def on_prompt_submitted(self, event: Prompt.Submitted) -> None:
        text = event.text
        if engine.parse_command(text) is not None:
            event.prompt.remember(text)
            event.prompt.clear()
            self.run_command_line(text)
            return
        if self.ask(text):
            event.prompt.clear()

    def on_suggestions_list_ask(self, event: SuggestionsList.Ask) -> None:
        self.ask(event.question)
        self.query_one(Prompt).focus()

    def on_to_input(self, event: ToInput) -> None:
        """A key typed in a side pane goes to the question input (and Esc there returns to it)."""
        if self._narrow and self._panes_shown:
            self._show_panes(False)
        prompt = self.query_one(Prompt)
        prompt.focus()
        if event.text:
            prompt.insert(event.text)

    def on_follow_ups_ask(self, event: FollowUps.Ask) -> None:
        if self.ask(event.question):
            self.query_one(Prompt).focus()

    def on_sources_list_chosen(self, event: SourcesList.Chosen) -> None:
        self.open_source(event.quote_id, self.query_one(SourcesList).panel)

    def on_answer_block_picked(self, event: AnswerBlock.Picked) -> None:
        block = event.block
        if block.quotes:
            self.last_quotes = block.quotes
            self.query_one(SourcesList).show(self.panel, block.quotes, f"Sources: {block.label}")

    def ask(self, question: str, target: str | None = None) -> bool:
        """Route and answer a question. False (and the text stays in the input) when it can't be asked."""
        too_long = question_too_long(question.strip())
        if too_long:
            self.notify(too_long[0].upper() + too_long[1:] + ".", severity="warning", markup=False)
            return False
        question = safe(question).strip()
        if not question:
            return False
        if self.panel is None or self.router is None:
            self.chat_notice("No panel is loaded. Use /panel NAME (see the command palette for installed panels).",
                             "error")
            return False
        if self.answering:
            self.notify("Still answering; press Esc to stop it first.", severity="warning", markup=False)
            return False
        if self._narrow and self._panes_shown:
            self._show_panes(False)  # asked from the panes: show the conversation
        prompt = self.query_one(Prompt)
        prompt.remember(question)
        chat = self.query_one(ChatLog)
        for stale in self.query(FollowUps):  # offered for the last answer only
            stale.remove()
        chat.add_user(question)
        target = target or self.target
        if self.all_talks:
            self._save("user", "", question, meta={"target": target}, title=question[:80])
            self._answer_all_talks(question)
            return True
        try:  # read against the conversation so far: "tell me more", "what does Olive think?"
            resolution = resolve(self.router, self.turns, question, target)
        except Exception as exc:
            self._save("user", "", question, meta={"target": target}, title=question[:80])
            self.chat_notice(f"Could not route the question: {exc}", "error")
            return True
        route: RouteResult = resolution.route
        meta: dict[str, Any] = {"target": target}
        if resolution.context is not None:
            meta["context"] = resolution.context
        self._save("user", "", question, meta=meta, title=question[:80])
        if resolution.context is not None and not route.abstained:  # say how the conversation was used
            # (a decline already says it, in the host's words)
            chat.add_notice(Text("\u21aa " + safe(route.reason, one_line=True), style="italic"), "context")
        self.turns.append(ConversationTurn(question, list(route.speakers),
                                           [sq.quote.id for sq in route.quotes], target))
        self.history.append(Message("user", question))
        if route.abstained:
            self._last_answer = None
            self._show_decline(route)
            return True
        if route.note:  # someone asked never spoke to it: say who answers instead
            self.chat_notice(f"{route.note}.", "info")
        self.last_quotes = list(route.quotes)
        self.query_one(SourcesList).show(self.panel, route.quotes)
        self._last_answer = {"question": question, "route": route, "target": target,
                             "history": list(self.history[:-1]), "blocks": [], "message_ids": []}
        self._answer_worker = self._stream_answer(question, route, target, list(self.history[:-1]))
        return True

    def set_all_talks(self, on: bool) -> None:
        """Send questions to every installed talk (True) or to this panel only (False)."""
        if on and self._library is None:
            try:
                self._library, notes = engine.open_library(self.config)
            except Exception as exc:
                self.chat_notice(f"Cannot open the other talks: {safe(str(exc), one_line=True)}", "error")
                return
            for note in notes:
                self.chat_notice(note, "info")
        self.all_talks = on
        n = len(self._library.routers) if on else 1
        self.notify(f"Questions now go to all {n} talks." if on else "Questions now go to this talk only.",
                    markup=False)

    def _answer_all_talks(self, question: str) -> None:
        """Route across every talk; each answering talk's panelists reply in their own words."""
        chat = self.query_one(ChatLog)
        try:
            answer = self._library.route(question)
        except Exception as exc:
            self.chat_notice(f"Could not route the question: {exc}", "error")
            return
        self.history.append(Message("user", question))
        if answer.abstained:
            topics = ", ".join(answer.suggestions[:8])
            text = "None of the talks got into that, so we'd rather not guess." + (
                f" They covered: {topics}." if topics else "")
            block = chat.add_answer(self.panel, "panel", label="All talks", kind="decline")
            block.finish(text)
            self.query_one(SourcesList).show(self.panel, [], "Sources: none (declined)")
            self.last_quotes = []
            self._save("decline", "panel", text, meta={"reason": answer.reason, "all_talks": True})
            self.history.append(Message("panel", text))
            return
        for talk in answer.talks:
            for speaker in talk.result.speakers:
                quotes = talk.result.quotes_for(speaker)
                label = f"{talk.panel.display_name(speaker)} \u00b7 {talk.panel.title}"
                block = chat.add_answer(talk.panel, speaker, quotes=quotes, label=label)
                block.finish(quotes_text(quotes), quotes, f"(from the talk {talk.panel.name})")
                self._save("assistant", speaker, block.text, [sq.quote.id for sq in quotes],
                           {"panel": talk.panel.name, "all_talks": True})
                self.history.append(Message(speaker, block.text))
        best = answer.talks[0]
        self.last_quotes = list(best.result.quotes)
        self.query_one(SourcesList).show(best.panel, best.result.quotes,
                                         f"Sources: {safe(best.panel.name, one_line=True)}")
        chat.scroll_end(animate=False)

    def _show_decline(self, route: RouteResult) -> None:
        assert self.panel is not None
        text = decline_text(self.panel, route)
        host = self.panel.host
        speaker = host.id if host else "panel"
        label = host.name if host else "The panel"
        chat = self.query_one(ChatLog)
        block = chat.add_answer(self.panel, speaker, label=label, kind="decline")
        block.finish(decline_text(self.panel, route, suggest=False))
        if route.suggestions:  # the questions to try, selectable
            chat.mount(DeclineChoices(route.suggestions[:3], classes="decline-choices"))
            chat.call_after_refresh(chat.scroll_end, animate=False)
        # a specific the talk never gave: the closest thing it did say can be opened from the sources pane
        self.query_one(SourcesList).show(self.panel, route.nearby,
                                         "Sources: nearby" if route.nearby else "Sources: none (declined)")
        self.last_quotes = list(route.nearby)
        self._save("decline", speaker, text, meta={"reason": route.reason})
        self.history.append(Message(speaker, text))

    @work(exclusive=True, group="answer", exit_on_error=False)
    async def _stream_answer(self, question: str, route: RouteResult, target: str,
                             history: list[Message]) -> None:
        """Consume the backend's events; Esc cancels this worker."""
        assert self.panel is not None and self.backend is not None
        chat = self.query_one(ChatLog)
        blocks: dict[str, AnswerBlock] = {}
        done: set[str] = set()
        conv_id = self.conversation_id  # /clear or /panel may start another while this one winds down
        request = AnswerRequest(question, self.panel, route, history)
        last = self._last_answer if self._last_answer and self._last_answer["route"] is route else None
        try:
            async for event in self.backend.answer(request):
                block = blocks.get(event.speaker)
                if block is None:
                    block = blocks[event.speaker] = chat.add_answer(
                        self.panel, event.speaker, quotes=route.quotes_for(event.speaker))
                    if last is not None:
                        last["blocks"].append(block)
                if isinstance(event, TextDelta):
                    block.append(event.text)
                    chat.scroll_end(animate=False)
                elif isinstance(event, SpeakerDone):
                    status, text = "", event.text
                    if event.error:
                        status = f"(generation failed: {event.error}; showing the quotes)"
                    elif event.grounded is not None:
                        name = self.panel.display_name(event.speaker)
                        status = f"({verdict(event, name)})"
                        if event.grounded is False:  # shown as such, then the verbatim quotes
                            quotes = event.quotes or block.quotes
                            text = f"{text}\n\n{name}'s own words:\n\n{quotes_text(quotes)}"
                    block.finish(text, event.quotes or block.quotes, status)
                    done.add(event.speaker)
                    ids = [sq.quote.id for sq in block.quotes]
                    meta: dict[str, Any] = {"target": target}
                    if event.error:
                        meta["error"] = event.error
                    if event.grounded is not None:
                        meta["grounded"] = event.grounded
                    if last is not None and last.get("regenerated"):
                        meta["regenerated"] = True
                    mid = self._save("assistant", event.speaker, block.text, ids, meta, conv_id=conv_id)
                    if last is not None and mid is not None:
                        last["message_ids"].append(mid)
                    self.history.append(Message(event.speaker, block.text))
            if conv_id == self.conversation_id:
                await self._show_followups_soon()
        except asyncio.CancelledError:
            for speaker, block in blocks.items():
                if speaker not in done:
                    block.mark("(stopped)")
                    if block.text:
                        self._save("assistant", speaker, block.text, [sq.quote.id for sq in block.quotes],
                                   {"cancelled": True}, conv_id=conv_id)
            if conv_id == self.conversation_id:  # stopped with Esc, not by /clear or /panel
                prompt = self.query_one(Prompt)
                if not prompt.text.strip():
                    prompt.set_text(question)
                self.notify("Stopped. The question is back in the input.", markup=False)
            raise
        except Exception as exc:  # backend down, bad response: a message, never a traceback
            message = safe(str(exc) or type(exc).__name__, one_line=True)
            self.chat_notice(f"The answer failed: {message}", "error")
            self._save("error", "", message, conv_id=conv_id)
        finally:
            chat.scroll_end(animate=False)

    def action_cancel(self) -> None:
        if self.answering and self._answer_worker is not None:
            self._answer_worker.cancel()

    # ------------------------------------------------------------------------------------------ commands

    def run_command_line(self, line: str) -> None:
        cmd = engine.parse_command(line)
        if cmd is None:
            return
        handler = getattr(self, f"_cmd_{cmd.name}", None) if cmd.name in engine.COMMAND_NAMES else None
        if handler is None:
            names = ", ".join(f"/{c.name}" for c in engine.COMMANDS)
            self.chat_notice(f"Unknown command /{cmd.name}. Commands: {names}", "error")
            return
        handler(cmd.arg)

    def _cmd_ask(self, arg: str) -> None:
        word, _, question = arg.partition(" ")
        target = engine.resolve_target(self.panel, word) if word else None
        if target is None:
            options = "|".join(t.value for t in engine.targets(self.panel))
            self.chat_notice(f"Usage: /ask {options} [QUESTION]", "error")
            return
        if question.strip():  # a one-off: this question goes to them, the selector stays as it was
            self.ask(question, target)
        else:
            self.set_target(target)
            label = next((t.label for t in engine.targets(self.panel) if t.value == target), target)
            self.notify(f"Questions now go to: {label}", markup=False)

    def _cmd_quote(self, arg: str) -> None:
        if not arg:
            self.chat_notice("Usage: /quote QUERY", "error")
            return
        if self.router is None:
            self.chat_notice("No panel is loaded.", "error")
            return
        try:
            hits: list[ScoredQuote] = self.router.search(arg, k=5)
        except Exception as exc:
            self.chat_notice(f"Search failed: {exc}", "error")
            return
        text = Text("Quotes matching ", style="bold")
        text.append(safe(arg, one_line=True), style="bold italic")
        if not hits:
            text.append(": none.", style="bold")
        for sq in hits:
            name = self.panel.display_name(sq.quote.speaker) if self.panel else sq.quote.speaker
            text.append("\n[" + safe(sq.quote.id, one_line=True) + "] ", style="bold")
            text.append(safe(name, one_line=True) + ": ")
            text.append("\u201c" + safe(sq.quote.text, one_line=True) + "\u201d")
        self.chat_notice(text, "search")
        self.last_quotes = hits
        self.query_one(SourcesList).show(self.panel, hits, f"Search: {safe(arg, one_line=True)[:30]}")
        self._save("search", "", text.plain, [sq.quote.id for sq in hits], {"query": arg})

    def _cmd_source(self, arg: str) -> None:
        if not arg:
            self.chat_notice("Usage: /source ID (the id in square brackets after a quote)", "error")
            return
        self.open_source(arg.strip().strip("[]"))

    def _cmd_export(self, arg: str) -> None:
        self.export(arg or None)

    def _cmd_clear(self, arg: str) -> None:
        self.action_cancel()
        self.conversation_id = None
        self.history = []
        self.turns = []
        self._last_answer = None
        self.last_quotes = []
        chat = self.query_one(ChatLog)
        chat.remove_children()
        chat.add_notice("New conversation started; the last one is kept in history.", "info")
        self.query_one(SourcesList).show(self.panel, [])

    def _cmd_panel(self, arg: str) -> None:
        if not arg:
            names = ", ".join(safe(p.name, one_line=True) for p in self.installed_panels()) or "none"
            self.chat_notice(f"Usage: /panel NAME (installed: {names})", "error")
            return
        if self.answering:
            self.action_cancel()
        if not self._load_panel(arg):
            return
        self.conversation_id = None
        self.history = []
        self.turns = []
        self._last_answer = None
        self.last_quotes = []
        self.call_later(self._rebuild_for_panel)

    async def _rebuild_for_panel(self) -> None:
        await self.query_one(ChatLog).remove_children()
        await self._rebuild_sidebar()
        self.query_one(SourcesList).show(self.panel, [])
        self._refresh_header()
        self._welcome()

    async def _rebuild_sidebar(self) -> None:
        sidebar = self.query_one("#sidebar")
        await sidebar.remove_children()
        await sidebar.mount_all([PanelistsPane(self.panel, self.target, id="panelists"),
                                 SuggestionsList(self.panel, id="suggestions")])

    def _cmd_help(self, arg: str) -> None:
        self.action_help()



    # ------------------------------------------------------------------------------------------ actions

    def action_help(self) -> None:
        from panelbot.tui.screens.help import HelpScreen

        if isinstance(self.screen, HelpScreen):
            self.screen.dismiss()
            return
        keys = {b.id: b.key for _, b in self._bindings if b.id}
        keys.update(self.config.tui.keys)
        self.push_screen(HelpScreen(keys))

    def open_source(self, quote_id: str, panel: Panel | None = None) -> None:
        """Show a quote in context; ``panel``: its talk when not this one (sources from all talks)."""
        panel = panel or self.panel
        if panel is None or panel.quote(quote_id) is None:
            self.chat_notice(f"No quote with id {quote_id!r} in this panel.", "error")
            return
        from panelbot.tui.screens.context import ContextScreen

        self.push_screen(ContextScreen(panel, quote_id))

    def action_copy(self) -> None:
        payload_fn = getattr(self.screen, "copy_payload", None)
        payload = payload_fn() if callable(payload_fn) else None
        if payload is None:
            sources = self.query_one(SourcesList)
            sq = sources.highlighted_quote() if sources.has_focus else None
            if sq is not None:
                link = f"\n{sq.quote.url}" if sq.quote.url else ""  # the moment in the video, to open
                payload = (sq.quote.text + link, f"quote {sq.quote.id}" + (" and its link" if link else ""))
        if payload is None:
            answers = self.query_one(ChatLog).answers()
            if answers:
                payload = (answers[-1].text, "the last answer")
        if payload is None:
            self.notify("Nothing to copy yet.", markup=False)
            return
        self.copy_text(*payload)

    def copy_text(self, text: str, what: str) -> None:
        text = scrub(strip_control(text))  # the clipboard is another terminal: no escapes, no key
        try:
            self.copy_to_clipboard(text)
        except Exception as exc:  # no terminal / clipboard: say so, don't crash
            self.notify(f"Could not copy: {exc}", severity="warning", markup=False)
            return
        self.notify(f"Copied {what} (OSC 52).", markup=False)

    def action_toggle_dark(self) -> None:
        self.theme = "textual-light" if self.current_theme.dark else "textual-dark"

    def action_export(self) -> None:
        self.export(None)

    def export(self, path: str | None) -> None:
        from datetime import datetime, timezone

        from panelbot.conversation.export import (
            ExportMessage,
            conversation_markdown,
            default_export_name,
        )

        store = self.store
        if self.conversation_id is None or store is None or self.panel is None:
            self.notify("Nothing to export yet: ask a question first.", markup=False)
            return
        panel = self.panel
        try:
            summary = store.conversation(self.conversation_id)
            stored = store.messages(self.conversation_id)
        except PanelbotError as exc:
            self.chat_notice(f"Export failed: {exc}", "error")
            return
        title = summary.title if summary else "Conversation"
        messages = [
            ExportMessage(m.role, panel.display_name(m.speaker) if m.speaker else "", m.text, m.quote_ids)
            for m in stored
        ]

        def lookup(qid: str) -> tuple[str, str] | None:
            q = panel.quote(qid)
            return (panel.display_name(q.speaker), q.text) if q else None

        text = conversation_markdown(title, panel.title, messages, quote_lookup=lookup)
        now = datetime.now(timezone.utc)
        target = Path(path).expanduser() if path else Path.cwd() / default_export_name(title, now)
        if not target.parent.is_dir():  # a typo in the path should not create directories
            self.chat_notice(f"Export failed: {target.parent}: no such directory (create it first)", "error")
            return
        self._write_export(target, text, overwrite=False)

    def _write_export(self, target: Path, text: str, *, overwrite: bool) -> None:
        from panelbot.conversation.export import write_export

        try:
            written = write_export(target, text, overwrite=overwrite)
        except FileExistsError:
            from panelbot.tui.screens.confirm import ConfirmScreen

            def answered(yes: bool | None) -> None:
                if yes:
                    self._write_export(target, text, overwrite=True)
                else:
                    self.notify("Export cancelled; the file was left as it was.", markup=False)

            self.push_screen(ConfirmScreen(f"{target} exists. Overwrite it?"), answered)
            return
        except OSError as exc:
            self.chat_notice(f"Export failed: {exc}", "error")
            return
        self.chat_notice(f"Exported the conversation to {written}", "info")

    async def on_unmount(self) -> None:
        if self.backend is not None:
            with contextlib.suppress(Exception):
                await self.backend.aclose()
        if self._store is not None:
            self._store.close()
