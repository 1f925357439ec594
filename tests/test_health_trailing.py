"""The health report points at the host's words hidden in a panelist's turn (issue 21 §2, class f)."""

from __future__ import annotations

from panelbot.ingest.captions import split_turns
from panelbot.ingest.speakers import TRAILING_QUESTION, identify_speakers


def test_a_panelists_turn_ending_with_someone_elses_question_is_flagged() -> None:
    """issue 21 §2: the host's question inside a panelist's turn (a '>>' missed), answered by another
    panelist, is pointed at by the health report."""
    raw = split_turns(
        "Welcome, everyone. Let's go around and introduce ourselves. >> Hi, I'm Kofi, I design battery "
        "chemistry at Voltaic. >> And I'm Mirela, I run a recycling plant for old batteries. >> Kofi, why "
        "do batteries lose capacity? >> The electrodes crack as lithium moves in and out, a little more on "
        "every charge, until the cell holds less. Ten thousand cycles. Is that a lot, for a car? >> It is "
        "plenty, most cars are scrapped long before the pack is worn out, and then it comes to my plant."
    )
    turns, _ = identify_speakers(raw)
    kofi = next(t for t in turns if t.text.startswith("The electrodes"))
    assert kofi.speaker == "kofi"
    assert any(why == TRAILING_QUESTION for _, why in kofi.parts)
