"""The talk's title from the host's introduction, before the file's name (issue 21 §2, class d)."""

from __future__ import annotations

import pytest

from panelbot.ingest.draft import build_draft

_REST = (
    " Joining me are Councillor Joaquín de la Torre, who chairs the planning committee, and Dr. Bernadette "
    "Okafor, an economist at the university. >> Joaquín, how many homes does the valley need? >> About four thousand over "
    "ten years, and we are building half that, so the gap grows every year. >> Bernie, why so few? >> "
    "Land prices, mostly, and the cost of borrowing for the small builders here. >> Thank you both."
)


@pytest.mark.parametrize(
    ("opening", "title"),
    [
        (
            "Hi everyone. I'm Nell Frost and I'll be moderating tonight's panel on housing in the valley.",
            "Housing in the valley",
        ),
        (
            "Morning, all. I'm Nell Frost, and this session is called Homes for the Valley.",
            "Homes for the Valley",
        ),
        (
            "Good evening and welcome to Valley Voices, our monthly town hall.",
            "Valley Voices",
        ),
    ],
)
def test_the_title_is_what_the_host_says_not_the_files_name(opening: str, title: str) -> None:
    d = build_draft(opening + _REST, "town_hall_2024_final", title_guessed=True)
    assert d.title == title
    if "Nell" in opening:
        assert d.panel["host"]["name"] == "Nell Frost"
    assert [p["name"] for p in d.panel["panelists"]] == [
        "Joaquín de la Torre",
        "Bernadette Okafor",
    ]
