"""Against a real OpenAI-compatible server (llama-cpp-python + Gemma 3 270M; see .ci/llm_server.sh).

Runs only when PANELBOT_TEST_LLM_URL is set. Deterministic (temperature 0, fixed seed). The 270M model writes
poor answers and cites badly, so these tests assert the protocol and the verification, never the prose.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from panelbot.answer.backends.base import AnswerRequest, SpeakerDone, TextDelta
from panelbot.answer.backends.openai_compat import OpenAICompatBackend
from panelbot.answer.llm.client import ChatClient, LLMError
from panelbot.answer.llm.prompt import build_messages
from panelbot.answer.llm.verify import verify_answer
from panelbot.panel import Quote

from .conftest import config_for, make_panel, make_route, run, settings

URL = os.environ.get("PANELBOT_TEST_LLM_URL", "")
pytestmark = [
    pytest.mark.llm_server,
    pytest.mark.skipif(not URL, reason="PANELBOT_TEST_LLM_URL not set (see .ci/llm_server.sh)"),
]

PANEL = make_panel()
DAN = PANEL.quotes_by("dan")
QUESTIONS = ["Why are long-running agents hard to serve?", "What do you do about GPU memory?"]


def real(**kw):
    base = dict(
        model="",
        api_key="",
        read_timeout=120.0,
        total_timeout=300.0,
        max_tokens=96,
        temperature=0.0,
        seed=7,
    )
    base.update(kw)
    return settings(URL, **base)


def pieces(question: str, **kw) -> list[str]:
    async def go() -> list[str]:
        client = ChatClient(real(**kw))
        try:
            return [p async for p in client.stream(build_messages(PANEL, "dan", DAN, question))]
        finally:
            await client.aclose()

    return run(go())


def test_streams_and_is_deterministic() -> None:
    first = pieces(QUESTIONS[0])
    assert len(first) > 1 and "".join(first).strip()
    assert pieces(QUESTIONS[0]) == first  # temperature 0 + seed: the same tokens again


def test_non_streamed_request_gives_the_same_answer() -> None:
    assert "".join(pieces(QUESTIONS[0], stream=False)) == "".join(pieces(QUESTIONS[0]))


def test_max_tokens_caps_the_answer_without_error() -> None:
    short = "".join(pieces(QUESTIONS[0], max_tokens=4))
    assert short.strip() and len(short) < len("".join(pieces(QUESTIONS[0])))


def test_wrong_path_is_a_clear_404() -> None:
    with pytest.raises(LLMError) as info:
        run(
            ChatClient(settings(URL.removesuffix("/v1") + "/nope", model="x", api_key="")).complete(
                [{"role": "user", "content": "hi"}]
            )
        )
    assert info.value.kind == "not-found" and "HTTP 404" in str(info.value)


@pytest.mark.parametrize("question", QUESTIONS)
def test_backend_verifies_the_real_answer(question: str) -> None:
    async def go() -> list:
        backend = OpenAICompatBackend(
            config_for(URL, **{**real().__dict__, "base_url": URL}), PANEL
        )
        try:
            return [
                e async for e in backend.answer(AnswerRequest(question, PANEL, make_route(PANEL)))
            ]
        finally:
            await backend.aclose()

    events = run(go())
    done = events[-1]
    assert isinstance(done, SpeakerDone) and done.error is None
    assert "".join(e.text for e in events if isinstance(e, TextDelta)).strip() == done.text
    allowed = {q.id for q in DAN}
    for c in done.citations:
        if c.id.lower() not in allowed:
            assert not c.valid, f"invented id {c.id} passed verification"
    # grounded only when every citation is valid -- and, since the verifier checks each sentence's support,
    # a small model's answer citing valid ids with sentences its quotes do not say is not grounded either
    if done.grounded:
        assert any(c.valid for c in done.citations) and all(c.valid for c in done.citations)
    if not all(c.valid for c in done.citations):
        assert not done.grounded


@pytest.mark.parametrize("question", QUESTIONS)
def test_verifier_catches_ids_the_model_was_not_given(question: str) -> None:
    """Give the model sources under fresh ids, then check its real answer against the *original* ids:
    every id it cites is one the verifier must reject (and it must never call the answer grounded)."""
    renamed = [Quote(f"src-{i}", "dan", q.text) for i, q in enumerate(DAN, 1)]
    text = "".join(p for p in pieces_for(renamed, question))
    v = verify_answer(text, DAN, "Dan")
    assert v.grounded is False
    assert all(not c.valid for c in v.citations)
    # ... and against the sources it was really given, anything but a src-N id is still rejected.
    given = {q.id for q in renamed}
    w = verify_answer(text, renamed, "Dan")
    assert all(not c.valid for c in w.citations if c.id.lower() not in given)


def pieces_for(sources: list[Quote], question: str) -> list[str]:
    async def go() -> list[str]:
        client = ChatClient(real())
        try:
            return [p async for p in client.stream(build_messages(PANEL, "dan", sources, question))]
        finally:
            await client.aclose()

    return run(go())


def test_cli_end_to_end_with_the_real_panel(tmp_path: Path) -> None:
    cfg = tmp_path / "config.yaml"
    cfg.write_text("backend:\n  temperature: 0\n  seed: 7\n  max_tokens: 64\n  read_timeout: 120\n")
    code = "import sys; from panelbot.cli import main; sys.exit(main(sys.argv[1:]))"
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            code,
            "ask",
            "--llm",
            "--config",
            str(cfg),
            "--base-url",
            URL,
            "--json",
            "What makes the KV cache hard for long agents?",
        ],
        cwd=Path(__file__).resolve().parents[2],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PANELBOT_DATA_DIR": str(tmp_path / "data")},
    )
    assert proc.returncode == 0, proc.stderr
    d = json.loads(proc.stdout)
    assert d["error"] is None and d["answer"].strip() and isinstance(d["grounded"], bool)
    given = {q["id"] for q in d["quotes"]}
    assert all(c["valid"] is False for c in d["citations"] if c["id"] not in given)
