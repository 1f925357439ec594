"""A discussion request sent to ``panelbot serve`` (a real server on 127.0.0.1, the official ``openai``
SDK): the pipeline stages it as it does for ``ask`` and the app -- the host's lines, each panelist's quotes,
where they meet -- and a follow-up in the request's conversation is read against it."""

from __future__ import annotations

import re

import openai

KV = "How do you deal with a KV cache that keeps growing?"


def client(srv) -> openai.OpenAI:  # noqa: ANN001
    return openai.OpenAI(base_url=srv.base_url, api_key="unused", max_retries=0, timeout=60)


def test_a_discussion_request_is_staged(offline_server) -> None:  # noqa: ANN001
    r = client(offline_server).chat.completions.create(
        model="panel", messages=[{"role": "user", "content": "discuss open source"}]
    )
    text = r.choices[0].message.content
    extra = r.model_extra["panelbot"]
    assert text.startswith("Discussion: open source")
    assert "Dan (VP of Kernels, Together AI):" in text and "Olive (" in text
    assert re.search(r"Dan \[dan-\d+\] and Olive \[olive-\d+\]", text)  # a measured point
    assert extra["speakers"] == ["dan", "olive"]


def test_an_ordinary_question_is_answered_as_ever(offline_server) -> None:  # noqa: ANN001
    r = client(offline_server).chat.completions.create(
        model="panel", messages=[{"role": "user", "content": KV}]
    )
    text = r.choices[0].message.content
    assert text.startswith("Dan (VP of Kernels, Together AI):") and "Discussion:" not in text


def test_a_follow_up_in_the_request_reads_the_discussion(offline_server) -> None:  # noqa: ANN001
    c = client(offline_server)
    first = c.chat.completions.create(
        model="panel", messages=[{"role": "user", "content": "discuss open source"}]
    )
    r = c.chat.completions.create(
        model="panel",
        messages=[
            {"role": "user", "content": "discuss open source"},
            {"role": "assistant", "content": first.choices[0].message.content},
            {"role": "user", "content": "why do they disagree?"},
        ],
    )
    assert "No difference is measured on this" in r.choices[0].message.content
