"""Conversations from the shell, through the real executable on a real SQLite file in a tmp dir:
``ask -c``, ``--cid``, ``--no-log``, ``ask -c -``, ``history show/search/rename/rm``."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

KV = "How do you deal with a KV cache that keeps growing?"


def _json(r) -> dict | list:
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    return json.loads(r.stdout)


def _db(env: dict[str, str]) -> Path:
    return Path(env["PANELBOT_DATA_DIR"]) / "history.sqlite3"


def test_ask_logs_and_continue_follows_up(run_cli, isolated_env) -> None:
    first = _json(run_cli("ask", "--json", KV))
    assert first["speakers"] == ["dan"] and first["context"] is None
    cid = first["conversation"]
    assert isinstance(cid, int) and _db(isolated_env).is_file()

    more = _json(run_cli("ask", "-c", "--json", "tell me more"))
    assert more["conversation"] == cid
    assert more["speakers"] == ["dan"] and not more["abstained"]
    assert more["context"]["kind"] == "continuation" and more["context"]["speaker"] == "dan"
    assert not {q["id"] for q in more["quotes"]} & {q["id"] for q in first["quotes"]}
    assert more["reason"].startswith("follow-up to your question about")

    other = _json(run_cli("ask", "--continue", "--json", "what does Olive think?"))
    assert other["abstained"] and other["quotes"] == [] and "Dan did" in other["reason"]

    # without -c a follow-up is asked on its own, in a conversation of its own
    alone = _json(run_cli("ask", "--json", "tell me more"))
    assert alone["abstained"] and alone["context"] is None and alone["conversation"] != cid

    listed = _json(run_cli("history", "--json"))
    assert [c["id"] for c in listed] == [alone["conversation"], cid]
    assert listed[1]["messages"] == 6 and listed[1]["source"] == "cli"
    # the rows are really in the SQLite file
    with sqlite3.connect(_db(isolated_env)) as db:
        roles = [
            r[0]
            for r in db.execute(
                "SELECT role FROM messages WHERE conversation_id = ? ORDER BY id", (cid,)
            )
        ]
    assert roles == ["user", "assistant", "user", "assistant", "user", "decline"]


def test_cid_continues_a_given_conversation(run_cli) -> None:
    a = _json(run_cli("ask", "--json", KV))["conversation"]
    b = _json(run_cli("ask", "--json", "How do you evaluate long-horizon runs?"))["conversation"]
    r = _json(run_cli("ask", "--cid", str(a), "--json", "why?"))
    assert r["conversation"] == a and r["speakers"] == ["dan"] and r["context"]["kind"] == "reason"
    r = _json(run_cli("ask", "--cid", str(b), "--json", "go on"))
    assert r["conversation"] == b and r["speakers"] == ["olive"]

    bad = run_cli("ask", "--cid", "999", "why?")
    assert (
        bad.returncode == 2 and bad.stderr.count("\n") == 1 and "no conversation 999" in bad.stderr
    )
    bad = run_cli("ask", "--cid", "x", "why?")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    both = run_cli("ask", "-c", "--cid", "1", "why?")
    assert both.returncode == 2


def test_no_log_writes_nothing(run_cli, isolated_env) -> None:
    r = _json(run_cli("ask", "--no-log", "--json", KV))
    assert r["conversation"] is None and not _db(isolated_env).exists()
    cid = _json(run_cli("ask", "--json", KV))["conversation"]
    r = _json(run_cli("ask", "-c", "--no-log", "--json", "tell me more"))
    assert r["speakers"] == ["dan"] and r["context"]["kind"] == "continuation"  # read, not written
    (conv,) = _json(run_cli("history", "--json"))
    assert conv["id"] == cid and conv["messages"] == 2


def test_config_can_turn_cli_logging_off(run_cli, isolated_env, tmp_path) -> None:
    cfg = tmp_path / "quiet.yaml"
    cfg.write_text("history:\n  log_cli: false\n", encoding="utf-8")
    r = _json(run_cli("ask", "--config", str(cfg), "--json", KV))
    assert r["conversation"] is None and not _db(isolated_env).exists()
    bad = tmp_path / "bad.yaml"
    bad.write_text("history:\n  log_cli: sometimes\n", encoding="utf-8")
    r = run_cli("ask", "--config", str(bad), KV)
    assert r.returncode == 2 and "history.log_cli must be true or false" in r.stderr


def test_stdin_lines_alone_or_as_one_conversation(run_cli) -> None:
    lines = f"{KV}\ntell me more\n"
    alone = [json.loads(x) for x in run_cli("ask", "--json", "-", stdin=lines).stdout.splitlines()]
    assert alone[1]["abstained"] and alone[1]["context"] is None
    assert alone[0]["conversation"] != alone[1]["conversation"]

    chained = [
        json.loads(x) for x in run_cli("ask", "-c", "--json", "-", stdin=lines).stdout.splitlines()
    ]
    assert chained[1]["speakers"] == ["dan"] and chained[1]["context"]["kind"] == "continuation"
    assert chained[0]["conversation"] == chained[1]["conversation"]


def test_a_stdin_line_following_up_on_its_own_says_how_to_chain_the_lines(run_cli) -> None:
    # "and the other one?" on the line after "who is Dan?": the answer ("nothing to follow up on yet") is
    # right for a line of its own, and one note says how to make the lines one conversation
    lines = "Who is Dan?\nand the other one?\ntell me more\n"
    alone = run_cli("ask", "-", stdin=lines)
    assert alone.returncode == 0, alone.stderr
    assert alone.stderr.count("ask -c -") == 1  # once, not per line
    assert "Traceback" not in alone.stderr
    chained = run_cli("ask", "-c", "-", stdin=lines)
    assert chained.returncode == 0 and "ask -c -" not in chained.stderr
    assert "Olive" in chained.stdout.split("Q: and the other one?")[1].split("Q: tell me more")[0]
    single = run_cli("ask", "-", stdin="Who is Dan?\nWho is Olive?\n")
    assert single.returncode == 0 and single.stderr == ""  # nothing to say when no line follows up


def test_history_show_search_rename_rm(run_cli) -> None:
    cid = _json(run_cli("ask", "--json", KV))["conversation"]
    run_cli("ask", "-c", "tell me more")

    shown = _json(run_cli("history", "show", str(cid), "--json"))
    assert shown["id"] == cid and shown["title"] == KV
    assert [m["role"] for m in shown["messages"]] == ["user", "assistant", "user", "assistant"]
    assert shown["messages"][2]["meta"]["context"]["kind"] == "continuation"
    assert shown["messages"][1]["quote_ids"]
    text = run_cli("history", "show", str(cid))
    assert text.returncode == 0 and "You: tell me more" in text.stdout and "Dan:" in text.stdout

    hits = _json(run_cli("history", "search", "--json", "distributed", "file", "system"))
    assert hits and all(h["conversation_id"] == cid for h in hits)
    assert any(h["role"] == "assistant" and "[distributed]" in h["snippet"] for h in hits)
    assert _json(run_cli("history", "search", "--json", "sourdough")) == []
    # FTS5 syntax in the words is searched as words, never an error
    for odd in ('kv "cache', "AND OR NEAR(", "*", "cache:"):
        r = run_cli("history", "search", odd)
        assert r.returncode in (0, 2) and "Traceback" not in r.stderr, odd

    renamed = _json(run_cli("history", "rename", str(cid), "KV", "cache", "--json"))
    assert renamed["title"] == "KV cache"
    assert _json(run_cli("history", "--json"))[0]["title"] == "KV cache"

    gone = _json(run_cli("history", "rm", str(cid), "--json"))
    assert gone == {"deleted": cid, "title": "KV cache"}
    assert _json(run_cli("history", "--json")) == []
    assert _json(run_cli("history", "search", "--json", "cache")) == []  # the index forgot it too
    for args in (("show", str(cid)), ("rm", str(cid)), ("rename", str(cid), "x")):
        r = run_cli("history", *args)
        assert (
            r.returncode == 2 and r.stderr.count("\n") == 1 and f"no conversation {cid}" in r.stderr
        )


def test_continue_reopens_a_panel_given_by_path(run_cli, tmp_path) -> None:
    """``ask --panel DIR`` on a panel that is not installed, then ``ask -c`` without --panel: the follow-up
    is answered on that panel (its directory is kept with the conversation), not refused as unknown."""
    import shutil

    talk = tmp_path / "elsewhere" / "my-talk"
    shutil.copytree(Path(__file__).resolve().parents[1] / "persona_data" / "minimax-m3", talk)
    own = {
        "PANELBOT_CACHE_DIR": str(tmp_path / "own-cache")
    }  # which saved indexes a command made: its own
    first = _json(run_cli("ask", "--json", "--panel", str(talk), KV, env=own))
    more = run_cli("ask", "-c", "--json", "tell me more", env=own)
    assert more.returncode == 0, more.stderr
    more_d = json.loads(more.stdout)
    assert (
        more_d["conversation"] == first["conversation"]
        and more_d["context"]["kind"] == "continuation"
    )
    listed = _json(run_cli("history", "--json"))
    assert listed[0]["panel"] == "my-talk"
    # the follow-up opened only the conversation's panel, never the default one first (its index could need
    # building, with a note about another panel than the one answering)
    cached = _json(run_cli("cache", "info", "--json", env=own))
    assert "minimax-m3" not in json.dumps(cached), cached

    # the directory gone: one clear line saying how to continue, exit 2
    shutil.rmtree(talk)
    gone = run_cli("ask", "-c", "why?")
    assert gone.returncode == 2 and "Traceback" not in gone.stderr
    assert gone.stderr.count("\n") == 1 and "'my-talk', which is not installed" in gone.stderr
    assert "--panel" in gone.stderr
