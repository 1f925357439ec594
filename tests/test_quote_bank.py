"""Loading quote banks: the shipped panel, random well-formed banks and near misses of every kind, in JSON and
in block YAML, give the panel (every field's value and type, in the same order, whichever form) or one
DataError naming the file and the line -- never another exception."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from panelbot.errors import DataError
from panelbot.panel import find_panel_dir, load_panel
from panelbot.panel.model import Quote
from panelbot.panel.yaml_lines import load_yaml, strip_lines


def _exact(value: object) -> object:
    """A value with its type spelled out all the way down (5 and 5.0, True and 1, a list and a tuple differ)."""
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [_exact(v) for v in value])
    if isinstance(value, dict):
        return ("dict", [(_exact(k), _exact(v)) for k, v in value.items()])
    if isinstance(value, float) and math.isnan(value):
        return ("float", "nan")
    return (type(value).__name__, value)


def _outcome(directory: Path) -> object:
    """Everything loading gives: the panel's fields and each quote's (names, values and types, in order), or
    the error (its type, message, file and line)."""
    try:
        p = load_panel(directory)
    except DataError as exc:
        return ("error", type(exc).__name__, str(exc), exc.path, exc.line)
    except (
        ValueError,
        OverflowError,
    ) as exc:
        return ("exception", type(exc).__name__, str(exc))
    assert all(type(q) is Quote for q in p.quotes)
    quotes = [_exact(list(vars(q).items())) for q in p.quotes]
    rest = _exact(
        [
            p.name,
            p.title,
            p.status,
            p.host,
            p.panelists,
            p.questions,
            p.turns,
            p.vocabulary,
            p.topics,
            p.source,
            p.source_url,
        ]
    )
    return ("panel", quotes, rest)


def _loaded(directory: Path) -> object:
    outcome = _outcome(directory)
    assert outcome[0] in ("panel", "error"), outcome  # a bad bank is one DataError, nothing else
    return outcome


# ------------------------------------------------------------------------------------------- the shipped panel


@pytest.mark.parametrize("form", ["yaml", "json", "json-indented"])
def test_the_shipped_panel_loads_the_same_in_every_form(tmp_path: Path, form: str) -> None:
    src = find_panel_dir("minimax-m3")
    d = tmp_path / "minimax-m3"
    shutil.copytree(src, d)
    if form != "yaml":
        bank = d / "quotes.yaml"
        bank.write_text(
            json.dumps(
                strip_lines(load_yaml(bank)),
                indent=2 if form == "json-indented" else None,
                ensure_ascii=False,
            ),
            encoding="utf-8",
        )
    outcome = _loaded(d)
    assert outcome[0] == "panel" and outcome[1] == _loaded(src)[1]


# ------------------------------------------------------------------------------------------- panels to fill

SPEAKERS = ("ann", "bob")
QUESTIONS = ("q1", "q2", "q-3")
TURNS = 4


def _panel_dir(root: Path, *, questions: bool, turns: bool, url: str | None) -> Path:
    d = root / "p"
    if d.exists():
        shutil.rmtree(d)
    d.mkdir(parents=True)
    meta = (
        "format: 1\ntitle: T\nhost: {id: host, name: Host}\npanelists:\n  - {id: ann, name: Ann}\n"
        "  - {id: bob, name: Bob}\n" + (f"source_url: {url}\n" if url else "")
    )
    (d / "panel.yaml").write_text(meta, encoding="utf-8")
    if questions:
        (d / "questions.yaml").write_text(
            "".join(f"- {{id: {q}, text: Question {q}?, answered_by: [ann]}}\n" for q in QUESTIONS),
            encoding="utf-8",
        )
    if turns:
        (d / "turns.yaml").write_text(
            "".join(f"- {{speaker: {SPEAKERS[i % 2]}, text: Turn {i}.}}\n" for i in range(TURNS)),
            encoding="utf-8",
        )
    return d


def _write_bank(d: Path, entries: list, form: str) -> bool:
    """The bank as block YAML, or as JSON (False when JSON cannot hold it: the case is YAML's alone)."""
    bank = d / "quotes.yaml"
    if form == "yaml":
        bank.write_text(
            yaml.safe_dump(entries, allow_unicode=True, sort_keys=False, width=80), encoding="utf-8"
        )
        return True
    try:
        text = json.dumps(
            entries,
            ensure_ascii=form == "json-ascii",
            allow_nan=False,
            indent=1 if form == "json-indented" else None,
        )
    except (TypeError, ValueError):
        return False
    bank.write_text(text, encoding="utf-8")
    return True


FORMS = st.sampled_from(["yaml", "json", "json-ascii", "json-indented"])
_words = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=8)
_ids = st.from_regex(r"\A[a-z0-9][a-z0-9_.-]{0,10}\Z")


@st.composite
def _good_entry(draw: st.DrawFn, *, questions: bool, turns: bool) -> dict:
    """A well-formed entry: every optional field present or not, text with spaces to strip sometimes."""

    def maybe_padded(s: str) -> str:
        return draw(st.sampled_from(["", " ", "  \n"])) + s + draw(st.sampled_from(["", " ", "\n"]))

    e: dict = {
        "id": draw(_ids),
        "speaker": draw(st.sampled_from(SPEAKERS)),
        "text": maybe_padded(" ".join(draw(st.lists(_words, min_size=1, max_size=6))) + "."),
    }
    if draw(st.booleans()):
        e["question"] = (
            draw(st.sampled_from(QUESTIONS)) if questions or draw(st.booleans()) else draw(_words)
        )
    if draw(st.booleans()):
        e["turn"] = draw(st.integers(0, TURNS - 1 if turns else 10**6))
    if draw(st.booleans()):
        first = draw(st.integers(0, 50))
        e["sentences"] = [first, first + draw(st.integers(1, 5))]
    for key in ("topics", "keywords", "asks"):
        if draw(st.booleans()):
            e[key] = [maybe_padded(w) for w in draw(st.lists(_words, max_size=4))]
    for key in (
        "start",
        "end",
    ):  # (JSON writes 1e-05 so, which YAML 1.1 reads as text: not well formed)
        if draw(st.booleans()):
            e[key] = draw(
                st.one_of(st.integers(0, 10**5), st.floats(0, 1e5).map(lambda x: round(x, 3)))
            )
    if draw(st.booleans()):  # keys in another order
        e = dict(draw(st.permutations(list(e.items()))))
    return e


def _unique_ids(entries: list[dict]) -> list[dict]:
    seen: set[str] = set()
    for i, e in enumerate(entries):
        if e["id"] in seen:
            e["id"] = f"{e['id']}-{i}"
        seen.add(e["id"])
    return entries


_settings = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@_settings
@given(data=st.data(), questions=st.booleans(), turns=st.booleans(), url=st.booleans(), form=FORMS)
def test_random_well_formed_banks_load_in_every_form(
    tmp_path: Path, data: st.DataObject, questions: bool, turns: bool, url: bool, form: str
) -> None:
    d = _panel_dir(
        tmp_path,
        questions=questions,
        turns=turns,
        url="https://www.youtube.com/watch?v=abc" if url else None,
    )
    entries = _unique_ids(
        data.draw(st.lists(_good_entry(questions=questions, turns=turns), min_size=1, max_size=12))
    )
    assert _write_bank(d, entries, form)
    outcome = _loaded(d)
    assert outcome[0] == "panel", outcome
    assert len(outcome[1]) == len(entries)


def test_a_large_bank_in_pieces_loads_the_same(tmp_path: Path) -> None:
    """More entries than ``yaml_lines.PIECE``: block YAML is parsed a piece at a time."""
    d = _panel_dir(tmp_path, questions=True, turns=True, url="https://example.org/talk.mp4")
    entries = [
        {
            "id": f"x-{i}",
            "speaker": SPEAKERS[i % 2],
            "text": f"Quote number {i}.",
            "question": QUESTIONS[i % 3],
            "turn": i % TURNS,
            "keywords": ["kv cache", f"w{i % 7}"],
            "start": i * 1.5,
        }
        for i in range(4500)
    ]
    forms: list[object] = []
    for form in ("yaml", "json"):
        assert _write_bank(d, entries, form)
        outcome = _loaded(d)
        assert outcome[0] == "panel" and len(outcome[1]) == 4500
        forms.append(outcome[1])
    assert forms[0] == forms[1]


# ------------------------------------------------------------------------------------------- near misses

_odd_text = st.one_of(
    st.sampled_from(
        [
            "",
            " ",
            "\n",
            "\t",
            "ANN",
            "Ann",
            "ann ",
            " ann",
            "a\nb",
            "a b",
            "-x",
            ".x",
            "x\x00y",
            "\x1b[31mred",
            "caf\u00e9",
            "\u00e9t\u00e9",
            "ann\u2028",
            "\u00a0ann",
            "x\x85",
            "ab\x7f",
            "host",
            "nobody",
            "q9",
            "1e5",
            "null",
            "yes",
            "~",
        ]
    ),
    st.text(max_size=6),
)
_odd_scalar = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 5),
    st.sampled_from([2**53 - 1, 2**53, 2**60, 10**30, 10**400]),
    st.floats(allow_nan=True, allow_infinity=True),
    _odd_text,
)
_odd_value = st.one_of(
    _odd_scalar,
    st.lists(_odd_scalar, max_size=3),
    st.dictionaries(st.sampled_from(["id", "speaker", "text", "x"]), _odd_scalar, max_size=3),
    st.lists(st.lists(_odd_scalar, max_size=2), max_size=2),
)
FIELDS = (
    "id",
    "speaker",
    "text",
    "question",
    "turn",
    "sentences",
    "topics",
    "keywords",
    "asks",
    "start",
    "end",
)


@st.composite
def _near_miss(draw: st.DrawFn, earlier: list[dict], *, questions: bool, turns: bool) -> object:
    """A well-formed entry with one to three things wrong (or unusual but fine), or not a mapping at all."""
    if draw(st.integers(0, 19)) == 0:
        return draw(_odd_value)
    e = draw(_good_entry(questions=questions, turns=turns))
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.integers(0, 9))
        key = draw(st.sampled_from(FIELDS))
        if kind <= 3:
            e[key] = draw(_odd_value)
        elif kind == 4:
            e.pop(key, None)
        elif kind == 5 and earlier:
            e["id"] = draw(st.sampled_from(earlier))["id"]  # a repeated id
        elif kind == 6:
            e[draw(st.sampled_from(["extra", "Speaker", "ID", "__line__", "url", "quote"]))] = draw(
                _odd_value
            )
        elif kind == 7:
            e[key] = (
                [draw(_odd_scalar), draw(_odd_scalar)]
                if key != "sentences"
                else draw(st.lists(st.integers(-2, 6), max_size=3))
            )
        elif kind == 8:
            e[key] = draw(st.sampled_from([-1, -0.5, -0.0, 0, 0.0, TURNS, TURNS + 1, 1.5, True]))
        else:
            e[key] = draw(_odd_text)
    return e


@_settings
@given(data=st.data(), questions=st.booleans(), turns=st.booleans(), url=st.booleans(), form=FORMS)
def test_near_misses_give_a_panel_or_one_error_with_its_file(
    tmp_path: Path, data: st.DataObject, questions: bool, turns: bool, url: bool, form: str
) -> None:
    d = _panel_dir(
        tmp_path, questions=questions, turns=turns, url="https://youtu.be/xyz?t=3" if url else None
    )
    entries: list = _unique_ids(
        data.draw(st.lists(_good_entry(questions=questions, turns=turns), max_size=4))
    )
    for _ in range(data.draw(st.integers(1, 3))):
        good = [e for e in entries if isinstance(e, dict) and "id" in e]
        entries.insert(
            data.draw(st.integers(0, len(entries))),
            data.draw(_near_miss(good, questions=questions, turns=turns)),
        )
    if not _write_bank(d, entries, form):
        return
    outcome = _loaded(d)
    if outcome[0] == "error":
        assert outcome[3] and outcome[3].endswith(".yaml")


@pytest.mark.parametrize(
    ("entry", "expect"),
    [
        ({"id": "a1", "speaker": "carl", "text": "x"}, "unknown speaker 'carl'"),
        ({"id": "a1", "speaker": "host", "text": "x"}, "unknown speaker 'host'"),
        ({"id": "A1", "speaker": "ann", "text": "x"}, "must be lowercase letters"),
        ({"id": "a1", "speaker": "ann", "text": "  "}, "missing field 'text'"),
        (
            {"id": "a1", "speaker": "ann", "text": "x", "keywords": ["a", 3, None]},
            "must be a list of text",
        ),
        ({"id": "a1", "speaker": "ann", "text": "x", "start": -1}, "must be a number of seconds"),
        ({"id": "a1", "speaker": "ann", "text": "x", "turn": True}, "must be a whole number"),
        ({"id": "a1", "speaker": "ann", "text": "x", "sentences": [2, 2]}, "sentences must be"),
        ({"id": "b2", "speaker": "bob", "text": "x"}, "duplicate quote id 'b2'"),
    ],
)
@pytest.mark.parametrize("form", ["yaml", "json"])
def test_each_problem_is_an_error_with_its_line(
    tmp_path: Path, entry: dict, expect: str, form: str
) -> None:
    d = _panel_dir(tmp_path, questions=False, turns=False, url=None)
    entries = [
        {"id": "b2", "speaker": "bob", "text": "Fine."},
        {"id": "b3", "speaker": "ann", "text": "Fine."},
        entry,
    ]
    assert _write_bank(d, entries, form)
    outcome = _loaded(d)
    assert (
        outcome[0] == "error" and expect in outcome[2] and outcome[4] is not None
    )  # it names the line


def test_lenient_cases_are_accepted(tmp_path: Path) -> None:
    """Numbers where text goes, one keyword as text, whole seconds: converted, as the loader documents."""
    d = _panel_dir(tmp_path, questions=False, turns=False, url="https://youtu.be/xyz")
    entries = [
        {
            "id": 7,
            "speaker": "ann",
            "text": 12.5,
            "keywords": "kv",
            "topics": [1, "a"],
            "start": 3,
            "question": 4,
        },
        {"id": "a2", "speaker": " bob ", "text": "x", "start": 2**60, "end": 10**20},
    ]
    for form in ("yaml", "json"):
        assert _write_bank(d, entries, form)
        outcome = _loaded(d)
        assert outcome[0] == "panel"
    q = load_panel(d).quotes
    assert (q[0].id, q[0].text, q[0].keywords, q[0].topics, q[0].start) == (
        "7",
        "12.5",
        ("kv",),
        ("1", "a"),
        3.0,
    )
    assert (
        q[0].url == "https://youtu.be/xyz?t=3s"
        and q[1].speaker == "bob"
        and q[1].start == float(2**60)
    )


@pytest.mark.parametrize(
    "bad",
    [
        {"id": "Ab", "speaker": "ann", "text": "x"},
        {"id": "b2", "speaker": "ann", "text": "x"},
        {"id": "a b", "speaker": "ann", "text": "x"},
        {"id": "-a", "speaker": "ann", "text": "x"},
        {"id": "a\nb", "speaker": "ann", "text": "x"},
    ],
)
@pytest.mark.parametrize("declined_first", [False, True])
def test_a_bad_id_in_a_json_bank_is_an_error_with_its_line(
    tmp_path: Path, bad: dict, declined_first: bool
) -> None:
    """A bad id in a JSON bank (beside entries with a number for an id, or not) is the loader's error, with its
    line (the bank is read again as YAML to name it)."""
    d = _panel_dir(tmp_path, questions=False, turns=False, url=None)
    entries = [
        {"id": 5 if declined_first else "a5", "speaker": "ann", "text": "Five."},
        {"id": "b2", "speaker": "bob", "text": "Fine."},
        bad,
        {"id": "c3", "speaker": "bob", "text": "Fine."},
    ]
    assert _write_bank(d, entries, "json-indented")
    outcome = _loaded(d)
    assert outcome[0] == "error" and outcome[4] is not None
    assert (
        "duplicate quote id 'b2'" if bad["id"] == "b2" else "must be lowercase letters"
    ) in outcome[2]


def test_a_loaded_bank_waits_in_the_oldest_gc_generation_and_frozen_objects_stay_frozen(
    tmp_path: Path,
) -> None:
    """The bank just read goes straight to the oldest generation (young collections never scan it); objects
    someone else froze (``gc.freeze()``) stay frozen, and then the bank is left to the collector as usual."""
    import gc

    d = _panel_dir(tmp_path, questions=False, turns=False, url=None)
    assert _write_bank(
        d, [{"id": f"a{i}", "speaker": "ann", "text": f"Quote {i}."} for i in range(50)], "json"
    )
    quotes = load_panel(d).quotes
    young = {id(o) for generation in (0, 1) for o in gc.get_objects(generation)}
    assert not any(id(q) in young for q in quotes) and gc.isenabled()
    kept = [[]]  # a container the collector tracks
    gc.freeze()
    try:
        load_panel(d)
        assert gc.isenabled() and not any(
            o is kept for g in range(3) for o in gc.get_objects(g)
        )  # still frozen
    finally:
        gc.unfreeze()
