"""The saved index per panel: hit, miss, stale, truncated, damaged, foreign, inconsistent, concurrent
writers and starts, an unwritable cache; all on real files, most through the real executable."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from panelbot.retrieval import cache
from panelbot.retrieval.router import Router

LIBRARY = Path(__file__).resolve().parent / "fixtures" / "library"
QUESTION = "Do bees need water in a small garden?"


def _files(cache_dir: Path) -> list[Path]:
    return sorted((cache_dir / "index").glob("*.pbidx"))


def _ask(run_cli, panel_dir: Path, cache_dir: Path, *extra: str) -> subprocess.CompletedProcess:
    return run_cli(
        "ask",
        "--json",
        "--no-log",
        "--panel",
        str(panel_dir),
        *extra,
        QUESTION,
        env={"PANELBOT_CACHE_DIR": str(cache_dir)},
    )


def _routes(router: Router) -> list:
    out = []
    for q in (
        QUESTION,
        "compost heap",
        "tomatoes split",
        "best pizza in Naples?",
        "hive near the path",
    ):
        r = router.route(q)
        out.append(
            (r.speakers, r.abstained, [(sq.quote.id, round(sq.score, 6)) for sq in r.quotes])
        )
    return out


# ------------------------------------------------------------------------------------------- in process


def test_miss_then_hit_gives_the_same_answers(cache_dir: Path, panel_dir: Path) -> None:
    first = cache.open_indexed(panel_dir)
    assert first.source == "built" and first.note is None
    (path,) = _files(cache_dir)
    second = cache.open_indexed(panel_dir)
    assert second.source == "cache" and second.note is None
    assert (
        second.panel.quotes == first.panel.quotes
        and second.panel.panelists == first.panel.panelists
    )
    assert (
        second.panel.questions == first.panel.questions
        and second.panel.topics == first.panel.topics
    )
    fresh = Router(first.panel)
    assert _routes(Router(second.panel, index=second.index)) == _routes(fresh)
    assert _files(cache_dir) == [path]


def test_shipped_panel_round_trips(cache_dir: Path, shipped_panel) -> None:
    cache.open_indexed(shipped_panel.path)
    hit = cache.open_indexed(shipped_panel.path)
    assert hit.source == "cache"
    assert hit.panel.quotes == shipped_panel.quotes and hit.panel.turns == shipped_panel.turns
    assert (
        hit.panel.vocabulary == shipped_panel.vocabulary
        and hit.panel.source == shipped_panel.source
    )
    a, b = Router(shipped_panel), Router(hit.panel, index=hit.index)
    for q in (
        "How do you deal with a growing KV cache?",
        "Olive, how do you evaluate 12-hour runs?",
        "reinforcment lerning",
        "best pizza in Naples?",
        "open source?",
    ):
        ra, rb = a.route(q), b.route(q)
        assert (ra.speakers, ra.abstained, ra.reason) == (rb.speakers, rb.abstained, rb.reason)
        assert [(s.quote.id, s.score, s.reason) for s in ra.quotes] == [
            (s.quote.id, s.score, s.reason) for s in rb.quotes
        ]


def test_a_warm_router_decodes_only_the_quotes_it_returns(cache_dir: Path, shipped_panel) -> None:
    """Starting from a saved index, building the router decodes no quote (a 100,000-quote bank's warm start
    would otherwise decode them all); an answer decodes the quotes it shows, and positions still resolve."""
    cache.open_indexed(shipped_panel.path)
    hit = cache.open_indexed(shipped_panel.path)
    router = Router(hit.panel, index=hit.index)
    assert hit.panel.quotes._made == {}
    q = "How do you deal with a growing KV cache?"
    assert router.route(q).to_dict() == Router(shipped_panel).route(q).to_dict()
    assert 0 < len(hit.panel.quotes._made) < len(shipped_panel.quotes)


def test_saved_quotes_are_their_json_records(cache_dir: Path, shipped_panel) -> None:
    """Each quote is saved as its text (raw UTF-8) and json.dumps of its other fields (the writer's encoder
    is made once), and reads back equal, however odd its text (a lone surrogate included)."""
    from panelbot.records import replace

    odd = replace(
        shipped_panel.quotes[0],
        text='Quote "marks", back\\slash, é, \u2028, emoji 😀 and\ttab',
        start=12.5,
        sentences=(0, 2),
        keywords=("naïve", "\udc80"),
    )
    lone = replace(shipped_panel.quotes[1], text="a lone \ud800 surrogate", id="q-\u00e9")
    panel = replace(shipped_panel, quotes=[odd, lone, *shipped_panel.quotes[2:]])
    rests = [
        json.dumps(
            [getattr(q, f) for f in cache._QUOTE_REST], ensure_ascii=False, separators=(",", ":")
        ).encode("utf-8", "surrogatepass")
        for q in panel.quotes
    ]
    assert [r for chunk in cache._quote_rests(panel.quotes) for r in chunk] == rests
    assert [t for chunk in cache._quote_texts(panel.quotes) for t in chunk] == [
        q.text.encode("utf-8", "surrogatepass") for q in panel.quotes
    ]
    from panelbot.retrieval.index import QuoteIndex
    from panelbot.retrieval.vocabulary import Normalizer

    path = cache_dir / "x.pbidx"
    index = QuoteIndex(panel, Normalizer(panel.vocabulary))
    cache.write_index(path, "k", panel, index.norm, index)
    hit = cache.read_index(path, "k", panel.path)
    assert list(hit.panel.quotes) == panel.quotes
    assert hit.panel.quote("q-\u00e9") == lone


def test_edited_panel_is_stale_and_rebuilt_with_a_note(cache_dir: Path, panel_dir: Path) -> None:
    cache.open_indexed(panel_dir)
    quotes = panel_dir / "quotes.yaml"
    quotes.write_text(
        quotes.read_text().replace("shallow dish of water", "shallow dish of rainwater")
    )
    again = cache.open_indexed(panel_dir)
    assert again.source == "built"
    assert (
        again.note
        == "the saved index of panel 'gardens' was stale (the panel or panelbot changed); rebuilt it"
    )
    assert any("rainwater" in q.text for q in again.panel.quotes)
    assert cache.open_indexed(panel_dir).source == "cache"


def _other_key(b: bytes) -> bytes:
    i = b.index(b'"key": "') + len(b'"key": "')
    return b[:i] + (b"0" if b[i : i + 1] != b"0" else b"1") + b[i + 1 :]


@pytest.mark.parametrize(
    "damage, expect",
    [
        (lambda b: b[: len(b) // 2], "truncated"),
        (lambda b: b[:10], "truncated"),
        (lambda b: b[:-1] + bytes([b[-1] ^ 0xFF]), "damaged (checksum mismatch)"),
        (lambda b: b + b"extra", "damaged (unexpected length)"),
        (lambda b: b"", "truncated"),
        (lambda b: b"\x80\x04\x95 not ours at all" * 10, "not a panelbot index"),
        (
            lambda b: b.replace(f'"format": {cache.FILE_FORMAT}'.encode(), b'"format": 9', 1),
            "from another panelbot version or machine",
        ),
        (
            lambda b: b.replace(f'"format": {cache.FILE_FORMAT}'.encode(), b'"format": 2', 1),
            "from another panelbot version or machine",
        ),
        (
            lambda b: b.replace(
                f'"byteorder": "{sys.byteorder}"'.encode(),
                f'"byteorder": "{sys.byteorder.upper()}"'.encode(),
                1,
            ),
            "from another panelbot version or machine",
        ),
        (lambda b: _other_key(b), "stale (the panel or panelbot changed)"),
    ],
    ids=[
        "half",
        "ten-bytes",
        "flipped-byte",
        "trailing",
        "empty",
        "foreign",
        "format",
        "format-2",
        "byteorder",
        "key",
    ],
)
def test_bad_files_are_never_trusted(cache_dir: Path, panel_dir: Path, damage, expect: str) -> None:
    cache.open_indexed(panel_dir)
    (path,) = _files(cache_dir)
    path.write_bytes(damage(path.read_bytes()))
    again = cache.open_indexed(panel_dir)
    assert again.source == "built"
    assert again.note == f"the saved index of panel 'gardens' was {expect}; rebuilt it"
    assert cache.open_indexed(panel_dir).source == "cache"  # and the rebuilt file is sound


def test_inconsistent_file_with_a_good_checksum_is_rejected(
    cache_dir: Path, panel_dir: Path
) -> None:
    """A file whose checksum is right but whose tables do not line up (as a buggy or hostile writer could
    produce) is rejected at load; postings pointing past the bank are refused when first used, with one
    clear error, never a wrong quote or a traceback."""
    from panelbot.errors import DataError

    opened = cache.open_indexed(panel_dir)
    (path,) = _files(cache_dir)
    key = cache.cache_key(panel_dir)
    opened.index.norm_len[0] = -1.0  # a length no index can have
    cache.write_index(path, key, opened.panel, opened.index.norm, opened.index)
    again = cache.open_indexed(panel_dir)
    assert again.source == "built" and again.note and "inconsistent" in again.note

    postings = again.index.postings
    assert postings.offsets is None  # a built index: one array per term, as it is saved
    docs = postings.docs[postings.ids["bee"]]  # the term's own postings (not a merged copy)
    docs[0] = 10_000  # out of range
    cache.write_index(path, key, again.panel, again.index.norm, again.index)
    bad = cache.open_indexed(panel_dir)
    assert bad.source == "cache"
    router = Router(bad.panel, index=bad.index)
    assert router.route("compost heap").speakers == ["sam"]  # untouched postings still work
    with pytest.raises(DataError, match="saved index is inconsistent"):
        router.route("Do bees need water in a small garden?")


def test_a_pickle_in_the_cache_is_never_executed(
    cache_dir: Path, panel_dir: Path, tmp_path: Path
) -> None:
    import pickle

    marker = tmp_path / "executed"

    class Boom:
        def __reduce__(self):
            return (os.system, (f"touch {marker}",))

    cache.open_indexed(panel_dir)
    (path,) = _files(cache_dir)
    path.write_bytes(pickle.dumps(Boom()))
    again = cache.open_indexed(panel_dir)
    assert again.note and "not a panelbot index" in again.note
    assert not marker.exists()


def test_a_deleted_source_file_is_not_hidden_by_the_cache(
    cache_dir: Path, shipped_panel, tmp_path
) -> None:
    from panelbot.errors import DataError

    d = tmp_path / "m3"
    shutil.copytree(shipped_panel.path, d)
    cache.open_indexed(d)
    (d / "captions.txt").unlink()
    with pytest.raises(DataError, match="source file"):
        cache.open_indexed(d)


# ------------------------------------------------------------------------------------------- real processes


def test_cli_hit_does_not_rewrite_and_stale_says_so(
    run_cli, panel_dir: Path, tmp_path: Path
) -> None:
    cache_dir = tmp_path / "cli-cache"
    r1 = _ask(run_cli, panel_dir, cache_dir)
    assert r1.returncode == 0 and r1.stderr == ""
    (path,) = _files(cache_dir)
    before = path.stat()
    r2 = _ask(run_cli, panel_dir, cache_dir)
    assert r2.returncode == 0 and r2.stderr == "" and r2.stdout == r1.stdout
    after = path.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)

    (panel_dir / "panel.yaml").write_text(
        (panel_dir / "panel.yaml").read_text().replace("Beekeeper", "Apiarist")
    )
    r3 = _ask(run_cli, panel_dir, cache_dir)
    assert r3.returncode == 0
    assert r3.stderr.splitlines() == [
        "panelbot: note: the saved index of panel 'gardens' was stale (the panel or panelbot changed); rebuilt it"
    ]
    assert json.loads(r3.stdout)["speakers"] == ["ivy"]

    path.write_bytes(path.read_bytes()[:100])
    r4 = _ask(run_cli, panel_dir, cache_dir)
    assert r4.returncode == 0 and "was truncated; rebuilt it" in r4.stderr
    assert len(r4.stderr.splitlines()) == 1 and r4.stdout == r3.stdout


def test_unwritable_cache_still_answers(run_cli, panel_dir: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the cache directory should be")
    r = _ask(run_cli, panel_dir, blocker)
    assert r.returncode == 0 and json.loads(r.stdout)["speakers"] == ["ivy"]
    assert (
        len(r.stderr.splitlines()) == 1
        and "could not save the index of panel 'gardens'" in r.stderr
    )


def test_cache_info_and_clear(run_cli, panel_dir: Path, tmp_path: Path) -> None:
    cache_dir = tmp_path / "cli-cache"
    env = {"PANELBOT_CACHE_DIR": str(cache_dir)}
    r = run_cli("cache", "info", env=env)
    assert r.returncode == 0 and "(0 files, 0 B)" in r.stdout
    _ask(run_cli, panel_dir, cache_dir)
    info = json.loads(run_cli("cache", "info", "--json", env=env).stdout)
    (entry,) = info["indexes"]
    assert entry["panel"] == "gardens" and entry["state"] == "current" and entry["quotes"] == 6
    assert entry["panel_directory"] == str(panel_dir.resolve())
    (panel_dir / "turns.yaml").write_text("- {speaker: host, text: Welcome.}\n")
    r = run_cli("cache", "info", env=env)
    assert "gardens" in r.stdout and "stale" in r.stdout
    assert "Remembered config parses:" in r.stdout and info["config_parses"]["files"] >= 1
    r = run_cli("cache", "clear", env=env)
    assert r.returncode == 0 and r.stdout.startswith("Removed 1 saved index")
    assert "remembered config parse" in r.stdout
    assert _files(cache_dir) == [] and not list((cache_dir / "parsed").glob("*"))
    r = run_cli("cache", env=env)
    assert r.returncode == 2 and "Traceback" not in r.stderr


def test_concurrent_starts_build_once_and_agree(
    panel_dir: Path, tmp_path: Path, isolated_env
) -> None:
    """Six real processes start at once on an empty cache: all answer the same, one index file results,
    no temporary file is left, and the file is sound."""
    cache_dir = tmp_path / "race-cache"
    env = {**isolated_env, "PANELBOT_CACHE_DIR": str(cache_dir)}
    cmd = [
        sys.executable,
        "-m",
        "panelbot",
        "ask",
        "--json",
        "--no-log",
        "--panel",
        str(panel_dir),
        QUESTION,
    ]
    procs = [
        subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(6)
    ]
    outs = [p.communicate(timeout=120) for p in procs]
    assert all(p.returncode == 0 for p in procs), [e for _, e in outs]
    assert len({o for o, _ in outs}) == 1
    assert all(e == "" for _, e in outs), [e for _, e in outs]
    (path,) = _files(cache_dir)
    assert not list((cache_dir / "index").glob("*.tmp"))
    key = cache.cache_key(panel_dir)
    assert cache.read_index(path, key, panel_dir) is not None


WRITER = textwrap.dedent("""
    import sys
    from pathlib import Path
    from panelbot.retrieval import cache
    d = Path(sys.argv[1])
    opened = cache.open_indexed(d, use_cache=False)
    key, path = cache.cache_key(d), cache.cache_path(d)
    for _ in range(int(sys.argv[2])):
        cache.write_index(path, key, opened.panel, opened.index.norm, opened.index)
""")

READER = textwrap.dedent("""
    import sys
    from pathlib import Path
    from panelbot.retrieval import cache
    d = Path(sys.argv[1])
    key, path = cache.cache_key(d), cache.cache_path(d)
    seen = 0
    for _ in range(int(sys.argv[2])):
        hit = cache.read_index(path, key, d)  # raises on a half-written file
        seen += hit is not None
    print(seen)
""")


def test_concurrent_writers_never_expose_a_partial_file(
    panel_dir: Path, tmp_path: Path, isolated_env
) -> None:
    cache_dir = tmp_path / "writers-cache"
    env = {**isolated_env, "PANELBOT_CACHE_DIR": str(cache_dir)}
    subprocess.run(
        [sys.executable, "-c", WRITER, str(panel_dir), "1"], env=env, check=True, timeout=120
    )
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(panel_dir), "25"], env=env)
        for _ in range(3)
    ]
    reader = subprocess.run(
        [sys.executable, "-c", READER, str(panel_dir), "150"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    for w in writers:
        assert w.wait(timeout=120) == 0
    assert reader.returncode == 0, reader.stderr
    assert int(reader.stdout) == 150
    assert len(_files(cache_dir)) == 1 and not list((cache_dir / "index").glob("*.tmp"))


# ------------------------------------------------------------------------ the panel files' hash, from stat


def _record_of(panel_dir: Path) -> Path:
    return cache.cache_path(panel_dir).with_suffix(cache.FILES_SUFFIX)


def _count_hashing(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    calls: list[Path] = []
    real = cache.panel_hash

    def counting(directory: Path) -> str:
        calls.append(directory)
        return real(directory)

    monkeypatch.setattr(cache, "panel_hash", counting)
    return calls


def test_unchanged_files_are_not_read_again(
    cache_dir: Path, panel_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cache, "RACY_NS", 0)  # files written by this test are seconds old at most
    expected = cache.panel_hash(panel_dir)
    calls = _count_hashing(monkeypatch)
    first = cache.current_panel_hash(panel_dir, _record_of(panel_dir))
    assert first == expected and len(calls) == 1
    assert cache.current_panel_hash(panel_dir, _record_of(panel_dir)) == first
    assert len(calls) == 1  # from the record: the files were not read
    assert cache.open_indexed(panel_dir).source in ("built", "cache")
    assert cache.open_indexed(panel_dir).source == "cache"


def test_a_changed_file_is_hashed_again_even_with_its_old_time(
    cache_dir: Path, panel_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Same size, modification time put back: the change time (and the content hash) still tell."""
    monkeypatch.setattr(cache, "RACY_NS", 0)
    record = _record_of(panel_dir)
    before = cache.current_panel_hash(panel_dir, record)
    quotes = panel_dir / "quotes.yaml"
    st = quotes.stat()
    text = quotes.read_text(encoding="utf-8")
    swapped = text.replace("a", "e", 1)
    assert swapped != text and len(swapped) == len(text)
    quotes.write_text(swapped, encoding="utf-8")
    os.utime(quotes, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert cache.current_panel_hash(panel_dir, record) != before


def test_racy_files_are_always_hashed(
    cache_dir: Path, panel_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Files changed within RACY_NS of the hashing (here: just written) are read every time."""
    calls = _count_hashing(monkeypatch)
    record = _record_of(panel_dir)
    a = cache.current_panel_hash(panel_dir, record)
    b = cache.current_panel_hash(panel_dir, record)
    assert a == b and len(calls) == 2


@pytest.mark.parametrize(
    "content", [b"", b"{", b"[]", b'{"files": {}, "taken": 1, "hash": "x"}', b"\xff\xfe"]
)
def test_a_damaged_record_means_hashing(
    cache_dir: Path, panel_dir: Path, monkeypatch: pytest.MonkeyPatch, content: bytes
) -> None:
    monkeypatch.setattr(cache, "RACY_NS", 0)
    record = _record_of(panel_dir)
    good = cache.current_panel_hash(panel_dir, record)
    record.write_bytes(content)
    calls = _count_hashing(monkeypatch)
    assert cache.current_panel_hash(panel_dir, record) == good and len(calls) == 1


def test_a_forged_hash_for_other_files_is_not_used(
    cache_dir: Path, panel_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cache, "RACY_NS", 0)
    record = _record_of(panel_dir)
    good = cache.current_panel_hash(panel_dir, record)
    rec = json.loads(record.read_text())
    rec["files"]["quotes.yaml"][0] += 1  # another size than the file has
    rec["hash"] = "0" * 64
    record.write_text(json.dumps(rec))
    assert cache.current_panel_hash(panel_dir, record) == good


def test_cache_clear_removes_the_records(cache_dir: Path, panel_dir: Path) -> None:
    cache.open_indexed(panel_dir)
    assert _record_of(panel_dir).exists()
    cache.clear()
    assert not _record_of(panel_dir).exists()


def test_a_saved_panel_finds_a_quote_by_id_decoding_only_it(
    cache_dir: Path, panel_dir: Path
) -> None:
    built = cache.open_indexed(panel_dir)
    opened = cache.open_indexed(panel_dir)
    assert opened.source == "cache"
    quotes = opened.panel.quotes
    last = built.panel.quotes[-1]
    assert opened.panel.quote(last.id) == last
    assert len(quotes._made) == 1  # type: ignore[attr-defined]
    assert opened.panel.quote("no-such-id") is None
    speaker = last.speaker
    assert opened.panel.quotes_by(speaker) == [
        q for q in built.panel.quotes if q.speaker == speaker
    ]


def test_lazy_quotes_read_odd_ids_whole() -> None:
    """A record whose id is not plain (an escape in it) is decoded whole to read its id."""
    from panelbot.panel import Quote

    made = [
        Quote('odd"id', "ivy", "one"),
        Quote("plain-2", "ivy", "two"),
        Quote("x" * 200, "oak", "three"),
    ]
    blob, ends, texts, text_ends = bytearray(), [], bytearray(), []
    for q in made:
        blob += json.dumps([getattr(q, f) for f in cache._QUOTE_REST]).encode()
        ends.append(len(blob))
        texts += q.text.encode()
        text_ends.append(len(texts))
    lazy = cache.LazyQuotes(
        memoryview(bytes(blob)),
        ends,
        [q.speaker for q in made],
        memoryview(bytes(texts)),
        text_ends,
    )
    assert lazy.find("plain-2") == made[1]
    assert lazy.find('odd"id') == made[0]
    assert lazy.find("x" * 200) == made[2]
    assert lazy.find("odd") is None


def test_a_text_out_of_bounds_is_refused_when_decoded() -> None:
    """Text bounds are checked when a quote is decoded (a file with a good checksum but wrong bounds)."""
    from panelbot.panel import Quote

    q = Quote("a", "ivy", "one")
    rec = json.dumps([getattr(q, f) for f in cache._QUOTE_REST]).encode()
    lazy = cache.LazyQuotes(memoryview(rec), [len(rec)], ["ivy"], memoryview(b"one"), [99])
    with pytest.raises(cache.CacheProblem, match="inconsistent"):
        lazy[0]
