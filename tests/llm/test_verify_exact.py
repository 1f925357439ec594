"""The verifier's pieces, exactly: quotation spans of every style, citation tokens and their lookalikes,
sentence assembly, and the verdict line."""

from __future__ import annotations

from panelbot.answer.backends.base import Citation, SpeakerDone
from panelbot.answer.llm.verify import (
    cited_ids,
    normalize_citations,
    quoted_spans,
    sentences_of,
    verdict,
    verify_answer,
)

from .conftest import make_panel

DAN = make_panel().quotes_by("dan")


def test_quoted_spans_of_every_style() -> None:
    assert quoted_spans("He said 'two words' and 'one' then \"open ended") == [
        "two words",
        "open ended",
    ]
    assert quoted_spans("\u00aba b\u00bb then \u201cc d") == ["a b", "c d"]
    assert quoted_spans(
        "\u00bbx y\u00ab \u2039p q\u203a \u203ar s\u2039 \u300ck l\u300d \u300em n\u300f"
    ) == ["x y", "p q", "r s", "k l", "m n"]
    assert quoted_spans("\u201ea b\u201c and \u2018c d\u2019 and \u2018e\u2019") == ["a b", "c d"]
    assert quoted_spans("Dan's and Olive's point, 'ok'") == []  # apostrophes and a one-word term
    assert quoted_spans('one "a" two \u201cb\u201d [dan-1]') == [
        "a",
        "b",
    ]  # double quotes: any length
    assert quoted_spans("an unclosed \u00ab quotation here") == [" quotation here"]
    assert quoted_spans('closed "x y" then \u201copen') == ["x y", "open"]
    assert quoted_spans('"a" "b" then "c') == ["a", "b", "c"]
    assert quoted_spans('"..." and "  "') == []  # nothing quotable


def test_citation_lookalikes_become_plain_citations() -> None:
    assert (
        normalize_citations(
            "x \uff3bdan\u201101\uff3d [dan-\n 02](http://a) \u3010\uff44\uff41\uff4e\uff0d\uff10\uff13\u3011"
        )
        == "x [dan-01] [dan-02] [dan-03]"
    )
    assert normalize_citations("[see](u) and [a](b)(c)") == "[see] and [a](c)"
    assert normalize_citations("\u27e6dan-1\u27e7 \u2045dan-2\u2046") == "[dan-1] [dan-2]"
    assert cited_ids("[`dan-1`] [*dan-2*] [#dan-3:] [ dan-4 ] ['dan-5'] [\"dan-6\"]") == [
        "dan-1",
        "dan-2",
        "dan-3",
        "dan-4",
        "dan-5",
        "dan-6",
    ]
    assert cited_ids("[dan 1]") == ["dan", "1"]


def test_sentences_carry_their_citations() -> None:
    assert sentences_of("First claim. [dan-1]\n- second [dan-2]. [dan-1]") == [
        "First claim [dan-1].",
        "second [dan-2] [dan-1].",
    ]
    assert sentences_of("One. Two [dan-1]. Three.\n[dan-2]") == [
        "One.",
        "Two [dan-1].",
        "Three. [dan-2]",
    ]
    assert sentences_of("A. B. C.\n.") == ["A.", "B.", "C. ."]


def test_lookalikes_and_quotations_change_the_verdict() -> None:
    ok = "The KV cache grows with context [dan-1]."
    assert verify_answer(ok, DAN).grounded
    for fake in ("\uff3bdan-99\uff3d", "\u3010dan-99\u3011", "[dan-99](http://x)", "[dan-\n99]"):
        v = verify_answer(f"{ok} Invented {fake}.", DAN, "Dan")
        assert not v.grounded and Citation("dan-99", False) in v.citations, fake
    v = verify_answer("It is \u00aba compute miracle\u00bb [dan-1].", DAN, "Dan")
    assert not v.grounded and v.problems == [
        "quoted \u201ca compute miracle\u201d does not appear in [dan-1]"
    ]
    assert verify_answer("It is 'A MEMORY problem' [dan-1].", DAN).grounded  # case is ignored
    v = verify_answer('It is "a memory prob" [dan-1].', DAN)  # whole words only, never a substring
    assert not v.grounded
    v = verify_answer('It was "a memory problem" said nobody.', DAN)
    assert v.problems == ["quoted \u201ca memory problem\u201d cites no source"]


def test_verdict_lines() -> None:
    q = []
    assert verdict(SpeakerDone("dan", "x", q), "Dan") == ""

    def line(text: str, removed: tuple[str, ...] = ()) -> str:
        v = verify_answer(text, DAN, "Dan", removed)
        return verdict(SpeakerDone("dan", text, q, grounded=v.grounded, verdict=v.verdict), "Dan")

    assert line("The KV cache grows with context [dan-1]. We fuse attention kernels [dan-2].") == (
        "grounded: cites dan-1, dan-2; 2 of 2 sentences supported by the quotes they cite"
    )
    assert line(
        "The KV cache grows [dan-1]. GPUs are free for everyone [dan-2]. Memory is cheap."
    ) == (
        "partly grounded: 1 of 3 sentences supported by the quotes they cite; "
        "1 not supported by the quotes cited; 1 cites nothing"
    )
    assert line(
        "The KV cache grows [dan-1]. Invented [x-9]. Also [y]. Memory wins. Kernels matter."
    ) == (
        "NOT grounded: invalid citations: x-9, y; 1 of 5 sentences supported by the quotes they "
        "cite; 2 cite nothing"
    )
    assert line("Memory is hard. Kernels help.") == (
        "NOT grounded: cites none of the quotes given; 0 of 2 sentences supported by the quotes they "
        "cite; 2 cite nothing"
    )
    assert line("GPUs are free for everyone [dan-2].", ("Olive (x):",)) == (
        "NOT grounded: 0 of 1 sentence supported by the quotes it cites; 1 not supported by the "
        "quotes cited; 1 line posing as a heading or verdict removed"
    )
    assert line('It is "a compute miracle" [dan-1].') == (
        "NOT grounded: misquoted source: dan-1; 0 of 1 sentence supported by the quotes it cites"
    )
    # a record kept before verdicts were: its flag alone
    old = SpeakerDone("dan", "x", q, citations=[Citation("x-9", False)], grounded=False)
    assert verdict(old, "Dan") == "NOT grounded: invalid citation: x-9"
