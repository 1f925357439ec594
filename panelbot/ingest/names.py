"""Who the people of a talk are called: panelists' names from self-introductions ("I'm Anaïs", "Björn
here", "my name is…", an alias given in the same breath), the host's hand-overs and presentations ("Olive, over
to you", "Joining me are Léa Fontaine, …"), the title, and speaker labels in the captions ("DAN: …",
"Speaker 2: …"). Names are Unicode throughout: ids are ASCII-folded lowercase first names (``jose``, ``anais``,
``bjorn``, ``mary-jane``; other scripts transliterated), display names keep their spelling, and a name is
recognised in the captions with or without its accents."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from functools import cache

from panelbot.ingest.captions import RawTurn
from panelbot.ingest.cues import FLOOR_RE, looks_like_question, sentences
from panelbot.ingest.formats import is_anonymous_label, speaker_label
from panelbot.retrieval.lexicon import DATA_DIR, stopwords

HOST = "host"

UNKNOWN = "unknown"

_NAME_STOP = {
    "I",
    "The",
    "A",
    "An",
    "So",
    "And",
    "But",
    "Yeah",
    "Yes",
    "Okay",
    "Um",
    "Uh",
    "Not",
    "Just",
    "Really",
    "Here",
    "There",
    "Very",
    "Also",
    "Now",
    "Going",
    "Excited",
    "Happy",
    "Glad",
    "Sure",
    "Sorry",
    "Still",
    "Actually",
    "Trying",
    "Working",
    "Responsible",
    "Thinking",
    "Super",
    "Curious",
    "Looking",
    "From",
    "Thrilled",
    "Delighted",
    "Honored",
    "Honoured",
    "Based",
    "Currently",
    "Part",
    "Leading",
    "Head",
    "Kind",
    "Pretty",
    "Quite",
    "Always",
    "Doing",
    "Hi",
    "Hey",
    "Hello",
    "Thanks",
    "Thank",
    "Welcome",
    "Great",
    "Ok",
    "Right",
    "Well",
    "Oh",
    "Mhm",
    "What",
    "How",
    "Why",
    "When",
    "Where",
    "Who",
    "Let",
    "Let's",
    "We",
    "You",
    "It",
    "This",
    "That",
    "My",
    "Our",
    "Your",
    "Both",
    "All",
    "Everyone",
    "Everybody",
    "Guys",
    "Folks",
    "Maybe",
    "Over",
    "Then",
    "First",
    "Next",
    "Last",
    "Please",
    "Good",
    "Awesome",
    "Cool",
    "Sounds",
    "One",
    "Today",
    "Lead",
    "Research",
    "VP",
    "CEO",
    "CTO",
    "Professor",
    "Doctor",
    "Dr",
    "Mr",
    "Ms",
    "Mrs",
    "In",
    "On",
    "At",
    "To",
    "For",
    "With",
    "Of",
    "As",
    "Or",
    "If",
    "Is",
    "Are",
    "Was",
    "Be",
    "Do",
    "Does",
    "Did",
    "Can",
    "Could",
    "Would",
    "Will",
    "Should",
    "May",
    "Might",
    "Must",
    "Sir",
    "Madam",
    "Absolutely",
    "Definitely",
    "Agreed",
    "Exactly",
    "Totally",
    "Wow",
    "Nice",
    "Interesting",
    "Probably",
    "Honestly",
}
# a name token: letters (any script) with inner apostrophes or hyphens: "José", "O'Brien", "Jean-Luc", "李明"

NAME_TOKEN = r"[^\W\d_](?:[^\W\d_]|['\u2019\-](?=[^\W\d_]))*"

# a person's title before their name: not a name word ("Councillor Joaquín de la Torre", "Dr. Ana Ruiz")
TITLES = frozenset(
    [
        "Dr",
        "Doctor",
        "Prof",
        "Professor",
        "Mr",
        "Mrs",
        "Ms",
        "Miss",
        "Mx",
        "Sir",
        "Dame",
        "Lord",
        "Lady",
        "Councillor",
        "Councilor",
        "Councilwoman",
        "Councilman",
        "Alderman",
        "Mayor",
        "Senator",
        "Representative",
        "Congresswoman",
        "Congressman",
        "Governor",
        "Minister",
        "Secretary",
        "Commissioner",
        "Ambassador",
        "Judge",
        "Justice",
        "Chief",
        "Inspector",
        "Detective",
        "Sergeant",
        "Officer",
        "Captain",
        "Colonel",
        "General",
        "Major",
        "Lieutenant",
        "Admiral",
        "Reverend",
        "Rev",
        "Father",
        "Sister",
        "Brother",
        "Rabbi",
        "Imam",
        "Pastor",
        "Bishop",
        "Chef",
        "Coach",
        "Nurse",
    ]
)
TITLE_WORDS_RE = "|".join(sorted(TITLES, key=len, reverse=True))
_TITLE_RE = rf"(?:(?:{TITLE_WORDS_RE})\.?\s+)"

_INTRO_RE = re.compile(
    rf"(?:\b(?:I'm|I\u2019m|I am|[Mm]y name is|[Mm]y name's|I'm called|[Cc]alls? me|I go by)\s+"
    rf"{_TITLE_RE}?|"
    rf"(?:^|[.!?]\s+)(?:[Hh]i|[Hh]ey|[Hh]ello)(?:\s+(?:everyone|everybody|all|folks|there))?,?\s+"
    rf"(?:this is|it's)\s+)"
    rf"({NAME_TOKEN}(?:\s+{NAME_TOKEN}){{0,4}})"
)

# the lower-case words inside a surname: "Joost van der Linde", "Anneke de Vries", "Rhys ap Gruffydd"
SURNAME_PARTICLES = frozenset(
    [
        "van",
        "von",
        "der",
        "den",
        "de",
        "del",
        "della",
        "di",
        "da",
        "das",
        "dos",
        "du",
        "la",
        "le",
        "ter",
        "ten",
        "ap",
        "bin",
        "ibn",
        "al",
        "el",
    ]
)

# a greeting before the name: "Hi everyone,", "Hey, everybody.", "Sure, so"
_GREETING = (
    r"(?:(?:[Hh]i|[Hh]ey|[Hh]ello|[Yy]eah|[Ss]o|[Ss]ure|[Oo]kay|[Tt]hanks)[,.!]?\s+"
    r"(?:(?:everyone|everybody|all|folks|there)[,.!]?\s+)?)*"
)

_HERE_RE = re.compile(rf"(?:^|[.!?]\s+){_GREETING}({NAME_TOKEN})(?:\s+({NAME_TOKEN}))?\s+here\b")

# a sentence opening with the speaker's full name, then their own words: "Íñigo Etxeberria, I'm a data scientist"
_NAMED_OPENING_RE = re.compile(
    rf"(?:^|[.!?]\s+){_GREETING}({NAME_TOKEN}\s+{NAME_TOKEN})(?:\s+(?:from|at|with)\s+[^,.!?]{{1,60}})?,\s+"
    rf"(?:I'm|I\u2019m|I am|I work|I lead|I run|I build|I head|I teach|I design|I study|I do|we|our)\b"
)


def fold_id(name: str) -> str:
    """'José' -> 'jose', 'Anaïs' -> 'anais', 'Björn' -> 'bjorn', "D'Andre" -> 'dandre', 'Mary Jane' ->
    'mary-jane', 'Jean-Luc' -> 'jean-luc', '李明' -> 'liming' (non-Latin scripts are transliterated)."""
    text = unicodedata.normalize("NFKD", name)
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    if not text.isascii():
        from anyascii import anyascii  # only for names outside the Latin alphabet

        text = anyascii(text)
    parts = [
        "".join(ch for ch in p.lower() if ch.isascii() and ch.isalnum())
        for p in re.split(r"[\s\-]+", text)
    ]
    return "-".join(p for p in parts if p) or "panelist"


def speaker_for(who: str, ids: list[str], names: list[str]) -> str | None:
    """The speaker id a person given by hand means ("host", an id, a name in any spelling: "Joaquín",
    "joaquin", "Herrera" when only one panelist has it), or None."""
    folded = fold_id(who)
    if folded == HOST:
        return HOST
    if folded in ids:
        return folded
    hits = [
        pid
        for pid, n in zip(ids, names, strict=True)
        if folded in (fold_id(n), *fold_id(n).split("-"))
    ]
    return hits[0] if len(set(hits)) == 1 else None


def panelist_ids(names: list[str]) -> list[str]:
    """One id per display name, in order: ASCII-folded, never 'host' or 'unknown', never repeated."""
    ids: list[str] = []
    for n in names:
        pid = fold_id(n)
        while pid in ids or pid in (HOST, UNKNOWN):
            pid += "2"
        ids.append(pid)
    return ids


def ascii_fold(name: str) -> str:
    text = unicodedata.normalize("NFKD", name)
    return "".join(ch for ch in text if not unicodedata.combining(ch))


def is_name(tok: str) -> bool:
    """A capitalised word (or one from a script without case) that is not a common sentence opener."""
    if not tok or tok in _NAME_STOP or tok.rstrip(".") in TITLES or tok.lower() in stopwords():
        return False
    first = tok[0]
    caseless = first.lower() == first.upper()
    if caseless:
        return first.isalpha()
    if not first.isupper():
        return False
    return not (tok.isupper() and len(tok) > 1)  # "AI", "RL": acronyms, not names


# given names that are also ordinary words kept out of names elsewhere ("Will you …", "May I …")
_WORD_NAMES = {
    "Will",
    "May",
    "Hope",
    "Grace",
    "Faith",
    "Joy",
    "Art",
    "Bill",
    "Rich",
    "Guy",
    "Pat",
    "Sky",
    "Dawn",
}


def _intro_candidates(text: str) -> list[list[str]]:
    """Name-token runs a speaker gives themselves in the opening sentences."""
    head = " ".join(sentences(text)[:3])
    found: list[list[str]] = []
    for m in _INTRO_RE.finditer(head):
        toks = m.group(1).split()
        run: list[str] = []
        for k, tok in enumerate(toks):
            tok = re.sub(r"['\u2019]s$", "", tok)
            # "I'm Will Chen", "I'm May Tan": a first name that is also a common word, then a surname
            word_name = (
                not run and tok in _WORD_NAMES and k + 1 < len(toks) and is_name(toks[k + 1])
            )
            if sum(t not in SURNAME_PARTICLES for t in run) >= 3 and not _in_surname(toks, k):
                break  # a first name and a surname, at most three name words but particles
            if not (is_name(tok) or word_name or _in_surname(toks, k)):
                break
            run.append(tok)
        if run:
            found.append(run)
    for m in _NAMED_OPENING_RE.finditer(head):
        toks = m.group(1).split()
        if all(is_name(tok) for tok in toks):
            found.append(toks)
    # "Hi. Tobias Lindqvist. I'm a green coffee buyer …": a sentence that is only a full name, then their own words
    sents = sentences(text)[:3]
    for k, sent in enumerate(sents[:-1]):
        toks = (
            re.sub(r"^(?:(?:[Hh]i|[Hh]ey|[Hh]ello|[Ss]ure|[Oo]kay|[Tt]hanks)[,.!]?\s+)+", "", sent)
            .rstrip(".!")
            .split()
        )
        if (
            2 <= len(toks) <= 3
            and all(is_name(t) for t in toks)
            and re.match(r"(?:I|I'm|I\u2019m|My)\b", sents[k + 1])
        ):
            found.append(toks)
    m = _HERE_RE.search(head)
    if m and is_name(m.group(1)):  # "Björn here", "Bob Kumar here"
        found.append([m.group(1)] + ([m.group(2)] if m.group(2) and is_name(m.group(2)) else []))
    return found


def _in_surname(toks: list[str], k: int) -> bool:
    """Whether toks[k] is a particle inside a surname: after a name, before another name or particle."""
    if k == 0 or toks[k] not in SURNAME_PARTICLES:
        return False
    rest = toks[k + 1 :]
    nxt = next((t for t in rest if t not in SURNAME_PARTICLES), None)
    return nxt is not None and is_name(re.sub(r"['\u2019]s$", "", nxt))


def find_intro_names(text: str, all_text: str = "") -> list[str]:
    """First names a speaker gives themselves in the first sentences: "I'm Dan" -> ["Dan"]; "I'm Mary Jane
    Watson" -> ["Mary Jane"] when ``all_text`` also addresses her as "Mary Jane" and never as "Mary" alone
    ("I'm Marit Haugland … Marit? … Marit Haugland, thank you": Marit, whose surname the thanks repeat)."""
    names = []
    for run in _intro_candidates(text):
        name = run[0]
        if len(run) >= 2 and all_text:
            pair = f"{run[0]} {run[1]}"
            alone = rf"(?<!\w){re.escape(run[0])}(?!\w)(?! {re.escape(run[1])})"
            if (
                len(re.findall(rf"(?<!\w){re.escape(pair)}(?!\w)", all_text)) >= 2
                and re.search(alone, all_text) is None
            ):
                name = pair
        if name not in names:
            names.append(name)
    return names


def full_intro_name(text: str, name: str) -> str:
    """The whole name a speaker gives themselves when it starts with ``name``: "I'm Bob Kumar, head of …" and
    "Bob" -> "Bob Kumar"; ``name`` itself when the introduction gives no more."""
    want = name.split()
    for run in _intro_candidates(text):
        if len(run) > len(want) and [ascii_fold(t) for t in run[: len(want)]] == [
            ascii_fold(t) for t in want
        ]:
            return " ".join(run)
    return name


def name_pattern(names: list[str]) -> re.Pattern[str] | None:
    """Matches any of the names, with or without accents."""
    if not names:
        return None
    alts = {n for n in names} | {ascii_fold(n) for n in names}
    alts_re = "|".join(re.escape(n) for n in sorted(alts, key=len, reverse=True))
    return re.compile(rf"(?<!\w)({alts_re})(?!\w)")


def presentations(
    sentence: str, name_re: re.Pattern[str] | None, by_name: dict[str, str]
) -> list[tuple[str, str]]:
    """(panelist id, what the sentence says of them) for a sentence naming panelists, cut at each name:
    "Léa, who runs …, and Tomasz, an economist …" -> [("lea", "Léa, who runs …, and "), ("tomasz", …)]."""
    spans = (
        [(m.start(), by_name[m.group(1)]) for m in name_re.finditer(sentence)] if name_re else []
    )
    return [
        (pid, sentence[at : spans[k + 1][0] if k + 1 < len(spans) else len(sentence)])
        for k, (at, pid) in enumerate(spans)
    ]


_LONGEST_NAME = 64  # characters of a name and the spaces after it


def _after_a_name(before: str) -> bool:
    """Does a name end right here ("Kofi " before "Mensah, the head of …": a surname, not a first name)?"""
    # the end of the text only (no name is longer): searching all of it, once per name found in a
    # sentence, grew with the sentence times its names
    # a particle before it belongs to the surname: "Ferreira da " before "Costa" is still after a name
    particles = "|".join(sorted(SURNAME_PARTICLES, key=len, reverse=True))
    m = re.search(
        rf"(?<![^\W\d_])({NAME_TOKEN})\.?\s+(?:(?i:{particles})\s+)*$", before[-_LONGEST_NAME:]
    )
    return bool(m) and is_name(m.group(1))


@dataclass(frozen=True)
class ToldNames:
    """People's names told from the words of captions with no capital letters (``ingest.restore``): the
    first names of the guests, the other names some go by (alias -> first name), and who introduced
    themselves in the opening turn before presenting them (the host)."""

    people: tuple[str, ...] = ()
    aliases: dict[str, str] = field(default_factory=dict)
    opener: str | None = None


def discover_names(
    kept: list[tuple[RawTurn, bool]], title: str, told: ToldNames | None = None
) -> tuple[list[str], dict[str, str]]:
    """(display names in order of appearance, alias -> display name). A second name someone gives
    themselves in the same introduction ("I'm 王芳, most people call me Wang Fang") is an alias.
    ``told``: the names captions with no capitals give (:class:`ToldNames`)."""
    all_text = " ".join(t.text for t, _ in kept)
    names, aliases = _self_introduced(kept, all_text)
    candidates, presented = _name_candidates(kept)
    if told:
        for alias, first in told.aliases.items():  # "… everyone calls me Kasia": Katarzyna's
            if alias in names:
                names[names.index(alias)] = first
            aliases[alias] = first
        names = list(dict.fromkeys(n for n in names if n != told.opener or not told.people))
        candidates = [*told.people, *candidates]
        presented.update(told.people)
    own = set(names)  # the names people give themselves: never someone else's short form
    title_names = _title_names(title)
    # who opened the talk presenting the others is the host, even when thanked by name
    host = told.opener if told and told.people else None
    for n in candidates:
        if not n or n == host or not is_name(n) or _known(n, names, aliases):
            continue
        if _confirmed_name(n, presented, title_names, all_text):
            names.append(n)
    # in the order the talk first names them
    first = {
        n: (
            m.start()
            if (m := re.search(rf"(?<!\w){re.escape(n)}(?!\w)", all_text))
            else len(all_text)
        )
        for n in names
    }
    names.sort(key=lambda n: first[n])
    # "… Bartholomew Kowalczyk Reid … Bart Kowalczyk Reid": said only after a name or a name it goes by
    said = [*names, *aliases]
    names = [n for n in names if n in own or not _second_given_name(n, said, all_text)]
    _merge_short_forms(names, aliases, all_text, presented | own)
    return names, aliases


def _second_given_name(n: str, names: list[str], all_text: str) -> bool:
    """Is ``n`` only ever said right after another of the ``names`` ("Lars Erik Holm", "Lars Erik, do you
    agree?"): the second word of that person's name, not a person of its own?"""
    said = list(re.finditer(rf"(?<!\w){re.escape(n)}(?!\w)", all_text))
    others = {o for o in names if o != n}
    return bool(said) and all(
        (before := all_text[: m.start()].split()) and before[-1] in others for m in said
    )


@cache
def _short_forms() -> dict[str, frozenset[str]]:
    """Full given name -> the common English short forms of it (panelbot/data/diminutives.txt)."""
    out: dict[str, frozenset[str]] = {}
    for line in (DATA_DIR / "diminutives.txt").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            full, *short = line.split()
            out[full] = frozenset(short)
    return out


_PET_ENDINGS = ("ie", "y", "i", "o", "e")


def is_short_form(short: str, full: str) -> bool:
    """Is ``short`` a short form of the given name ``full``: its start ("Pru" of Prudence), its start with a
    pet ending ("Bernie" of Bernadette, "Joe" of Joaquín), its end ("Segun" of Olusegun) or a common
    English short form ("Bill" of William)? Accents and case aside."""
    if _initials_of(short, full):
        return True
    a, b = ascii_fold(short).lower(), ascii_fold(full).lower()
    if not a.isalpha() or len(a) >= len(b) or len(a) < 2:
        return False
    if a in _short_forms().get(b, ()):
        return True
    if len(a) >= 3 and (b.startswith(a) or (len(a) >= 4 and b.endswith(a))):
        return True
    return any(
        a.endswith(e) and len(a) - len(e) >= 2 and b.startswith(a[: -len(e)]) for e in _PET_ENDINGS
    )


def _initials_of(short: str, full: str) -> bool:
    """Is ``short`` the initials of the parts of a given name ("JB" of Jean-Baptiste, "MJ" of
    Mary-Jane)?"""
    parts = [p for p in re.split(r"[-\s]", ascii_fold(full)) if p]
    return (
        len(parts) >= 2
        and short.isalpha()
        and short.isupper()
        and short == "".join(p[0].upper() for p in parts)
    )


# a word spoken to or of someone: "Bernie, why …", "Please, Segun is fine.", "Segun and Siddharth, …"
_ADDRESSED_RE = re.compile(
    rf"(?:^|[,.!?]\s+|\b(?:and|thanks|to|with)\s+)({NAME_TOKEN})(?![\w'\u2019-])"
    r"(?=\s*[,.?!]|\s+(?:and|is|was|what|how|do|does|you)\b)"
)


def _merge_short_forms(
    names: list[str], aliases: dict[str, str], all_text: str, presented: set[str]
) -> None:
    """A short form of one panelist's given name that the talk uses for someone ("Bernie, why …" for
    Bernadette) is that panelist's alias, not another panelist: one already taken for a name (unless it
    was presented as a guest of its own or someone gave it as their own, both in ``presented``) leaves
    ``names``."""
    for short in list(names):
        fulls = [n for n in names if n != short and is_short_form(short, n.split()[0])]
        if len(fulls) == 1 and short not in presented:
            names.remove(short)
            aliases[short] = fulls[0]
    for m in _ADDRESSED_RE.finditer(all_text):
        short = m.group(1)
        if not (is_name(short) or short.isupper()) or _known(short, names, aliases):
            continue
        fulls = [n for n in names if is_short_form(short, n.split()[0])]
        if len(fulls) == 1:
            aliases[short] = fulls[0]


def _known(n: str, names: list[str], aliases: dict[str, str]) -> bool:
    """Is ``n`` already a name or an alias found (with or without its accents)?"""
    return (
        n in names or n in aliases or ascii_fold(n) in {ascii_fold(x) for x in (*names, *aliases)}
    )


def _self_introduced(
    kept: list[tuple[RawTurn, bool]], all_text: str
) -> tuple[list[str], dict[str, str]]:
    """(the names speakers give themselves, in order; alias -> name): not the host's own introduction in
    the opening turn, nor someone from the audience introducing themselves before asking."""
    names: list[str] = []
    aliases: dict[str, str] = {}
    for k, (t, _) in enumerate(kept):
        if k == 0 and (
            looks_like_question(t.text) or _HOSTING_RE.search(t.text) or _presents_guests(t.text)
        ):
            # "Hi, I'm Sam and I'll be your moderator. … Can you introduce yourselves?"; "I'm Nell Frost …
            # Joining me are …": who introduces themselves and then the others is the host
            continue
        if k > 0 and looks_like_question(t.text) and _AUDIENCE_RE.search(t.text):
            continue  # "Hi, I'm Dave, a student. My question is for Mirela. …?": the audience asking
        if k > 0 and looks_like_question(t.text) and FLOOR_RE.search(t.text):
            continue  # "One more question. Yes, at the back. Hi, I'm Dave. …?": the floor given, then asking
        found = [n for n in find_intro_names(t.text, all_text) if not _known(n, names, aliases)]
        primary = next((x for x in find_intro_names(t.text, all_text) if x in names), None)
        for n in found:
            if primary is None:
                names.append(n)
                primary = n
            else:
                aliases[n] = primary
    return names, aliases


# the host handing over or asking by name: "over to you, Olive", "Miguel, what …", "And Priti?", "Léa, …"
_HANDOVER_RE = re.compile(
    rf"(?:over to you|to you|come to you|thank you|thanks|with|start with|turn to|hear from),?\s+({NAME_TOKEN})(?!\w)|"
    rf"(?:^|[.?!]\s+)(?:Maybe |So |And |Now |Okay,? |Great,? )?({NAME_TOKEN}),?\s+(?:if you|can you|could you|"
    rf"would you|what|how|why|do you|I want|over to you|your turn|you're up|you're next|tell us)|"
    rf"(?:^|[.?!]\s+)(?:And |So |Now )?(?:what about )?({NAME_TOKEN})\?|"
    rf"(?:^|[.?!]\s+)(?:Maybe |So |And |Now |Okay,? |Great,? )?({NAME_TOKEN}),\s"
)


def _name_candidates(kept: list[tuple[RawTurn, bool]]) -> tuple[list[str], set[str]]:
    """(words that may be names, in the order found; the ones named and described in a sentence
    presenting the guests): from the host presenting the guests and from short turns and questions
    handing over by name."""
    candidates: list[str] = []
    presented: set[str] = set()
    for k, (t, _) in enumerate(kept):
        # the opening turn, and a turn that asks (the host presenting guests, then asking), may present
        # someone by full name and what they are ("And on the end, Maëlle Le Goff, who is an acoustician")
        _presented_names(t.text, k == 0 or looks_like_question(t.text), candidates, presented)
        if looks_like_question(t.text) or len(t.text.split()) <= 8:
            candidates += [
                m.group(1) or m.group(2) or m.group(3) or m.group(4)
                for m in _HANDOVER_RE.finditer(t.text)
            ]
    return candidates, presented


def _presented_names(text: str, opening: bool, candidates: list[str], presented: set[str]) -> None:
    """Add to ``candidates`` (and ``presented``) the people a turn presents: "Joining me are Léa Fontaine,
    who …, and Tomasz Wiśniewski, …"; in the ``opening`` turn, anyone presented by full name and what they
    are."""
    cued = False
    for sent in sentences(text):
        if opening:
            full = _opening_full_names(sent)
            candidates += full
            presented.update(full)
        if cued or _GUESTS_RE.search(sent) or _GUESTS_AHEAD_RE.search(sent):
            # after the cue, the sentences that present someone by full name ("I'm joined by four people.
            # Henrike Vogel restores paintings … And Aiyana Redcloud is a textile conservator …")
            full = _presented_full_names(sent)
            candidates += full
            presented.update(full)
            cued = True
        if _GUESTS_RE.search(sent):
            candidates += [
                m.group(1)
                for m in re.finditer(rf"(?<![\w'\u2019-])({NAME_TOKEN})(?=\s+({NAME_TOKEN}))", sent)
                if is_name(m.group(1)) and m.group(2)[:1].isupper()
            ]
            described = _described_guests(sent)
            candidates += described
            presented.update(described)


def _opening_full_names(sent: str) -> list[str]:
    """The opening turn presenting someone by full name and what they are: "Arguing yes is Sigrid Aalto, a
    nuclear engineer …" (a first name, a surname, then "a", "an" or "who")."""
    return [
        m.group(1)
        for m in _PRESENTED_RE.finditer(sent)
        if m.group(2)
        and is_name(m.group(1))
        and m.group(2)[:1].isupper()
        and re.match(r",\s+(?:a|an|who)\s", sent[m.end(2) :])
        and not _after_a_name(sent[: m.start()])
        and not _AFTER_PREPOSITION_RE.search(sent[: m.start()])
    ]


# "welcome to Cooler Streets, a conversation …": a name after a preposition is a place or an event's name,
# not a person presented
_AFTER_PREPOSITION_RE = re.compile(
    r"\b(?:to|at|from|of|in|on|for|by|about|into|called|named)\s+$", re.IGNORECASE
)


# in a sentence presenting the guests, "by" presents a person ("I'm joined by Ana Ruiz, a …")
_PLACE_PREPOSITION_RE = re.compile(
    r"\b(?:to|at|from|of|in|on|for|about|into|called|named)\s+$", re.IGNORECASE
)


def _described_guests(sent: str) -> list[str]:
    """The first names a sentence presenting the guests describes ("Léa, who runs …"), not surnames."""
    return [
        m.group(1)
        for m in _PRESENTED_RE.finditer(sent)
        if is_name(m.group(1))
        and (m.group(2) is None or m.group(2)[:1].isupper())
        and not _after_a_name(sent[: m.start()])
        # "from Groningen, who …": a place; "joined by Ana Ruiz, a …" in a sentence presenting guests
        and not _PLACE_PREPOSITION_RE.search(sent[: m.start()])
    ]


def _confirmed_name(n: str, presented: set[str], title_names: set[str], all_text: str) -> bool:
    """A proper name: presented as a guest, or capitalised also in mid-sentence and named in the title or
    addressed twice."""
    pat = rf"(?<!\w){re.escape(n)}(?!\w)"
    mid = re.search(rf"[^\W\d_],?\s+{re.escape(n)}(?!\w)", all_text)
    return bool(
        n in presented or (mid and (n in title_names or len(re.findall(pat, all_text)) >= 2))
    )


# the host saying they host: the opening turn's own introduction is then the host's, not a panelist's
_HOSTING_RE = re.compile(
    r"\b(?:moderat\w*|your host|hosting|host(?:ing)? (?:this|today|tonight)|I'll be (?:asking|chairing|leading)|"
    r"chair(?:ing)? (?:this|the|today)|emcee|welcome,? (?:to|back|everyone|everybody)|"
    r"I (?:run|organi[sz]e|curate|programme|program) (?:the|this) (?:summit|conference|festival|event|series|"
    r"podcast|show|programme|program|forum|meetup|track))\b",
    re.IGNORECASE,
)

# someone from the audience introducing themselves before asking
_AUDIENCE_RE = re.compile(
    r"\b(?:my question|a question (?:for|to)|question is (?:for|to)|I(?:'d| would) like to ask|I want(?:ed)? to ask|"
    r"I was wondering|I'm curious|quick question)\b",
    re.IGNORECASE,
)


def _presents_guests(text: str) -> bool:
    """Does the turn go on to present the guests ("Joining me are …", "Let me introduce tonight's
    guests.", "With me are Léa Fontaine, who …")?"""
    return any(_GUESTS_RE.search(sent) or _opening_full_names(sent) for sent in sentences(text)[1:])


_GUESTS_RE = re.compile(
    r"\b(?:(?:introduce|meet) (?:\w+'s |\w+\u2019s |the |our |my |you to )?(?:guests?|panel(?:ists?)?|speakers?)|"
    r"joining (?:me|us)|with (?:me|us)(?: (?:today|tonight|here|now|on stage|on the panel))? (?:are|is)\b|"
    r"with (?:me|us) (?:today|tonight|here|on stage)|please welcome|I(?:'ve| have) (?:got )?(?:here|with me)|"
    r"our (?:guests?|panelists?|speakers?)|I'm (?:joined|here) (?:by|with)|we(?:'re| are) joined by|"
    r"we have (?:here|with us)|(?:talking|speaking|chatting|sitting down) (?:with|to)|"
    r"(?:to|I'd|let's|please|warmly) welcome|welcome (?:our|my)|introduce (?:our|my|you to)|"
    r"on my (?:left|right)|next to (?:me|her|him)|my guests?)\b",
    re.IGNORECASE,
)

# words that follow a title's or an organisation's capitalised words, not a person's name
_NOT_A_VERB = {
    "and",
    "or",
    "of",
    "the",
    "a",
    "an",
    "in",
    "on",
    "for",
    "to",
    "with",
    "at",
    "from",
    "by",
    "as",
    "behind",
    "about",
    "into",
    "over",
    "under",
    "between",
    "vs",
    "versus",
    "&",
}


def _presented_full_names(sentence: str) -> list[str]:
    """First names of the people a sentence presents by full name at the start of a clause, then says what
    they do: "Tamsin Varga is a volcanologist …", "…, and Kwabena Osei farms corn …", "Dr. Ana Ruiz, who …"
    (not "the Hunt Museum in Limerick": a name inside a clause; not a place name with no verb after it)."""
    toks = sentence.split()
    out: list[str] = []
    i = 0
    while i < len(toks):
        prev = toks[i - 1] if i else ""
        clause_start = i == 0 or prev.endswith((",", ";")) or prev in ("and", "And", "then", "Then")
        if not clause_start:
            i += 1
            continue
        run, j = _full_name_at(toks, i)
        if 2 <= sum(t not in SURNAME_PARTICLES for t in run) <= 3 and _described_after(
            toks, j, run
        ):
            out.append(run[0])
            i = j
        else:
            i += 1
    return out


def _full_name_at(toks: list[str], i: int) -> tuple[list[str], int]:
    """(the words of the name starting at token ``i``, after a "Dr."/"Professor"; the token after it): up to
    three words, a comma ending the name."""
    j = i
    while (
        j + 1 < len(toks) and toks[j].rstrip(".") in TITLES
    ):  # "Councillor", "Dr.", "Professor Sir"
        j += 1
    run: list[str] = []
    while j < len(toks) and sum(t not in SURNAME_PARTICLES for t in run) < 3:
        tok = toks[j]
        bare = tok.rstrip(",;:")
        if run and bare in SURNAME_PARTICLES and _in_surname(toks[j - 1 :], 1):
            run.append(bare)  # "da Costa", "de la Torre", "van den Berg": the surname goes on
            j += 1
            continue
        if not _name_word(bare, first=not run):
            break
        run.append(bare)
        j += 1
        if bare != tok:  # "Varga," ends the name
            break
    return run, j


def full_presented_name(text: str, name: str) -> str:
    """The whole name ``text`` starts with when it starts with ``name`` (after a title): "Beatriz Ferreira
    da Costa, who …" and "Beatriz" -> "Beatriz Ferreira da Costa"; else ``name``."""
    toks = text.split()
    if not toks:
        return name
    run, _ = _full_name_at(toks, 0)
    if not run or ascii_fold(run[0]) != ascii_fold(name.split()[0]):
        return name
    while run and run[-1].lower() in SURNAME_PARTICLES:
        run.pop()
    return " ".join([name, *run[len(name.split()) :]])


def _name_word(bare: str, *, first: bool) -> bool:
    """A word of a person's name (a first name when ``first``, else a capitalised word not stopping a
    name): "Ní", "Al-Amin", "O'Brien", not "MiniMax's" (inner capitals, a possessive)."""
    ok = is_name(bare) if first else (bare[:1].isupper() and bare not in _NAME_STOP)
    return not (
        not ok
        or not re.fullmatch(NAME_TOKEN, bare)
        or re.search(r"['\u2019]s$", bare)
        or (
            len(bare) > 3
            and any(ch.isupper() for ch in bare[1:])
            and "-" not in bare
            and "'" not in bare
        )
    )


def _described_after(toks: list[str], j: int, run: list[str]) -> bool:
    """Does what follows the name at token ``j`` say what they do: a verb ("Tamsin Varga is …"), or after a
    comma "who", "a", "an" … ("Dr. Ana Ruiz, who …")?"""
    after = toks[j] if j < len(toks) else ""
    ended_by_comma = bool(run) and toks[j - 1].endswith(",")
    return (after[:1].islower() and not ended_by_comma and after not in _NOT_A_VERB) or (
        ended_by_comma and after.lower() in ("who", "a", "an", "the", "our", "whose")
    )


# a sentence saying guests are about to be presented, by name in the sentences after it: "I'm here with two
# people who see it up close.", "I'm delighted to have four people here who do that work."
_GUESTS_AHEAD_RE = re.compile(
    r"\b(?:(?:two|three|four|five|six|wonderful|great|brilliant|fantastic) (?:\w+ )?(?:people|guests|panelists|experts|"
    r"speakers)|to (?:have|welcome) (?:\w+ ){0,3}(?:with us|here|on (?:the|this) (?:stage|panel)))\b",
    re.IGNORECASE,
)

# a guest named and then described: "Kofi, a battery chemist at Voltaic", "Mirela, who runs a plant"
_PARTICLES_RE = "|".join(sorted(SURNAME_PARTICLES, key=len, reverse=True))
_PRESENTED_RE = re.compile(
    rf"(?<![\w'\u2019-])(?=({NAME_TOKEN})(?:\s+(?:(?i:{_PARTICLES_RE})\s+)*({NAME_TOKEN}))?,\s+"
    r"(?:who|a|an|the|our|head|founder)\s)"
)


def _title_names(title: str) -> set[str]:
    """First names listed after the title's last dash: "Robots on the Farm — Léa Fontaine and Tomasz
    Wiśniewski" -> {"Léa", "Tomasz"}."""
    parts = re.split(r"\s[\u2014\u2013|-]\s|\s[\u2014\u2013]", title)
    if len(parts) < 2:
        return set()
    out = set()
    for chunk in re.split(r"(?<!\s)\s*(?:,|&|\band\b|\bwith\b|\bft\.|\bfeat\.)\s*", parts[-1]):
        toks = chunk.split()
        if 1 <= len(toks) <= 3 and all(t[:1].isupper() for t in toks) and is_name(toks[0]):
            out.add(toks[0])
    return out


# ----------------------------------------------------------------------------------------------- attribution

_HOST_LABELS = {"host", "moderator", "interviewer", "presenter", "chair", "mc", "q", "question"}


def speaker_labels(raw: list[RawTurn]) -> tuple[list[RawTurn], dict[int, str]]:
    """Turns whose speaker the captions name: a label the format carries (a JSON "speaker"), or one the text
    starts with ("DAN: …", "Speaker 2: …", "[SPEAKER_00]: …", a VTT voice span): the turns with the label
    taken off their text and those of one speaker in a row joined (a diarizer labels every line), and raw
    index -> label. Text labels count only when at least three turns carry one and there are two labels or
    more (a stray "Note: …" is not a transcript's labels)."""
    found = {t.index: t.label for t in raw if t.label}
    from_text = {t.index: lab for t in raw if not t.label and (lab := speaker_label(t.text))}
    if len(from_text) >= 3 and len({lab.lower() for lab in from_text.values()}) >= 2:
        found.update(from_text)
    else:
        from_text = {}
    if len({lab.lower() for lab in found.values()}) < 2:
        return raw, {}
    out: list[RawTurn] = []
    labels: dict[int, str] = {}
    for t in raw:
        text, times = t.text, t.times
        if t.index in from_text:
            m = re.match(rf"^\s*\[?{re.escape(from_text[t.index])}\]?\s*:", t.text)
            n = len(m.group(0).split()) if m else 0
            toks = t.text.split()
            text = " ".join(toks[n:])
            times = t.times[n:] if len(t.times) == len(toks) else []
            if times and n:  # the turn starts when its label's cue does
                times[0] = (t.times[0][0], times[0][1])
        label = found.get(t.index)
        prev = out[-1] if out else None
        if label and prev is not None and labels.get(prev.index, "").lower() == label.lower():
            both = bool(prev.times) and bool(times)
            prev.text = f"{prev.text} {text}".strip()
            prev.times = prev.times + times if both else []
            continue
        turn = RawTurn(text, t.index, times, t.label)
        out.append(turn)
        if label:
            labels[t.index] = label
    return out, labels


@dataclass
class LabelName:
    """Who a speaker label in the captions was taken to be, and on what grounds."""

    label: str  # as the captions spell it: "SPEAKER_00", "Speaker 2", "DAN"
    name: str  # the display name, or HOST
    how: str  # GIVEN, NAMED, INTRODUCED, ASKS, HANDED or PROVISIONAL
    first_words: str  # how the label's first turn starts (to recognise the voice)
    turns: int

    @property
    def doubtful(self) -> bool:
        """Was the label's person guessed (from an introduction, from asking, or not at all)?"""
        return self.how in (INTRODUCED, ASKS, PROVISIONAL, HANDED)

    def to_dict(self) -> dict:
        return {
            "label": self.label,
            "name": self.name,
            "how": self.how,
            "first_words": self.first_words,
            "turns": self.turns,
        }


GIVEN = "given"  # by the user (--speaker, --host, or asked on the terminal)
NAMED = "named in the captions"  # the label is a name ("DAN", "Olive Song")
INTRODUCED = "introduces themselves"  # an anonymous label, named after its own introduction
ASKS = "asks the questions"  # taken for the host because its turns mostly ask
PROVISIONAL = "no name found"  # an anonymous label kept as the name
# why a turn is whose it is when a label in the file says so
LABELLED = "labelled in the captions"
HANDED = "named in the host's hand-overs"  # an anonymous label the host hands over to by name (handovers.py)


def label_people(
    kept: list[tuple[RawTurn, bool]],
    labels: dict[int, str],
    given: dict[str, str] | None = None,
) -> tuple[dict[str, str], list[str], list[LabelName]]:
    """label (lowercase) -> display name, or HOST for the moderator; the display names in order; and how each
    label was resolved. ``given`` (label, any case -> a name or HOST) comes first. Otherwise an anonymous
    label ("Speaker 2", "SPEAKER_00") takes the name that speaker introduces themselves with, or stays as
    it is (provisional); with no role label and no host given, the label whose turns mostly ask is the host."""
    given = {k.lower(): v for k, v in (given or {}).items()}
    by_label: dict[str, list[str]] = {}
    spelt: dict[str, str] = {}
    for t, _ in kept:
        if t.index in labels:
            by_label.setdefault(labels[t.index].lower(), []).append(t.text)
            spelt.setdefault(labels[t.index].lower(), labels[t.index])
    people: dict[str, str] = {}
    how: dict[str, str] = {}
    if not any(lab in _HOST_LABELS or given.get(lab) == HOST for lab in by_label):
        asks = {
            lab: sum(looks_like_question(x) for x in texts) / len(texts)
            for lab, texts in by_label.items()
            if lab not in given
        }
        host = max(asks, key=asks.__getitem__, default=None)
        if (
            host is not None
            and asks[host] >= 0.5
            and sorted(asks.values())[-2:] != [asks[host]] * 2
        ):
            people[host], how[host] = HOST, ASKS
    names: list[str] = []
    for lab, texts in by_label.items():
        if lab in given:
            display, how[lab] = given[lab], GIVEN
        elif lab in _HOST_LABELS or people.get(lab) == HOST:
            display, how[lab] = HOST, how.get(lab, NAMED)
        else:
            display, how[lab] = _label_display(lab, spelt[lab], texts)
        people[lab] = display
        if display != HOST and display not in names:
            names.append(display)
    resolved = [
        LabelName(spelt[lab], people[lab], how[lab], " ".join(texts[0].split()[:14]), len(texts))
        for lab, texts in by_label.items()
    ]
    return people, names, resolved


def _label_display(lab: str, spelt: str, texts: list[str]) -> tuple[str, str]:
    """(display name, how) for a label that is neither given nor the host's."""
    intro = next((n for x in texts for n in find_intro_names(x)), None)
    if is_anonymous_label(lab):
        if intro:
            return intro, INTRODUCED
        number = re.sub(r"\D", "", lab)
        return f"Speaker {int(number)}" if number else spelt, PROVISIONAL
    # a title is not the name: "Dr. Marisol Echeverría" is Marisol (as a title in the words is)
    untitled = [t for t in spelt.split() if t.rstrip(".").title() not in TITLES] or spelt.split()
    raw = untitled[0]
    display = raw.title() if raw.isupper() else raw
    if intro and ascii_fold(intro).lower().startswith(ascii_fold(raw).lower()):
        display = intro  # "MARY: I'm Mary Jane" -> Mary Jane
    return display, NAMED
