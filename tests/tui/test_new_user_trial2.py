"""What a new user's trial found (issue 19, "Also"): Ctrl+G reaches a decline's "Try:" questions, a
resumed decline's questions can be picked, /panel says the last conversation is kept, the app's own
voice is not labelled as the talk's host, F1 names the user's config file, the palette says how to turn
the model on, and toasts stay off the input."""

from __future__ import annotations

import pytest

from panelbot.tui.widgets.chat import NARRATOR_LABEL, AnswerBlock
from panelbot.tui.widgets.suggestions import DeclineChoices

from .conftest import chat_text, palette, settle, type_and_send

pytestmark = pytest.mark.asyncio

OFF_TOPIC = "best pizza in Naples"


async def _pick_first_with_ctrl_g(pilot, choices: DeclineChoices) -> None:
    """Ctrl+G lands in the decline's questions; Enter asks the first one, which the chat then shows."""
    await pilot.press("ctrl+g")
    await pilot.pause()
    assert pilot.app.focused is choices
    await pilot.press("enter")
    await settle(pilot)
    assert f"You  {choices.questions[0]}" in chat_text(pilot.app)


async def test_ctrl_g_picks_the_questions_a_decline_offers(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await type_and_send(pilot, OFF_TOPIC)
        (choices,) = app.query(DeclineChoices)
        await _pick_first_with_ctrl_g(pilot, choices)
        assert "No follow-ups" not in " ".join(str(n.message) for n in app._notifications)


@pytest.mark.parametrize("question", [OFF_TOPIC, "how do you make kernels fast"])
async def test_typing_after_ctrl_g_goes_on_in_the_input(make_app, question: str) -> None:
    """After Ctrl+G into a decline's questions (or an answer's follow-ups), typing goes to the input and
    Esc goes back to it: "/panel x" typed there is not lost, and Enter then does not ask the highlighted
    question instead."""
    from panelbot.tui.widgets.followups import FollowUps
    from panelbot.tui.widgets.prompt import Prompt

    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await type_and_send(pilot, question)
        offered = app.query(DeclineChoices) or app.query(FollowUps)
        assert offered
        await pilot.press("ctrl+g")
        await pilot.pause()
        assert app.focused is offered.last()
        await pilot.press("slash", "x")
        await pilot.pause()
        prompt = app.query_one(Prompt)
        assert prompt.has_focus and prompt.text == "/x"
        await pilot.press("ctrl+g")
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert prompt.has_focus


async def test_ctrl_g_takes_the_latest_offer_when_an_answer_follows_a_decline(make_app) -> None:
    from panelbot.tui.widgets.followups import FollowUps

    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await type_and_send(pilot, OFF_TOPIC)
        await type_and_send(pilot, "how do you make kernels fast")
        await pilot.press("ctrl+g")
        await pilot.pause()
        if app.query(FollowUps):  # the answer's follow-ups came after the decline's questions
            assert isinstance(app.focused, FollowUps)


async def test_ctrl_g_picks_a_talks_questions_in_all_talks_mode(make_app, talks_installed) -> None:
    """In all-talks mode a talk's decline offers its "Try:" questions to pick, not as text with Ctrl+G
    saying "No follow-ups to pick right now"; reopened, the same."""
    app = make_app()
    async with app.run_test(size=(130, 36)) as pilot:
        await palette(pilot, "Ask: all talks")
        await type_and_send(pilot, "Do bees need water in a small garden?")
        await type_and_send(
            pilot, "and Sam?"
        )  # declined by the gardens talk, with a question to try
        decline = [b for b in app.query(AnswerBlock) if b.kind == "decline"][-1]
        assert "Try:" not in decline.text
        (choices,) = app.query(DeclineChoices)
        offered = choices.questions
        cid = app.conversation_id
        await _pick_first_with_ctrl_g(pilot, choices)
        assert "No follow-ups" not in " ".join(str(n.message) for n in app._notifications)
        await type_and_send(pilot, "/clear")
        assert app.open_conversation(cid)
        await settle(pilot)
        assert [c.questions for c in app.query(DeclineChoices)][0] == offered


async def test_a_resumed_decline_offers_its_questions_to_pick(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await type_and_send(pilot, OFF_TOPIC)
        offered = app.query_one(DeclineChoices).questions  # all of them, though the text names two
        cid = app.conversation_id
    assert cid is not None
    again = make_app(resume=cid)
    async with again.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        (choices,) = again.query(DeclineChoices)
        assert choices.questions == offered
        decline = [b for b in again.query(AnswerBlock) if b.kind == "decline"][-1]
        assert "Try:" not in decline.text  # offered to pick, not as text too
        await _pick_first_with_ctrl_g(pilot, choices)


def _toasts(app) -> str:
    return " ".join(str(n.message) for n in app._notifications)


async def test_ctrl_r_offline_says_what_it_did_once(make_app) -> None:
    """Offline, Ctrl+R shows the same quotes again: one notice says so and how a model rewrites them
    (without it nothing on screen changes); after a decline it says why there is nothing to redo."""
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("ctrl+r")
        await pilot.pause()
        assert "ask a question first" in _toasts(app)
        app.clear_notifications()
        await type_and_send(pilot, "how do you make kernels fast")
        before = len(app.query(AnswerBlock))
        await pilot.press("ctrl+r")
        await settle(pilot)
        toasts = _toasts(app)
        assert toasts.count("Offline, the same quotes are shown again") == 1, toasts
        assert "PANELBOT_BACKEND=openai" in toasts and len(app.query(AnswerBlock)) == before
        app.clear_notifications()
        await type_and_send(pilot, OFF_TOPIC)
        await pilot.press("ctrl+r")
        await pilot.pause()
        toasts = _toasts(app)
        assert "the last question was declined" in toasts and "ask a question first" not in toasts


async def _ctrl_r(pilot) -> str:
    pilot.app.clear_notifications()
    await pilot.press("ctrl+r")
    await settle(pilot)
    return _toasts(pilot.app)


async def test_ctrl_r_says_why_after_small_talk_all_talks_and_a_reopened_answer(
    make_app, talks_installed
) -> None:
    """Ctrl+R with nothing to give again says why from what the last reply was: small talk, an answer
    across all talks, an answer from before the conversation was reopened (each was called "declined")."""
    app = make_app()
    async with app.run_test(size=(130, 36)) as pilot:
        await type_and_send(pilot, "hello")
        assert "the last message was small talk" in await _ctrl_r(pilot)
        await type_and_send(pilot, "how do you make kernels fast")
        cid = app.conversation_id
        await type_and_send(pilot, "/clear")
        await palette(pilot, "Ask: all talks")
        await type_and_send(pilot, "Do bees need water in a small garden?")
        toasts = await _ctrl_r(pilot)
        assert "across all talks" in toasts and "declined" not in toasts
    again = make_app(resume=cid)
    async with again.run_test(size=(130, 36)) as pilot:
        await settle(pilot)
        toasts = await _ctrl_r(pilot)
        assert "before this conversation was opened" in toasts and "declined" not in toasts


async def test_the_apps_own_voice_is_not_labelled_as_the_talks_host(make_app, tmp_path) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await type_and_send(pilot, OFF_TOPIC)
        decline = [b for b in app.query(AnswerBlock) if b.kind == "decline"][-1]
        assert decline.label == NARRATOR_LABEL
        assert app.panel.host is not None and app.panel.host.name not in chat_text(app)
        await type_and_send(pilot, f"/export {tmp_path / 'out.md'}")  # labelled the same there
        exported = (tmp_path / "out.md").read_text(encoding="utf-8")
        assert NARRATOR_LABEL in exported and app.panel.host.name not in exported


async def test_in_all_talks_mode_a_talks_decline_is_the_apps_voice_everywhere(
    make_app, talks_installed, tmp_path
) -> None:
    """A follow-up one talk declines (all-talks mode) is labelled "panelbot · <talk>" in the chat, when
    reopened and in the export -- never in that talk's host's name ("Rita · ...")."""
    app = make_app()
    async with app.run_test(size=(130, 36)) as pilot:
        await palette(pilot, "Ask: all talks")
        await type_and_send(pilot, "Do bees need water in a small garden?")
        await type_and_send(pilot, "and Sam?")  # declined by the gardens talk itself
        (decline,) = [
            b for b in app.query(AnswerBlock) if b.panel.name == "gardens" and b.kind == "decline"
        ]
        host = decline.panel.host.name
        assert decline.label == f"{NARRATOR_LABEL} \u00b7 {decline.panel.title}"
        await type_and_send(pilot, f"/export {tmp_path / 'out.md'}")
        exported = (tmp_path / "out.md").read_text(encoding="utf-8")
        assert f"### {decline.label} (declines)" in exported and host not in exported
        cid = app.conversation_id
        await type_and_send(pilot, "/clear")
        assert app.open_conversation(cid)
        await settle(pilot)
        labels = [b.label for b in app.query(AnswerBlock) if b.kind == "decline"]
        assert decline.label in labels and not any(host in label for label in labels)


async def test_switching_panel_says_the_last_conversation_is_kept(
    make_app, talks_installed
) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await type_and_send(pilot, "how do you make kernels fast")
        await type_and_send(pilot, "/panel gardens")
        await settle(pilot)
        text = chat_text(app)
        assert "the last one is kept in history" in text
        assert "how do you make kernels fast" not in text


async def test_switching_panel_before_asking_anything_claims_nothing_kept(
    make_app, talks_installed
) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await type_and_send(pilot, "/panel gardens")
        await settle(pilot)
        assert "kept in history" not in chat_text(app)


async def test_clear_says_kept_in_history_only_when_something_was(make_app) -> None:
    """/clear, like /panel, claims the last conversation is kept only when there was one to keep."""
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await type_and_send(pilot, "/clear")
        await settle(pilot)
        assert "New conversation started." in chat_text(app)
        assert "kept in history" not in chat_text(app)
        await type_and_send(pilot, "how do you make kernels fast")
        await type_and_send(pilot, "/clear")
        await settle(pilot)
        assert "the last one is kept in history" in chat_text(app)


async def test_f1_names_the_users_config_file(make_app, tmp_path) -> None:
    app = make_app()
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("f1")
        await pilot.pause()
        screen = app.export_screenshot().replace("&#160;", " ")
        assert "no-user-config.yaml" in screen  # PANELBOT_CONFIG, set by the fixtures
        assert "in config.yaml" not in screen


async def test_f1_names_the_default_config_file_whole_at_80_columns(
    make_app, tmp_path, monkeypatch
) -> None:
    """With no PANELBOT_CONFIG, F1 names ~/.config/panelbot/config.yaml whole at 80x24 (it said
    "…/panelbot/config.yaml", which does not say where); a path too long for the line keeps its end."""
    from panelbot.tui.screens.help import HelpScreen

    monkeypatch.delenv("PANELBOT_CONFIG")
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f1")
        await pilot.pause()
        screen = app.export_screenshot().replace("&#160;", " ")
        assert "~/.config/panelbot/config.yaml" in screen
    long = tmp_path / ("d" * 60) / "panelbot.yaml"
    long.parent.mkdir()
    long.write_text("", encoding="utf-8")
    monkeypatch.setenv("PANELBOT_CONFIG", str(long))
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        assert app.screen.query_one("#help-body").max_scroll_y == 0
        screen = app.export_screenshot().replace("&#160;", " ")
        assert "\u2026/panelbot.yaml" in screen


@pytest.mark.parametrize("size", [(80, 24), (120, 36)])
async def test_f1_and_the_welcome_say_how_to_turn_the_model_on_offline(make_app, size) -> None:
    """Offline, F1 says how a model answers instead (PANELBOT_BACKEND=openai) and that the config sets it,
    still fitting 80x24 without scrolling; the welcome points there."""
    from panelbot.tui.screens.help import HelpScreen

    app = make_app()
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        assert "F1 for keys, commands and turning a model on" in chat_text(app)
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        body = app.screen.query_one("#help-body")
        assert body.max_scroll_y == 0
        screen = app.export_screenshot().replace("&#160;", " ")
        assert "PANELBOT_BACKEND=openai panelbot" in screen and "the model (backend:)" in screen
        assert "F1 or Esc to close" in screen


async def test_f1_names_the_model_that_answers(make_app) -> None:
    from .fakes import SlowBackend

    app = make_app(backend=SlowBackend())
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert "turning a model on" not in chat_text(app)
        await pilot.press("f1")
        await pilot.pause()
        screen = app.export_screenshot().replace("&#160;", " ")
        assert "Answers from test-model-7b" in screen and "PANELBOT_BACKEND=openai" not in screen
        await pilot.press("escape")
        await type_and_send(pilot, "/model")  # and how to go back to the quotes
        text = chat_text(app)
        assert "test-model-7b" in text and "PANELBOT_BACKEND=offline" in text


async def test_the_palette_says_how_to_turn_the_model_on(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(120, 36)) as pilot:
        await palette(pilot, "Answers from a model")
        await pilot.pause()
        text = chat_text(app)
        assert "PANELBOT_BACKEND=openai" in text and "no-user-config.yaml" in text
        assert "offline" in text


async def test_slash_model_says_how_to_turn_the_model_on(make_app) -> None:
    """Asked for the model with none set up, the app says how: /model (named in F1, and in the list an
    unknown command such as /llm prints) tells what answers now and how a model is turned on."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f1")
        await pilot.pause()
        assert "(/model)" in app.export_screenshot().replace("&#160;", " ")
        await pilot.press("escape")
        await type_and_send(pilot, "/llm")
        assert "/model" in chat_text(app)
        await type_and_send(pilot, "/model")
        text = chat_text(app)
        assert "offline" in text and "PANELBOT_BACKEND=openai" in text
        assert "no-user-config.yaml" in text


async def test_the_model_asked_for_without_an_endpoint_says_what_to_set(make_app) -> None:
    """PANELBOT_BACKEND=openai with no endpoint: the app answers with the quotes and says to set
    PANELBOT_BASE_URL, not to "pass --base-url" (a flag the app does not take)."""
    from panelbot.config import Config

    app = make_app(config=Config(panel="tiny").with_backend(name="openai", base_url=""))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        text = chat_text(app)
        assert "answering with offline quotes" in text and "PANELBOT_BASE_URL" in text
        assert "pass --base-url" not in text


async def test_a_toast_does_not_cover_the_input(make_app) -> None:
    from textual.widgets._toast import Toast

    from panelbot.tui.widgets.prompt import Prompt

    app = make_app()
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await type_and_send(pilot, "how do you make kernels fast")
        await pilot.press("ctrl+y")  # "Copied ..."
        await pilot.pause(0.2)
        (toast,) = app.screen.query(Toast)
        prompt = app.query_one(Prompt)
        assert toast.region and not toast.region.overlaps(prompt.region)
