"""The SSE parser: any chunking of a stream gives the same events; encoded events round-trip."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from panelbot.answer.llm.sse import SSEEvent, SSEParser

line_text = st.text(
    st.characters(blacklist_characters="\r\n", blacklist_categories=("Cs",)), max_size=30
)
newline = st.sampled_from(["\n", "\r\n", "\r"])


def parse_chunks(chunks: list[str]) -> list[SSEEvent]:
    p = SSEParser()
    out: list[SSEEvent] = []
    for c in chunks:
        out += p.feed(c)
    return out + p.finish()


@st.composite
def split(draw: st.DrawFn, text: str) -> list[str]:
    cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=12)))
    bounds = [0, *cuts, len(text)]
    return [text[a:b] for a, b in zip(bounds, bounds[1:])]  # noqa: B905


@settings(deadline=None)
@given(st.text(max_size=200), st.data())
def test_chunking_never_changes_the_events(text: str, data: st.DataObject) -> None:
    chunks = data.draw(split(text))
    assert parse_chunks(chunks) == parse_chunks([text])


@settings(deadline=None)
@given(st.lists(st.lists(line_text, min_size=1, max_size=3), max_size=6), newline, st.data())
def test_encoded_events_round_trip(events: list[list[str]], nl: str, data: st.DataObject) -> None:
    wire = ""
    for lines in events:
        wire += ": comment" + nl
        wire += "".join(f"data: {ln}{nl}" for ln in lines) + nl
    got = parse_chunks(data.draw(split(wire)))
    assert [e.data for e in got] == ["\n".join(lines) for lines in events]


def test_fields_comments_and_the_end_of_stream() -> None:
    p = SSEParser()
    assert p.feed("event: delta\ndata:no-space\ndata:  two\n") == []
    assert p.feed("\n") == [SSEEvent("no-space\n two", "delta")]
    assert p.feed(": ping\n\nretry: 10\nid: 4\n\n") == []
    assert p.feed("data: [DONE]\n") == []
    assert p.finish() == [SSEEvent("[DONE]")]  # complete line, missing blank line: still dispatched
    q = SSEParser()
    q.feed('data: {"choi')
    assert q.finish() == []  # an unterminated last line is a cut-off event: dropped
