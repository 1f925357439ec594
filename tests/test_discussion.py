"""``panelbot discuss``: the labelled pairs, the measured pairing on them, a discussion of a subject (both
panelists, one, or none), the map, and the CLI (text, JSON, usage errors)."""

from __future__ import annotations

import io
import json
from dataclasses import replace
from pathlib import Path

import pytest

from panelbot.cli.main import main
from panelbot.discussion.evaluation import check_ids, load_pairs, score
from panelbot.discussion.pairing import Pairing, cue_balance, names_and_numbers, without_names
from panelbot.discussion.render import discussion_text, map_text
from panelbot.discussion.stage import discuss, discussion_map, entry_discussion
from panelbot.ingest.draft import build_draft, write_draft
from panelbot.panel import load_panel
from panelbot.retrieval.router import Router
from panelbot.retrieval.tuning import discussion_tuning

REPO = Path(__file__).resolve().parents[1]
SHIPPED_SETS = [
    "eval/discuss_pairs.yaml",
    "eval/discuss_pairs_refit.yaml",
    "eval/heldout/discuss_pairs_2.yaml",
]
NUCLEAR = REPO / "tests" / "fixtures" / "nuclear_debate.vtt"


@pytest.fixture(scope="module")
def router() -> Router:
    return Router(load_panel(REPO / "persona_data" / "minimax-m3"))


@pytest.fixture(scope="module")
def pairing(router: Router) -> Pairing:
    return Pairing(router)


@pytest.fixture(scope="module")
def nuclear(tmp_path_factory: pytest.TempPathFactory) -> Router:
    text = NUCLEAR.read_text(encoding="utf-8")
    out = tmp_path_factory.mktemp("nuclear") / "nuclear_debate"
    write_draft(build_draft(text, "nuclear_debate"), text, out)
    return Router(load_panel(out))


def test_the_shipped_talk_has_over_80_labelled_pairs_of_its_own_quotes(router: Router) -> None:
    sets = [load_pairs(REPO / s) for s in SHIPPED_SETS]
    pairs = [p for s in sets for p in s.pairs]
    assert len(pairs) >= 80
    assert {p.label for p in pairs} == {"agree", "differ", "unrelated"}
    check_ids(router.panel, pairs)  # every id is a quote of the shipped panel
    for p in pairs:  # one quote of each panelist
        assert router.panel.quote(p.a).speaker != router.panel.quote(p.b).speaker
    assert len({(p.a, p.b) for p in pairs}) == len(pairs)  # no pair twice (nor in dev and held-out)
    assert all(s.talk == "minimax-m3" for s in sets)


def test_pairing_precision_on_the_labelled_pairs_is_at_least_90_percent(
    router: Router, pairing: Pairing
) -> None:
    panel = router.panel
    pairs = [p for s in SHIPPED_SETS for p in load_pairs(REPO / s).pairs]
    got = score(pairs, lambda p: pairing.judge(panel.quote(p.a), panel.quote(p.b)).verdict)
    assert got.predicted_paired >= 8  # it does pair (a pairing that never claims cannot fail)
    assert got.precision >= 0.9
    assert got.claim_precision >= 0.9


def test_the_second_talk_pairs_waste_and_never_pairs_the_radiation_answer(nuclear: Router) -> None:
    ps = load_pairs(REPO / "eval/discuss_pairs_nuclear.yaml")
    panel = nuclear.panel
    check_ids(panel, ps.pairs)
    pairing = Pairing(nuclear)
    assert pairing.judge(panel.quote("sigrid-04"), panel.quote("rahul-04")).paired
    got = score(ps.pairs, lambda p: pairing.judge(panel.quote(p.a), panel.quote(p.b)).verdict)
    assert got.precision >= 0.9 and got.predicted_paired >= 1


def test_the_nuclear_pairs_name_the_quotes_they_were_written_about(nuclear: Router) -> None:
    # the sets were written against these quotes; an ingest that renumbers them must re-point the pairs
    quote = nuclear.panel.quote
    assert quote("rahul-05").text.startswith("They're supposed to")  # small modular reactors
    assert quote("rahul-06").text.startswith("Build the cheap clean power first")  # closing
    for path in ("eval/discuss_pairs_nuclear.yaml", "eval/discuss_pairs_6_nuclear.yaml"):
        check_ids(nuclear.panel, load_pairs(REPO / path).pairs)


def test_the_wages_pairs_name_the_quotes_they_were_written_about(tmp_path: Path) -> None:
    text = (REPO / "tests/fixtures/wages_panel.vtt").read_text(encoding="utf-8")
    write_draft(build_draft(text, "wages_panel"), text, tmp_path / "wages_panel")
    panel = load_panel(tmp_path / "wages_panel")
    check_ids(panel, load_pairs(REPO / "eval/discuss_pairs_6_wages.yaml").pairs)
    assert panel.quote("lucia-05").text.startswith("There is some evidence")  # automation
    assert panel.quote("bogdan-04").text.startswith("In my restaurants the tablets")
    assert panel.quote("bogdan-05").text.startswith("Keep it with the independent commission")


def test_names_and_numbers_are_masked_in_general_english() -> None:
    said = "We served Acme 2.5 and 2.7 for three years. Acme asked us in Vegas, and I said yes."
    assert names_and_numbers(said) == {"acme", "2.5", "2.7", "three", "vegas"}
    assert without_names(said) == "We served and for years asked us in and I said yes"
    assert without_names("So the model can help you") == "So the model can help you"


def test_two_quotes_that_only_share_a_version_number_are_not_paired(
    router: Router, pairing: Pairing
) -> None:
    quote = router.panel.quote
    # Dan served MiniMax 2.7; Olive built internal evaluations at 2.7's release
    assert not pairing.judge(quote("dan-05"), quote("olive-14")).paired
    ps = load_pairs(REPO / "eval/discuss_pairs_6.yaml")
    got = score(ps.pairs, lambda p: pairing.judge(quote(p.a), quote(p.b)).verdict)
    assert got.precision >= 0.9


def test_cues_are_general_english() -> None:
    assert cue_balance("I agree, that is right.") > 0 > cue_balance("But that is not the point.")
    assert cue_balance("") == 0.0


def test_a_subject_both_spoke_to_is_framed_by_the_host_and_paired_across_panelists(
    router: Router, pairing: Pairing
) -> None:
    d = discuss(router, "open source", pairing)
    assert not d.declined and d.speakers == ["dan", "olive"]
    assert d.framing_id == "q03" and d.framing.startswith("MiniMax M3 is your strongest model yet")
    shown = set(d.quote_ids())
    assert d.points
    for p in d.points:
        assert p.a.speaker != p.b.speaker and {p.a.id, p.b.id} <= shown
    text = discussion_text(router.panel, d)
    assert "The host asked [q03]" in text and "[dan-02]" in text and "[olive-02]" in text
    assert "Where they meet:" in text


def test_one_panelist_only_is_said_never_an_invented_opposite(
    router: Router, pairing: Pairing
) -> None:
    d = discuss(router, "kv cache", pairing)
    assert d.speakers == ["dan"] and d.silent == ("olive",)
    assert d.points == () and d.note == "Only Dan spoke to this on the panel; Olive did not."
    assert "Olive (" not in discussion_text(router.panel, d)


@pytest.mark.parametrize("path", ["eval/discuss_pairs.yaml", "eval/discuss_pairs_refit.yaml"])
def test_subjects_neither_spoke_to_are_declined(router: Router, path: str) -> None:
    declined = load_pairs(REPO / path).declined
    assert declined
    for subject in declined:
        d = discuss(router, subject)
        assert d.declined and d.turns == () and d.points == (), subject
        assert "off-topic" in d.reason


def test_below_the_threshold_they_spoke_to_different_aspects(router: Router) -> None:
    never = Pairing(
        router,
        discussion_tuning().__class__(**{**discussion_tuning().__dict__, "pair_threshold": 1.1}),
    )
    d = discuss(router, "open source", never)
    assert d.points == ()
    assert d.note.startswith("They spoke to different aspects of it")


def test_the_map_lists_subjects_both_spoke_to_each_leading_back(
    router: Router, pairing: Pairing
) -> None:
    entries = discussion_map(router, pairing)
    assert len(entries) >= 3
    for e in entries:
        assert e.verdict in ("agree", "differ", "both", "mixed") and e.points
        for p in e.points:
            assert p.a.speaker != p.b.speaker
        # the subject's name, discussed, shows one of the entry's pairs
        shown = {tuple(sorted(p.ids)) for p in discuss(router, e.subject, pairing).points}
        assert shown & {tuple(sorted(p.ids)) for p in e.points}, e.subject
        d = entry_discussion(router, e)
        assert {i for p in e.points for i in p.ids} == set(d.quote_ids())
    assert any(e.framing_id == "q03" for e in entries)  # the host's open-source question
    text = map_text(router.panel, entries)
    assert text.startswith(f"Subjects Dan and Olive both spoke to ({len(entries)}):")


def test_the_map_shows_short_titles_that_name_neither_side(
    router: Router, pairing: Pairing
) -> None:
    """A subject named by a host question is shown by a topic of its pairs, not the whole question, and not
    one panelist's side of it ("<organisation>'s view on ..."); the title leads back too."""
    entries = discussion_map(router, pairing)
    hosts = {hq.text for hq in router.panel.questions}
    sides = {
        w.lower()
        for p in router.panel.panelists.values()
        for w in f"{p.name} {p.organisation}".split()
    }
    labelled_by_host = [e for e in entries if e.subject in hosts]
    assert labelled_by_host  # the shipped talk has one (its open-source question)
    for e in entries:
        assert e.name not in hosts, e.name
        assert not sides & {w.removesuffix("'s") for w in e.name.lower().split()}, e.name
        shown = {tuple(sorted(p.ids)) for p in discuss(router, e.name, pairing).points}
        assert shown & {tuple(sorted(p.ids)) for p in e.points}, e.name
    assert all(e.name in map_text(router.panel, entries, 200) for e in entries)
    assert [e.to_dict()["title"] for e in entries] == [e.name for e in entries]


def test_measuring_a_pair_asks_for_scores_and_ranks_only(router: Router, monkeypatch) -> None:  # noqa: ANN001
    """Saying why a quote matched was most of the map's first build (5.8 s -> 0.9 s): pairing needs only
    scores and ranks, and the same ranking either way."""
    asked: list[bool] = []
    original = Router.search

    def spy(self, query, k=5, speakers=None, *, explain=True):  # type: ignore[no-untyped-def]
        asked.append(explain)
        return original(self, query, k, speakers, explain=explain)

    monkeypatch.setattr(Router, "search", spy)
    first, second = list(router.panel.panelists)[:2]
    a, b = router.panel.quotes_by(first)[1], router.panel.quotes_by(second)[1]
    Pairing(router).measure(a, b)
    assert asked and not any(asked)
    q = "Why open source the model?"
    plain = router.search(q, 5, explain=False)
    explained = router.search(q, 5)
    assert [(h.quote.id, h.score) for h in plain] == [(h.quote.id, h.score) for h in explained]
    assert all(not h.reason for h in plain) and any(h.reason for h in explained)


def test_a_discussion_is_framed_only_by_a_host_question_two_of_its_speakers_answered(
    router: Router, pairing: Pairing
) -> None:
    """From a new user's trial: '--map 3' put Dan's answer to the three-years question under the host's
    question about replicating a paper, which Olive alone answered."""
    for e in discussion_map(router, pairing):
        d = entry_discussion(router, e)
        if d.framing_id is not None and len(d.turns) > 1:
            answered = {q.speaker for t in d.turns for q in t.quotes if q.question == d.framing_id}
            assert len(answered) >= 2, (e.name, d.framing_id)
    framed = entry_discussion(router, discussion_map(router, pairing)[0])
    assert framed.framing_id is not None  # the open-source question: both answered it


def _cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    import contextlib

    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as exc:
            code = int(exc.code or 0)
    return code, out.getvalue(), err.getvalue()


def test_cli_json_and_text(isolated_env: dict[str, str]) -> None:
    code, out, err = _cli("discuss", "--json", "open source")
    assert code == 0, err
    obj = json.loads(out)
    assert obj["framing"]["id"] == "q03" and [t["speaker"] for t in obj["turns"]] == [
        "dan",
        "olive",
    ]
    assert all(len(p["ids"]) == 2 for p in obj["points"]) and obj["points"]
    code, out, _ = _cli("discuss", "sourdough bread recipes")
    assert code == 0 and "Discussion:" not in out and out.strip()
    code, out, _ = _cli("discuss", "--json", "sourdough bread recipes")
    assert json.loads(out)["declined"] is True


def test_cli_map_and_its_entries(isolated_env: dict[str, str]) -> None:
    code, out, _ = _cli("discuss", "--map", "--json")
    subjects = json.loads(out)["subjects"]
    assert code == 0 and subjects
    code, out, _ = _cli("discuss", "--map", "1")
    assert code == 0 and out.startswith(f"Discussion: {subjects[0]['subject'][:20]}")
    code, _, err = _cli("discuss", "--map", str(len(subjects) + 1))
    assert code == 2 and err.startswith("panelbot: error: --map") and "Traceback" not in err


@pytest.mark.parametrize(
    "argv",
    [
        ("discuss",),
        ("discuss", "--map", "x"),
        ("discuss", "--map", "2", "open source"),
        ("discuss", "  "),
    ],
)
def test_cli_usage_errors_are_one_line_exit_2(isolated_env: dict[str, str], argv) -> None:
    code, out, err = _cli(*argv)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1


def test_followups_answer_from_the_points_never_inventing_one(
    router: Router, pairing: Pairing
) -> None:
    from panelbot.discussion.followups import read_followup

    panel = router.panel
    shipped = read_followup(panel, discuss(router, "open source", pairing), "Where do they agree?")
    assert shipped is not None and shipped.kind == "agreement"
    if not shipped.quotes:  # the shipped verdict model claims no agreement here: none is made up
        assert shipped.text.startswith("No agreement is measured")
    # a verdict model that reads every pair it pairs as agreeing: the follow-ups cite those points
    agreeing = Pairing(router, replace(discussion_tuning(), agree_threshold=0.0))
    d = discuss(router, "open source", agreeing)
    agree = read_followup(panel, d, "Where do they agree?")
    assert agree is not None and agree.kind == "agreement"
    a, b = d.points[0].ids
    assert f"[{a}]" in agree.text and f"[{b}]" in agree.text
    why = read_followup(panel, d, "why do they disagree?")
    assert why is not None and why.kind == "difference" and why.quotes == ()
    assert why.text.startswith("No difference is measured on this")
    olive = read_followup(panel, d, "Olive, respond to that")
    assert olive is not None and olive.speaker == "olive"
    assert "[olive-02]" in olive.text and f"Agreement: Dan [{a}] and Olive [{b}]" in olive.text
    assert read_followup(panel, d, "what is a KV cache?") is None
    only = discuss(router, "kv cache", pairing)
    olive = read_followup(panel, only, "Olive, what do you say to that?")
    assert olive is not None and "Olive did not speak to this" in olive.text and olive.quotes == ()
    assert (
        read_followup(panel, discuss(router, "sourdough bread recipes"), "do they agree?") is None
    )
