"""``panelbot serve`` in front of a real OpenAI-compatible model server (llama-cpp-python + Gemma 3 270M from
.ci/llm_server.sh). Runs only when PANELBOT_TEST_LLM_URL is set; asserts the protocol and the verification,
never the prose (the 270M model writes poor answers)."""

from __future__ import annotations

import os

import openai
import pytest

URL = os.environ.get("PANELBOT_TEST_LLM_URL", "")
pytestmark = [
    pytest.mark.llm_server,
    pytest.mark.skipif(not URL, reason="PANELBOT_TEST_LLM_URL not set (see .ci/llm_server.sh)"),
]


def test_streamed_answer_from_a_real_model_is_verified(start_server, tmp_path) -> None:
    cfg = tmp_path / "config.yaml"
    cfg.write_text(
        "backend:\n  temperature: 0.0\n  seed: 7\n  max_tokens: 64\n  read_timeout: 120\n"
        "  total_timeout: 300\n"
    )
    srv = start_server("--config", str(cfg), "--backend", "openai", "--base-url", URL)
    c = openai.OpenAI(base_url=srv.base_url, api_key="x", max_retries=0, timeout=300)
    q = [{"role": "user", "content": "How do you deal with a KV cache that keeps growing?"}]
    chunks = list(c.chat.completions.create(model="dan", stream=True, messages=q))
    text = "".join(ch.choices[0].delta.content or "" for ch in chunks if ch.choices)
    extra = chunks[-1].model_extra["panelbot"]
    assert text.startswith("Dan (") and extra["backend"] == "openai" and extra["error"] is None
    assert isinstance(extra["grounded"], bool)
    given = {q["id"].lower() for q in extra["quotes"]}
    assert all(
        cit["valid"] == (cit["id"].lower() in given) for cit in extra["citations"]
    )  # ids it was not given: invalid
    again = c.chat.completions.create(model="dan", messages=q)
    # JSON and streamed give the same grounding (same quotes, each citation judged the same way); the prose
    # itself is not compared: llama.cpp's prompt cache makes a second identical request differ at temperature 0
    extra2 = again.model_extra["panelbot"]
    assert again.choices[0].message.content.startswith("Dan (") and extra2["error"] is None
    assert [q["id"] for q in extra2["quotes"]] == [q["id"] for q in extra["quotes"]]
    assert all(cit["valid"] == (cit["id"].lower() in given) for cit in extra2["citations"])
