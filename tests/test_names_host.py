"""The host who introduces themselves and then the guests is the host, not a panelist (issue 21 §2,
class a), and guests presented after 'Let me introduce tonight's guests' are panelists (class e)."""

from __future__ import annotations

import pytest

from panelbot.ingest.captions import split_turns
from panelbot.ingest.speakers import identify_speakers

_REST = (
    " >> Joaquín, how many homes does the valley need? >> About four thousand over ten years, and we are "
    "building half that, so the gap grows every year. >> Bernie, why so few? >> Land prices, mostly, and "
    "the cost of borrowing for the small builders here. >> Thank you both."
)


@pytest.mark.parametrize(
    "opening",
    [
        "Morning, all. I'm Nell Frost, and this session is called Homes for the Valley. Joining me are "
        "Councillor Joaquín de la Torre, who chairs the planning committee, and Dr. Bernadette Okafor, an "
        "economist at the university.",
        "Hi, I'm Nell Frost. Thanks for coming. Let me introduce tonight's guests. Joaquín de la Torre "
        "chairs the planning committee, and Bernadette Okafor is an economist at the university.",
        "Good evening, my name is Nell Frost and I'm your host tonight. With me are Joaquín de la Torre, "
        "who chairs the planning committee, and Bernadette Okafor, who teaches economics.",
    ],
)
def test_who_introduces_themselves_then_the_guests_is_the_host(opening: str) -> None:
    turns, names = identify_speakers(split_turns(opening + _REST))
    assert names == ["Joaquín", "Bernadette"]
    assert [t.speaker for t in turns] == ["host", "joaquin", "host", "bernadette", "host"]
