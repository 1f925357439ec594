"""``panelbot serve`` driven by the official ``openai`` SDK and raw HTTP: models, chat (JSON and streamed),
conversations, errors in OpenAI's shape, keys, a concurrent burst, and several workers."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys

import httpx
import openai
import pytest

from panelbot.panel import load_panel
from panelbot.serve.conversation import parse_messages

from .conftest import REPO

KV = "How do you deal with a KV cache that keeps growing?"
PANEL = load_panel(REPO / "persona_data" / "minimax-m3")
ID_RE = re.compile(r"\[([a-z]+-\d+)\]")


def client(srv, key: str = "unused") -> openai.OpenAI:
    return openai.OpenAI(base_url=srv.base_url, api_key=key, max_retries=0, timeout=60)


def ids_in(text: str) -> list[str]:
    return ID_RE.findall(text)


def test_models_list_every_panelist_auto_and_both(offline_server) -> None:
    c = client(offline_server)
    ids = [m.id for m in c.models.list()]
    assert {"dan", "olive", "panel", "both"} <= set(ids)
    assert {"minimax-m3/dan", "minimax-m3/olive", "minimax-m3/panel", "minimax-m3/both"} <= set(ids)
    m = c.models.retrieve("olive")
    assert m.id == "olive" and m.object == "model" and m.owned_by == "panelbot"
    assert m.model_extra["panelbot"]["target"] == "olive"
    with pytest.raises(openai.NotFoundError):
        c.models.retrieve("carol")


def test_chat_non_streamed_gives_verbatim_quotes_with_ids(offline_server) -> None:
    r = client(offline_server).chat.completions.create(
        model="panel", messages=[{"role": "user", "content": KV}]
    )
    assert r.object == "chat.completion" and r.model == "panel"
    choice = r.choices[0]
    assert choice.finish_reason == "stop" and choice.message.role == "assistant"
    text = choice.message.content
    extra = r.model_extra["panelbot"]
    assert (
        extra["speakers"] == ["dan"]
        and extra["abstained"] is False
        and extra["panel"] == "minimax-m3"
    )
    shown = ids_in(text)
    assert shown and sorted(shown) == sorted(q["id"] for q in extra["quotes"])  # text: spoken order
    for q in extra["quotes"]:  # verbatim: every quote's exact text is in the answer
        assert PANEL.quote(q["id"]).text == q["text"] and q["text"] in text
    assert text.startswith("Dan (VP of Kernels, Together AI):")
    assert extra["grounded"] is None and extra["backend"] == "offline"


def test_chat_streamed_matches_the_json_answer(offline_server) -> None:
    c = client(offline_server)
    # (Olive never spoke to "sparse attention": asked of her, it is handed over to Dan, as the README says)
    q = "How do you design RL environments?"
    whole = c.chat.completions.create(model="olive", messages=[{"role": "user", "content": q}])
    chunks = list(
        c.chat.completions.create(
            model="olive", stream=True, messages=[{"role": "user", "content": q}]
        )
    )
    assert chunks[0].choices[0].delta.role == "assistant"
    assert all(ch.object == "chat.completion.chunk" and ch.id == chunks[0].id for ch in chunks)
    text = "".join(ch.choices[0].delta.content or "" for ch in chunks)
    assert text == whole.choices[0].message.content
    assert chunks[-1].choices[0].finish_reason == "stop"
    assert chunks[-1].model_extra["panelbot"]["quotes"] == whole.model_extra["panelbot"]["quotes"]
    assert all(q["speaker"] == "olive" for q in whole.model_extra["panelbot"]["quotes"])


def test_stream_ends_with_done_on_the_wire(offline_server) -> None:
    with httpx.stream(
        "POST",
        offline_server.base_url + "/chat/completions",
        timeout=30,
        json={"model": "dan", "stream": True, "messages": [{"role": "user", "content": KV}]},
    ) as r:
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
        events = [line for line in r.iter_lines() if line]
    assert all(e.startswith("data: ") for e in events)
    assert events[-1] == "data: [DONE]"


def test_off_topic_is_declined_not_answered(offline_server) -> None:
    r = client(offline_server).chat.completions.create(
        model="panel", messages=[{"role": "user", "content": "best pizza in Naples?"}]
    )
    extra = r.model_extra["panelbot"]
    assert extra["abstained"] is True and extra["quotes"] == [] and extra["suggestions"]
    assert "Not something the panel got into" in r.choices[0].message.content
    assert ids_in(r.choices[0].message.content) == []


def test_small_talk_gets_a_friendly_reply(offline_server) -> None:
    c = client(offline_server)
    messages = [{"role": "user", "content": KV}]
    first = c.chat.completions.create(model="panel", messages=messages)
    messages += [
        {"role": "assistant", "content": first.choices[0].message.content},
        {"role": "user", "content": "thanks, that helps!"},
    ]
    r = c.chat.completions.create(model="panel", messages=messages)
    extra = r.model_extra["panelbot"]
    assert (
        extra["kind"] == "small_talk" and extra["small_talk"] == "thanks" and extra["quotes"] == []
    )
    text = r.choices[0].message.content
    assert text.startswith("You're welcome!") and "Not something the panel got into" not in text
    # ... and the conversation goes on from the answer before it
    messages += [
        {"role": "assistant", "content": text},
        {"role": "user", "content": "tell me more"},
    ]
    more = c.chat.completions.create(model="panel", messages=messages, stream=False)
    assert more.model_extra["panelbot"]["speakers"] == ["dan"]
    assert more.model_extra["panelbot"]["context"]["kind"] == "continuation"


def test_three_turn_conversation_with_a_follow_up(offline_server) -> None:
    c = client(offline_server)
    messages = [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": KV},
    ]
    first = c.chat.completions.create(model="panel", messages=messages)
    assert first.model_extra["panelbot"]["speakers"] == ["dan"]
    messages += [
        {"role": "assistant", "content": first.choices[0].message.content},
        {"role": "user", "content": "Olive, how do you evaluate long runs?"},
    ]
    second = c.chat.completions.create(model="panel", messages=messages)
    assert second.model_extra["panelbot"]["speakers"] == [
        "olive"
    ]  # a new subject stands on its own
    # the server reads the earlier answers back from their text: who answered, which quotes were shown
    conv = parse_messages(
        PANEL,
        messages
        + [
            {"role": "assistant", "content": second.choices[0].message.content},
            {"role": "user", "content": "tell me more"},
        ],
    )
    assert [t.speakers for t in conv.turns] == [["dan"], ["olive"]]
    assert conv.turns[0].quote_ids == ids_in(first.choices[0].message.content)
    messages += [
        {"role": "assistant", "content": second.choices[0].message.content},
        {"role": "user", "content": "tell me more"},
    ]
    third = c.chat.completions.create(model="panel", messages=messages)
    extra = third.model_extra["panelbot"]
    assert extra["abstained"] is False and extra["speakers"] == [
        "olive"
    ]  # same panelist, same subject
    assert extra["context"]
    shown = set(ids_in(second.choices[0].message.content))
    assert {q["id"] for q in extra["quotes"]} - shown  # something not shown yet


def test_unknown_model_is_404_listing_the_models(offline_server) -> None:
    with pytest.raises(openai.NotFoundError) as e:
        client(offline_server).chat.completions.create(
            model="carol", messages=[{"role": "user", "content": KV}]
        )
    assert e.value.status_code == 404
    body = e.value.body
    assert body["code"] == "model_not_found" and body["param"] == "model"
    assert "dan" in body["message"] and "olive" in body["message"] and "panel" in body["message"]


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ({"model": "dan"}, "'messages' is required"),
        ({"model": "dan", "messages": []}, "non-empty list"),
        ({"model": "dan", "messages": [{"role": "wizard", "content": "hi"}]}, "messages[0].role"),
        ({"model": "dan", "messages": [{"role": "assistant", "content": "hi"}]}, "no user message"),
        ({"model": "dan", "messages": [{"role": "user", "content": "  "}]}, "is empty"),
        ({"model": "dan", "messages": [{"role": "user", "content": 7}]}, "content must be"),
        (
            {"model": "dan", "stream": "yes", "messages": [{"role": "user", "content": KV}]},
            "'stream'",
        ),
        ({"model": "dan", "n": 3, "messages": [{"role": "user", "content": KV}]}, "'n' must be 1"),
        ({"model": 5, "messages": [{"role": "user", "content": KV}]}, "'model' must be one of"),
    ],
)
def test_bad_body_is_400_saying_what_is_wrong(offline_server, body, says) -> None:
    r = httpx.post(offline_server.base_url + "/chat/completions", json=body, timeout=30)
    assert r.status_code == 400
    err = r.json()["error"]
    assert (
        set(err) == {"message", "type", "param", "code"} and err["type"] == "invalid_request_error"
    )
    assert says in err["message"]


def test_bad_body_through_the_sdk_and_not_json(offline_server) -> None:
    with pytest.raises(openai.BadRequestError) as e:
        client(offline_server).chat.completions.create(
            model="dan", messages=[{"role": "tool", "content": "x"}]
        )
    assert "no user message" in e.value.body["message"]
    r = httpx.post(
        offline_server.base_url + "/chat/completions",
        content=b"{not json",
        timeout=30,
        headers={"Content-Type": "application/json"},
    )
    assert r.status_code == 400 and "not valid JSON" in r.json()["error"]["message"]


def test_oversized_request_is_413(offline_server) -> None:
    big = {"model": "dan", "messages": [{"role": "user", "content": "kv cache " * 200_000}]}
    r = httpx.post(offline_server.base_url + "/chat/completions", json=big, timeout=30)
    assert r.status_code == 413 and r.json()["error"]["code"] == "request_too_large"


def test_unknown_path_and_wrong_method_are_openai_shaped(offline_server) -> None:
    r = httpx.get(offline_server.url + "/v1/engines", timeout=30)
    assert r.status_code == 404 and "no such endpoint" in r.json()["error"]["message"]
    r = httpx.get(offline_server.base_url + "/chat/completions", timeout=30)
    assert r.status_code == 405 and "allowed: POST" in r.json()["error"]["message"]


def test_concurrent_burst_all_answered(offline_server) -> None:
    async def burst() -> list:
        c = openai.AsyncOpenAI(
            base_url=offline_server.base_url, api_key="x", max_retries=0, timeout=120
        )
        questions = [KV, "sparse attention", "reward hacking", "open source?"] * 8

        async def one(q: str, i: int):
            if i % 2:
                stream = await c.chat.completions.create(
                    model="panel", stream=True, messages=[{"role": "user", "content": q}]
                )
                return q, "".join([ch.choices[0].delta.content or "" async for ch in stream])
            r = await c.chat.completions.create(
                model="panel", messages=[{"role": "user", "content": q}]
            )
            return q, r.choices[0].message.content

        try:
            return await asyncio.gather(*(one(q, i) for i, q in enumerate(questions)))
        finally:
            await c.close()

    results = asyncio.run(burst())
    assert len(results) == 32
    by_q: dict[str, set[str]] = {}
    for q, text in results:
        by_q.setdefault(q, set()).add(text)
    assert all(
        len(texts) == 1 for texts in by_q.values()
    )  # same question, same answer, streamed or not
    assert all(ids_in(next(iter(by_q[q]))) for q in (KV, "sparse attention", "reward hacking"))


def test_api_key_required_and_compared(start_server) -> None:
    key = "pk-serve-SECRET-7f3a9c"
    srv = start_server("--log-level", "info", env={"PANELBOT_SERVE_KEY": key})
    with pytest.raises(openai.AuthenticationError) as e:
        client(srv, "wrong-key").models.list()
    assert e.value.status_code == 401 and key not in str(e.value.body)
    r = httpx.post(
        srv.base_url + "/chat/completions", json={"model": "dan", "messages": []}, timeout=30
    )
    assert r.status_code == 401 and r.json()["error"]["code"] == "invalid_api_key"
    answer = client(srv, key).chat.completions.create(
        model="dan", messages=[{"role": "user", "content": KV}]
    )
    assert ids_in(answer.choices[0].message.content)
    output = srv.stop()
    assert "POST /v1/chat/completions" in output  # requests are logged ...
    assert key not in output  # ... never the key


def test_refuses_a_public_address_without_a_key(run_cli) -> None:
    r = run_cli("serve", "--host", "0.0.0.0", "--port", "9")
    assert r.returncode == 2 and "PANELBOT_SERVE_KEY" in r.stderr and "Traceback" not in r.stderr


def test_bad_flags_and_panel_are_one_line(run_cli) -> None:
    r = run_cli("serve", "--port", "99999")
    assert r.returncode == 2 and "port" in r.stderr
    r = run_cli("serve", "--panel", "no-such-panel", "--port", "9")
    assert r.returncode == 2 and "unknown panel" in r.stderr and "Traceback" not in r.stderr
    r = run_cli("serve", "--backend", "openai", "--port", "9")
    assert r.returncode == 2 and "Traceback" not in r.stderr


def test_two_workers_answer_the_same_and_both_need_the_key(start_server) -> None:
    key = "pk-two-workers-SECRET"
    srv = start_server("--workers", "2", env={"PANELBOT_SERVE_KEY": key})
    for _ in range(4):  # whichever worker takes the connection
        with pytest.raises(openai.AuthenticationError):
            client(srv).models.list()
    c = client(srv, key)
    texts = {
        c.chat.completions.create(model="dan", messages=[{"role": "user", "content": KV}])
        .choices[0]
        .message.content
        for _ in range(6)
    }
    assert len(texts) == 1 and ids_in(texts.pop())
    assert key not in srv.stop()


def test_help_lists_serve_and_mcp() -> None:
    r = subprocess.run(
        [sys.executable, "-m", "panelbot", "--help"], capture_output=True, text=True, timeout=60
    )
    assert "serve" in r.stdout and "mcp" in r.stdout


def test_usage_in_json_and_on_request_in_the_stream(offline_server) -> None:
    c = client(offline_server)
    r = c.chat.completions.create(model="dan", messages=[{"role": "user", "content": KV}])
    words = len(r.choices[0].message.content.split())
    assert r.usage.prompt_tokens == len(KV.split()) and r.usage.completion_tokens == words
    chunks = list(
        c.chat.completions.create(
            model="dan",
            stream=True,
            stream_options={"include_usage": True},
            messages=[{"role": "user", "content": KV}],
        )
    )
    assert chunks[-1].choices == [] and chunks[-1].usage.completion_tokens == words
    assert all(ch.usage is None for ch in chunks[:-1])


def test_every_installed_panel_is_served_and_a_broken_one_skipped(start_server, tmp_path) -> None:
    import shutil

    panels = tmp_path / "panels"
    shutil.copytree(REPO / "persona_data" / "minimax-m3", panels / "second-talk")
    (panels / "broken").mkdir()
    (panels / "broken" / "panel.yaml").write_text("format: 1\ntitle: [unclosed\n")
    srv = start_server(env={"PANELBOT_PANELS": str(panels)})
    c = client(srv)
    ids = {m.id for m in c.models.list()}
    assert {
        "dan",
        "panel",
        "second-talk/dan",
        "second-talk/olive",
        "second-talk/panel",
        "second-talk/both",
    } <= ids
    assert not any(i.startswith("broken/") for i in ids)
    r = c.chat.completions.create(
        model="second-talk/olive", messages=[{"role": "user", "content": "reward hacking"}]
    )
    assert r.model_extra["panelbot"]["panel"] == "second-talk"
    assert all(q["speaker"] == "olive" for q in r.model_extra["panelbot"]["quotes"])
    assert "panel 'broken' not served" in srv.stop()


def test_a_web_page_cannot_use_the_local_server_behind_the_users_back(offline_server) -> None:
    """A cross-site form post (no CORS preflight) is refused for its content type; a page that rebinds its own
    domain to 127.0.0.1 is refused for its Host header."""
    body = json.dumps({"model": "dan", "messages": [{"role": "user", "content": KV}]})
    r = httpx.post(
        offline_server.base_url + "/chat/completions",
        content=body,
        timeout=30,
        headers={"Content-Type": "text/plain"},
    )
    assert r.status_code == 415 and "application/json" in r.json()["error"]["message"]
    r = httpx.get(
        offline_server.base_url + "/models", headers={"Host": "evil.example:8000"}, timeout=30
    )
    assert r.status_code == 400 and r.json()["error"]["code"] == "host_not_allowed"
    assert httpx.get(
        offline_server.base_url + "/models", headers={"Host": "localhost"}, timeout=30
    ).is_success
    pre = httpx.options(
        offline_server.base_url + "/chat/completions",
        timeout=30,
        headers={"Origin": "http://localhost:3000", "Access-Control-Request-Method": "POST"},
    )
    assert "access-control-allow-origin" not in pre.headers  # no CORS unless asked for


def test_cors_for_a_browser_app_when_allowed(start_server) -> None:
    srv = start_server("--allow-origin", "http://localhost:3000")
    pre = httpx.options(
        srv.base_url + "/chat/completions",
        timeout=30,
        headers={
            "Origin": "http://localhost:3000",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization,content-type",
        },
    )
    assert (
        pre.status_code == 200
        and pre.headers["access-control-allow-origin"] == "http://localhost:3000"
    )
    r = httpx.get(srv.base_url + "/models", headers={"Origin": "http://localhost:3000"}, timeout=30)
    assert r.headers["access-control-allow-origin"] == "http://localhost:3000"
