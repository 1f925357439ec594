"""The ``llm`` plugin (``panelbot.llm_plugin``) driven by the real ``llm`` CLI in a temporary ``LLM_USER_PATH``:
the panel's models listed and answering in-process (no server), ``llm -c`` following up through panelbot's
resolver, the quote ids in ``llm logs --json``, ``-f panelbot:<id>`` fragments, the ``search_quotes`` tool
called by a tool-calling model (a scripted OpenAI-compatible server on 127.0.0.1: no real model runs here),
generated answers through the scripted model, and errors as one line. Also llm's Python API."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from panelbot.conversation.resolve import resolve
from panelbot.conversation.turns import ConversationTurn
from panelbot.panel import load_panel
from panelbot.retrieval.router import Router

from .conftest import REPO

LLM = shutil.which("llm", path=str(Path(sys.executable).parent)) or shutil.which("llm")
pytestmark = pytest.mark.skipif(
    LLM is None, reason="the llm CLI is not installed (pip install -e '.[dev]')"
)
KV = "How do you deal with a KV cache that keeps growing?"
PANEL = load_panel(REPO / "persona_data" / "minimax-m3")


@pytest.fixture
def llm_env(isolated_env: dict[str, str], tmp_path: Path) -> dict[str, str]:
    (tmp_path / "llm").mkdir()
    return {**isolated_env, "LLM_USER_PATH": str(tmp_path / "llm")}


def run_llm(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([LLM, *args], capture_output=True, text=True, env=env, timeout=180)


def last_logs(env: dict[str, str], n: int = 1) -> list[dict[str, Any]]:
    r = run_llm(env, "logs", "--json", "-n", str(n))
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def ids_of(entry: dict[str, Any]) -> list[str]:
    return [q["id"] for q in entry["response_json"]["quotes"]]


@pytest.fixture(scope="module")
def reference() -> dict[str, list[str]]:
    """What panelbot answers (``ask``'s router and resolver): the KV question to Dan, then "why?"."""
    router = Router(PANEL)
    first = router.route(KV, "dan")
    ids = [sq.quote.id for sq in first.quotes]
    why = resolve(router, [ConversationTurn(KV, ["dan"], ids, "dan")], "why?", "dan").route
    return {"first": ids, "why": [sq.quote.id for sq in why.quotes]}


def test_models_and_plugin_are_listed(llm_env) -> None:
    r = run_llm(llm_env, "models")
    assert r.returncode == 0, r.stderr
    listed = {
        line.split(": ", 1)[1].split(" ")[0] for line in r.stdout.splitlines() if ": " in line
    }
    assert {"panelbot-dan", "panelbot-olive", "panelbot-panel", "panelbot-both"} <= listed
    assert {"panelbot-minimax-m3/dan", "panelbot-minimax-m3/panel"} <= listed
    plugins = json.loads(run_llm(llm_env, "plugins").stdout)
    [mine] = [p for p in plugins if p["name"] == "panelbot"]
    assert set(mine["hooks"]) == {"register_models", "register_fragment_loaders", "register_tools"}


def test_a_conversation_with_ids_in_the_logs(llm_env, reference) -> None:
    r = run_llm(llm_env, "-m", "panelbot-dan", KV)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("Dan (VP of Kernels, Together AI):\n")
    assert all(f"[{i}]" in r.stdout for i in reference["first"])

    why = run_llm(llm_env, "-c", "why?")
    assert why.returncode == 0, why.stderr
    assert all(f"[{i}]" in why.stdout for i in reference["why"]) and reference["why"]

    first, second = last_logs(llm_env, 2)  # oldest first
    assert first["model"] == second["model"] == "panelbot-dan"
    assert first["conversation_id"] == second["conversation_id"]
    assert ids_of(first) == reference["first"] and ids_of(second) == reference["why"]
    record = second["response_json"]
    assert record["speakers"] == ["dan"] and record["panel"] == "minimax-m3"
    assert record["context"]["kind"] == "reason" and record["context"]["question"] == KV
    assert record["backend"] == "offline" and record["target"] == "dan"
    assert second["input_tokens"] == 1 and second["output_tokens"] > 10  # counted in words


def test_the_panel_model_hands_over_and_follows_up(llm_env) -> None:
    r = run_llm(
        llm_env, "-m", "panelbot-panel", "--no-stream", "Olive, how do you evaluate long runs?"
    )
    assert r.returncode == 0 and r.stdout.startswith("Olive ("), r.stderr
    more = run_llm(llm_env, "-c", "what does Dan think?")
    assert more.returncode == 0, more.stderr
    [entry] = last_logs(llm_env)
    assert entry["response_json"]["context"]["kind"] == "other_panelist"
    assert entry["response_json"]["context"]["previous_speakers"] == ["olive"]


def test_fragments_give_the_quote_and_follow_up_on_it(llm_env) -> None:
    panel = PANEL
    shown = run_llm(llm_env, "fragments", "show", "panelbot:dan-13")
    assert shown.returncode == 0, shown.stderr
    assert panel.quote("dan-13").text in shown.stdout and "[dan-13]" in shown.stdout
    assert shown.stdout.startswith("Dan (VP of Kernels, Together AI), on \u201cAgents at Scale")
    qualified = run_llm(llm_env, "fragments", "show", "panelbot:minimax-m3/dan-13")
    assert qualified.stdout == shown.stdout

    r = run_llm(llm_env, "-m", "panelbot-dan", "-f", "panelbot:dan-13", "why?")
    assert r.returncode == 0, r.stderr
    [entry] = last_logs(llm_env)
    ctx = entry["response_json"]["context"]
    assert ctx is not None and ctx["previous_speakers"] == ["dan"]  # "why?" about the quote
    assert not entry["response_json"]["abstained"]

    bad = run_llm(llm_env, "-m", "panelbot-dan", "-f", "panelbot:dan-999", "why?")
    assert bad.returncode != 0 and "Traceback" not in bad.stderr
    assert "no quote 'dan-999' in the talk 'minimax-m3'" in bad.stderr


def test_errors_are_one_line(llm_env) -> None:
    r = run_llm(llm_env, "-m", "panelbot-dan", "-o", "backend", "openai", KV)
    assert r.returncode != 0 and "Traceback" not in r.stderr
    assert "no model endpoint" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    r = run_llm(llm_env, "-m", "panelbot-dan", "-o", "backend", "nonsense", KV)
    assert r.returncode != 0 and "unknown backend 'nonsense'" in r.stderr
    r = run_llm(llm_env, "-m", "panelbot-dan", "-o", "k", "0", KV)
    assert r.returncode != 0 and "Traceback" not in r.stderr


def test_an_extra_openai_models_entry_keeps_its_id(llm_env) -> None:
    """A user who points panelbot-dan at a running ``panelbot serve`` keeps that set-up."""
    Path(llm_env["LLM_USER_PATH"], "extra-openai-models.yaml").write_text(
        '- model_id: panelbot-dan\n  model_name: dan\n  api_base: "http://127.0.0.1:9/v1"\n'
    )
    r = run_llm(llm_env, "models")
    lines = [line for line in r.stdout.splitlines() if "panelbot-dan" in line]
    assert any(line.startswith("OpenAI Chat: panelbot-dan") for line in lines), lines
    assert not any(line.startswith("panelbot: panelbot-dan ") for line in lines)
    assert any(line.startswith("panelbot: panelbot-olive ") for line in r.stdout.splitlines())


def test_generated_answers_through_a_model(llm_env, fake_model, reference) -> None:
    fake_model.reset()
    fake_model.state.answer = f"We rebuild a distributed file system [{reference['first'][0]}]."
    r = run_llm(
        llm_env,
        "-m",
        "panelbot-dan",
        "-o",
        "base_url",
        fake_model.url("ok"),
        "-o",
        "model",
        "fm",
        KV,
    )
    assert r.returncode == 0, r.stderr
    assert fake_model.state.answer in r.stdout
    assert f"[grounded: cites {reference['first'][0]}" in r.stdout
    [entry] = last_logs(llm_env)
    assert entry["response_json"]["grounded"] is True
    assert entry["response_json"]["backend"] == "openai" and entry["response_json"]["model"] == "fm"
    fake_model.state.stop.set()


# --------------------------------------------------------------------------------------------- the tool


class _ToolCaller(BaseHTTPRequestHandler):
    """A chat-completions model that calls search_quotes once, then answers with what the tool returned."""

    server: Any

    def log_message(self, format: str, *args: Any) -> None:
        return

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        self.server.seen.append(body)
        results = [m for m in body["messages"] if m.get("role") == "tool"]
        if not results:
            args = {"query": "sparse attention", "k": 2, "speaker": "dan"}
            call = {"id": "call_1", "type": "function"}
            call["function"] = {"name": "search_quotes", "arguments": json.dumps(args)}
            message = {"role": "assistant", "content": None, "tool_calls": [call]}
            finish = "tool_calls"
        else:
            message = {"role": "assistant", "content": "From the talk: " + results[-1]["content"]}
            finish = "stop"
        data = json.dumps(
            {
                "id": "x",
                "object": "chat.completion",
                "created": 0,
                "model": "toolcaller",
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
            }
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture
def tool_caller() -> Iterator[Any]:
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _ToolCaller)
    srv.seen = []
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield srv
    srv.shutdown()
    srv.server_close()


def test_search_quotes_tool_for_a_tool_calling_model(llm_env, tool_caller) -> None:
    listed = run_llm(llm_env, "tools", "list")
    assert "search_quotes(query: 'str'" in listed.stdout and "(plugin: panelbot)" in listed.stdout
    port = tool_caller.server_address[1]
    Path(llm_env["LLM_USER_PATH"], "extra-openai-models.yaml").write_text(
        f'- model_id: toolcaller\n  model_name: toolcaller\n  api_base: "http://127.0.0.1:{port}/v1"\n'
        "  supports_tools: true\n"
    )
    r = run_llm(llm_env, "-m", "toolcaller", "-T", "search_quotes", "--no-stream", "sparse?")
    assert r.returncode == 0, r.stderr
    offered = [t["function"]["name"] for t in tool_caller.seen[0]["tools"]]
    assert offered == ["search_quotes"]
    [result] = [m for m in tool_caller.seen[-1]["messages"] if m.get("role") == "tool"]
    quotes = json.loads(result["content"])
    panel = PANEL
    assert len(quotes) == 2 and all(q["speaker"] == "dan" for q in quotes)
    assert all(panel.quote(q["id"]).text == q["text"] for q in quotes)  # verbatim, with real ids
    assert "sparse" in " ".join(q["text"].lower() for q in quotes)
    assert r.stdout.startswith("From the talk: [")


# --------------------------------------------------------------------------------------------- Python API


PYTHON_API = """
import asyncio, json, sys
import llm
model = llm.get_model("panelbot-dan")
conv = model.conversation()
first = conv.prompt(sys.argv[1])
first.text()
why = conv.prompt("why?")

async def in_async():
    conv = llm.get_async_model("panelbot-dan").conversation()
    first = await conv.prompt(sys.argv[1]).text()
    pieces = [p async for p in conv.prompt("why?")]
    return first, await conv.responses[-1].json(), pieces

afirst, awhy, apieces = asyncio.run(in_async())
print(json.dumps({"model": str(model), "first": first.text(), "why": why.json(),
                  "async_first": afirst, "async_why": awhy, "async_pieces": apieces}))
"""


def test_llms_python_api_conversation(llm_env, reference) -> None:
    """llm's Python API, sync and async (in a fresh interpreter: in this one ``llm`` is the tests' own
    package)."""
    r = subprocess.run(
        [sys.executable, "-c", PYTHON_API, KV],
        capture_output=True,
        text=True,
        env=llm_env,
        timeout=180,
    )
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    assert got["model"].startswith("panelbot: panelbot-dan")
    assert all(f"[{i}]" in got["first"] for i in reference["first"])
    assert [q["id"] for q in got["why"]["quotes"]] == reference["why"]
    assert got["why"]["context"]["kind"] == "reason"
    assert got["async_first"] == got["first"] and got["async_why"] == got["why"]  # llm's async API
    assert "".join(got["async_pieces"]).strip()
