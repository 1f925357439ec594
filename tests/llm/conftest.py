"""Fixtures for the LLM tests: a tiny panel built in code, a route, and the scripted server on 127.0.0.1."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from panelbot.config import BackendSettings, Config
from panelbot.panel import Panel, Persona, Quote
from panelbot.retrieval.results import RouteResult, ScoredQuote

from .fakeserver import FakeHTTPServer

SECRET = "sk-test-SECRET-0123456789abcdef"


def make_panel() -> Panel:
    dan = Persona(
        "dan",
        "Dan",
        role="VP of Kernels",
        organisation="Together AI",
        voice="Plain, technical, numbers first.",
        bio="Writes GPU kernels for inference.",
    )
    olive = Persona(
        "olive",
        "Olive",
        role="Research lead of RL",
        organisation="MiniMax",
        voice="Careful and concrete.",
        bio="Leads reinforcement learning research.",
    )
    quotes = [
        Quote(
            "dan-1",
            "dan",
            "The KV cache grows with context, so long agents are a memory problem "
            "more than a compute problem.",
        ),
        Quote("dan-2", "dan", "We fuse attention kernels so the GPU never waits on memory."),
        Quote("olive-1", "olive", "RL for agents needs long horizons and verifiable rewards."),
        Quote("olive-2", "olive", "We trained M3 with asynchronous rollouts."),
    ]
    return Panel(
        name="tiny",
        title="Tiny Panel",
        path=Path("."),
        status="curated",
        host=Persona("host", "Hannah"),
        panelists={"dan": dan, "olive": olive},
        quotes=quotes,
    )


def make_route(
    panel: Panel,
    speakers: tuple[str, ...] = ("dan",),
    question: str = "Why is memory hard?",
    abstained: bool = False,
) -> RouteResult:
    quotes = (
        []
        if abstained
        else [ScoredQuote(q, 80.0 - i) for i, q in enumerate(panel.quotes) if q.speaker in speakers]
    )
    return RouteResult(
        question,
        [] if abstained else list(speakers),
        abstained,
        quotes,
        "abstained: off topic" if abstained else "test route",
        suggestions=["What did Dan say about kernels?"] if abstained else [],
    )


def settings(url: str, **kw: Any) -> BackendSettings:
    base: dict[str, Any] = dict(
        name="openai",
        base_url=url,
        model="fake-model",
        api_key=SECRET,
        api_key_source="$PANELBOT_API_KEY",
        connect_timeout=2.0,
        read_timeout=5.0,
        total_timeout=20.0,
        max_retries=2,
        max_tokens=100,
        temperature=0.0,
        seed=7,
    )
    base.update(kw)
    return BackendSettings(**base)


def config_for(url: str, **kw: Any) -> Config:
    return Config(backend=settings(url, **kw))


def run(coro: Any) -> Any:
    return asyncio.run(coro)


async def take_then_cancel(stream: AsyncIterator[Any], n: int) -> list[Any]:
    """Consume ``stream`` in a task, cancel that task after ``n`` items (as Esc does in the app)."""
    got: list[Any] = []

    async def consume() -> None:
        async for item in stream:
            got.append(item)

    task = asyncio.ensure_future(consume())
    while len(got) < n:
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    return got


@pytest.fixture(scope="module")
def _server() -> Iterator[FakeHTTPServer]:
    srv = FakeHTTPServer().start()
    yield srv
    srv.close()


@pytest.fixture
def fake(_server: FakeHTTPServer) -> Iterator[FakeHTTPServer]:
    _server.reset()
    yield _server
    _server.state.stop.set()


@pytest.fixture
def panel() -> Panel:
    return make_panel()
