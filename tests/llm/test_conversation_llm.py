"""`ask --llm -c`: follow-ups reach the model with the resolved subject's quotes and the conversation so far;
follow-ups the panel cannot answer are declined without a model call (real HTTP fake server, shipped panel)."""

from __future__ import annotations

import io
import json
from pathlib import Path

from panelbot.cli.llm import ask_llm
from panelbot.conversation.session import ConversationLog
from panelbot.conversation.store import ConversationStore
from panelbot.panel import load_panel
from panelbot.retrieval.router import Router

from .conftest import config_for
from .fakeserver import FakeHTTPServer

KV = "How do you deal with a KV cache that keeps growing?"


def _prompt(request) -> str:
    return "\n".join(str(m.get("content", "")) for m in request.body["messages"])


def test_follow_ups_reach_the_model_with_quotes_and_off_topic_ones_do_not(
    fake: FakeHTTPServer, tmp_path: Path
) -> None:
    fake.state.answer = "It is a distributed file system problem [dan-22]."
    panel = load_panel("minimax-m3")
    store = ConversationStore(tmp_path / "h.sqlite3")
    conv = ConversationLog(store, None, panel.name)
    out, err = io.StringIO(), io.StringIO()
    questions = [
        KV,
        "tell me more",
        "what does Olive think?",
        "cool, unrelated: any good hiking trails near Denver?",
        "anything else?",
    ]
    code = ask_llm(
        questions,
        json_out=True,
        config=config_for(fake.url("ok")),
        panel=panel,
        router=Router(panel),
        target="auto",
        out=out,
        err=err,
        conversation=conv,
        chained=True,
    )
    assert code == 0, err.getvalue()
    first, more, olive, hiking, why = (json.loads(line) for line in out.getvalue().splitlines())

    # only the two answerable turns called the model, each with quotes; "anything else?" after everything Dan said of
    # the KV cache was shown says so without a model call
    assert [d["abstained"] for d in (first, more, olive, hiking, why)] == [
        False,
        False,
        True,
        True,
        True,
    ]
    assert len(fake.state.requests) == 2
    assert more["context"]["kind"] == "continuation" and more["speakers"] == ["dan"]
    new_ids = [q["id"] for q in more["quotes"]]
    assert new_ids and not set(new_ids) & {q["id"] for q in first["quotes"]}
    second = _prompt(fake.state.requests[1])
    assert all(qid in second for qid in new_ids)  # the model gets the follow-up's quotes...
    assert KV in second  # ... and the conversation so far
    assert (
        olive["answer"]
        and "Dan did" in olive["answer"]
        and olive["context"]["kind"] == "other_panelist"
    )
    assert hiking["context"] is None and "Not something the panel got into" in hiking["answer"]
    assert why["context"]["kind"] == "continuation"  # the declined turns did not move the subject
    assert why["context"]["question"] == KV and "nothing more" in why["answer"]

    assert {d["conversation"] for d in (first, more, olive, hiking, why)} == {conv.conversation_id}
    roles = [m.role for m in store.messages(conv.conversation_id)]
    assert roles == [
        "user",
        "assistant",
        "user",
        "assistant",
        "user",
        "decline",
        "user",
        "decline",
        "user",
        "decline",
    ]
    store.close()


def test_without_continue_each_question_stands_alone(fake: FakeHTTPServer) -> None:
    panel = load_panel("minimax-m3")
    out, err = io.StringIO(), io.StringIO()
    code = ask_llm(
        [KV, "tell me more"],
        json_out=True,
        config=config_for(fake.url("ok")),
        panel=panel,
        router=Router(panel),
        target="auto",
        out=out,
        err=err,
    )
    first, alone = (json.loads(line) for line in out.getvalue().splitlines())
    assert code == 0 and not first["abstained"]
    assert alone["abstained"] and alone["context"] is None and len(fake.state.requests) == 1
