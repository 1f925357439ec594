"""`panelbot discuss --llm`: each turn in the panelist's voice through a real OpenAI-compatible server on
127.0.0.1 (the scripted fake), verified against that panelist's quotes; a turn that fails falls back."""

from __future__ import annotations

import io
import json

from panelbot.cli.discuss import voice_discussion
from panelbot.discussion.stage import Discussion, Point, Turn

from .conftest import SECRET, config_for, make_panel
from .fakeserver import DEFAULT_ANSWER, FakeHTTPServer


def staged() -> Discussion:
    panel = make_panel()
    dan1, dan2, olive1, _ = panel.quotes
    return Discussion(
        "memory for agents",
        False,
        "asked of both panelists",
        "Why are long agents hard?",
        "q1",
        (Turn("dan", (dan1, dan2)), Turn("olive", (olive1,))),
        (Point("both", dan1, olive1, 0.95, 0.5),),
    )


def voiced(url: str, json_out: bool = False) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = voice_discussion(
        staged(), config_for(url), make_panel(), json_out=json_out, out=out, err=err, width=100
    )
    for text in (out.getvalue(), err.getvalue()):
        assert SECRET not in text and "Traceback" not in text
    return code, out.getvalue(), err.getvalue()


def test_a_grounded_turn_is_voiced_and_an_ungrounded_one_falls_back(fake: FakeHTTPServer) -> None:
    # the scripted answer cites dan-1: grounded for Dan, not for Olive (it is not her quote)
    code, out, err = voiced(fake.url("ok"))
    assert code == 0 and err == ""
    dan, olive = out.split("Olive (Research lead of RL, MiniMax):")
    assert DEFAULT_ANSWER in dan and "[verified against dan-1]" in dan
    assert DEFAULT_ANSWER not in olive
    assert "[the turn failed verification against their quotes: their own words instead]" in olive
    assert "verifiable rewards" in olive  # olive-1, verbatim
    assert "Both spoke to it: Dan [dan-1] and Olive [olive-1]" in out
    # the second turn was asked to respond, and saw the first in the conversation
    second = fake.state.requests[-1].body
    said = " ".join(str(m.get("content", "")) for m in second["messages"])
    assert "respond to what Dan just said" in said and "KV cache grows" in said


def test_json_names_each_turn_voiced_or_not(fake: FakeHTTPServer) -> None:
    code, out, _ = voiced(fake.url("ok"), json_out=True)
    obj = json.loads(out)
    assert code == 0
    assert [(t["speaker"], t["voiced"]) for t in obj["voiced"]] == [("dan", True), ("olive", False)]
    assert obj["voiced"][0]["citations"] == ["dan-1"]
    assert obj["voiced"][1]["text"].startswith("\u201cRL for agents")
    assert obj["points"][0]["ids"] == ["dan-1", "olive-1"]


def test_a_failing_server_falls_back_to_the_quotes_exit_3(fake: FakeHTTPServer) -> None:
    code, out, err = voiced(fake.url("400"))
    assert code == 3
    assert err.count("panelbot: the model failed:") == 2
    assert "their own words instead" in out and "fuse attention kernels" in out


def test_cli_discuss_llm_on_the_shipped_panel(fake: FakeHTTPServer, isolated_env) -> None:
    """End to end: ``panelbot discuss --llm`` against the server; the scripted answer cites an id that is
    no shipped quote, so both turns fail verification and stand on the panelists' own words."""
    import contextlib

    from panelbot.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["discuss", "--llm", "--base-url", fake.url("ok"), "--json", "open source"])
    obj = json.loads(out.getvalue())
    assert code == 0 and "Traceback" not in err.getvalue()
    assert [t["speaker"] for t in obj["voiced"]] == ["dan", "olive"]
    assert all(not t["voiced"] and "failed verification" in t["fallback"] for t in obj["voiced"])
    assert fake.state.counts == {"ok": 2}  # one completion per turn (and a /v1/models look-up)


def test_ask_llm_stages_a_discussion_request(fake: FakeHTTPServer, isolated_env) -> None:
    """``ask --llm "discuss open source"``: the resolver reads a discussion; the pipeline asks the model
    one turn per panelist (only their quotes), prints the host's lines around them and saves the turn."""
    import contextlib

    from panelbot.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["ask", "--llm", "--base-url", fake.url("ok"), "discuss open source"])
    text = out.getvalue()
    assert "Traceback" not in err.getvalue() and code in (0, 3)
    assert text.startswith("Discussion: open source") and "Where they meet:" in text
    assert fake.state.counts == {"ok": 2}  # one completion per turn
    second = fake.state.requests[-1].body
    said = " ".join(str(m.get("content", "")) for m in second["messages"])
    assert "respond to what Dan just said" in said
    from panelbot import paths
    from panelbot.conversation.store import ConversationStore

    store = ConversationStore(paths.history_db_path())
    try:
        cid = store.last_conversation_id()
        assert cid is not None
        users = [m for m in store.messages(cid) if m.role == "user"]
        assert users[-1].meta["discussion"] == {"subject": "open source"}
    finally:
        store.close()
