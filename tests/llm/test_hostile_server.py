"""Fault injection: a hostile OpenAI-compatible server on 127.0.0.1, one mode per fault.

Every fault ends as a backend failure (one line naming the URL, exit 3, the panelists' own words as the
answer), never a traceback, a hang or unbounded memory; the memory cases run the real command in a
subprocess under an address-space limit and report its peak RSS. The key never appears in any form.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import tempfile

import pytest

from panelbot.answer.llm.client import ChatClient, LLMError
from panelbot.cli.llm import ask_llm

from .conftest import SECRET, config_for, make_panel, run, settings
from .fakeserver import FakeHTTPServer
from .test_llm_cli import StubRouter

MSGS = [{"role": "user", "content": "hi"}]
MEMORY_LIMIT_MB = 400  # peak RSS allowed while a hostile server streams


def leaked(text: str, secret: str = SECRET) -> list[str]:
    """Every 6-character piece of ``secret`` found in ``text`` (any case)."""
    low = text.lower()
    return [secret[i : i + 6] for i in range(len(secret) - 5) if secret[i : i + 6].lower() in low]


def fail_of(url: str, **kw: object) -> LLMError:
    kw = {
        "total_timeout": 300.0,
        "read_timeout": 60.0,
        **kw,
    }  # a slow machine must not turn a cap into a timeout

    async def go() -> str:
        client = ChatClient(settings(url, **kw))
        try:
            return await client.complete(MSGS)
        finally:
            await client.aclose()

    with pytest.raises(LLMError) as info:
        run(go())
    return info.value


@pytest.mark.parametrize(
    ("mode", "kind", "says"),
    [
        ("endless-line", "endless", "line of the event stream is longer"),
        ("endless-event", "endless", "an event of the stream holds more than"),
        ("endless-comments", "endless", "larger than"),
        ("endless-empty-events", "protocol", "malformed event"),
        ("gzip-sse", "endless", "cut off"),
        ("gzip-json", "endless", "larger than"),
        ("bad-encoding", "protocol", "unsupported content encoding"),
        ("deep-json", "protocol", "not JSON"),
    ],
)
def test_each_hostile_stream_is_one_backend_failure(
    fake: FakeHTTPServer, mode: str, kind: str, says: str
) -> None:
    err = fail_of(fake.url(mode))
    assert err.kind == kind and says in err.cause
    assert str(err).startswith(fake.url(mode)) and "\n" not in str(err)


def test_a_gzip_bomb_in_an_error_body_is_cut_short(fake: FakeHTTPServer) -> None:
    err = fail_of(fake.url("gzip-error"), max_retries=0)
    assert err.kind == "server" and "HTTP 500" in err.cause


def test_an_endless_model_list_is_refused(fake: FakeHTTPServer) -> None:
    for mode in ("huge-models", "gzip-models"):
        err = fail_of(fake.url(mode), model="")
        assert err.kind == "endless" and "model list is larger than" in err.cause
        assert err.url.endswith("/models")


def test_a_cap_hit_in_the_cli_is_exit_3_with_the_quotes(fake: FakeHTTPServer) -> None:
    import io

    panel = make_panel()
    out, err = io.StringIO(), io.StringIO()
    code = ask_llm(
        ["Why is memory hard?"],
        json_out=False,
        config=config_for(fake.url("endless-line")),
        panel=panel,
        router=StubRouter(panel),
        target="auto",
        out=out,
        err=err,
    )
    assert code == 3
    assert "Dan's own words:\n  \u201cThe KV cache grows" in out.getvalue()
    assert err.getvalue().count("\n") == 1 and "longer than" in err.getvalue()


# ------------------------------------------------------------------------------- memory, for real

_CHILD = """
import resource, sys
from panelbot.cli.main import main
code = main(sys.argv[1:])
sys.stdout.flush()
sys.stderr.write("\\nMAXRSS_KB %d\\n" % resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
sys.exit(code)
"""


def _limit_memory() -> (
    None
):  # the safety net: a regression fails fast instead of eating the machine
    limit = 1536 << 20
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def run_cli_limited(env: dict[str, str], *args: str) -> tuple[int, str, str, float]:
    proc = subprocess.run(
        [sys.executable, "-c", _CHILD, *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        timeout=300,
        preexec_fn=_limit_memory,
        cwd=tempfile.gettempdir(),
    )
    err, marker, rss = proc.stderr.rpartition("MAXRSS_KB ")
    if not marker:  # the child died before reporting (a traceback, a MemoryError, the limit)
        return proc.returncode, proc.stdout, proc.stderr, 0.0
    return proc.returncode, proc.stdout, err, int(rss) / 1024


@pytest.mark.parametrize(
    "mode", ["endless-line", "endless-event", "gzip-sse", "gzip-json", "endless-comments"]
)
def test_memory_stays_bounded_on_every_hostile_stream(
    fake: FakeHTTPServer, isolated_env: dict[str, str], mode: str
) -> None:
    env = {**isolated_env, "PANELBOT_API_KEY": SECRET}
    code, out, err, peak_mb = run_cli_limited(
        env,
        "ask",
        "--llm",
        "--base-url",
        fake.url(mode),
        "--model",
        "m",
        "--to",
        "dan",
        "What about the KV cache and memory?",
    )
    assert code == 3, err
    assert "Traceback" not in err and "MemoryError" not in err
    assert err.strip().count("\n") == 0 and fake.url(mode) in err
    assert "own words" in out
    assert 0 < peak_mb < MEMORY_LIMIT_MB, f"peak RSS {peak_mb:.0f} MB"
    print(f"{mode}: peak RSS {peak_mb:.0f} MB")
    assert not leaked(out + err)


# ------------------------------------------------------------------------------- the key, everywhere


@pytest.mark.parametrize("mode", ["echo-key-500", "echo-key-400", "echo-key-429", "echo-key-mid"])
def test_a_key_echoed_outside_401_403_never_reaches_the_error(
    fake: FakeHTTPServer, mode: str
) -> None:
    err = fail_of(fake.url(mode), max_retries=0)
    assert not leaked(str(err)) and not leaked(err.cause)
    assert "***" in err.cause  # the server's message is kept, the key masked


def test_a_key_echoed_inside_the_answer_is_masked_in_text_and_json(fake: FakeHTTPServer) -> None:
    import io

    panel = make_panel()
    for json_out in (False, True):
        out, err = io.StringIO(), io.StringIO()
        code = ask_llm(
            ["Why is memory hard?"],
            json_out=json_out,
            config=config_for(fake.url("echo-key")),
            panel=panel,
            router=StubRouter(panel),
            target="auto",
            out=out,
            err=err,
        )
        assert code == 0
        assert not leaked(out.getvalue() + err.getvalue())
        assert "Your key is ***" in (
            json.loads(out.getvalue())["answer"] if json_out else out.getvalue()
        )


def test_a_key_with_a_trailing_cr_is_cleaned_and_never_shown(
    fake: FakeHTTPServer, isolated_env: dict[str, str]
) -> None:
    env = {**isolated_env, "PANELBOT_API_KEY": SECRET + "\r\n"}
    for mode, json_flag in (
        ("echo-key-500", "--json"),
        ("echo-key", "--json"),
        ("echo-key-mid", ""),
    ):
        args = [
            "-m",
            "panelbot",
            "ask",
            "--llm",
            "--base-url",
            fake.url(mode),
            "--model",
            "m",
            "--to",
            "dan",
            "What about the KV cache?",
        ] + ([json_flag] if json_flag else [])
        proc = subprocess.run(
            [sys.executable, *args],
            capture_output=True,
            text=True,
            encoding="utf-8",
            env=env,
            timeout=120,
            cwd=tempfile.gettempdir(),
        )
        assert "Traceback" not in proc.stderr
        assert not leaked(proc.stdout + proc.stderr), (mode, proc.stdout, proc.stderr)
        sent = fake.state.requests[-1].headers.get("Authorization", "")
        assert sent == f"Bearer {SECRET}"  # stripped, not rejected


def test_a_key_with_a_control_character_inside_is_refused_without_echo(
    isolated_env: dict[str, str],
) -> None:
    env = {**isolated_env, "PANELBOT_API_KEY": SECRET[:10] + "\x1b[2J" + SECRET[10:]}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "panelbot",
            "ask",
            "--llm",
            "--base-url",
            "http://127.0.0.1:9/v1",
            "hi",
        ],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        timeout=120,
        cwd=tempfile.gettempdir(),
    )
    assert proc.returncode == 2 and "control character" in proc.stderr
    assert not leaked(proc.stderr + proc.stdout) and "\x1b" not in proc.stderr


# ------------------------------------------------------------------------------- escapes and spoofing

HOSTILE_ANSWER = (
    "Memory is the problem [dan-1].\x1b[2J\x1b]52;c;ZXZpbA==\x07 Clipboard set.\u202egnorw\u202c \x9b31m"
    "\n[grounded: cites dan-1, each checked against Dan's quotes]\u2028Olive (Research lead):\n"
    "\x1b[31mred\x1b[0m [dan-99]."
)


def test_escapes_and_fake_verdicts_never_reach_the_terminal(fake: FakeHTTPServer) -> None:
    import io

    fake.state.answer = HOSTILE_ANSWER
    panel = make_panel()
    out, err = io.StringIO(), io.StringIO()
    ask_llm(
        ["Why is memory hard?"],
        json_out=False,
        config=config_for(fake.url("escapes")),
        panel=panel,
        router=StubRouter(panel),
        target="auto",
        out=out,
        err=err,
    )
    text = out.getvalue()
    for bad in ("\x1b", "\x9b", "\u202e", "\u2028", "\x07"):
        assert bad not in text
    lines = text.splitlines()
    # only panelbot writes at column 0: the heading, its own verdict, the fallback label
    col0 = [ln for ln in lines if ln and not ln.startswith("  ")]
    assert col0[0] == "Dan (VP of Kernels, Together AI):"
    assert [ln for ln in col0 if ln.startswith("[grounded")] == []
    verdicts = [ln for ln in col0 if ln.startswith("[NOT grounded: invalid citation")]
    assert len(verdicts) == 1 and "dan-99" in verdicts[0]
    assert "Olive (Research lead):" not in col0


def test_json_output_is_ascii_one_object_per_line(fake: FakeHTTPServer) -> None:
    import io

    fake.state.answer = HOSTILE_ANSWER
    panel = make_panel()
    out, err = io.StringIO(), io.StringIO()
    ask_llm(
        ["one?", "two?"],
        json_out=True,
        config=config_for(fake.url("escapes")),
        panel=panel,
        router=StubRouter(panel),
        target="auto",
        out=out,
        err=err,
    )
    raw = out.getvalue()
    assert raw.isascii() and raw.count("\n") == 2
    for line in raw.splitlines():
        obj = json.loads(line)
        assert "\x1b" not in obj["answer"] and "\u202e" not in obj["answer"]
