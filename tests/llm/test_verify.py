"""Citation verification: ids from the speaker's own retrieved quotes, quotation marks checked, uncited
sentences marked; grounded only when every sentence is supported by the quotes it cites and no citation
is invalid."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from panelbot.answer.backends.base import Citation
from panelbot.answer.llm.verify import (
    _CLOSE_BRACKETS,
    _OPEN_BRACKETS,
    cited_ids,
    sentences_of,
    verify_answer,
)
from panelbot.panel import Panel

from .conftest import make_panel

PANEL: Panel = make_panel()
DAN = PANEL.quotes_by("dan")


def check(text: str):
    return verify_answer(text, DAN, "Dan")


def test_valid_citations_ground_the_answer() -> None:
    v = check("Long agents are a memory problem [dan-1]. We fuse kernels [dan-2].")
    assert v.citations == [Citation("dan-1", True), Citation("dan-2", True)]
    assert v.grounded and v.unsupported_sentences == [] and v.problems == []


def test_invented_id_is_invalid_and_ungrounds() -> None:
    v = check("Memory matters [dan-1]. Also I invented this [dan-99].")
    assert Citation("dan-99", False) in v.citations and not v.grounded
    assert "[dan-99] is not one of Dan's sources" in v.problems[0]


def test_another_speakers_quote_is_invalid() -> None:
    v = check("Rewards must be verifiable [olive-1].")
    assert v.citations == [Citation("olive-1", False)] and not v.grounded


def test_no_citation_at_all_is_not_grounded_and_marked() -> None:
    v = check("Memory is the problem. Kernels help.")
    assert not v.grounded and v.citations == []
    assert v.unsupported_sentences == ["Memory is the problem.", "Kernels help."]


def test_uncited_sentence_marked_and_the_answer_only_partly_grounded() -> None:
    v = check("Memory is the problem [dan-1]. Honestly I love this stuff.")
    assert not v.grounded and v.unsupported_sentences == ["Honestly I love this stuff."]
    assert v.verdict.grade == "partly grounded"
    assert (v.verdict.supported, len(v.verdict.counted)) == (1, 2)


def test_quotation_must_appear_in_the_cited_quote() -> None:
    ok = check('I called it "a memory problem more than a compute problem" [dan-1].')
    assert ok.grounded
    curly = check("I said \u201cthe KV cache grows with context\u201d [dan-1].")
    assert curly.grounded
    bad = check('I called it "a solved problem" [dan-1].')
    assert bad.citations == [Citation("dan-1", False)] and not bad.grounded
    assert "does not appear in [dan-1]" in bad.problems[0]
    wrong_source = check('I said "we fuse attention kernels" [dan-1].')
    assert not wrong_source.grounded


def test_unclosed_quotation_is_still_checked() -> None:
    assert not check('I called it "a solved problem [dan-1].').grounded
    assert check('I called it "a memory problem [dan-1].').grounded
    v = check('As I said, "a solved problem." And that is why [dan-1].')
    assert v.unsupported_sentences and "cites no source" in v.problems[0]


def test_citation_after_the_full_stop_belongs_to_that_sentence() -> None:
    assert sentences_of("Memory first. [dan-1] Kernels next. [dan-2]") == [
        "Memory first [dan-1].",
        "Kernels next [dan-2].",
    ]
    text = "The KV cache grows. [dan-1] We fuse attention kernels. [dan-2]"
    assert check(text).unsupported_sentences == [] and check(text).grounded


def test_citation_forms() -> None:
    # a Markdown link's text is a citation-like token too: [dan-9](url) must not slip past unchecked
    assert cited_ids("a [dan-1, dan-2] b [DAN-1][dan-2] [link](http://x) [1]") == [
        "dan-1",
        "dan-2",
        "DAN-1",
        "dan-2",
        "link",
        "1",
    ]
    v = check("Memory [DAN-1]. Numbers [1].")
    assert v.citations == [Citation("dan-1", True), Citation("1", False)]


def test_bullet_lines_are_separate_sentences() -> None:
    v = check('- a memory problem [dan-1]\n- kernels fused\n2. [dan-2] "We fuse attention kernels"')
    assert v.unsupported_sentences == ["kernels fused"] and v.verdict.grade == "partly grounded"
    assert [c.status for c in v.verdict.sentences] == ["supported", "uncited", "supported"]


ids = st.sampled_from(["dan-1", "dan-2", "olive-1", "dan-99", "x"])
# prose without quotation marks or brackets (nor their lookalikes): those are tested on their own
_MARKS = "[]\"'\u201c\u201d\u201e\u2018\u2019\u00ab\u00bb\u2039\u203a\u300c\u300d\u300e\u300f"
prose = st.text(
    st.characters(
        blacklist_characters=_MARKS + _OPEN_BRACKETS + _CLOSE_BRACKETS, blacklist_categories=("Cs",)
    ),
    max_size=40,
)


@settings(deadline=None)
@given(st.lists(st.tuples(prose, st.lists(ids, max_size=2)), max_size=6))
def test_the_grade_follows_the_sentences(parts: list[tuple[str, list[str]]]) -> None:
    text = " ".join(p + "".join(f" [{i}]" for i in cs) + "." for p, cs in parts)
    v = check(text)
    used = {i for _, cs in parts for i in cs}
    assert {c.id for c in v.citations} == used
    counted = v.verdict.counted
    ok = [c for c in counted if c.status == "supported"]
    if used - {"dan-1", "dan-2"}:  # an invented or foreign id: never grounded, even partly
        assert v.verdict.grade == "not grounded"
    elif counted and len(ok) == len(counted):
        assert v.verdict.grade == "grounded" and v.grounded
    elif ok:
        assert v.verdict.grade == "partly grounded"
    else:
        assert v.verdict.grade == "not grounded"
    assert v.grounded == (v.verdict.grade == "grounded")
    assert v.unsupported_sentences == [c.text for c in counted if c.status != "supported"]
