"""``panelbot ingest``: draft panels from captions, the --turns-json view, curated-panel protection."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from panelbot.errors import DataError, PanelbotError, UsageError
from panelbot.ingest.draft import (
    MAX_QUOTE_WORDS,
    _role_from_intro,
    _role_from_presentation,
    build_draft,
    chunk_answer,
    is_curated,
    segment,
    write_draft,
)
from panelbot.panel import load_panel
from panelbot.retrieval.router import Router

PROPS = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.fixture(scope="module")
def storage_captions(fixtures_dir) -> str:
    return (fixtures_dir / "storage_panel_captions.txt").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def shipped_draft(shipped_captions: str):
    return build_draft(shipped_captions, "m3-draft")


# ----------------------------------------------------------------------------------------------- build_draft


def test_shipped_draft_has_both_panelists_and_quotes(shipped_draft) -> None:
    ids = [p["id"] for p in shipped_draft.panel["panelists"]]
    assert ids == ["dan", "olive"]
    assert shipped_draft.panel["status"] == "draft"
    speakers = {q["speaker"] for q in shipped_draft.quotes}
    assert speakers == {"dan", "olive"}
    assert len(shipped_draft.questions) >= 8
    dan = shipped_draft.panel["panelists"][0]
    assert "VP of Kernels" in dan["role"]


def test_draft_quotes_respect_the_size_limits(shipped_draft) -> None:
    for q in shipped_draft.quotes:
        assert len(q["text"].split()) <= MAX_QUOTE_WORDS + 5, q["id"]
        first, end = q["sentences"]
        assert 0 <= first < end
        assert end - first <= 4, q["id"]
        assert q["keywords"] and q["topics"]


def test_draft_quote_ids_are_stable_and_unique(shipped_captions: str, shipped_draft) -> None:
    ids = [q["id"] for q in shipped_draft.quotes]
    assert len(ids) == len(set(ids))
    assert all(i.split("-")[0] in ("dan", "olive") and i.split("-")[1].isdigit() for i in ids)
    again = build_draft(shipped_captions, "m3-draft")
    assert [q["id"] for q in again.quotes] == ids
    assert [q["text"] for q in again.quotes] == [q["text"] for q in shipped_draft.quotes]


def test_draft_quotes_are_the_speakers_own_words(shipped_draft) -> None:
    from panelbot.text import normalize_for_match

    turns = {i: normalize_for_match(t.text) for i, t in enumerate(shipped_draft.turns)}
    for q in shipped_draft.quotes:
        # each sentence of a quote (stutters cleaned) appears in its turn word for word, modulo stutters
        words = normalize_for_match(q["text"]).split()
        src = set(turns[q["turn"]].split())
        assert set(words) <= src, q["id"]
        assert shipped_draft.turns[q["turn"]].speaker == q["speaker"]


def test_other_panel_draft(storage_captions: str) -> None:
    d = build_draft(storage_captions, "storage")
    panelists = {p["id"]: p for p in d.panel["panelists"]}
    assert list(panelists) == ["priya", "marcus"]
    assert panelists["priya"]["organisation"] == "Acme Cloud"
    assert "storage" in panelists["priya"]["role"]
    assert panelists["marcus"]["organisation"] == "Bluefin Labs"
    assert {q["speaker"] for q in d.quotes} == {"priya", "marcus"}
    both = [q for q in d.questions if "five years" in q["text"]]
    assert len(both) == 1 and both[0]["answered_by"] == ["priya", "marcus"]
    lag = next(q for q in d.questions if "replication lag" in q["text"])
    assert lag["asked_to"] == ["priya"] and lag["answered_by"] == ["priya"]


def test_nothing_about_the_shipped_panel_leaks_into_another(storage_captions: str) -> None:
    d = build_draft(storage_captions, "storage")
    dumped = json.dumps([d.panel, d.questions, d.quotes]).lower()
    for word in ("dan", "olive", "minimax", "together ai", "kv cache"):
        assert word not in dumped


def test_captions_without_panelists_are_a_data_error() -> None:
    with pytest.raises(DataError, match="no panelists"):
        build_draft("Some title\n\nhello there >> how are you? >> fine thanks", "x")


@pytest.mark.parametrize(
    "text",
    ["", "One. Two.", "Yeah.", "a " * 400, "So the the cache is um big. " * 30],
)
def test_chunk_answer_limits(text: str) -> None:
    for first, end, quote in chunk_answer(text):
        assert 0 <= first < end
        assert len(quote.split()) <= MAX_QUOTE_WORDS
        assert " the the " not in quote and " um " not in quote


# ----------------------------------------------------------------------------------------------- writing


def test_write_draft_then_load_and_answer(tmp_path: Path, storage_captions: str) -> None:
    out = tmp_path / "persona_data" / "storage"
    d = build_draft(storage_captions, out.name)
    written = write_draft(d, storage_captions, out)
    assert {p.name for p in written} == {
        "panel.yaml",
        "turns.yaml",
        "questions.yaml",
        "quotes.yaml",
        "captions.txt",
    }
    assert (out / ".ingest.json").is_file()
    assert (out / "captions.txt").read_text(encoding="utf-8") == storage_captions
    panel = load_panel(out)
    assert panel.status == "draft" and list(panel.panelists) == ["priya", "marcus"]
    r = Router(panel)
    res = r.route("How do you track down replication lag on a volume?")
    assert res.speakers == ["priya"] and not res.abstained
    assert "Replication lag" in res.quotes[0].quote.text
    res = r.route("how do robots trained in simulation cope with the real warehouse")
    assert res.speakers == ["marcus"]
    assert r.route("how do I make strawberry jam").abstained


def test_rewrite_untouched_draft_needs_force(tmp_path: Path, storage_captions: str) -> None:
    """A re-run does not silently replace a draft (issue 21): --force does, when nobody curated it."""
    out = tmp_path / "p"
    d = build_draft(storage_captions, "p")
    write_draft(d, storage_captions, out)
    assert is_curated(out) is None
    with pytest.raises(UsageError, match="draft panel .* --force"):
        write_draft(d, storage_captions, out)
    write_draft(d, storage_captions, out, force=True)


def test_edited_draft_is_protected_unless_forced(tmp_path: Path, storage_captions: str) -> None:
    out = tmp_path / "p"
    d = build_draft(storage_captions, "p")
    write_draft(d, storage_captions, out)
    quotes = out / "quotes.yaml"
    quotes.write_text(quotes.read_text(encoding="utf-8") + "# reviewed\n", encoding="utf-8")
    assert "edited" in (is_curated(out) or "")
    with pytest.raises(UsageError, match="--force"):
        write_draft(d, storage_captions, out)
    assert quotes.read_text(encoding="utf-8").endswith("# reviewed\n")  # untouched
    write_draft(d, storage_captions, out, force=True)
    assert not quotes.read_text(encoding="utf-8").endswith("# reviewed\n")


def test_status_curated_panel_is_protected(tmp_path: Path, storage_captions: str) -> None:
    out = tmp_path / "p"
    d = build_draft(storage_captions, "p")
    write_draft(d, storage_captions, out)
    pf = out / "panel.yaml"
    pf.write_text(
        pf.read_text(encoding="utf-8").replace("status: draft", "status: curated"), encoding="utf-8"
    )
    assert load_panel(out).status == "curated"
    with pytest.raises(PanelbotError):
        write_draft(d, storage_captions, out)
    assert "status: curated" in pf.read_text(encoding="utf-8")


def test_hand_made_panel_without_manifest_is_protected(tmp_path: Path, shipped_panel) -> None:
    out = tmp_path / "m3"
    shutil.copytree(shipped_panel.path, out)
    before = (out / "quotes.yaml").read_text(encoding="utf-8")
    captions = (out / "captions.txt").read_text(encoding="utf-8")
    with pytest.raises(UsageError):
        write_draft(build_draft(captions, "m3"), captions, out)
    assert (out / "quotes.yaml").read_text(encoding="utf-8") == before


def test_removed_file_counts_as_curation(tmp_path: Path, storage_captions: str) -> None:
    out = tmp_path / "p"
    d = build_draft(storage_captions, "p")
    write_draft(d, storage_captions, out)
    (out / "turns.yaml").unlink()
    assert "removed" in (is_curated(out) or "")


def test_out_is_a_file(tmp_path: Path, storage_captions: str) -> None:
    f = tmp_path / "file"
    f.write_text("x")
    assert is_curated(f)
    with pytest.raises(UsageError):
        write_draft(build_draft(storage_captions, "p"), storage_captions, f)


# ----------------------------------------------------------------------------------------------- CLI


def test_cli_turns_json_on_shipped_captions(run_cli, shipped_panel) -> None:
    r = run_cli("ingest", str(shipped_panel.path / "captions.txt"), "--turns-json")
    assert r.returncode == 0, r.stderr
    turns = json.loads(r.stdout)
    assert isinstance(turns, list) and len(turns) >= 30
    assert all(set(t) == {"speaker", "text", "start", "end"} for t in turns)
    assert all(t["start"] is None and t["end"] is None for t in turns)  # plain text has no times
    assert {t["speaker"] for t in turns} <= {"dan", "olive", "host", "unknown"}
    assert {"dan", "olive", "host"} <= {t["speaker"] for t in turns}
    # transcript order
    assert turns[0]["text"].startswith("This is a discussion")
    assert "Thank you Olive" in turns[-1]["text"]


def test_cli_turns_json_on_other_panel(run_cli, fixtures_dir) -> None:
    r = run_cli("ingest", str(fixtures_dir / "storage_panel_captions.txt"), "--turns-json")
    assert r.returncode == 0, r.stderr
    turns = json.loads(r.stdout)
    assert [t["speaker"] for t in turns] == [
        "host",
        "priya",
        "host",
        "marcus",
        "host",
        "priya",
        "host",
        "marcus",
        "host",
        "priya",
        "marcus",
        "host",
    ]


def test_cli_ingest_draft_answers_at_once_and_is_protected(
    run_cli, tmp_path: Path, fixtures_dir
) -> None:
    work = tmp_path / "proj"
    work.mkdir()
    caps = str(fixtures_dir / "storage_panel_captions.txt")
    r = run_cli("ingest", caps, "--out", "persona_data/storage", cwd=work)
    assert r.returncode == 0, r.stderr
    assert "Priya" in r.stdout and "Marcus" in r.stdout
    # by name, from persona_data/ in the working directory
    r = run_cli(
        "ask", "--panel", "storage", "--json", "How do you handle replication lag?", cwd=work
    )
    assert r.returncode == 0, r.stderr
    ans = json.loads(r.stdout)
    assert ans["speakers"] == ["priya"] and ans["quotes"][0]["id"].startswith("priya-")
    # by path, from anywhere
    r = run_cli(
        "ask",
        "--panel",
        str(work / "persona_data" / "storage"),
        "--json",
        "Marcus, what is the hardest part of grasping parcels?",
    )
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["speakers"] == ["marcus"]
    r = run_cli("panels", cwd=work)
    assert "storage" in r.stdout and "draft" in r.stdout

    # an untouched draft is re-ingested only with --force; an edited one neither without it
    r = run_cli("ingest", caps, "--out", "persona_data/storage", cwd=work)
    assert r.returncode == 2 and "--force" in r.stderr and r.stderr.count("\n") == 1
    assert (
        run_cli("ingest", caps, "--out", "persona_data/storage", "--force", cwd=work).returncode
        == 0
    )
    qfile = work / "persona_data" / "storage" / "quotes.yaml"
    qfile.write_text(
        qfile.read_text(encoding="utf-8").replace("priya-01", "priya-intro"), encoding="utf-8"
    )
    r = run_cli("ingest", caps, "--out", "persona_data/storage", cwd=work)
    assert r.returncode == 2
    assert "--force" in r.stderr and "Traceback" not in r.stderr
    assert "priya-intro" in qfile.read_text(encoding="utf-8")
    r = run_cli("ingest", caps, "--out", "persona_data/storage", "--force", cwd=work)
    assert r.returncode == 0, r.stderr
    assert "priya-intro" not in qfile.read_text(encoding="utf-8")


def test_cli_ingest_errors(run_cli, tmp_path: Path, fixtures_dir) -> None:
    r = run_cli("ingest", str(tmp_path / "missing.txt"), "--out", str(tmp_path / "x"))
    assert r.returncode == 2 and "not found" in r.stderr and "Traceback" not in r.stderr
    r = run_cli("ingest", str(fixtures_dir / "storage_panel_captions.txt"))
    assert r.returncode == 2 and "--out" in r.stderr
    nobody = tmp_path / "nobody.txt"
    nobody.write_text(
        "Title\n\n"
        + "hello there, it is good to see everybody here today. >> how are you all doing? "
        ">> fine, thanks, we have had a long week of work on the new harvest. " * 4,
        encoding="utf-8",
    )
    r = run_cli("ingest", str(nobody), "--out", str(tmp_path / "y"))
    assert r.returncode == 2 and "no panelists" in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "y").exists()


def test_cli_ingest_binary_file(run_cli, tmp_path: Path) -> None:
    f = tmp_path / "junk.bin"
    f.write_bytes(bytes(range(256)) * 20)
    r = run_cli("ingest", str(f), "--turns-json")
    # a binary file is refused in one line, never turned into a garbage panel
    assert r.returncode == 2 and "binary" in r.stderr and "Traceback" not in r.stderr
    assert r.stdout == ""


# ----------------------------------------------------------------------------------------------- properties

_piece = st.one_of(
    st.sampled_from(
        [
            ">>",
            "I'm Ann.",
            "I'm Bob, I lead storage at Foo.",
            "Ann, over to you?",
            "Yeah.",
            "What do you think?",
            "We shard the cache.",
            "\x1b]52;c;SGVsbG8=\x07",
            "\x9b31m",
            "\n",
        ]
    ),
    st.text(max_size=20),
)


@PROPS
@given(st.lists(_piece, max_size=80))
def test_segment_and_build_draft_never_crash(pieces: list[str]) -> None:
    text = " ".join(pieces)
    title, turns, names = segment(text)
    assert all("\x1b" not in t.text and "\x9b" not in t.text for t in turns)
    try:
        d = build_draft(text, "x")
    except DataError:
        return
    assert d.quotes
    ids = {p["id"] for p in d.panel["panelists"]}
    assert {q["speaker"] for q in d.quotes} <= ids
    assert len({q["id"] for q in d.quotes}) == len(d.quotes)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=2_000), st.integers(1, 40))
def test_segment_survives_huge_binaryish_input(data: bytes, times: int) -> None:
    segment((data * times).decode("utf-8", errors="replace"))


def test_build_draft_on_a_huge_transcript(shipped_captions: str) -> None:
    # five talks back to back (~60,000 raw words) still build a sane draft
    d = build_draft(shipped_captions + "\n>> " + " >> ".join([shipped_captions] * 4), "big")
    assert [p["id"] for p in d.panel["panelists"]] == ["dan", "olive"]
    assert len({q["id"] for q in d.quotes}) == len(d.quotes)


# a new user's small WebVTT: two people introduce themselves with surname, role and organisation in one breath,
# ">>" marks each change of speaker, the host asks each by name, and the captions carry no title
_SELF_INTRO_VTT = """WEBVTT

00:00:01.000 --> 00:00:05.000
>> Welcome everyone to the infrastructure panel. Let's start with introductions.

00:00:05.000 --> 00:00:12.000
>> Hi, I'm Alice Smith, Lead of storage team at Acme Cloud. I work on object storage and replication.

00:00:12.000 --> 00:00:18.000
>> I'm Bob Kumar, head of networking at Zeta Labs. I spend my days on packet loss and routing.

00:00:18.000 --> 00:00:24.000
>> Alice, what happens when a disk fails in your object storage cluster?

00:00:24.000 --> 00:00:40.000
>> When a disk fails, the cluster loses one replica and the replication service rebuilds it from the other
replicas. Object storage never explodes, but replication across regions hurts latency. Object storage
replication is the whole game for us.

00:00:40.000 --> 00:00:46.000
>> Bob, how do you think about packet loss in your network?

00:00:46.000 --> 00:01:02.000
>> Packet loss hurts everything. The routing layer explodes when packet loss spikes across data centers, and
the network never recovers quickly. Packet loss and routing tables are what I watch every single day.
"""


def test_self_introductions_give_full_names_roles_organisations_topics_and_a_title() -> None:
    d = build_draft(_SELF_INTRO_VTT, "my-folder")
    people = {p["id"]: p for p in d.panel["panelists"]}
    assert list(people) == ["alice", "bob"]  # ids stay folded first names
    alice, bob = people["alice"], people["bob"]
    assert (alice["name"], alice["role"], alice["organisation"]) == (
        "Alice Smith",
        "Lead of storage team",
        "Acme Cloud",
    )
    assert (bob["name"], bob["role"], bob["organisation"]) == (
        "Bob Kumar",
        "Head of networking",
        "Zeta Labs",
    )
    noise = {
        "loses",
        "explodes",
        "never",
        "across",
        "hurts",
        "rebuilds",
        "recovers",
        "spikes",
        "quickly",
    }
    for p in (alice, bob):
        assert p["covers"] and not noise & set(p["covers"]), p["covers"]
    assert not noise & set(d.panel["topics"])
    assert "replication" in alice["covers"] and "packet loss" in bob["covers"]
    assert d.panel["title"] == "Alice Smith (Acme Cloud) and Bob Kumar (Zeta Labs)"
    q = {q["asked_to"][0]: q["answered_by"] for q in d.questions}
    assert q == {"alice": ["alice"], "bob": ["bob"]}


@pytest.mark.parametrize(
    ("intro", "role", "org"),
    [
        ("I'm Bob Kumar, head of networking at Zeta Labs.", "Head of networking", "Zeta Labs"),
        (
            "Bob Kumar here, I'm the head of networking at Zeta Labs.",
            "Head of networking",
            "Zeta Labs",
        ),
        (
            "Hi everyone. Bob Kumar here, head of networking at Zeta Labs.",
            "Head of networking",
            "Zeta Labs",
        ),
        (
            "Hi, this is Bob Kumar, head of networking at Zeta Labs.",
            "Head of networking",
            "Zeta Labs",
        ),
        ("I'm Bob. I head networking at Zeta Labs.", "Lead of networking", "Zeta Labs"),
        (
            "I'm Bob, and I run the platform team at Zeta Labs.",
            "Lead of platform team",
            "Zeta Labs",
        ),
        ("I'm Dan. I'm the VP of Kernels at Together AI.", "VP of Kernels", "Together AI"),
        ("I'm Bob Kumar, thanks for having me.", "", ""),
    ],
)
def test_role_and_organisation_from_the_common_forms_of_introduction(
    intro: str, role: str, org: str
) -> None:
    assert _role_from_intro(intro) == (role, org)


def test_name_here_then_role_gives_the_full_name_role_and_organisation() -> None:
    vtt = _SELF_INTRO_VTT.replace(
        "I'm Bob Kumar, head of networking", "Bob Kumar here, I'm the head of networking"
    )
    bob = next(p for p in build_draft(vtt, "x").panel["panelists"] if p["id"] == "bob")
    assert (bob["name"], bob["role"], bob["organisation"]) == (
        "Bob Kumar",
        "Head of networking",
        "Zeta Labs",
    )


@pytest.mark.parametrize(
    ("presented", "role", "org"),
    [
        ("Ines Carvalho is a hydrologist at Deltares", "Hydrologist", "Deltares"),
        ("Ravi Menon builds flood barriers for the city", "Builds flood barriers for the city", ""),
        ("Oksana Bondar runs the emergency service in Kharkiv", "Runs the emergency service", ""),
        (
            "Kemal Aydın is the director of the Kandilli Observatory in Istanbul",
            "Director",
            "Kandilli Observatory",
        ),
        (
            "Ana Ruiz, a glaciologist at the Institute of the Andes",
            "Glaciologist",
            "Institute of the Andes",
        ),
        (
            "Ana Ruiz, who studies glaciers at the Institute of the Andes",
            "Studies glaciers",
            "Institute of the Andes",
        ),
    ],
)
def test_role_and_organisation_from_the_hosts_presentation(
    presented: str, role: str, org: str
) -> None:
    assert _role_from_presentation(presented) == (role, org)


@PROPS
@given(st.text(max_size=200))
def test_role_from_a_presentation_never_crashes(text: str) -> None:
    role, org = _role_from_presentation(text)
    assert isinstance(role, str) and isinstance(org, str)


def test_a_guest_the_host_presents_gets_a_full_name_role_and_clean_keywords() -> None:
    captions = (
        "Welcome to Night Shift. My guest tonight has chased storms for twenty years. Ines Carvalho is a "
        "meteorologist at the Azores Observatory. Ines, welcome. >> Thanks, glad to be here. >> How do you "
        "forecast a storm that has not formed yet? >> We watch the sea surface temperature, because warm water "
        "feeds the storm, and the satellites show us where the clouds organise. The models then run every six "
        "hours, and each run loses a bit of skill after five days. >> And what tells you a storm is turning? "
        ">> The pressure drops fast at the centre, and the satellites show the eye clearing, and the models agree."
    )
    d = build_draft(captions, "storms")
    (p,) = d.panel["panelists"]
    assert (p["name"], p["role"], p["organisation"]) == (
        "Ines Carvalho",
        "Meteorologist",
        "Azores Observatory",
    )
    assert not {"loses", "feeds", "twenty", "five", "six"} & set(p["keywords"]), p["keywords"]
    assert d.panel["title"] == "Night Shift"  # the host's "Welcome to Night Shift", not her name
