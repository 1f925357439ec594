"""``panelbot serve`` with a model behind it (the scripted OpenAI-compatible server on 127.0.0.1): answers are
generated, grounded and verified exactly as ``ask --llm`` does, streamed or not; a dead model falls back to the
panelist's verbatim quotes; an off-topic question never reaches the model."""

from __future__ import annotations

import openai
import pytest

from panelbot.panel import load_panel
from panelbot.retrieval.router import Router

from .conftest import REPO, fakeserver

KV = "How do you deal with a KV cache that keeps growing?"
PANEL = load_panel(REPO / "persona_data" / "minimax-m3")


@pytest.fixture(scope="module")
def kv_ids() -> list[str]:
    return [sq.quote.id for sq in Router(PANEL).route(KV, "dan").quotes]


@pytest.fixture
def fake(fake_model):
    fake_model.reset()
    yield fake_model
    fake_model.state.stop.set()


def chat(srv, **kw):
    c = openai.OpenAI(base_url=srv.base_url, api_key="x", max_retries=0, timeout=60)
    return c.chat.completions.create(**kw)


def test_generated_answer_is_verified(start_server, fake, kv_ids) -> None:
    fake.state.answer = f"We are basically rebuilding a distributed file system [{kv_ids[0]}]."
    srv = start_server("--base-url", fake.url("ok"), "--model", "fake-model")
    r = chat(srv, model="dan", messages=[{"role": "user", "content": KV}])
    text = r.choices[0].message.content
    extra = r.model_extra["panelbot"]
    assert text.startswith("Dan (VP of Kernels, Together AI):\n") and fake.state.answer in text
    assert f"[grounded: cites {kv_ids[0]}" in text
    assert extra["grounded"] is True and extra["citations"] == [{"id": kv_ids[0], "valid": True}]
    assert (
        extra["backend"] == "openai" and extra["model"] == "fake-model" and extra["error"] is None
    )
    sent = fake.state.requests[-1].body
    assert sent["model"] == "fake-model"
    prompt = sent["messages"][0]["content"]
    assert all(f"[{i}]" in prompt for i in kv_ids)  # the routed quotes are the model's only sources

    chunks = list(chat(srv, model="dan", stream=True, messages=[{"role": "user", "content": KV}]))
    assert "".join(ch.choices[0].delta.content or "" for ch in chunks) == text
    assert (
        len([ch for ch in chunks if ch.choices and ch.choices[0].delta.content]) > 2
    )  # token by token
    assert chunks[-1].model_extra["panelbot"]["grounded"] is True


def test_earlier_turns_reach_the_models_prompt(start_server, fake, kv_ids) -> None:
    fake.state.answer = f"It's about where you store that cache [{kv_ids[0]}]."
    srv = start_server("--base-url", fake.url("ok"), "--model", "fake-model")
    chat(
        srv,
        model="dan",
        messages=[
            {"role": "user", "content": "What is your job at Together AI?"},
            {
                "role": "assistant",
                "content": "Dan (VP of Kernels, Together AI):\nI lead inference [dan-01].",
            },
            {"role": "user", "content": KV},
        ],
    )
    prompt = fake.state.requests[-1].body["messages"][0]["content"]
    assert "The conversation so far" in prompt
    assert (
        "Audience member: What is your job at Together AI?" in prompt
        and "Dan: I lead inference" in prompt
    )


def test_uncited_invention_is_not_grounded_and_shows_the_quotes(start_server, fake, kv_ids) -> None:
    fake.state.answer = "We solved it with quantum memory [dan-99]."
    srv = start_server("--base-url", fake.url("ok"), "--model", "fake-model")
    r = chat(srv, model="dan", messages=[{"role": "user", "content": KV}])
    text, extra = r.choices[0].message.content, r.model_extra["panelbot"]
    assert extra["grounded"] is False and {"id": "dan-99", "valid": False} in extra["citations"]
    assert "[NOT grounded" in text and "Dan's own words:" in text
    assert PANEL.quote(kv_ids[0]).text in text


def test_dead_model_falls_back_to_the_quotes(start_server, kv_ids) -> None:
    port = fakeserver.refused_port()
    srv = start_server("--base-url", f"http://127.0.0.1:{port}/v1", "--model", "m")
    r = chat(srv, model="panel", messages=[{"role": "user", "content": KV}])
    text, extra = r.choices[0].message.content, r.model_extra["panelbot"]
    assert extra["error"] and "connection refused" in extra["error"]
    assert "[the model failed:" in text and PANEL.quote(kv_ids[0]).text in text
    assert extra["grounded"] is False


def test_off_topic_never_calls_the_model(start_server, fake) -> None:
    srv = start_server("--base-url", fake.url("ok"), "--model", "fake-model")
    before = len([s for s in fake.state.requests if s.path.endswith("/chat/completions")])
    r = chat(srv, model="panel", messages=[{"role": "user", "content": "best pizza in Naples?"}])
    assert r.model_extra["panelbot"]["abstained"] is True
    assert len([s for s in fake.state.requests if s.path.endswith("/chat/completions")]) == before


def test_a_client_that_goes_away_closes_the_models_stream(start_server, fake) -> None:
    import time

    import httpx

    srv = start_server("--base-url", fake.url("slow"), "--model", "fake-model")
    body = {"model": "dan", "stream": True, "messages": [{"role": "user", "content": KV}]}
    with httpx.stream("POST", srv.base_url + "/chat/completions", json=body, timeout=30) as r:
        lines = r.iter_lines()
        got = [next(lines) for _ in range(6)]
    assert any('"content": "w' in line for line in got)  # the model's tokens were streaming through
    deadline = time.monotonic() + 20
    while not fake.state.disconnected.is_set() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert fake.state.disconnected.is_set()  # panelbot hung up on the model too


def test_backend_from_the_config_file(start_server, fake, kv_ids, tmp_path) -> None:
    # a sentence its cited quote supports (the verifier checks what is claimed, not only the id)
    fake.state.answer = f"We are basically rebuilding a distributed file system [{kv_ids[0]}]."
    cfg = tmp_path / "serve-config.yaml"
    cfg.write_text(f"backend:\n  name: openai\n  base_url: {fake.url('ok')}\n  model: fake-model\n")
    srv = start_server("--config", str(cfg))
    r = chat(srv, model="dan", messages=[{"role": "user", "content": KV}])
    extra = r.model_extra["panelbot"]
    assert extra["backend"] == "openai" and extra["grounded"] is True
    assert fake.state.requests[-1].body["model"] == "fake-model"


def test_the_upstream_key_never_reaches_clients_or_logs(start_server, fake) -> None:
    secret = "sk-upstream-SECRET-0123456789"
    srv = start_server(
        "--base-url",
        fake.url("401"),
        "--model",
        "fake-model",
        "--log-level",
        "info",
        env={"PANELBOT_API_KEY": secret},
    )
    r = chat(srv, model="dan", messages=[{"role": "user", "content": KV}])
    assert (
        fake.state.requests[-1].headers.get("Authorization") == f"Bearer {secret}"
    )  # it was sent upstream
    extra = r.model_extra["panelbot"]
    assert extra["error"] and "API key" in extra["error"]  # the failure is named ...
    assert secret not in r.model_dump_json() and secret not in srv.stop()  # ... never the key
