"""A short form of a guest's given name is that guest, not another panelist (issue 21 §2, class b)."""

from __future__ import annotations

import pytest

from panelbot.ingest.captions import split_turns
from panelbot.ingest.names import is_short_form
from panelbot.ingest.speakers import identify_speakers


@pytest.mark.parametrize(
    ("short", "full", "same"),
    [
        ("Bernie", "Bernadette", True),
        ("Pru", "Prudence", True),
        ("Joe", "Joaquín", True),
        ("Segun", "Olusegun", True),
        ("Bill", "William", True),
        ("Liz", "Elizabeth", True),
        ("Bob", "Robert", True),
        ("Anna", "Hannah", False),
        ("Tom", "Maëlle", False),
        ("Daniela", "Dan", False),
    ],
)
def test_is_short_form(short: str, full: str, same: bool) -> None:
    assert is_short_form(short, full) is same


def test_a_short_name_the_host_uses_is_the_guest_presented_by_full_name() -> None:
    raw = split_turns(
        "Good evening. With me are Prudence Achebe, who runs the city's food bank, and William Hartley, a "
        "farmer from the valley. Pru, how many families come to you now? >> About four hundred a week "
        "now, twice what we saw two years ago. >> Bill, why is food so dear? >> Fuel and fertiliser, "
        "mostly, and both doubled in a year. >> Please, call me Will. And the rain did not help either."
    )
    turns, names = identify_speakers(raw)
    assert names == ["Prudence", "William"]
    assert [t.speaker for t in turns][1:4] == ["prudence", "host", "william"]


def test_two_guests_who_give_their_own_names_stay_two() -> None:
    raw = split_turns(
        "Welcome, everyone. Let's go around and introduce ourselves. >> Hi, I'm Dan, I build wind turbines "
        "in the north. >> And I'm Daniela, I run the grid operator for the region. >> Dan, how big are "
        "turbines now? >> Fifteen megawatts offshore, and the blades are longer than a football pitch. >> "
        "Daniela, can the grid take it? >> Not yet, we need new lines along the whole coast first."
    )
    turns, names = identify_speakers(raw)
    assert names == ["Dan", "Daniela"]
    assert [t.speaker for t in turns][-1] == "daniela"


def test_initials_of_a_double_given_name_are_its_short_form() -> None:
    assert is_short_form("PJ", "Pierre-Jean")
    assert not is_short_form("PJ", "Pierre")
    assert not is_short_form("JP", "Pierre-Jean")


def test_a_guest_joined_by_is_presented_and_goes_by_initials() -> None:
    raw = split_turns(
        "Good evening. I'm joined by Pierre-Jean Valcourt-Amsel, a geologist, and by Ilse Brandvold, a "
        "farmer. PJ, how old is this valley? >> About two million years, and the river is still "
        "cutting it deeper every spring. >> Ilse, what about the soil? >> Thin and stony, we add lime "
        "every year. >> PJ, is that the rock? >> Yes, it is the limestone under it, all the way down."
    )
    turns, names = identify_speakers(raw)
    assert names[:2] == ["Pierre-Jean", "Ilse"]
    assert [t.speaker for t in turns][1] == "pierre-jean"
