"""What a first-time user met on the command line, through the real executable (``python -m panelbot``):
flags that cannot go together, an empty stdin, where a bad flag's hint points, the no-model exit status and
layout, and the order of the "Watch:" links."""

from __future__ import annotations

import json
import re
import socket
from pathlib import Path

import pytest


def _one_usage_line(proc, prefix: str = "panelbot: error: ") -> str:  # noqa: ANN001
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr
    assert proc.stderr.startswith(prefix), proc.stderr
    return proc.stderr


@pytest.mark.parametrize(
    ("flags", "shown"), [(["-c"], "-c"), (["--continue"], "-c"), (["--cid", "1"], "--cid")]
)
def test_ask_all_refuses_to_continue_a_conversation(flags: list[str], shown: str, run_cli) -> None:  # noqa: ANN001
    r = run_cli("ask", "--all", *flags, "tell me more")
    err = _one_usage_line(r)
    assert r.stdout == ""
    assert f"--panel NAME {shown}" in err  # says what to do instead


def test_ask_all_without_continue_still_answers(run_cli) -> None:  # noqa: ANN001
    r = run_cli("ask", "--all", "How do you deal with a KV cache that keeps growing?")
    assert r.returncode == 0, r.stderr
    assert "[dan-" in r.stdout


@pytest.mark.parametrize("stdin", ["", "\n  \n\t\n"])
def test_ask_dash_with_no_question_on_stdin_is_a_usage_error(stdin: str, run_cli) -> None:  # noqa: ANN001
    for extra in ([], ["--all"], ["--json"]):
        r = run_cli("ask", *extra, "-", stdin=stdin)
        assert "no question on stdin" in _one_usage_line(r)
        assert r.stdout == ""


def test_ask_dash_still_reads_questions(run_cli) -> None:  # noqa: ANN001
    r = run_cli("ask", "-", stdin="\nsparse attention kernels?\n")
    assert r.returncode == 0, r.stderr
    assert "[dan-" in r.stdout


@pytest.mark.parametrize(
    ("argv", "hint"),
    [
        (["ask", "--bogus", "x"], "panelbot ask --help"),
        (["quote", "kv", "--bogus"], "panelbot quote --help"),
        (["history", "search", "kv", "--bogus"], "panelbot history search --help"),
        (["history", "--bogus"], "panelbot history --help"),
        (["--bogus"], "'panelbot --help'"),
    ],
)
def test_an_unknown_flag_points_at_the_commands_help(argv: list[str], hint: str, run_cli) -> None:  # noqa: ANN001
    r = run_cli(*argv)
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert "--bogus" in r.stderr and hint in r.stderr
    if argv[0] != "--bogus":
        assert "(try 'panelbot --help')" not in r.stderr


def _refused_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed again: nothing listens there


QUESTION = "How do you deal with a KV cache that keeps growing?"


def test_no_model_is_exit_3_and_laid_out_like_ask(run_cli) -> None:  # noqa: ANN001
    env = {"COLUMNS": "80"}
    plain = run_cli("ask", QUESTION, env=env)
    assert plain.returncode == 0
    no_endpoint = run_cli("ask", "--llm", QUESTION, env=env)
    refused = run_cli(
        "ask", "--llm", "--base-url", f"http://127.0.0.1:{_refused_port()}/v1", QUESTION, env=env
    )
    for r in (no_endpoint, refused):
        assert r.returncode == 3, (r.stdout, r.stderr)
        assert "answered with the panelists' own words" in r.stderr and "Traceback" not in r.stderr
        quoted = [line for line in r.stdout.splitlines() if line.startswith("  ")]
        assert len(quoted) > 2 and max(len(line) for line in quoted) <= 80, r.stdout
    # the stand-in answer is the plain answer's quotes, wrapped the same way
    plain_quotes = [line for line in plain.stdout.splitlines() if line.startswith("  ")]
    assert [
        line for line in no_endpoint.stdout.splitlines() if line.startswith("  ")
    ] == plain_quotes


def test_readme_exit_table_says_no_model_is_3() -> None:
    root = Path(__file__).resolve().parent.parent
    for page in (
        root / "README.md",
        root / "docs" / "reference.md",
    ):  # the first conversation, the reference
        tables = [
            p
            for p in page.read_text(encoding="utf-8").split("\n\n")
            if "Exit status: 0 answered" in p
        ]
        assert tables, page
        for table in tables:
            assert re.search(r"\b3 no model (?:was )?used", table), table


def test_watch_links_follow_the_order_the_quotes_are_shown(
    tmp_path: Path, fixtures_dir: Path, run_cli
) -> None:  # noqa: ANN001
    panel = tmp_path / "bread"
    r = run_cli(
        "ingest",
        str(fixtures_dir / "bread_panel.vtt"),
        "--out",
        str(panel),
        "--url",
        "https://www.youtube.com/watch?v=abc",
    )
    assert r.returncode == 0, r.stderr
    differs = 0
    for question in (
        "Does the wheat variety change the flavour of bread?",
        "What went wrong when the bakery switched to spelt flour?",
        "Why don't more farmers grow heritage grains like einkorn?",
    ):
        r = run_cli("ask", "--panel", str(panel), "--to", "both", question)
        assert r.returncode == 0, r.stderr
        answer, _, watch = r.stdout.partition("Watch:\n")
        shown = list(dict.fromkeys(re.findall(r"\[([a-z]+-\d+)\]", answer)))
        linked = re.findall(r"^  \[([a-z]+-\d+)\] \d+:\d\d  https://", watch, flags=re.M)
        assert shown and linked == shown, (shown, linked)
        by_score = [
            q["id"]
            for q in json.loads(
                run_cli("ask", "--panel", str(panel), "--to", "both", "--json", question).stdout
            )["quotes"]
        ]
        assert sorted(by_score) == sorted(shown)
        differs += by_score != shown
    assert differs  # the case the user met: score order is not the order on screen


def test_history_search_rows_are_one_per_message_with_whole_word_titles(run_cli) -> None:  # noqa: ANN001
    long_q = "what about sparse attention that keeps the kernels busy all day?"
    for q in (long_q, long_q, long_q, "sparse attention"):
        assert run_cli("ask", q).returncode == 0
    r = run_cli("history", "search", "sparse attention")
    assert r.returncode == 0, r.stderr
    rows = r.stdout.splitlines()
    # the question asked three times, the short one, and Dan's answer (the same quotes each time): three rows
    assert len(rows) == 3, r.stdout
    assert len(set(rows)) == len(rows)
    asked = next(row for row in rows if "kernels busy" in row)
    assert "what about sparse attention that keeps\u2026" in asked and "that kee " not in asked
    assert re.search(r"\(also in \d+, \d+\)$", asked)
    assert "you: what about [sparse] [attention]" in asked  # brackets mark matches only
    assert any(" dan: " in row for row in rows)
    assert "[you]" not in r.stdout and "[dan]" not in r.stdout
    # the columns line up: the speaker starts at the same place on every row
    assert len({row.index(": ") - len(row.split(": ")[0].split()[-1]) for row in rows}) == 1
    # JSON still has every hit
    assert len(json.loads(run_cli("history", "search", "--json", "sparse attention").stdout)) == 8


def test_shorten_cuts_at_a_word() -> None:
    from hypothesis import given
    from hypothesis import strategies as st

    from panelbot.text import shorten

    assert (
        shorten("what about sparse attention that keeps the kernels", 40)
        == "what about sparse attention that keeps\u2026"
    )
    assert shorten("short", 40) == "short"

    @given(st.text(alphabet=st.sampled_from("ab ,"), max_size=80), st.integers(2, 60))
    def prop(text: str, width: int) -> None:
        out = shorten(text, width)
        assert len(out) <= width
        whole = " ".join(text.split())
        if out == whole:
            return
        assert out.endswith("\u2026")
        head = out[:-1]
        assert whole.startswith(head)
        if len(head) >= width // 2 and head:
            assert whole[len(head)] in " ,;:-" or not head.strip() or len(head) == width - 1

    prop()


def test_panels_columns_line_up_with_three_and_four_panelists(
    tmp_path: Path, fixtures_dir: Path, run_cli
) -> None:  # noqa: ANN001
    panels = tmp_path / "panels"
    for name in ("three_panel_captions.txt", "four_panel.srt"):
        r = run_cli("ingest", str(fixtures_dir / name), "--out", str(panels / name.split(".")[0]))
        assert r.returncode == 0, r.stderr
    r = run_cli("panels", env={"PANELBOT_PANELS": str(panels), "COLUMNS": "100"})
    assert r.returncode == 0, r.stderr
    rows = r.stdout.splitlines()
    assert len(rows) == 3 and all(len(row) <= 100 for row in rows), r.stdout
    for marker in (" draft  ", " quotes  "):
        starts = {
            row.find(marker.replace("draft", "curated")) if "curated" in row else row.find(marker)
            for row in rows
        }
        assert len(starts) == 1, r.stdout
    # the panelists' column starts and ends at the same place on every row; a long list is cut with "…"
    after = {row.index(" quotes  ") + len(" quotes  ") for row in rows}
    assert len(after) == 1
    col = after.pop()
    assert "sarah, miguel, priti" in r.stdout
    assert any("\u2026" in row[col : col + 30] for row in rows)
    title_starts = {len(row) - len(row[col:].split("  ", 1)[1].lstrip()) for row in rows}
    assert len(title_starts) == 1, r.stdout


def _write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


SPEECH = (
    "So thank you all for coming. >> Thanks for having me, it is a real pleasure to be here with you today. "
    ">> I'm Ann Lee and I run the storage team at Foo, where we keep the caches warm all day long. "
)


@pytest.mark.parametrize(
    ("name", "text", "why"),
    [
        (
            "notes.md",
            "# Test fixtures\n\n"
            + "".join(
                f"- `talk_{i}.txt` — a made-up talk with `>>` marks and [a link](https://example.com/{i}).\n"
                "  It has two panelists and a host who asks them questions about storage.\n"
                for i in range(8)
            ),
            "Markdown",
        ),
        (
            "tool.py",
            '"""A tool."""\n\nimport sys\n\n\ndef main() -> int:\n    x = 1\n    return x\n\n\n'
            * 6,
            "source code",
        ),
        (
            "settings.toml",
            '[project]\nname = "x"\nversion = "1"\n\n[tool.ruff]\nline-length = 100\n' * 5,
            "source code or configuration",
        ),
        ("short.txt", "Title\n\nHello. >> Hi there. >> Thanks.\n", "too little speech"),
        (
            "monologue.txt",
            "A note\n\n" + "I went to the shop and bought some bread for the week. " * 12,
            "no change of speaker",
        ),
    ],
)
def test_ingest_refuses_text_that_is_not_captions(
    tmp_path: Path, name: str, text: str, why: str, run_cli
) -> None:  # noqa: ANN001
    out = tmp_path / "panel"
    for extra in (["--out", str(out)], ["--turns-json"]):
        r = run_cli("ingest", _write(tmp_path, name, text), *extra)
        err = _one_usage_line(r)
        assert why in err, err
        assert r.stdout == ""
    assert not out.exists()


def test_ingest_refuses_the_fixtures_readme(tmp_path: Path, fixtures_dir: Path, run_cli) -> None:  # noqa: ANN001
    r = run_cli("ingest", str(fixtures_dir / "README.md"), "--out", str(tmp_path / "p"))
    assert "Markdown" in _one_usage_line(r)
    assert not (tmp_path / "p").exists()


def test_every_captions_fixture_is_still_accepted(fixtures_dir: Path) -> None:
    from panelbot.ingest.formats import parse_captions
    from panelbot.ingest.sniff import not_captions

    paths = [
        p for p in sorted(fixtures_dir.iterdir()) if p.suffix in (".txt", ".vtt", ".srt", ".json3")
    ]
    paths.append(
        Path(__file__).resolve().parent.parent / "persona_data" / "minimax-m3" / "captions.txt"
    )
    assert len(paths) >= 40
    for p in paths:
        text = p.read_text(encoding="utf-8")
        assert not_captions(parse_captions(text), text) is None, p.name
    for p in sorted(fixtures_dir.glob("*.yaml")):  # the eval and truth files are not captions
        text = p.read_text(encoding="utf-8")
        assert not_captions(parse_captions(text), text), p.name


def test_a_real_talk_with_some_markup_words_is_still_captions(
    tmp_path: Path, fixtures_dir: Path, run_cli
) -> None:  # noqa: ANN001
    text = (fixtures_dir / "clean_storage_panel.txt").read_text(encoding="utf-8")
    lines = text.splitlines()
    lines.insert(
        3, "- and then the list of things, right,"
    )  # a caption line that happens to start with a dash
    r = run_cli(
        "ingest", _write(tmp_path, "talk.txt", "\n".join(lines)), "--out", str(tmp_path / "p")
    )
    assert r.returncode == 0, r.stderr


def test_history_search_n_counts_rows_after_repeats_fold(run_cli) -> None:  # noqa: ANN001
    for q in ["How do you deal with a KV cache that keeps growing?"] * 3 + [
        "kv cache sparse attention?"
    ]:
        assert run_cli("ask", q).returncode == 0
    rows = run_cli("history", "search", "-n", "2", "kv cache").stdout.splitlines()
    assert len(rows) == 2 and len(set(rows)) == 2
    assert (
        len(json.loads(run_cli("history", "search", "--json", "-n", "2", "kv cache").stdout)) == 2
    )
