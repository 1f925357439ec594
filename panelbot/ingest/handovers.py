"""Names for anonymous speaker labels from the host's hand-overs.

A diarized transcript labels its speakers ``SPEAKER_00``, ``SPEAKER_01`` …; the words often say who they
are all the same: the host presents the guests ("joining us are Priya Raman and Tomás Ortega") and hands
the floor to one by name ("Priya, what did you find?"), and the next turn is hers. When a label names no
one and no one introduces themselves under it, the name the host's hand-overs point at, turn after turn,
is proposed for it (``HANDED``): shown in the ingest report and the health report as a guess to confirm,
never taken as given. Only the names the talk itself presents are proposed.
"""

from __future__ import annotations

from collections import Counter

from panelbot.ingest.captions import RawTurn
from panelbot.ingest.cues import sentences
from panelbot.ingest.names import (
    HANDED,
    HOST,
    PROVISIONAL,
    LabelName,
    ToldNames,
    ascii_fold,
    discover_names,
    label_people,
    name_pattern,
)

MIN_SHARE = 0.6  # of a label's hand-overs that must point at one name


def people_of_labels(
    kept: list[tuple[RawTurn, bool]],
    labels: dict[int, str],
    title: str,
    given: dict[str, str] | None = None,
    told: ToldNames | None = None,
) -> tuple[dict[str, str], list[str], list[LabelName], list[str], dict[str, str]]:
    """Who the captions' speaker labels are (``names.label_people``), with an anonymous label the host
    hands over to by name proposed as that person: (label -> person, display names, how each label was
    taken, the names the talk presents, alias -> name). ``told``: see ``names.discover_names``."""
    people, names, resolved = label_people(kept, labels, given) if labels else ({}, [], [])
    found, aliases = discover_names(kept, title, told)
    if labels:
        apply_handovers(handed_over(kept, labels, resolved, found), people, names, resolved)
    return people, names, resolved, found, aliases


def handed_over(
    kept: list[tuple[RawTurn, bool]],
    labels: dict[int, str],
    resolved: list[LabelName],
    found: list[str],
) -> dict[str, str]:
    """label (lowercase) -> the name (one of ``found``, the names the talk presents) that the host hands
    over to right before that label's turns, for each label still ``PROVISIONAL``."""
    host = {r.label.lower() for r in resolved if r.name == HOST}
    open_labels = {r.label.lower() for r in resolved if r.how == PROVISIONAL}
    taken = {ascii_fold(r.name).lower() for r in resolved if r.how != PROVISIONAL}
    candidates = [n for n in found if ascii_fold(n).lower() not in taken]
    if not host or not open_labels or not candidates:
        return {}
    full_of = _spellings(candidates)
    pattern = name_pattern(list(full_of))
    votes: dict[str, Counter[str]] = {}
    for (before, _), (after, _) in zip(kept, kept[1:], strict=False):
        asker, answerer = labels.get(before.index), labels.get(after.index)
        if asker is None or answerer is None:
            continue
        if asker.lower() not in host or answerer.lower() not in open_labels:
            continue
        name = _handed_to(before.text, pattern, full_of)
        if name:
            votes.setdefault(answerer.lower(), Counter())[name] += 1
    return _assigned(votes)


def _spellings(names: list[str]) -> dict[str, str]:
    """Each way the talk may call a presented person (the full name, and the first name when no one else
    has it), folded of accents as the pattern matches them -> the full name."""
    firsts = Counter(n.split()[0] for n in names)
    out: dict[str, str] = {}
    for n in names:
        for spelt in (n, n.split()[0] if firsts[n.split()[0]] == 1 else n):
            out[spelt] = n
            out[ascii_fold(spelt)] = n
    return out


def _handed_to(text: str, pattern, full_of: dict[str, str]) -> str | None:  # noqa: ANN001
    """The one person the last sentence of the host's turn that names anyone names ("Priya, what did you
    find?", "over to you, Tomás"), or None when it names none or several."""
    for sent in reversed(sentences(text)):
        named = {full_of[m.group(1)] for m in pattern.finditer(sent)}
        if named:
            return named.pop() if len(named) == 1 else None
    return None


def _assigned(votes: dict[str, Counter[str]]) -> dict[str, str]:
    """Each label the name most of its hand-overs point at (at least ``MIN_SHARE`` of them); a name goes to
    the one label it points at most often."""
    ranked = sorted(
        (
            (c, lab, name, sum(counts.values()))
            for lab, counts in votes.items()
            for name, c in counts.items()
        ),
        key=lambda x: (-x[0], x[1]),
    )
    out: dict[str, str] = {}
    for count, lab, name, total in ranked:
        if lab in out or name in out.values() or count < MIN_SHARE * total:
            continue
        out[lab] = name
    return out


def apply_handovers(
    handed: dict[str, str], people: dict[str, str], names: list[str], resolved: list[LabelName]
) -> None:
    """Put the proposed names in place of the provisional ones (in ``people``, ``names`` and how each label
    was resolved)."""
    for res in resolved:
        lab = res.label.lower()
        if res.how != PROVISIONAL or lab not in handed:
            continue
        name = handed[lab]
        names[names.index(res.name)] = name
        people[lab] = res.name = name
        res.how = HANDED
