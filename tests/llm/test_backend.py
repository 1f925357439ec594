"""OpenAICompatBackend end to end against the scripted server: events, sanitising, verification, fallback."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from panelbot.answer.backends.base import AnswerRequest, Backend, Message, SpeakerDone, TextDelta
from panelbot.answer.backends.offline import quotes_text
from panelbot.answer.backends.openai_compat import OpenAICompatBackend, StreamSanitizer, ThinkFilter

from .conftest import SECRET, config_for, make_route, run, take_then_cancel
from .fakeserver import DEFAULT_ANSWER, FakeHTTPServer


def collect(url: str, panel, speakers=("dan",), history=(), **kw: Any) -> list:
    async def go() -> list:
        backend = OpenAICompatBackend(config_for(url, **kw), panel)
        req = AnswerRequest(
            "Why is memory hard?", panel, make_route(panel, speakers), list(history)
        )
        try:
            return [ev async for ev in backend.answer(req)]
        finally:
            await backend.aclose()

    return run(go())


def test_is_a_backend(panel) -> None:
    b = OpenAICompatBackend(config_for("http://127.0.0.1:9/v1"), panel)
    assert isinstance(b, Backend) and b.label == "fake-model"
    assert SECRET not in repr(b)


def test_streams_deltas_then_a_verified_speaker_done(fake: FakeHTTPServer, panel) -> None:
    events = collect(fake.url("ok"), panel)
    deltas = [e for e in events if isinstance(e, TextDelta)]
    done = events[-1]
    assert len(deltas) > 3 and all(d.speaker == "dan" for d in deltas)
    assert isinstance(done, SpeakerDone) and done.error is None
    assert "".join(d.text for d in deltas) == done.text == DEFAULT_ANSWER
    assert [c.to_dict() for c in done.citations] == [{"id": "dan-1", "valid": True}]
    assert done.grounded is True and done.unsupported_sentences == []


def test_invented_citation_makes_the_answer_ungrounded(fake: FakeHTTPServer, panel) -> None:
    fake.state.answer = (
        "Memory is the problem [dan-1]. Rewards matter [olive-1]. I made this up [dan-42]."
    )
    done = collect(fake.url("ok"), panel)[-1]
    assert done.grounded is False
    assert {c.id: c.valid for c in done.citations} == {
        "dan-1": True,
        "olive-1": False,
        "dan-42": False,
    }


def test_model_output_is_stripped_of_terminal_control(fake: FakeHTTPServer, panel) -> None:
    fake.state.answer = "Red \x1b[31malert\x1b[0m \x1b]0;pwned\x07title [dan-1]. [bold]x[/bold]"
    events = collect(fake.url("ok"), panel)
    text = "".join(e.text for e in events if isinstance(e, TextDelta))
    assert "\x1b" not in text and "\x07" not in text and "pwned" not in text
    assert "[bold]x[/bold]" in text  # markup is left as literal text, never interpreted here


@pytest.mark.parametrize("behaviour", ["500", "stall-mid", "malformed", "empty-choices", "401"])
def test_failure_falls_back_to_the_verbatim_quotes(
    fake: FakeHTTPServer, panel, behaviour: str
) -> None:
    events = collect(fake.url(behaviour), panel, read_timeout=0.3)
    done = events[-1]
    route = make_route(panel)
    assert isinstance(done, SpeakerDone)
    assert done.error and done.error.startswith(fake.url(behaviour)) and SECRET not in done.error
    assert done.text == quotes_text(route.quotes_for("dan")) and done.grounded is None


def test_panel_mode_second_panelist_sees_the_first(fake: FakeHTTPServer, panel) -> None:
    events = collect(
        fake.url("ok"),
        panel,
        speakers=("dan", "olive"),
        history=[Message("user", "earlier question"), Message("dan", "earlier answer")],
    )
    dones = [e for e in events if isinstance(e, SpeakerDone)]
    assert [d.speaker for d in dones] == ["dan", "olive"]
    first, second = (r.body["messages"][0]["content"] for r in fake.state.requests)
    assert "Dan has just answered" not in first and "olive-1" not in first
    assert f"Dan has just answered this question:\n{DEFAULT_ANSWER}" in second
    assert "[olive-1]" in second and '[dan-1] "' not in second
    assert "Audience member: earlier question" in first and "Dan: earlier answer" in first
    # Olive was given only her own quotes, so the scripted [dan-1] citations are invalid for her.
    assert dones[1].grounded is False


def test_cancelling_an_answer_closes_the_connection(fake: FakeHTTPServer, panel) -> None:
    async def go() -> list:
        backend = OpenAICompatBackend(config_for(fake.url("slow")), panel)
        got = await take_then_cancel(
            backend.answer(AnswerRequest("q", panel, make_route(panel))), 2
        )
        await backend.aclose()
        return got

    assert len(run(go())) >= 2
    assert fake.state.disconnected.wait(5)


def test_abstention_makes_no_request(fake: FakeHTTPServer, panel) -> None:
    async def go() -> list:
        backend = OpenAICompatBackend(config_for(fake.url("ok")), panel)
        req = AnswerRequest("weather?", panel, make_route(panel, abstained=True))
        return [ev async for ev in backend.answer(req)]

    assert run(go()) == [] and fake.state.requests == []


def test_sanitizer_handles_sequences_split_across_pieces() -> None:
    s = StreamSanitizer()
    pieces = ["a\x1b", "[3", "1mb\x1b]0;t", "itle\x07c\r", "\nd"]
    assert "".join(s.feed(p) for p in pieces) + s.flush() == "abc\nd"


def test_think_blocks_are_dropped_even_when_split() -> None:
    f = ThinkFilter()
    pieces = [
        "<thi",
        "nk>plan: cite dan-1</th",
        "ink>Memory <",
        "b>is</b> the wall [dan-1]. <think>x",
    ]
    assert "".join(f.feed(p) for p in pieces) + f.flush() == "Memory <b>is</b> the wall [dan-1]. "


def test_reasoning_in_the_answer_is_not_shown_or_verified(fake: FakeHTTPServer, panel) -> None:
    fake.state.answer = (
        "<think> The user asks about [dan-99] memory. </think>Memory is the problem [dan-1]."
    )
    done = collect(fake.url("ok"), panel)[-1]
    assert done.text == "Memory is the problem [dan-1]." and done.grounded is True


_pieces_alphabet = st.sampled_from(
    [
        "a",
        " ",
        "\x1b",
        "[",
        "3",
        "1",
        "m",
        "]",
        "0",
        ";",
        "\x07",
        "\r",
        "\n",
        "<",
        "think",
        ">",
        "</",
        "t",
        "\u202e",
    ]
)


@settings(deadline=None)
@given(st.lists(_pieces_alphabet, max_size=40), st.data())
def test_stream_filters_do_not_depend_on_how_the_text_is_split(
    parts: list[str], data: st.DataObject
) -> None:
    text = "".join(parts)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(text)), max_size=8)))
    chunks = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)])]  # noqa: B905

    def through(pieces: list[str]) -> str:
        s, t = StreamSanitizer(), ThinkFilter()
        return "".join(t.feed(s.feed(p)) for p in pieces) + t.feed(s.flush()) + t.flush()

    out = through(chunks)
    assert out == through([text])
    assert not any(ch in out for ch in "\x1b\x07\r\u202e")
