"""``POST /v1/responses`` driven by the official ``openai`` SDK (``client.responses.create``, its stream events and
its ``responses.stream`` helper) against the real ``panelbot serve``: a question, follow-ups by
``previous_response_id`` and by the stateless form, streaming, errors in the Responses shape, keys kept apart;
the generated path through the scripted model; and the response store's bounds."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import httpx
import openai
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from panelbot.panel import load_panel
from panelbot.retrieval.router import Router
from panelbot.serve.conversation import RequestError
from panelbot.serve.responses import ResponseStore, read_request

from .conftest import REPO

KV = "How do you deal with a KV cache that keeps growing?"
PANEL = load_panel(REPO / "persona_data" / "minimax-m3")
ID_RE = re.compile(r"\[([a-z]+-\d+)\]")


def client(srv, key: str = "key-one") -> openai.OpenAI:
    return openai.OpenAI(base_url=srv.base_url, api_key=key, max_retries=0, timeout=60)


def quote_ids(r) -> list[str]:
    return [q["id"] for q in r.model_extra["panelbot"]["quotes"]]


@pytest.fixture(scope="module")
def why_ids() -> list[str]:
    """What the chat path answers "why?" with after the KV question: the reference for every follow-up."""
    from panelbot.conversation.resolve import resolve
    from panelbot.conversation.turns import ConversationTurn

    router = Router(PANEL)
    first = router.route(KV, "auto")
    turn = ConversationTurn(KV, first.speakers, [sq.quote.id for sq in first.quotes])
    return [sq.quote.id for sq in resolve(router, [turn], "why?").route.quotes]


def test_a_question_gives_the_chat_answer_in_the_responses_shape(offline_server) -> None:
    c = client(offline_server)
    r = c.responses.create(model="panel", input=KV)
    chat = c.chat.completions.create(model="panel", messages=[{"role": "user", "content": KV}])
    assert r.object == "response" and r.status == "completed" and r.id.startswith("resp_")
    assert r.model == "panel" and r.error is None and r.previous_response_id is None
    [item] = r.output
    assert item.type == "message" and item.role == "assistant" and item.status == "completed"
    assert [p.type for p in item.content] == ["output_text"]
    assert r.output_text == chat.choices[0].message.content  # the same answer, word for word
    extra = r.model_extra["panelbot"]
    assert extra == chat.model_extra["panelbot"]  # the same extra field
    assert extra["speakers"] == ["dan"] and extra["panel"] == "minimax-m3"
    for q in extra["quotes"]:
        assert PANEL.quote(q["id"]).text == q["text"] and q["text"] in r.output_text
    assert r.usage.input_tokens == len(KV.split()) and r.usage.total_tokens > r.usage.input_tokens


def test_follow_up_by_previous_response_id(offline_server, why_ids) -> None:
    c = client(offline_server)
    first = c.responses.create(model="panel", input=KV)
    why = c.responses.create(model="panel", input="why?", previous_response_id=first.id)
    assert why.previous_response_id == first.id
    assert quote_ids(why) == why_ids and why_ids
    ctx = why.model_extra["panelbot"]["context"]
    assert ctx["kind"] == "reason" and ctx["question"] == KV
    # a chain: the third turn sees both earlier ones
    other = c.responses.create(
        model="panel", input="what does Olive think?", previous_response_id=why.id
    )
    extra = other.model_extra["panelbot"]
    assert extra["context"]["question"] == KV and extra["context"]["kind"] == "other_panelist"
    assert extra["abstained"] and "Olive didn't speak to" in extra["reason"]  # Dan did, not her


def test_follow_up_in_the_stateless_form(offline_server, why_ids) -> None:
    c = client(offline_server)
    first = c.responses.create(model="panel", input=KV, store=False)
    items = [
        {"role": "user", "content": [{"type": "input_text", "text": KV}]},
        *[o.model_dump(exclude_none=True) for o in first.output],  # the output items, passed back
        {"type": "message", "role": "user", "content": "why?"},
    ]
    why = c.responses.create(model="panel", input=items, instructions="Answer briefly.")
    assert quote_ids(why) == why_ids
    assert why.instructions == "Answer briefly."
    # the earlier answer summarised by the client, no ids left: the question is answered again
    summarised = [
        {"role": "user", "content": KV},
        {"role": "assistant", "content": "Dan said they store the cache like a big database."},
        {"role": "user", "content": "why?"},
    ]
    again = c.responses.create(model="panel", input=summarised)
    assert quote_ids(again) == why_ids
    with pytest.raises(openai.NotFoundError):  # store: false kept nothing
        c.responses.create(model="panel", input="why?", previous_response_id=first.id)


def test_streamed_events_in_order_and_the_same_answer(offline_server) -> None:
    c = client(offline_server)
    q = "How do you design RL environments?"
    whole = c.responses.create(model="olive", input=q)
    events = list(c.responses.create(model="olive", input=q, stream=True))
    kinds = [e.type for e in events]
    assert kinds[:4] == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.content_part.added",
    ]
    assert kinds[-4:] == [
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.completed",
    ]
    assert set(kinds[4:-4]) == {"response.output_text.delta"}
    assert [e.sequence_number for e in events] == list(range(len(events)))
    deltas = "".join(e.delta for e in events if e.type == "response.output_text.delta")
    done = events[-1].response
    assert deltas == whole.output_text == done.output_text == events[-4].text
    assert events[0].response.status == "in_progress" and done.status == "completed"
    assert len({e.response.id for e in events if hasattr(e, "response")}) == 1
    item_ids = {e.item_id for e in events if hasattr(e, "item_id")}
    assert item_ids == {done.output[0].id}
    assert done.model_extra["panelbot"]["speakers"] == ["olive"]
    # the SDK's own stream helper accumulates the same response; a streamed one is kept too
    with c.responses.stream(model="olive", input=q) as s:
        final = s.get_final_response()
    assert final.output_text == whole.output_text
    follow = c.responses.create(model="olive", input="tell me more", previous_response_id=final.id)
    assert follow.model_extra["panelbot"]["context"]["question"] == q


def test_unknown_previous_response_id_is_a_404_in_the_responses_shape(offline_server) -> None:
    c = client(offline_server)
    with pytest.raises(openai.NotFoundError) as err:
        c.responses.create(model="panel", input="why?", previous_response_id="resp_nope")
    body = err.value.body
    assert body["code"] == "previous_response_not_found"
    assert body["param"] == "previous_response_id" and body["type"] == "invalid_request_error"
    assert "resp_nope" in body["message"]


def test_unknown_model_lists_the_models(offline_server) -> None:
    with pytest.raises(openai.NotFoundError) as err:
        client(offline_server).responses.create(model="carol", input=KV)
    body = err.value.body
    assert body["code"] == "model_not_found" and body["param"] == "model"
    assert "olive" in body["message"] and "minimax-m3/dan" in body["message"]


def test_responses_are_kept_apart_per_api_key(offline_server) -> None:
    mine, theirs = client(offline_server, "key-one"), client(offline_server, "key-two")
    r = mine.responses.create(model="dan", input=KV)
    assert mine.responses.retrieve(r.id).output_text == r.output_text
    with pytest.raises(openai.NotFoundError):
        theirs.responses.retrieve(r.id)
    with pytest.raises(openai.NotFoundError):
        theirs.responses.create(model="dan", input="why?", previous_response_id=r.id)
    theirs_delete = httpx.delete(
        f"{offline_server.base_url}/responses/{r.id}", headers={"Authorization": "Bearer key-two"}
    )
    assert theirs_delete.status_code == 404
    mine.responses.delete(r.id)
    with pytest.raises(openai.NotFoundError):
        mine.responses.retrieve(r.id)


@pytest.mark.parametrize(
    ("body", "param", "words"),
    [
        ({"model": "panel"}, "input", "'input' is required"),
        ({"model": "panel", "input": ""}, "input", "empty"),
        ({"model": "panel", "input": []}, "input", "non-empty list"),
        ({"model": "panel", "input": [{"role": "boss", "content": "x"}]}, "input", "input[0].role"),
        (
            {"model": "panel", "input": [{"role": "user", "content": [{"type": "bogus"}]}]},
            "input",
            "input[0].content[0].type",
        ),
        (
            {"model": "panel", "input": [{"role": "user", "content": "x"}, {"role": "assistant"}]},
            "input",
            "input[1].content",
        ),
        (
            {"model": "panel", "input": [{"role": "assistant", "content": "x"}]},
            "input",
            "must be the user's question",
        ),
        ({"model": "panel", "input": "x", "stream": "yes"}, "stream", "'stream'"),
        ({"model": "panel", "input": "x", "previous_response_id": 7}, "previous_response_id", ""),
        ({"input": "x"}, "model", "'model' must be one of"),
    ],
)
def test_bad_requests_say_what_is_wrong(offline_server, body, param, words) -> None:
    r = httpx.post(f"{offline_server.base_url}/responses", json=body, timeout=30)
    assert r.status_code == 400, r.text
    err = r.json()["error"]
    assert err["type"] == "invalid_request_error" and err["param"] == param
    assert words in err["message"]


def test_tool_and_reasoning_items_are_skipped_and_a_form_post_refused(offline_server) -> None:
    items = [
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {"type": "function_call_output", "call_id": "c1", "output": "{}"},
        {"role": "user", "content": KV},
    ]
    r = client(offline_server).responses.create(model="panel", input=items)
    assert r.model_extra["panelbot"]["speakers"] == ["dan"]
    form = httpx.post(f"{offline_server.base_url}/responses", data={"model": "panel", "input": KV})
    assert form.status_code == 415 and form.json()["error"]["code"] == "unsupported_media_type"


def test_generated_answer_through_responses_is_verified(start_server, fake_model) -> None:
    fake_model.reset()
    kv_ids = [sq.quote.id for sq in Router(PANEL).route(KV, "dan").quotes]
    fake_model.state.answer = (
        f"We are basically rebuilding a distributed file system [{kv_ids[0]}]."
    )
    srv = start_server("--base-url", fake_model.url("ok"), "--model", "fake-model")
    c = client(srv)
    r = c.responses.create(model="dan", input=KV)
    extra = r.model_extra["panelbot"]
    assert (
        fake_model.state.answer in r.output_text
        and f"[grounded: cites {kv_ids[0]}" in r.output_text
    )
    assert extra["grounded"] is True and extra["backend"] == "openai"
    events = list(c.responses.create(model="dan", input=KV, stream=True))
    deltas = [e.delta for e in events if e.type == "response.output_text.delta"]
    assert len(deltas) > 2 and "".join(deltas) == r.output_text  # token by token, the same answer
    why = c.responses.create(model="dan", input="why?", previous_response_id=r.id)
    sent = fake_model.state.requests[-1].body["messages"]
    assert any(fake_model.state.answer in m["content"] for m in sent)  # the model saw what was said
    assert why.model_extra["panelbot"]["context"]["question"] == KV
    fake_model.state.stop.set()


LLM = shutil.which("llm", path=str(Path(sys.executable).parent)) or shutil.which("llm")


@pytest.mark.skipif(LLM is None, reason="the llm CLI is not installed (pip install -e '.[dev]')")
def test_llm_cli_in_responses_mode(offline_server, isolated_env, tmp_path, why_ids) -> None:
    """``llm`` with ``responses: true`` speaks the Responses API, stateless (``store: false``, the whole
    conversation as input items): a question, then ``llm -c`` following up."""
    (tmp_path / "llm").mkdir()
    (tmp_path / "llm" / "extra-openai-models.yaml").write_text(
        f'- model_id: panel-r\n  model_name: panel\n  api_base: "{offline_server.base_url}"\n'
        "  responses: true\n"
    )
    env = {**isolated_env, "LLM_USER_PATH": str(tmp_path / "llm")}

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([LLM, *args], capture_output=True, text=True, env=env, timeout=180)

    first = run("-m", "panel-r", KV)
    assert first.returncode == 0, first.stderr
    assert first.stdout.startswith("Dan (VP of Kernels, Together AI):")
    why = run("-c", "why?")
    assert why.returncode == 0, why.stderr
    assert ID_RE.findall(why.stdout) == why_ids
    logged = json.loads(run("logs", "--json", "-n", "1").stdout)[0]
    assert logged["model"] == "panel-r" and logged["input_tokens"] == 1  # "why?": one word


class _BreaksMidAnswer:
    """A backend that starts answering, then fails (what a bug in a plugin backend does)."""

    name = "breaks"
    label = "breaks"

    async def answer(self, request):
        from panelbot.answer.events import TextDelta

        yield TextDelta(request.route.speakers[0], "The first words ")
        raise RuntimeError("a bug in the backend")

    async def aclose(self) -> None:
        return None


@pytest.fixture
def breaking_server(tmp_path, isolated_env):
    """``create_app`` with that backend, served by uvicorn on a free loopback port in this process."""
    import threading
    import time

    import uvicorn

    from panelbot.config import load_config
    from panelbot.serve.catalog import load_catalog
    from panelbot.serve.openai_api import PanelAPI, ServeSettings, create_app

    from .conftest import free_port

    settings = ServeSettings()
    api = PanelAPI(settings, load_catalog(load_config(None)), _BreaksMidAnswer(), load_config(None))
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(create_app(api=api), host="127.0.0.1", port=port, log_level="critical")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}/v1"
    server.should_exit = True
    thread.join(30)


def test_a_failure_mid_stream_ends_with_response_failed(breaking_server) -> None:
    c = openai.OpenAI(base_url=breaking_server, api_key="x", max_retries=0, timeout=60)
    events = list(c.responses.create(model="dan", input=KV, stream=True))
    assert [e.type for e in events][-2:] == ["response.output_text.delta", "response.failed"]
    failed = events[-1].response
    assert failed.status == "failed" and failed.error.code == "server_error"
    assert "see the server's log" in failed.error.message and "bug" not in failed.error.message
    with pytest.raises(openai.InternalServerError) as err:  # not streamed: OpenAI's error shape
        c.responses.create(model="dan", input=KV)
    assert err.value.body["type"] == "server_error"


JSON = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=12)),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(
            st.sampled_from(["role", "content", "type", "text", "panelbot", "id", "x"]),
            inner,
            max_size=4,
        ),
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(
            ["model", "input", "instructions", "stream", "store", "previous_response_id", "user"]
        ),
        JSON,
        max_size=6,
    )
)
def test_any_body_is_read_or_refused_with_a_request_error(body) -> None:
    try:
        req = read_request(body, ["panel"])
    except RequestError as exc:
        assert str(exc) and exc.param in (None, *body, "input", "model")
        return
    assert req.input and req.input[-1]["role"] == "user" and req.input[-1]["content"].strip()


# --------------------------------------------------------------------------------------------- the store


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_store_bounds_count_per_key_total_size_and_age() -> None:
    clock = Clock()
    store = ResponseStore(per_key=3, total=5, chars=10_000, max_age=60, clock=clock)
    msg = [{"role": "user", "content": "x"}]
    for i in range(4):
        store.put("a", f"a{i}", msg, {"id": f"a{i}"})
    assert store.get("a", "a0") is None and store.get("a", "a3") is not None  # 3 per key
    for i in range(3):
        store.put("b", f"b{i}", msg, {"id": f"b{i}"})
    assert len(store) == 5 and store.get("a", "a1") is None  # 5 in all: the oldest went
    assert store.get("b", "a2") is None  # another key never sees it
    clock.now += 61
    assert store.get("b", "b2") is None and len(store) == 0  # an hour... here a minute: gone
    store.put("a", "big", [{"role": "user", "content": "y" * 20_000}], {})
    assert store.get("a", "big") is None  # bigger than the whole store: not kept
    store.put("a", "c0", [{"role": "user", "content": "z" * 6_000}], {})
    store.put("a", "c1", [{"role": "user", "content": "z" * 6_000}], {})
    assert store.get("a", "c0") is None and store.get("a", "c1") is not None  # size bound
    assert store.delete("a", "c1") and not store.delete("a", "c1") and len(store) == 0
