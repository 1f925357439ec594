"""The command line through a real subprocess (``python -m panelbot``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

QUOTE_KEYS = {
    "id",
    "speaker",
    "text",
    "score",
    "start",
}  # and "url" when the panel has a source_url
TOP_KEYS = {"question", "speakers", "abstained", "quotes", "reason", "conversation", "context"}


def _check_answer(d: dict) -> None:
    if d["abstained"]:
        assert set(d) - TOP_KEYS <= {"suggestions"}
        assert set(d) >= TOP_KEYS
        assert d["speakers"] == [] and d["quotes"] == []
    else:
        assert set(d) == TOP_KEYS
        assert d["speakers"]
    assert isinstance(d["question"], str) and isinstance(d["reason"], str) and d["reason"]
    assert isinstance(d["abstained"], bool)
    for q in d["quotes"]:
        assert set(q) == QUOTE_KEYS
        assert isinstance(q["score"], (int, float)) and 0 <= q["score"] <= 100
        assert q["speaker"] in d["speakers"]
    scores = [q["score"] for q in d["quotes"]]
    assert scores == sorted(scores, reverse=True)


def _ok(r) -> None:
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr


def test_ask_json_schema(run_cli) -> None:
    r = run_cli("ask", "--offline", "--json", "How do you deal with a KV cache that keeps growing?")
    _ok(r)
    d = json.loads(r.stdout)
    _check_answer(d)
    assert d["question"] == "How do you deal with a KV cache that keeps growing?"
    assert d["speakers"] == ["dan"] and not d["abstained"]
    assert 1 <= len(d["quotes"]) <= 3


def test_ask_json_abstains_with_suggestions(run_cli) -> None:
    r = run_cli("ask", "--json", "best pizza in Naples?")
    _ok(r)
    d = json.loads(r.stdout)
    _check_answer(d)
    assert d["abstained"] is True
    assert isinstance(d["suggestions"], list) and d["suggestions"]


def test_ask_human_output(run_cli) -> None:
    r = run_cli("ask", "sparce atention kernals")
    _ok(r)
    assert r.stdout.startswith("Dan (VP of Kernels, Together AI):")
    assert "[dan-" in r.stdout and "\u201c" in r.stdout
    r = run_cli("ask", "how", "do", "I", "make", "strawberry", "jam")  # words joined
    _ok(r)
    assert r.stdout.startswith("Not something the panel got into")
    assert "GPU kernels" in r.stdout and "post-training" in r.stdout  # topics of both panelists
    assert "Try: \u201c" in r.stdout  # and questions that do have an answer
    assert "[dan-" not in r.stdout and "[olive-" not in r.stdout


def test_ask_both_human_output(run_cli) -> None:
    r = run_cli("ask", "ask both: what about open source?")
    _ok(r)
    assert "Dan (" in r.stdout and "Olive (" in r.stdout
    assert "[dan-" in r.stdout and "[olive-" in r.stdout


def test_ask_to_and_k(run_cli) -> None:
    r = run_cli("ask", "--json", "--to", "olive", "-k", "2", "what about open source")
    _ok(r)
    d = json.loads(r.stdout)
    assert d["speakers"] == ["olive"] and len(d["quotes"]) <= 2
    assert all(q["speaker"] == "olive" for q in d["quotes"])
    r = run_cli("ask", "--to", "carol", "open source")
    assert r.returncode == 2 and "--to" in r.stderr and "dan" in r.stderr


def test_ask_stdin_json_lines(run_cli) -> None:
    r = run_cli(
        "ask", "--json", "-", stdin="kv cache\n\n  \nbest pizza in Naples?\n@olive open source\n"
    )
    _ok(r)
    lines = r.stdout.splitlines()
    assert len(lines) == 3
    answers = [json.loads(line) for line in lines]
    for d in answers:
        _check_answer(d)
    assert [d["question"] for d in answers] == [
        "kv cache",
        "best pizza in Naples?",
        "@olive open source",
    ]
    assert [d["abstained"] for d in answers] == [False, True, False]
    assert answers[2]["speakers"] == ["olive"]


def test_ask_stdin_human(run_cli) -> None:
    r = run_cli("ask", "-", stdin="kv cache\nsparse attention\n")
    _ok(r)
    assert "Q: kv cache" in r.stdout and "Q: sparse attention" in r.stdout


def test_quote_json_and_n(run_cli) -> None:
    r = run_cli("quote", "--json", "-n", "2", "sparse attention")
    _ok(r)
    hits = json.loads(r.stdout)
    assert isinstance(hits, list) and len(hits) == 2
    assert all(set(h) == QUOTE_KEYS for h in hits)
    assert hits[0]["score"] >= hits[1]["score"]
    r = run_cli("quote", "--json", "-n", "7", "open source")
    assert len(json.loads(r.stdout)) == 7
    # no abstention in quote: an off-topic word the panel used still finds something
    r = run_cli("quote", "--json", "best")
    _ok(r)
    assert isinstance(json.loads(r.stdout), list)


def test_quote_human_and_speaker(run_cli) -> None:
    r = run_cli("quote", "-n", "3", "--speaker", "olive", "open source")
    _ok(r)
    lines = [ln for ln in r.stdout.splitlines() if ln.strip()]
    assert len(lines) == 3 and all(ln.startswith("[olive-") for ln in lines)
    r = run_cli("quote", "zzzz qqqq")
    _ok(r)
    assert "No quote" in r.stdout


def test_panels(run_cli) -> None:
    r = run_cli("panels")
    _ok(r)
    assert "minimax-m3" in r.stdout and "curated" in r.stdout
    r = run_cli("panels", "--json")
    info = {p["name"]: p for p in json.loads(r.stdout)}
    assert (
        info["minimax-m3"]["panelists"] == ["dan", "olive"] and info["minimax-m3"]["quotes"] >= 30
    )


def test_help_and_version(run_cli) -> None:
    r = run_cli("--help")
    _ok(r)
    for cmd in ("ask", "quote", "panels", "ingest", "eval"):
        assert cmd in r.stdout
    r = run_cli("--version")
    _ok(r)
    assert r.stdout.startswith("panelbot ")


@pytest.mark.parametrize(
    "args, expect",
    [
        (["ask", "--bogus", "x"], "--bogus"),
        (["quote", "-n", "0", "x"], "expected a whole number from 1 to 50"),
        (["quote", "-n", "many", "x"], "expected a whole number"),
        (["ask"], "required"),
        (["frobnicate"], "invalid choice"),
        (["ask", "--offline", "--llm", "x"], "not allowed"),
    ],
)
def test_bad_flags_exit_2(run_cli, args: list[str], expect: str) -> None:
    r = run_cli(*args)
    assert r.returncode == 2
    assert "error" in r.stderr and expect in r.stderr
    assert "--help" in r.stderr  # says where to look for what is expected
    assert "Traceback" not in r.stderr
    assert r.stdout == ""


@pytest.mark.parametrize("question", ["", "   ", "\t"])
def test_empty_question_exit_2(run_cli, question: str) -> None:
    r = run_cli("ask", question)
    assert r.returncode == 2 and "empty" in r.stderr and "Traceback" not in r.stderr
    r = run_cli("quote", question)
    assert r.returncode == 2 and "empty" in r.stderr


def test_unknown_panel_exit_2(run_cli) -> None:
    for args in (
        ["ask", "--panel", "nope", "kv cache"],
        ["quote", "--panel", "nope", "kv"],
        ["eval", "--panel", "nope", "x.yaml"],
    ):
        r = run_cli(*args)
        assert r.returncode == 2
        assert "unknown panel 'nope'" in r.stderr and "minimax-m3" in r.stderr
        assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_control_characters_in_question_do_not_crash_or_echo_escapes(run_cli) -> None:
    r = run_cli("ask", "\x1b[31mkv cache\x1b]52;c;SGk=\x07 \u202e")
    _ok(r)
    assert "\x1b" not in r.stdout and "\u202e" not in r.stdout


def test_nothing_written_outside_the_data_dir(run_cli, tmp_path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = {
        "HOME": str(home),
        "XDG_DATA_HOME": str(home / ".local/share"),
        "XDG_CONFIG_HOME": str(home / ".config"),
    }
    for args in (["ask", "kv cache"], ["quote", "kv"], ["panels"], ["history"]):
        _ok(run_cli(*args, env=env))
    assert list(home.rglob("*")) == []


def test_history_lists_titles_without_terminal_escapes(run_cli, isolated_env) -> None:
    from panelbot.conversation.store import ConversationStore

    data = Path(isolated_env["PANELBOT_DATA_DIR"])
    data.mkdir(parents=True, exist_ok=True)
    store = ConversationStore(data / "history.sqlite3")
    store.new_conversation("minimax-m3", "kv \x1b[2Jcache\x1b]52;c;aGk=\x07 question")
    store.close()
    res = run_cli("history")
    assert res.returncode == 0, res.stderr
    assert "\x1b" not in res.stdout and "\x07" not in res.stdout
    assert "kv cache question" in res.stdout


@pytest.mark.parametrize(
    "args", [("ask", "--panel", "", "hi"), ("--panel=", "panels"), ("quote", "--panel", " ", "kv")]
)
def test_an_empty_panel_is_a_usage_error_not_the_default_panel(run_cli, args) -> None:
    r = run_cli(*args)
    assert r.returncode == 2 and r.stdout == "" and "Traceback" not in r.stderr
    assert r.stderr.count("\n") == 1 and "--panel: expected a panel name or directory" in r.stderr
