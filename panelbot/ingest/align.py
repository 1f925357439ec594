"""Make a turn carry its quotes' exact wording.

Quotes are cleaned (stutters and fillers dropped, curated fixes of caption mishearings), so their text is
often not found in the raw turn they come from: the context view could then neither highlight the quote nor
show the corrected wording. :func:`align_turn` finds each quote's span in the turn by aligning the words (so
stutters and fixes do not throw it off) and puts the quote's text in its place; the rest stays as captioned.
"""

from __future__ import annotations

from difflib import SequenceMatcher

from panelbot.text import words

ALIGN_WINDOW = (
    200  # tokens after the previous quote where the next one is looked for (beyond its length)
)


def quote_span(tokens: list[str], quote: str) -> tuple[int, int]:
    """Token span [a, b) of the turn (its whitespace tokens) that the quote's words align with; (0, 0) when
    fewer than 60% of the quote's words are found."""
    flat: list[tuple[int, str]] = [(i, w) for i, tok in enumerate(tokens) for w in words(tok)]
    qw = words(quote)
    if not flat or not qw:
        return (0, 0)
    sm = SequenceMatcher(None, [w for _, w in flat], qw, autojunk=False)
    blocks = [m for m in sm.get_matching_blocks() if m.size]
    if not blocks or sum(m.size for m in blocks) < 0.6 * len(qw):
        return (0, 0)

    # the run of blocks that carries the quote: from its longest match outwards, through the matches that
    # follow closely (stutters, fillers and fixed mishearings are short gaps; a stray "and" far off is not)
    def close(m1, m2) -> bool:  # noqa: ANN001 - difflib Match
        gap_turn, gap_quote = m2.a - (m1.a + m1.size), m2.b - (m1.b + m1.size)
        return gap_turn <= 4 + 2 * gap_quote

    k = max(range(len(blocks)), key=lambda i: blocks[i].size)
    lo = hi = k
    while lo > 0 and close(blocks[lo - 1], blocks[lo]):
        lo -= 1
    while hi + 1 < len(blocks) and close(blocks[hi], blocks[hi + 1]):
        hi += 1
    first, last = blocks[lo], blocks[hi]
    # widen to the quote's own ends when its first or last words were changed (a fix, a dropped filler)
    a = flat[max(first.a - first.b, 0)][0]
    b = flat[min(last.a + last.size + (len(qw) - last.b - last.size), len(flat)) - 1][0] + 1
    return (a, b)


def align_turn(turn_text: str, quotes: list[str]) -> str:
    """The turn with each quote's span replaced by the quote's own text. Quotes are taken in the turn's
    order, each searched after the one before, so neighbours never eat each other."""
    tokens = turn_text.split()
    cursor = 0
    for quote in quotes:
        # a quote starts close after the one before (only filler sentences are skipped between them): look
        # in a window, not the whole rest of the turn, so a long turn costs its length, not length x quotes
        rest = tokens[cursor : cursor + ALIGN_WINDOW + 3 * len(quote.split())]
        joined = " ".join(rest)
        if quote in joined:  # already verbatim
            cursor += len(joined[: joined.index(quote)].split()) + len(quote.split())
            continue
        a, b = quote_span(rest, quote)
        if b > a:
            tokens[cursor + a : cursor + b] = quote.split()
            cursor += a + len(quote.split())
    return " ".join(tokens)
