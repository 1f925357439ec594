"""The generated path through the real OpenAI-compatible backend against a scripted local server."""

from __future__ import annotations

import re

import pytest

from panelbot.config import Config
from panelbot.tui import engine
from panelbot.tui.widgets.chat import AnswerBlock

from .conftest import chat_text, header_text, type_and_send

pytestmark = pytest.mark.asyncio


def _fakeserver():
    """tests/llm/fakeserver.py, loaded by path (the root conftest's loader)."""
    from conftest import load_fakeserver

    return load_fakeserver()


@pytest.fixture
def server():
    srv = _fakeserver().FakeHTTPServer().start()
    yield srv
    srv.close()


def openai_config(url: str) -> Config:
    return Config(panel="minimax-m3").with_backend(
        name="openai",
        base_url=url,
        model="tiny-test-model",
        max_retries=0,
        connect_timeout=2,
        read_timeout=5,
        total_timeout=10,
    )


async def test_streamed_generated_answer(make_app, server) -> None:
    app = make_app(
        "minimax-m3", config=openai_config(server.url("ok")), router_factory=engine.make_router
    )
    async with app.run_test(size=(130, 36)) as pilot:
        assert "tiny-test-model" in header_text(app)
        await type_and_send(pilot, "How does the KV cache grow with long context?")
        blocks = list(app.query(AnswerBlock))
        assert blocks and blocks[0].speaker in ("dan", "olive")
        assert "KV cache grows with context" in blocks[0].text
        assert server.state.requests  # it really went over HTTP


async def test_a_grounded_answer_with_real_ids_is_shown_as_grounded(make_app, server) -> None:
    app = make_app(
        "minimax-m3",
        config=openai_config(server.url("cite-sources")),
        router_factory=engine.make_router,
    )
    async with app.run_test(size=(130, 36)) as pilot:
        await type_and_send(pilot, "How does the KV cache grow with long context?")
        (block, *_) = app.query(AnswerBlock)
        cited = [k.split(":", 1)[1] for k in server.state.counts if k.startswith("cited:")]
        assert cited and re.fullmatch(
            r"(dan|olive)-\d\d", cited[0]
        )  # the panel's real ids, e.g. dan-01
        assert f"[{cited[0]}]" in block.text
        assert block.status.startswith("(grounded: cites " + cited[0]), block.status
        assert "own words" not in block.text
        assert cited[0] in {sq.quote.id for sq in block.quotes}


async def test_backend_down_falls_back_to_quotes_with_a_message(make_app) -> None:
    port = _fakeserver().refused_port()
    app = make_app(
        "minimax-m3",
        config=openai_config(f"http://127.0.0.1:{port}/v1"),
        router_factory=engine.make_router,
    )
    async with app.run_test(size=(130, 36)) as pilot:
        await type_and_send(pilot, "How does the KV cache grow with long context?")
        (block, *_) = app.query(AnswerBlock)
        assert "generation failed" in block.status
        assert re.search(r"\[(dan|olive)-\d+\]", block.text)  # the verbatim quotes instead
        assert app.is_running
        assert "Traceback" not in chat_text(app)


async def test_unknown_backend_is_a_warning_and_offline_answers(make_app) -> None:
    cfg = Config(panel="tiny").with_backend(name="no-such-backend")
    app = make_app(config=cfg)
    async with app.run_test(size=(130, 36)) as pilot:
        assert "no-such-backend" in chat_text(app)
        assert "offline quotes" in header_text(app)
        await type_and_send(pilot, "how do you make kernels fast")
        assert app.query(AnswerBlock)


async def test_ungrounded_answer_is_shown_as_such_then_the_verbatim_quotes(
    make_app, server
) -> None:
    server.state.answer = "The cache just grows forever [dan-99]. Nobody stores it anywhere."
    app = make_app(
        "minimax-m3", config=openai_config(server.url("ok")), router_factory=engine.make_router
    )
    async with app.run_test(size=(130, 36)) as pilot:
        await type_and_send(pilot, "How does the KV cache grow with long context?")
        (block, *_) = app.query(AnswerBlock)
        assert "NOT grounded" in block.status and "dan-99" in block.status
        assert "own words:" in block.text
        assert re.search(
            r"\[(dan|olive)-\d+\]", block.text.split("own words:")[1]
        )  # real quotes follow
