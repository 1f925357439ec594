"""`panelbot ask --llm`: streaming text, JSON, exit codes, stderr, fallback, abstention, lazy imports."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

from panelbot.cli.llm import ask_llm
from panelbot.config import Config, RetrievalSettings
from panelbot.retrieval.router import Router

from .conftest import SECRET, config_for, make_panel, make_route
from .fakeserver import DEFAULT_ANSWER, FakeHTTPServer

ROOT = Path(__file__).resolve().parents[2]


class StubRouter(Router):
    """The real router on the test panel (the conversation layer reads messages with it), its answer pinned."""

    def __init__(self, panel, speakers=("dan",), abstained=False) -> None:
        super().__init__(panel, RetrievalSettings())
        self.speakers, self.abstained = speakers, abstained

    def route(self, question: str, target: str = "auto"):
        return make_route(self.panel, self.speakers, question, self.abstained)


def ask(
    config: Config, questions=("Why is memory hard?",), json_out=False, chained=False, **router_kw
):
    panel = make_panel()
    out, err = io.StringIO(), io.StringIO()
    code = ask_llm(
        list(questions),
        json_out=json_out,
        config=config,
        panel=panel,
        router=StubRouter(panel, **router_kw),
        target="auto",
        out=out,
        err=err,
        chained=chained,
    )
    for text in (out.getvalue(), err.getvalue()):
        assert SECRET not in text and "Traceback" not in text
    return code, out.getvalue(), err.getvalue()


def test_streams_a_grounded_answer(fake: FakeHTTPServer) -> None:
    code, out, err = ask(config_for(fake.url("ok")))
    assert code == 0 and err == ""
    assert out.startswith("Dan (VP of Kernels, Together AI):\n  " + DEFAULT_ANSWER + "\n")
    assert (
        "\n[grounded: cites dan-1" in out
    )  # the model's words are indented; panelbot's check is not


def test_json_success(fake: FakeHTTPServer) -> None:
    code, out, err = ask(config_for(fake.url("ok")), json_out=True)
    d = json.loads(out)
    assert code == 0 and err == ""
    assert d["question"] == "Why is memory hard?" and d["speakers"] == ["dan"]
    assert d["answer"] == DEFAULT_ANSWER and d["error"] is None and d["grounded"] is True
    assert d["citations"] == [{"id": "dan-1", "valid": True}]
    assert [q["id"] for q in d["quotes"]] == ["dan-1", "dan-2"]


def test_failure_falls_back_exit_3_with_one_stderr_line(fake: FakeHTTPServer) -> None:
    url = fake.url("401")
    code, out, err = ask(config_for(url), json_out=True)
    d = json.loads(out)
    assert code == 3
    assert d["error"].startswith(url) and "API key" in d["error"] and d["grounded"] is False
    assert d["answer"].startswith("\u201cThe KV cache grows")
    assert err.count("\n") == 1 and url in err and "own words" in err


def test_failure_in_text_mode_shows_the_quotes(fake: FakeHTTPServer) -> None:
    code, out, err = ask(config_for(fake.url("stall-mid"), read_timeout=1.0))
    assert code == 3
    assert "[the model failed:" in out and "stalled mid-answer" in out
    assert "Dan's own words:\n  \u201cThe KV cache grows" in out


def test_ungrounded_answer_is_shown_as_such_then_the_quotes(fake: FakeHTTPServer) -> None:
    fake.state.answer = "I think GPUs are cheap now [dan-77]. Nobody needs memory."
    code, out, _ = ask(config_for(fake.url("ok")))
    assert code == 0
    assert "\n[NOT grounded: invalid citation: dan-77; 0 of 2 sentences supported" in out
    assert out.index("[NOT grounded") < out.index("\u201cThe KV cache grows")
    assert "[cites nothing: \u201cNobody needs memory.\u201d]" in out


def test_abstention_makes_no_model_call(fake: FakeHTTPServer) -> None:
    code, out, _ = ask(config_for(fake.url("ok")), json_out=True, abstained=True)
    d = json.loads(out)
    assert code == 0 and fake.state.requests == []
    assert (
        d["abstained"] is True
        and d["error"] is None
        and "Not something the panel got into" in d["answer"]
    )
    assert d["suggestions"] == ["What did Dan say about kernels?"]


def test_after_a_failure_the_conversation_goes_on(fake: FakeHTTPServer) -> None:
    code, out, err = ask(
        config_for(fake.url("503-once"), max_retries=0),
        questions=["q1", "q2"],
        json_out=True,
        chained=True,
    )  # `ask -c -`: the lines are one conversation
    first, second = (json.loads(line) for line in out.splitlines())
    assert code == 3 and err.count("\n") == 1 and "HTTP 503" in err
    assert first["error"] and first["answer"].startswith("\u201cThe KV cache")
    assert (
        second["error"] is None
        and second["answer"] == DEFAULT_ANSWER
        and second["grounded"] is True
    )
    later = fake.state.requests[1].body["messages"][0]["content"]
    assert "Audience member: q1" in later and "Dan: \u201cThe KV cache" in later


def test_a_verbatim_backend_gets_no_verdict() -> None:
    code, out, _ = ask(Config())  # name "offline": the quotes themselves, nothing to verify
    assert code == 0 and "grounded" not in out and "\u201cThe KV cache grows" in out
    code, out, _ = ask(Config(), json_out=True)
    assert json.loads(out)["grounded"] is None


def test_no_endpoint_answers_with_the_quotes_and_exit_3() -> None:
    # as the README says: the verbatim quotes, one line on stderr saying why, exit 3
    code, out, err = ask(config_for(""))
    assert code == 3 and "\u201cThe KV cache grows" in out and "[dan-" in out
    assert err.count("\n") == 1 and err.startswith("panelbot: no model endpoint configured")
    code, out, err = ask(config_for(""), json_out=True)
    d = json.loads(out)
    assert (
        code == 3
        and d["error"].startswith("no model endpoint configured")
        and "[dan-" in d["answer"]
    )
    code, out, err = ask(
        config_for(""), abstained=True
    )  # a decline needs no model: nothing degraded
    assert code == 0 and err == ""


def test_panel_mode_and_conversation(fake: FakeHTTPServer) -> None:
    code, out, _ = ask(
        config_for(fake.url("ok")),
        questions=["first q", "second q"],
        json_out=True,
        speakers=("dan", "olive"),
        chained=True,
    )
    first, second = (json.loads(line) for line in out.splitlines())
    assert code == 0 and [a["speaker"] for a in first["answers"]] == ["dan", "olive"]
    assert first["answer"].startswith("Dan: ") and "\n\nOlive: " in first["answer"]
    assert first["grounded"] is False  # Olive's answer cites Dan's quote: caught
    later = fake.state.requests[2].body["messages"][0]["content"]
    assert "Audience member: first q" in later and "Olive: " in later


def _run(code: str, **env: str) -> subprocess.CompletedProcess:
    import tempfile

    with (
        tempfile.TemporaryDirectory() as data
    ):  # `ask` saves to the history: never the developer's own
        return subprocess.run(
            [sys.executable, "-c", code],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, "PANELBOT_DATA_DIR": data, **env},
        )


def test_offline_paths_never_import_httpx_or_textual() -> None:
    proc = _run(
        "import sys, io\n"
        "import panelbot.cli.llm, panelbot.answer.backends.registry\n"
        "from panelbot.cli import main\n"
        "assert main(['ask', '--offline', 'what about the kv cache']) == 0\n"
        "assert main(['quote', 'kv cache']) == 0\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "bad = [m for m in ('httpx', 'textual') if m in sys.modules]\n"
        "assert not bad, bad\n"
    )
    assert proc.returncode == 0, proc.stderr


def test_cli_end_to_end_fallback_exit_3(fake: FakeHTTPServer) -> None:
    url = fake.url("500")
    proc = _run(
        "import sys; from panelbot.cli import main; sys.exit(main(sys.argv[1:]))".replace(
            "sys.argv[1:]",
            repr(
                [
                    "ask",
                    "--llm",
                    "--base-url",
                    url,
                    "--model",
                    "m",
                    "--json",
                    "what about the kv cache",
                ]
            ),
        ),
        PANELBOT_API_KEY=SECRET,
    )
    assert proc.returncode == 3, proc.stderr
    d = json.loads(proc.stdout)
    assert d["error"].startswith(url) and "HTTP 500" in d["error"] and d["answer"]
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert SECRET not in proc.stdout + proc.stderr
