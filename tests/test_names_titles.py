"""Titles, particle surnames and places in how the host presents the guests (issue 21 §2, class c)."""

from __future__ import annotations

import pytest

from panelbot.ingest.captions import split_turns
from panelbot.ingest.names import full_presented_name
from panelbot.ingest.speakers import identify_speakers

_ANSWERS = (
    ">> About four thousand over ten years, and we are building half that. >> {b}, why so few? "
    ">> Land prices, mostly, and the cost of borrowing for small builders."
)


@pytest.mark.parametrize(
    ("presented", "a", "b", "names"),
    [
        (
            "With me are Beatriz Ferreira da Costa, who is an affineur in the Serra da Estrela, and Henrik "
            "Østergaard, who is a dairy microbiologist.",
            "Beatriz",
            "Henrik",
            ["Beatriz", "Henrik"],
        ),
        (
            "Joining me are Councillor Joaquín de la Torre, who chairs the planning committee, and Dr. "
            "Amara Okafor, an economist.",
            "Joaquín",
            "Amara",
            ["Joaquín", "Amara"],
        ),
        (
            "We have with us Professor Anneke van der Berg from Groningen, who studies dikes, and Senator "
            "Rhys ap Gruffydd of Cardiff, who chairs the water committee.",
            "Anneke",
            "Rhys",
            ["Anneke", "Rhys"],
        ),
    ],
)
def test_titles_particles_and_places_make_one_panelist_each(
    presented: str, a: str, b: str, names: list[str]
) -> None:
    raw = split_turns(
        f"Good evening and welcome to tonight's panel. {presented} {a}, how many homes do we need? "
        + _ANSWERS.format(b=b)
    )
    turns, found = identify_speakers(raw)
    assert found == names
    assert [t.speaker for t in turns][1:] == [names[0].lower().replace("í", "i"), "host", b.lower()]


@pytest.mark.parametrize(
    ("text", "first", "full"),
    [
        ("Beatriz Ferreira da Costa, who is an affineur", "Beatriz", "Beatriz Ferreira da Costa"),
        ("Councillor Joaquín de la Torre, who chairs", "Joaquín", "Joaquín de la Torre"),
        ("Maëlle Le Goff, who is an acoustician", "Maëlle", "Maëlle Le Goff"),
        ("Renate van den Berg is an economist", "Renate", "Renate van den Berg"),
        ("Henrik, a microbiologist", "Henrik", "Henrik"),
    ],
)
def test_the_full_name_a_guest_is_presented_by_keeps_its_particles(
    text: str, first: str, full: str
) -> None:
    assert full_presented_name(text, first) == full
