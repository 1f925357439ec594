"""The app holds a conversation: follow-ups resolved against it (real router, shipped panel), suggested
follow-ups that always have an answer, regenerate with the same quotes, the conversation browser, and
``--resume ID`` of a conversation started in the shell."""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from panelbot.answer.backends.base import AnswerEvent, AnswerRequest, SpeakerDone, TextDelta
from panelbot.config import Config
from panelbot.conversation.store import ConversationStore
from panelbot.tui import engine
from panelbot.tui.widgets.chat import AnswerBlock, UserMessage
from panelbot.tui.widgets.followups import FollowUps

from .conftest import chat_text, settle, type_and_send

pytestmark = pytest.mark.asyncio

KV = "How do you deal with a KV cache that keeps growing?"
SIZE = (100, 40)


def shipped(make_app: Any, **kwargs: Any) -> Any:
    app = make_app(
        "minimax-m3", router_factory=engine.make_router, config=Config(panel="minimax-m3"), **kwargs
    )
    app.animation_level = "none"
    return app


def answers(app: Any) -> list[AnswerBlock]:
    return list(app.query(AnswerBlock))


def quote_ids(block: AnswerBlock) -> list[str]:
    return [sq.quote.id for sq in block.quotes]


@pytest.fixture
def run_panelbot() -> Callable[..., dict]:
    """`panelbot ARGS --json` in this process (same isolated data dir), its JSON output."""
    from panelbot.cli.main import main

    def run(*args: str) -> dict:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert main(list(args)) == 0
        return json.loads(out.getvalue())

    return run


class CountingBackend:
    """Writes a different answer each time (like a model), citing the routed quotes."""

    name = "counting"
    label = "counting-model"

    def __init__(self) -> None:
        self.calls = 0

    async def answer(self, request: AnswerRequest) -> AsyncIterator[AnswerEvent]:
        self.calls += 1
        for speaker in request.route.speakers:
            quotes = request.route.quotes_for(speaker)
            text = f"Take {self.calls} [{quotes[0].quote.id}]"
            yield TextDelta(speaker, text)
            yield SpeakerDone(speaker, text, quotes)

    async def aclose(self) -> None:
        return None


async def test_a_follow_up_in_the_app(make_app, isolated_env: Path) -> None:
    app = shipped(make_app)
    async with app.run_test(size=SIZE) as pilot:
        await type_and_send(pilot, KV)
        (first,) = answers(app)
        assert first.speaker == "dan"
        await type_and_send(pilot, "tell me more")
        more = answers(app)[-1]
        assert more.speaker == "dan" and more.quotes
        assert not set(quote_ids(more)) & set(quote_ids(first))  # nothing shown twice
        assert "follow-up to your question about" in chat_text(app)
        await type_and_send(pilot, "what does Olive think?")
        declined = answers(app)[-1]
        assert declined.kind == "decline" and "Dan did" in declined.text
    with ConversationStore(isolated_env / "history.sqlite3") as store:
        (conv,) = store.list_conversations()
        users = [m for m in store.messages(conv.id) if m.role == "user"]
        assert users[1].meta["context"]["kind"] == "continuation"


async def test_suggested_follow_ups_are_answered_by_keyboard_and_mouse(make_app) -> None:
    app = shipped(make_app)
    async with app.run_test(size=SIZE) as pilot:
        await type_and_send(pilot, "Dan, what do you do at Together?")
        (ups,) = app.query(FollowUps)
        texts = [f.text for f in ups.followups]
        assert 2 <= len(texts) <= 3 and "What does Olive think?" in texts
        await pilot.press("ctrl+g")
        assert app.focused is ups
        await pilot.press("down", "enter")  # the second suggestion: the other panelist
        await settle(pilot)
        last = answers(app)[-1]
        assert last.kind == "answer" and last.speaker == "olive"
        assert len(app.query(FollowUps)) == 1  # the old ones went with their answer
        (ups,) = app.query(FollowUps)
        first_text = ups.followups[0].text
        asked = len(app.query(UserMessage))
        await pilot.click(FollowUps, offset=(4, 0))  # the first option, with the mouse
        await settle(pilot)
        users = list(app.query(UserMessage))
        assert len(users) == asked + 1 and first_text in users[-1].render().plain
        assert answers(app)[-1].kind == "answer"


async def test_regenerate_keeps_the_same_quotes(make_app, isolated_env: Path) -> None:
    backend = CountingBackend()
    app = shipped(make_app, backend=backend)
    async with app.run_test(size=SIZE) as pilot:
        await type_and_send(pilot, KV)
        (before,) = answers(app)
        ids, text = quote_ids(before), before.text
        await pilot.press("ctrl+r")
        await settle(pilot)
        (after,) = answers(app)  # replaced, not added
        assert quote_ids(after) == ids and after.text != text and "Take 2" in after.text
        app.run_command_line("/regenerate")
        await settle(pilot)
        assert "Take 3" in answers(app)[-1].text and len(answers(app)) == 1
        await type_and_send(pilot, "best pizza in Naples?")
        await pilot.press("ctrl+r")  # a decline is not regenerated
        await settle(pilot)
        assert backend.calls == 3
    with ConversationStore(isolated_env / "history.sqlite3") as store:
        (conv,) = store.list_conversations()
        kept = [m for m in store.messages(conv.id) if m.role == "assistant"]
        assert len(kept) == 1 and kept[0].meta.get("regenerated") and "Take 3" in kept[0].text
        assert kept[0].quote_ids == ids


async def test_conversation_browser_search_open_rename_delete(make_app, isolated_env: Path) -> None:
    from panelbot.tui.screens.conversations import ConversationsScreen, RenameScreen

    with ConversationStore(isolated_env / "history.sqlite3") as store:
        a = store.new_conversation("minimax-m3", "Multimodal", source="cli")
        store.add_message(a, "user", "", "How did you train M3 to be multimodal?")
        store.add_message(
            a,
            "assistant",
            "olive",
            "\u201cTrained multimodal from scratch.\u201d [olive-08]",
            ["olive-08"],
        )
        b = store.new_conversation("minimax-m3", "Kernels [bold]x[/]")
        store.add_message(b, "user", "", "Tell me about parallel kernel bench")
        store.add_message(
            b, "assistant", "dan", "\u201cParallel kernel bench.\u201d [dan-07]", ["dan-07"]
        )
    app = shipped(make_app)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+o")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ConversationsScreen)
        assert [s.id for s in screen.shown] == [b, a]
        await pilot.press(*"scratch")  # full-text search over questions and answers
        await pilot.pause()
        assert [s.id for s in screen.shown] == [a]
        await pilot.press("f2")
        await pilot.pause()
        assert isinstance(app.screen, RenameScreen)
        app.screen.query_one("Input").value = "Training from step zero"
        await pilot.press("enter")
        await pilot.pause()
        assert screen.shown[0].title == "Training from step zero"
        await pilot.press("enter")  # open it
        await settle(pilot)
        assert app.conversation_id == a and "Trained multimodal from scratch" in chat_text(app)
        await type_and_send(pilot, "tell me more")  # continues the opened (shell) conversation
        assert answers(app)[-1].speaker == "olive"

        app.action_conversations()
        await pilot.pause()
        screen = app.screen
        await pilot.press("down")
        assert screen._selected().id == b
        await pilot.press("ctrl+d")
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
        assert [s.id for s in screen.shown] == [a]
        await pilot.press("escape")
        await pilot.pause()
    with ConversationStore(isolated_env / "history.sqlite3") as store:
        assert [c.title for c in store.list_conversations()] == ["Training from step zero"]


async def test_resume_a_given_conversation_started_in_the_shell(make_app, run_panelbot) -> None:
    first = run_panelbot("ask", "--json", KV)
    other = run_panelbot("ask", "--json", "How do you evaluate long-horizon runs?")
    assert first["conversation"] != other["conversation"]
    app = shipped(make_app, resume=first["conversation"])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.conversation_id == first["conversation"]
        assert "Resumed: " + KV in chat_text(app)
        assert app.query(FollowUps)  # follow-ups for where it left off
        await type_and_send(pilot, "tell me more")
        assert answers(app)[-1].speaker == "dan"
    gone = shipped(make_app, resume=999)
    async with gone.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert gone.conversation_id is None and "No conversation 999 to resume" in chat_text(gone)


async def test_palette_offers_conversations_and_regenerate(make_app) -> None:
    from panelbot.tui.palette import PanelbotCommands

    app = shipped(make_app)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        provider = PanelbotCommands(app.screen)
        names = [name for name, _, _ in provider._commands()]
        assert "Conversations" in names and "Regenerate answer" in names


async def test_resuming_a_conversation_of_another_panel_switches_the_panes(
    make_app, isolated_env: Path
) -> None:
    from panelbot.tui.widgets.panelists import PanelistsPane

    with ConversationStore(isolated_env / "history.sqlite3") as store:
        cid = store.new_conversation("tiny", "Kernels on the tiny panel")
        store.add_message(cid, "user", "", "how do you make kernels fast")
    app = shipped(make_app, resume=cid)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.panel.name == "tiny" and app.conversation_id == cid
        assert app.query_one(PanelistsPane).panel.name == "tiny"


async def test_small_talk_gets_a_friendly_reply_not_a_decline(
    make_app, isolated_env: Path, tmp_path: Path
) -> None:
    app = shipped(make_app)
    async with app.run_test(size=SIZE) as pilot:
        await type_and_send(pilot, "hi there!")
        (hello,) = answers(app)
        assert hello.kind == "reply" and hello.text.startswith("Hi! ")
        assert "(declines)" not in chat_text(
            app
        ) and "Not something the panel got into" not in chat_text(app)
        await type_and_send(pilot, KV)
        assert answers(app)[-1].speaker == "dan"
        await type_and_send(pilot, "thanks, that helps!")
        thanks = answers(app)[-1]
        assert thanks.kind == "reply" and thanks.text.startswith("You're welcome")
        await type_and_send(pilot, "tell me more")  # the thanks changed nothing: more from Dan
        assert answers(app)[-1].speaker == "dan" and answers(app)[-1].kind == "answer"
        conv_id = app.conversation_id
        out = tmp_path / "chat.md"
        await type_and_send(pilot, f"/export {out}")
        exported = out.read_text(encoding="utf-8")
        assert "(declines)" not in exported and "You're welcome" in exported
    reopened = shipped(make_app, resume=conv_id)
    async with reopened.run_test(size=SIZE):
        kinds = [b.kind for b in answers(reopened)]
        assert kinds[0] == "reply" and kinds[2] == "reply" and "decline" not in kinds


async def test_a_conversation_on_a_panel_given_by_path_reopens_in_the_app(
    make_app, run_panelbot, tmp_path: Path
) -> None:
    """``panelbot ask --panel DIR`` (a panel not installed) then ``panelbot --resume ID``: the app loads the
    panel from the directory kept with the conversation; when that is gone it says so once, and never that
    the conversation is not there."""
    import shutil

    talk = tmp_path / "elsewhere" / "faraway"
    shutil.copytree(Path(__file__).parent / "panels" / "tiny", talk)
    cid = run_panelbot("ask", "--json", "--panel", str(talk), "how do you make kernels fast")[
        "conversation"
    ]
    app = shipped(make_app, resume=cid)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.panel.name == "faraway" and app.conversation_id == cid
    shutil.rmtree(talk)
    gone = shipped(make_app, resume=cid)
    async with gone.run_test(size=SIZE) as pilot:
        await settle(pilot)
        text = chat_text(gone)
        assert "Cannot load panel 'faraway'" in text and "No conversation" not in text
        assert gone.panel.name == "minimax-m3" and gone.conversation_id is None


async def test_the_app_keeps_the_panel_directory_with_a_new_conversation(
    make_app, isolated_env: Path
) -> None:
    app = shipped(make_app)
    async with app.run_test(size=SIZE) as pilot:
        await type_and_send(pilot, KV)
        cid = app.conversation_id
    with ConversationStore(isolated_env / "history.sqlite3") as store:
        first = store.messages(cid)[0]
    assert first.role == "user" and first.meta["panel_dir"] == str(app.panel.path.resolve())


async def test_palette_leaves_out_textuals_duplicate_and_developer_commands(make_app) -> None:
    app = shipped(make_app)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert "Quit" in titles and "Theme" in titles
        assert not {"Keys", "Maximize", "Screenshot"} & set(titles)


async def test_the_welcome_lists_three_panelists_as_a_sentence(make_app, tmp_path: Path) -> None:
    import shutil

    trio = tmp_path / "trio"
    shutil.copytree(Path(__file__).parent / "panels" / "tiny", trio)
    yaml = (trio / "panel.yaml").read_text(encoding="utf-8")
    yaml = yaml.replace(
        "topics:",
        "  - id: cy\n    name: Cy\n    role: Host of nothing\n    organisation: Nowhere\n"
        "    covers: [agents]\ntopics:",
        1,
    )
    (trio / "panel.yaml").write_text(yaml, encoding="utf-8")
    app = make_app(str(trio))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "Ask Dan, Olive and Cy anything about the talk." in chat_text(app)


async def test_regenerate_offline_says_what_it_does(make_app) -> None:
    """Ctrl+R with no model shows the same quotes again and says so (it did so silently)."""
    app = shipped(make_app)
    async with app.run_test(size=SIZE) as pilot:
        await type_and_send(pilot, KV)
        ids = quote_ids(answers(app)[0])
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert quote_ids(answers(app)[-1]) == ids and len(answers(app)) == 1
        told = [n.message for n in app._notifications]
        assert any("Offline, the same quotes" in m and "PANELBOT_BACKEND" in m for m in told)
