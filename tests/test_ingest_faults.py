"""Faults in ``panelbot ingest`` that froze it, exhausted it or refused a real file (issue 20, classes 1, 2
and 7): super-linear regular expressions and loops on caption text, files read whole whatever their size,
UTF-16 captions refused as binary, thousands of backward cues.

Everything that could hang runs in a subprocess with a generous time budget, so a regression fails here
instead of hanging the suite."""

from __future__ import annotations

import contextlib
import json
import os
import random
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from panelbot.ingest.captions import _dedupe_once
from panelbot.ingest.draft import MAX_CAPTIONS_BYTES, read_captions_file, text_encoding
from panelbot.ingest.sniff import _sentences

TESTS = Path(__file__).parent
FIXTURES = TESTS / "fixtures"
sys.path.insert(0, str(TESTS))
import ingest_regex_probe as probe  # noqa: E402 - a helper script beside this file

PROBE_BUDGET = (
    600  # seconds for every expression's property test together (about a minute when linear)
)
INGEST_BUDGET = 120  # seconds for one ingest of a few hundred KB (a few seconds when linear)


def run_ingest(*args: str, timeout: float = INGEST_BUDGET, **kw) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "COLUMNS": "120"}
    return subprocess.run(
        [sys.executable, "-m", "panelbot", "ingest", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        **kw,
    )


# ------------------------------------------------------------------------------- every expression is linear


@pytest.fixture(scope="module")
def probe_results() -> dict[str, dict]:
    """One JSON line per expression site from the probe, run once for the module under a time budget. A site
    whose line is missing did not finish: the probe was stopped at the budget."""
    proc = subprocess.Popen(
        [sys.executable, str(TESTS / "ingest_regex_probe.py"), "probe"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        out, err = proc.communicate(timeout=PROBE_BUDGET)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
    results = {}
    for line in out.splitlines():
        if line.startswith("{"):
            rec = json.loads(line)
            results[rec["site"]] = rec
    assert results, f"the probe printed nothing: {err[-2000:]}"
    return results


SITES = [s["site"] for s in probe.sites()]


def test_the_probe_finds_the_expressions_of_every_ingest_module() -> None:
    modules = {s.split(":")[0] for s in SITES}
    assert {
        "formats.py",
        "captions.py",
        "cues.py",
        "names.py",
        "speakers.py",
        "draft.py",
    } <= modules
    assert "sniff.py:_sentences:compile" not in SITES  # the cubic one is gone ...
    assert "text.py:split_sentences" in SITES  # ... and the sentence splitter ingest uses is probed
    assert len(SITES) > 100


@pytest.mark.parametrize("site", SITES)
def test_expression_stays_linear_on_adversarial_text(probe_results: dict, site: str) -> None:
    """Hypothesis pumps pieces of caption text (whitespace, letters, punctuation, timings, tags, labels, the
    words the expressions look for) to 20,000 characters, and the expression is used as its call site uses
    it (match, search, or every match for findall/sub/split): a slow example must grow no faster than its
    text at 4x the size."""
    rec = probe_results.get(site)
    assert rec is not None, (
        f"{site}: its property test did not finish within the budget (backtracking?)"
    )
    assert rec["patterns"] > 0, (
        f"{site}: never compiled while ingesting the fixtures: nothing was probed"
    )
    assert not rec["failures"], f"{site}: super-linear: {rec['failures']}"


def test_the_probe_catches_a_backtracking_expression() -> None:
    """The probe itself can fail: expressions that rescan a run from each of its characters are caught (in
    a second or two: quadratic, not the cubic sentence counter, which would take hours at this size)."""
    assert probe.probe_pattern(re.compile(r"\s+x"), "search")
    assert probe.probe_pattern(re.compile(r"\s+,"), "split")
    assert probe.probe_pattern(re.compile(r"(?<!\s)\s+,"), "split") is None


# ------------------------------------------------------------------------------- class 1: unpunctuated text


def _unpunctuated(size: int, *, capitals: bool, seed: int = 7) -> str:
    rng = random.Random(seed)
    vocab = re.findall(
        r"\S+",
        "we have been working on the kernels and inference for a long time and the models keep growing "
        "so we need more memory bandwidth and better schedulers across every cluster we run",
    )
    intros = ["i'm dan i lead kernels at together", "i'm olive i work on rl at minimax"]
    if capitals:
        intros = ["I'm Dan I lead kernels at Together", "I'm Olive I work on RL at MiniMax"]
    parts, total, i = [], 0, 0
    while total < size:
        word = f">> {intros[(i // 150) % 2]}" if i % 150 == 0 else rng.choice(vocab)
        parts.append(word)
        total += len(word) + 1
        i += 1
    return " ".join(parts)


@pytest.mark.parametrize("size", [4_000, 40_000])
@pytest.mark.parametrize("capitals", [False, True], ids=["lowercase", "capitalised"])
def test_unpunctuated_captions_finish(tmp_path: Path, size: int, capitals: bool) -> None:
    """4 KB of unpunctuated captions took 147 s (a cubic sentence counter); now a draft in seconds. With no
    capital letters the names are told from how the words are used (ingest.restore): "i'm olive" is a
    name, "i'm dan" alone is not (a common word in one kind of place only)."""
    src = tmp_path / "talk.txt"
    src.write_text(_unpunctuated(size, capitals=capitals), encoding="utf-8")
    proc = run_ingest(str(src), "--out", str(tmp_path / "panel"))
    assert "Traceback" not in proc.stderr
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "panel" / "quotes.yaml").is_file()
    assert "Olive" in proc.stdout.splitlines()[0]


def test_an_srt_that_falls_back_to_text_finishes(tmp_path: Path) -> None:
    """Numbered cues whose timing lines are all unreadable are read as text; unpunctuated, that hung too."""
    words = _unpunctuated(40_000, capitals=True).split(" ")
    blocks = [f"{i + 1}\n{' '.join(words[i * 12 : i * 12 + 12])}" for i in range(len(words) // 12)]
    src = tmp_path / "talk.srt"
    src.write_text("\n\n".join(blocks) + "\n", encoding="utf-8")
    proc = run_ingest(str(src), "--turns-json")
    assert proc.returncode == 0, proc.stderr
    assert len(json.loads(proc.stdout)) >= 2


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab .?!\n,\u00e9_1", max_size=40))
def test_the_sentence_count_is_the_old_expressions(text: str) -> None:
    """Counted by splitting at stops, as many sentences as the cubic expression found (short texts)."""
    assert _sentences(text) == len(re.findall(r"\w[^.?!]*?\w[^.?!]*[.?!]", text))


def _dedupe_every_length(words: list[str]) -> list[int]:
    """The de-duplication as it was (every phrase length tried at every word): the reference."""
    out, n, i = [], len(words), 0

    def echo(i: int, k: int) -> bool:
        return i >= k and i + k <= n and words[i : i + k] == words[i - k : i]

    while i < n:
        skip = next(
            (
                k
                for k in range(min(80, i, n - i), 0, -1)
                if echo(i, k) and (k >= 3 or echo(i - k, k) or echo(i + k, k))
            ),
            0,
        )
        if not skip:
            out.append(i)
        i += skip or 1
    return out


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from("abcde"), max_size=60),
    st.lists(st.tuples(st.integers(0, 60), st.integers(1, 12)), max_size=4),
)
def test_rolling_dedupe_keeps_what_it_kept_before(words: list[str], repeats: list) -> None:
    """Trying only the phrase lengths where the first word recurs keeps exactly the same words."""
    for at, length in repeats:  # rolling captions: a phrase shown again right after itself
        at = min(at, len(words))
        words = words[: at + length] + words[at : at + length] + words[at + length :]
    assert _dedupe_once(words) == _dedupe_every_length(words)


# ------------------------------------------------------------------------------- class 2: size cap


def test_a_huge_file_is_refused_in_one_line_before_reading(tmp_path: Path) -> None:
    big = tmp_path / "huge.vtt"
    with big.open("wb") as fh:  # sparse: 100 MB on paper, nothing on disk
        fh.write(b"WEBVTT\n\n")
        fh.truncate(100_000_000)
    proc = run_ingest(str(big), "--out", str(tmp_path / "panel"))
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1, proc.stderr
    assert "100.0 MB" in proc.stderr and f"{MAX_CAPTIONS_BYTES / 1e6:,.0f} MB" in proc.stderr
    assert not (tmp_path / "panel").exists()


def test_an_endless_stream_is_refused_at_the_cap(tmp_path: Path) -> None:
    """/dev/zero says it is empty and never ends: read in pieces, stopped at the cap, one line."""
    proc = run_ingest("/dev/zero", "--out", str(tmp_path / "panel"))
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "larger" in proc.stderr, proc.stderr
    assert "MemoryError" not in proc.stderr and not (tmp_path / "panel").exists()


def test_a_pipe_is_read_up_to_the_limit(tmp_path: Path) -> None:
    """A pipe (``ingest <(curl …)``) is read like a file, and over the limit it is refused."""
    fifo = tmp_path / "captions.fifo"
    os.mkfifo(fifo)
    body = (FIXTURES / "accents_panel.srt").read_bytes()

    def feed(data: bytes) -> None:
        with contextlib.suppress(BrokenPipeError), fifo.open("wb") as fh:  # the reader may stop
            fh.write(data)

    writer = threading.Thread(target=feed, args=(body,))
    writer.start()
    assert read_captions_file(str(fifo)) == body.decode("utf-8")
    writer.join(10)
    writer = threading.Thread(target=feed, args=(body * 10,))
    writer.start()
    from panelbot.errors import DataError

    with pytest.raises(DataError, match="larger; ingest reads captions up to"):
        read_captions_file(str(fifo), limit=len(body) * 2)
    writer.join(10)


# ------------------------------------------------------------------------------- class 7: UTF-16, backward cues


@pytest.mark.parametrize(
    "encoding, bom",
    [
        ("utf-16-le", b"\xff\xfe"),
        ("utf-16-be", b"\xfe\xff"),
        ("utf-16-le", b""),
        ("utf-16-be", b""),
        ("utf-32-le", b"\xff\xfe\x00\x00"),
        ("utf-8", b"\xef\xbb\xbf"),
    ],
    ids=["utf16le-bom", "utf16be-bom", "utf16le", "utf16be", "utf32le-bom", "utf8-bom"],
)
def test_unicode_captions_in_any_encoding_read_as_their_utf8(
    tmp_path: Path, encoding: str, bom: bytes
) -> None:
    """UTF-16 captions (Windows tools write them) were refused as binary: they give the same turns as UTF-8."""
    src = FIXTURES / "accents_panel.vtt"  # names with accents: José, Anaïs, Björn
    encoded = tmp_path / f"talk-{encoding}.vtt"
    encoded.write_bytes(bom + src.read_text(encoding="utf-8").encode(encoding))
    assert text_encoding(encoded.read_bytes()) is not None or encoding == "utf-8"
    want = run_ingest(str(src), "--turns-json")
    got = run_ingest(str(encoded), "--turns-json")
    assert want.returncode == 0 and got.returncode == 0, got.stderr
    assert json.loads(got.stdout) == json.loads(want.stdout)
    assert any("Jos\u00e9" in t["text"] for t in json.loads(got.stdout))


def test_binary_data_is_still_refused(tmp_path: Path) -> None:
    blob = tmp_path / "image.vtt"
    blob.write_bytes(bytes(random.Random(1).getrandbits(8) for _ in range(5000)) + b"\x00" * 50)
    proc = run_ingest(str(blob), "--out", str(tmp_path / "panel"))
    assert proc.returncode == 2 and "binary data" in proc.stderr
    assert proc.stderr.count("\n") == 1


def _backward_cues(n: int) -> str:
    rng = random.Random(3)
    vocab = re.findall(
        r"\S+", "the kernels run faster when the memory bandwidth keeps up with the schedulers"
    )

    def ts(s: float) -> str:
        return f"{int(s // 3600):02d}:{int(s % 3600 // 60):02d}:{s % 60:06.3f}"

    out, t = ["WEBVTT", ""], 4 * 3600.0
    for i in range(n):
        text = " ".join(rng.choice(vocab) for _ in range(8)) + "."
        if i % 40 == 0:
            text = (">> I'm Dan, I lead kernels. " if i % 80 == 0 else ">> I'm Olive. ") + text
        out += [f"{ts(t)} --> {ts(t + 2)}", text, ""]
        t -= 3  # every cue starts before the one above it
    return "\n".join(out)


def test_three_thousand_backward_cues_are_read_in_file_order(tmp_path: Path) -> None:
    src = tmp_path / "backward.vtt"
    src.write_text(_backward_cues(3000), encoding="utf-8")
    proc = run_ingest(str(src), "--out", str(tmp_path / "panel"))
    assert proc.returncode == 0, proc.stderr
    assert "2,999 cues start earlier than the cue before: kept in file order" in proc.stderr
    import yaml

    turns = yaml.safe_load((tmp_path / "panel" / "turns.yaml").read_text(encoding="utf-8"))
    starts = [t["start"] for t in turns if "start" in t]
    assert starts == sorted(starts)  # time kept moving forward
