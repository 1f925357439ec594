"""The saved index per panel (a SQLite file): hit, miss, stale, truncated, damaged, foreign, another
install's, concurrent writers and starts, an unwritable cache; all on real files, most through the real
executable."""

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
    return sorted((cache_dir / "index").glob(f"*{cache.SUFFIX}"))


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


def test_a_warm_router_makes_only_the_quotes_it_returns(cache_dir: Path, shipped_panel) -> None:
    """Starting from a saved index, building the router makes no quote (a 100,000-quote bank's warm start
    would otherwise read them all); an answer makes the quotes it shows, and their positions resolve."""
    cache.open_indexed(shipped_panel.path)
    hit = cache.open_indexed(shipped_panel.path)
    router = Router(hit.panel, index=hit.index)
    quotes = hit.panel.quotes
    assert all(quotes.position(q.id) is None for q in shipped_panel.quotes)
    q = "How do you deal with a growing KV cache?"
    assert router.route(q).to_dict() == Router(shipped_panel).route(q).to_dict()
    made = [q.id for q in shipped_panel.quotes if quotes.position(q.id) is not None]
    assert 0 < len(made) < len(shipped_panel.quotes)
    assert all(shipped_panel.quotes[quotes.position(i)].id == i for i in made)


def test_odd_quotes_read_back_equal(cache_dir: Path, shipped_panel) -> None:
    """However odd a quote's text and fields (quotes, escapes, line separators, emoji), it reads back
    from the saved file equal, found by position and by id."""
    from panelbot.records import replace
    from panelbot.retrieval.vocabulary import Normalizer

    odd = replace(
        shipped_panel.quotes[0],
        text='Quote "marks", back\\slash, é, \u2028, emoji 😀 and\ttab',
        start=12.5,
        sentences=(0, 2),
        keywords=("naïve", "kv.cache"),
    )
    other = replace(shipped_panel.quotes[1], text="don't 2.7 it's", id='q-"\u00e9"')
    panel = replace(shipped_panel, quotes=[odd, other, *shipped_panel.quotes[2:]])
    path = cache_dir / f"x{cache.SUFFIX}"
    cache.write_index(path, "k", panel, Normalizer(panel.vocabulary))
    hit = cache.read_index(path, "k", panel.path)
    assert hit is not None and list(hit.panel.quotes) == panel.quotes
    assert hit.panel.quote('q-"\u00e9"') == other and hit.panel.quote("q-\u00e9") is None
    for term in [t for w in ("naïve", "kv.cache", "2.7") for t in hit.index.norm.terms(w)]:
        assert {0, 1} & set(hit.index.postings.get(term)[0]), term


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


def _flip_middle(b: bytes) -> bytes:
    """Every byte of the file's second half inverted (its tables' pages, past the header page)."""
    half = len(b) // 2
    return b[:half] + bytes(x ^ 0xFF for x in b[half:])


def _foreign_sqlite(b: bytes) -> bytes:
    import sqlite3
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "other.db"
        con = sqlite3.connect(p)
        con.execute("CREATE TABLE notes (t TEXT)")
        con.commit()
        con.close()
        return p.read_bytes()


def _rewrite_header(path: Path, name: str, value: object) -> None:
    import sqlite3

    con = sqlite3.connect(path)
    con.execute("UPDATE saved SET value = ? WHERE name = ?", (json.dumps(value), name))
    con.commit()
    con.close()


@pytest.mark.parametrize(
    "damage, expect",
    [
        (lambda b: b[: len(b) // 2], "damaged"),
        (lambda b: b[:10], "not a panelbot index"),
        (_flip_middle, "damaged"),
        (lambda b: b"", "not a panelbot index"),
        (lambda b: b"\x80\x04\x95 not ours at all" * 10, "not a panelbot index"),
        (_foreign_sqlite, "not a panelbot index"),
    ],
    ids=["half", "ten-bytes", "flipped-half", "empty", "foreign", "other-sqlite"],
)
def test_bad_files_are_never_trusted(cache_dir: Path, panel_dir: Path, damage, expect: str) -> None:
    cache.open_indexed(panel_dir)
    (path,) = _files(cache_dir)
    path.write_bytes(damage(path.read_bytes()))
    again = cache.open_indexed(panel_dir)
    assert again.source == "built"
    assert again.note.startswith(f"the saved index of panel 'gardens' was {expect}")
    assert again.note.endswith("; rebuilt it") and "\n" not in again.note
    assert cache.open_indexed(panel_dir).source == "cache"  # and the rebuilt file is sound


@pytest.mark.parametrize(
    "name, value, expect",
    [
        ("format", 3, "from another panelbot version"),
        ("key", "0" * 64, "stale (the panel or panelbot changed)"),
        ("panel_data", {"name": "gardens"}, "inconsistent (KeyError)"),
    ],
)
def test_a_saved_file_of_another_kind_is_rebuilt(
    cache_dir: Path, panel_dir: Path, name: str, value: object, expect: str
) -> None:
    cache.open_indexed(panel_dir)
    (path,) = _files(cache_dir)
    _rewrite_header(path, name, value)
    again = cache.open_indexed(panel_dir)
    assert again.source == "built"
    assert again.note == f"the saved index of panel 'gardens' was {expect}; rebuilt it"


def test_a_saved_file_damaged_past_its_checks_is_one_clear_error(
    cache_dir: Path, panel_dir: Path
) -> None:
    """A file damaged where the checks made on opening do not look (a large bank's file is not checked
    whole) fails with one clear error when that part is used, and is removed, so the next start rebuilds."""
    import sqlite3

    from panelbot.errors import DataError

    cache.open_indexed(panel_dir)
    (path,) = _files(cache_dir)
    con = sqlite3.connect(path)
    con.execute("DROP TABLE question_terms")
    con.execute("CREATE TABLE question_terms (x)")
    con.commit()
    con.close()
    opened = cache.open_indexed(panel_dir)
    assert opened.source == "cache"
    router = Router(opened.panel, index=opened.index)
    with pytest.raises(DataError, match="saved index was found damaged while in use") as err:
        router.route(QUESTION)
    assert "\n" not in str(err.value)
    assert not path.exists()
    assert cache.open_indexed(panel_dir).source == "built"


def test_a_saved_file_locked_by_another_process_is_still_read(
    cache_dir: Path, panel_dir: Path
) -> None:
    """A saved index is never written in place, so a lock another program holds on it (a sqlite3 shell
    in a write transaction) does not stop a start from reading it."""
    import sqlite3

    cache.open_indexed(panel_dir)
    (path,) = _files(cache_dir)
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        opened = cache.open_indexed(panel_dir)
        assert opened.source == "cache" and opened.note is None
        assert Router(opened.panel, index=opened.index).route(QUESTION).speakers == ["ivy"]
    finally:
        holder.execute("ROLLBACK")
        holder.close()


def test_a_read_only_saved_file_and_directory(cache_dir: Path, panel_dir: Path) -> None:
    """A saved index that cannot be written is still read; one that cannot be replaced is rebuilt for
    the run, saying so in one line."""
    if os.geteuid() == 0:
        pytest.skip("root ignores file modes")
    cache.open_indexed(panel_dir)
    (path,) = _files(cache_dir)
    path.chmod(0o444)
    assert cache.open_indexed(panel_dir).source == "cache"
    _rewrite_header_ro = path.read_bytes()
    path.chmod(0o644)
    _rewrite_header(path, "key", "0" * 64)
    path.parent.chmod(0o555)
    try:
        again = cache.open_indexed(panel_dir)
    finally:
        path.parent.chmod(0o755)
    assert again.source == "built" and len(_rewrite_header_ro) > 0
    assert again.note.startswith("the saved index of panel 'gardens' was stale")
    assert "could not be replaced" in again.note


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
    assert r4.returncode == 0 and "was damaged (" in r4.stderr and "; rebuilt it" in r4.stderr
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


def test_another_installs_index_is_judged_by_that_install(
    run_cli, panel_dir: Path, tmp_path: Path
) -> None:
    """``cache info`` lists the saved index another checkout of panelbot built (sharing the cache) as
    current while its panel and that install's code are unchanged: it is not "stale" because this
    install's code differs from it. Once that install is gone, it is orphaned."""
    import sqlite3

    cache_dir = tmp_path / "cli-cache"
    env = {"PANELBOT_CACHE_DIR": str(cache_dir)}
    _ask(run_cli, panel_dir, cache_dir)
    (path,) = _files(cache_dir)
    other = tmp_path / "other-install" / "panelbot"
    src = Path(cache.__file__).resolve().parent.parent
    for rel in cache._CODE:
        (other / rel).parent.mkdir(parents=True, exist_ok=True)
        if (src / rel).is_dir():
            shutil.copytree(src / rel, other / rel)
        else:
            shutil.copy2(src / rel, other / rel)
    (other / "retrieval" / "index.py").write_text(
        (src / "retrieval" / "index.py").read_text() + "\n# another version\n"
    )
    digest = cache.panel_hash(panel_dir)
    con = sqlite3.connect(path)
    con.execute("UPDATE saved SET value = ? WHERE name = 'root'", (json.dumps(str(other)),))
    key = cache.cache_key(panel_dir, digest, other)
    con.execute("UPDATE saved SET value = ? WHERE name = 'key'", (json.dumps(key),))
    con.commit()
    con.close()
    (entry,) = json.loads(run_cli("cache", "info", "--json", env=env).stdout)["indexes"]
    assert entry["state"] == "current"
    shutil.rmtree(other)
    (entry,) = json.loads(run_cli("cache", "info", "--json", env=env).stdout)["indexes"]
    assert entry["state"] == "orphaned"


def test_another_installs_index_is_called_that_not_stale(
    run_cli, panel_dir: Path, tmp_path: Path
) -> None:
    """An index another install built (and whose code changed since) is not this install's to call
    "stale": ``cache info`` says whose it is and what it is for that install, and opening the panel here
    says it was another install's, not that the panel or panelbot changed."""
    import sqlite3

    cache_dir = tmp_path / "cli-cache"
    env = {"PANELBOT_CACHE_DIR": str(cache_dir)}
    _ask(run_cli, panel_dir, cache_dir)
    (path,) = _files(cache_dir)
    other = tmp_path / "other-install" / "panelbot"
    (other / "retrieval").mkdir(
        parents=True
    )  # its code: not this one's, so its key is not this one's
    con = sqlite3.connect(path)
    con.execute("UPDATE saved SET value = ? WHERE name = 'root'", (json.dumps(str(other)),))
    con.execute("UPDATE saved SET value = ? WHERE name = 'key'", (json.dumps("0" * 64),))
    con.commit()
    con.close()
    (entry,) = json.loads(run_cli("cache", "info", "--json", env=env).stdout)["indexes"]
    assert entry["state"] == "stale" and entry["this_install"] is False
    text = run_cli("cache", "info", env=env).stdout
    (line,) = [x for x in text.splitlines() if "gardens" in x]
    assert " elsewhere " in line and "stale" not in line
    assert f"built by another install of panelbot ({other}; stale for it)" in text
    r = _ask(run_cli, panel_dir, cache_dir)
    assert f"was built by another install of panelbot ({other}); rebuilt it" in r.stderr
    assert "stale" not in r.stderr
    (entry,) = json.loads(run_cli("cache", "info", "--json", env=env).stdout)["indexes"]
    assert entry["state"] == "current" and entry["this_install"] is True


def test_concurrent_starts_build_once_and_agree(
    panel_dir: Path, tmp_path: Path, isolated_env
) -> None:
    """Six real processes start at once on an empty cache: all answer the same, one index file results,
    no temporary file is left, and the file is sound (several may build it: each renames a whole file)."""
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
    from panelbot.panel import load_panel
    from panelbot.retrieval import cache
    from panelbot.retrieval.vocabulary import Normalizer
    d = Path(sys.argv[1])
    panel = load_panel(d)
    key, path = cache.cache_key(d), cache.cache_path(d)
    for _ in range(int(sys.argv[2])):
        cache.write_index(path, key, panel, Normalizer(panel.vocabulary))
""")

READER = textwrap.dedent("""
    import sys
    from pathlib import Path
    from panelbot.retrieval import cache
    from panelbot.retrieval.router import Router
    d = Path(sys.argv[1])
    key, path = cache.cache_key(d), cache.cache_path(d)
    seen = 0
    for _ in range(int(sys.argv[2])):
        hit = cache.read_index(path, key, d)  # raises on a half-written file
        seen += hit is not None and Router(hit.panel, index=hit.index).route("compost").speakers != []
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
        [sys.executable, "-c", READER, str(panel_dir), "60"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    for w in writers:
        assert w.wait(timeout=120) == 0
    assert reader.returncode == 0, reader.stderr
    assert int(reader.stdout) == 60
    assert len(_files(cache_dir)) == 1 and not list((cache_dir / "index").glob("*.tmp"))


def test_a_killed_builds_leftover_is_removed_and_said(cache_dir: Path, panel_dir: Path) -> None:
    """A temporary file a killed build left (old enough not to be another build's under way) is removed
    by the next start that builds, which says so; a young one is left alone."""
    path = cache.cache_path(panel_dir)
    path.parent.mkdir(parents=True)
    old = path.with_name(f"{cache._temp_prefix(path)}123.dead.tmp")
    young = path.with_name(f"{cache._temp_prefix(path)}456.busy.tmp")
    old.write_bytes(b"half a file")
    young.write_bytes(b"being written")
    os.utime(old, (1, 1))
    opened = cache.open_indexed(panel_dir)
    assert opened.note == "the last save of the index of panel 'gardens' did not finish; rebuilt it"
    assert not old.exists() and young.exists()


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


def test_a_saved_panel_finds_a_quote_by_id_making_only_it(cache_dir: Path, panel_dir: Path) -> None:
    built = cache.open_indexed(panel_dir)
    opened = cache.open_indexed(panel_dir)
    assert opened.source == "cache"
    quotes = opened.panel.quotes
    last = built.panel.quotes[-1]
    assert opened.panel.quote(last.id) == last
    made = [q.id for q in built.panel.quotes if quotes.position(q.id) is not None]
    assert made == [last.id]
    assert opened.panel.quote("no-such-id") is None
    speaker = last.speaker
    assert opened.panel.quotes_by(speaker) == [
        q for q in built.panel.quotes if q.speaker == speaker
    ]


def test_cache_clear_removes_the_earlier_formats_files(cache_dir: Path, panel_dir: Path) -> None:
    cache.open_indexed(panel_dir)
    d = cache_dir / "index"
    (d / "gardens-0123456789abcdef.pbidx").write_bytes(b"PANELBOT-INDEX\n\x00old")
    (d / "gardens-0123456789abcdef.lock").write_bytes(b"")
    assert cache.clear()[0] == 2
    assert not [p for p in d.iterdir() if not p.name.startswith("meaning-")]


def test_cache_info_counts_the_models_widened_weights_and_clear_removes_them(
    isolated_env, cache_dir: Path, capsys
) -> None:
    """A new user's trial: ``cache info`` listed 216 KB of indexes and 23 KB of parses but not the ~88 MB of
    the sentence model's float32 weights the cache also holds (the README says it holds them)."""
    from panelbot.cli.main import main as cli
    from panelbot.retrieval import encoder

    copy = encoder._widened_dir()  # what the first start writes
    size = sum(f.stat().st_size for f in copy.iterdir())
    assert copy.parent == cache_dir / "models" and size > 40_000_000
    assert cli(["cache", "info", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["models"]["copies"] == [{"directory": str(copy), "bytes": size}]
    assert info["bytes"] == size + info["config_parses"]["bytes"] + sum(
        e["bytes"] for e in info["indexes"]
    )
    assert cli(["cache", "info"]) == 0
    text = capsys.readouterr().out
    assert f"{copy.name}" in text and "(1 copy, " in text
    assert text.splitlines()[-1].startswith("Total: ") and "MB" in text.splitlines()[-1]
    assert cli(["cache", "clear"]) == 0
    said = capsys.readouterr().out
    assert "Removed 1 widened copy of the sentence model's weights" in said
    assert "next start widens them again" in said and not copy.exists()
    assert encoder._widened_dir() == copy and (copy / encoder.WEIGHTS).is_file()  # made again
