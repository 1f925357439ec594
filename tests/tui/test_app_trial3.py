"""What a new user's third trial found in the app, through Textual's Pilot on the shipped panel (the real
router), with the history in a tmp dir (the autouse ``isolated_env``)."""

from __future__ import annotations

from typing import Any

import pytest

from panelbot.config import Config
from panelbot.tui import engine
from panelbot.tui.widgets.followups import FollowUps

from .conftest import type_and_send

pytestmark = pytest.mark.asyncio

KV = "How do you deal with a KV cache that keeps growing?"


def _shipped(make_app: Any, **kwargs: Any) -> Any:
    return make_app(
        "minimax-m3",
        router_factory=engine.make_router,
        config=Config(panel="minimax-m3"),
        **kwargs,
    )


async def test_follow_ups_are_answered_as_the_target_selector_will_ask_them(make_app) -> None:
    """Questions go to Olive (``/ask olive``); Dan takes the KV cache question (she never spoke to it): the
    follow-ups under it are each answered when asked of Olive, as picking one asks it -- not "Tell me
    more", which is declined for her."""
    from panelbot.conversation.resolve import resolve

    app = _shipped(make_app)
    async with app.run_test(size=(100, 30)) as pilot:
        await type_and_send(pilot, "/ask olive")
        assert app.target == "olive"
        await type_and_send(pilot, KV)
        (ups,) = app.query(FollowUps)
        texts = [f.text for f in ups.followups]
        assert texts and "Tell me more" not in texts
        for text in texts:
            route = resolve(app.router, app.turns, text, app.target).route
            assert not route.abstained and route.quotes, (text, route.reason)


async def test_the_conversation_browser_tells_the_same_title_apart(make_app, isolated_env) -> None:  # noqa: ANN001
    from panelbot.conversation.store import ConversationStore
    from panelbot.tui.screens.conversations import ConversationsScreen

    with ConversationStore(isolated_env / "history.sqlite3") as store:
        for _ in range(2):
            cid = store.new_conversation("minimax-m3", KV, source="cli")
            store.add_message(cid, "user", "", KV)
    app = _shipped(make_app)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("ctrl+o")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ConversationsScreen)
        listing = screen.query_one("#conversations-list")
        heads = [str(listing.get_option_at_index(i).prompt).split("\n")[0] for i in range(2)]
        assert heads == [f"{KV} (2)", KV], heads


@pytest.mark.parametrize(
    "question", ["who is Dan?", "what is this talk about?", "who is on the panel?"]
)
async def test_the_app_shows_the_framing_note_ask_prints(question: str, make_app, capsys) -> None:  # noqa: ANN001
    """A framing answer's note ("Dan's introduction on the panel: VP of Kernels, Together AI", the talk's
    framing and the panelists' introductions) is in the chat as ``ask`` prints it under the answer."""
    from panelbot.cli.main import main

    from .conftest import chat_text

    assert main(["ask", "--no-log", question]) == 0
    printed = capsys.readouterr().out.rstrip().rsplit("\n\n", 1)[-1]
    assert printed.startswith("(") and printed.endswith(")"), printed
    note = " ".join(printed[1:-1].split())
    app = _shipped(make_app)
    async with app.run_test(size=(100, 30)) as pilot:
        await type_and_send(pilot, question)
        assert note in " ".join(chat_text(app).split()), chat_text(app)


async def test_the_toast_after_esc_is_off_the_input_at_100x30(make_app) -> None:
    """Reported as covering the input; it is at the top right (app.tcss): kept so."""
    from textual.widgets._toast import Toast

    from panelbot.tui.widgets.prompt import Prompt

    from .conftest import settle
    from .fakes import SlowBackend

    backend = SlowBackend()
    app = make_app(backend=backend)
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        prompt = app.query_one(Prompt)
        prompt.load_text("how do you make kernels fast")
        await pilot.press("enter")
        await backend.started.wait()
        await pilot.press("escape")
        await settle(pilot)
        await pilot.pause(0.2)
        (toast,) = app.screen.query(Toast)
        assert "Stopped" in str(toast._notification.message)
        assert toast.region and not toast.region.overlaps(prompt.region)


async def test_a_reopened_decline_offers_all_it_offered_live(make_app) -> None:
    """Live, a decline offers three questions to pick (its text names two): reopened, the same three."""
    from panelbot.tui.widgets.suggestions import DeclineChoices

    app = _shipped(make_app)
    async with app.run_test(size=(100, 30)) as pilot:
        await type_and_send(pilot, "can you recommend a good vacuum cleaner?")
        offered = app.query_one(DeclineChoices).questions
        cid = app.conversation_id
    assert len(offered) == 3 and cid is not None
    again = _shipped(make_app, resume=cid)
    async with again.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert again.query_one(DeclineChoices).questions == offered
