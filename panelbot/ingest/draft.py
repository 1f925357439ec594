"""``panelbot ingest``: raw captions -> a draft panel directory that answers at once and a person then curates.

Writes ``panel.yaml`` (status: draft), ``turns.yaml``, ``questions.yaml``, ``quotes.yaml``, a copy of the
captions, and ``.ingest.json`` (hashes of what it wrote). Re-running refuses to touch a panel that was curated
(status: curated, or any file changed since the ingest wrote it) unless ``force``.
"""

from __future__ import annotations

import codecs
import hashlib
import json
import math
import os
import re
import tempfile
from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

import yaml

from panelbot.errors import DataError, UsageError
from panelbot.ingest.align import align_turn
from panelbot.ingest.basis import BY_HAND, MODEL_WHY
from panelbot.ingest.captions import clean_quote_text, split_turns
from panelbot.ingest.formats import Captions, parse_captions
from panelbot.ingest.handovers import people_of_labels
from panelbot.ingest.names import (
    HOST,
    LABELLED,
    NAME_TOKEN,
    NAMED,
    UNKNOWN,
    LabelName,
    ascii_fold,
    find_intro_names,
    full_intro_name,
    full_presented_name,
    is_name,
    name_pattern,
    panelist_ids,
    presentations,
    speaker_for,
    speaker_labels,
)
from panelbot.ingest.restore import restore, unpunctuated
from panelbot.ingest.speakers import SpeakerTurn, identify_speakers
from panelbot.ingest.unmarked import cut_inside, flag_cuts
from panelbot.retrieval.lexicon import common_words, content_words, english_words, stopwords
from panelbot.text import count_of, split_sentences, strip_control, words

MANIFEST = ".ingest.json"
CAPTIONS_NAME = "captions.txt"
# the largest captions file ingest reads: a long talk's rolling WebVTT with word timings is a few MB
MAX_CAPTIONS_BYTES = 32_000_000
MAX_QUOTE_WORDS = 90
MAX_QUOTE_SENTENCES = 4
TARGET_QUOTE_WORDS = 55
PERSONA_KEYWORDS = 15  # distinctive single words per panelist (after the phrases)
QUOTE_KEYWORDS = 10  # distinctive words per quote
KEYWORD_PHRASES = 20  # recurring phrases per panelist
_PALETTE = ["#4EA8DE", "#F4A259", "#8AC926", "#E56B6F", "#B388EB", "#43AA8B"]


@dataclass
class Draft:
    title: str
    turns: list[SpeakerTurn]
    names: list[str]
    panel: dict
    questions: list[dict]
    quotes: list[dict]
    format: str = "text"
    warnings: list[str] = field(default_factory=list)
    labels: list[LabelName] = field(default_factory=list)  # the captions' speaker labels, resolved
    # how it was made (the labels' mapping, the URL, the speakers set by hand): kept in the manifest so
    # that `panelbot check --fix` can derive the draft again
    options: dict = field(default_factory=dict)


def parse(captions: str) -> Captions:
    """Captions text in any supported format -> timed words (control sequences stripped first)."""
    return parse_captions(strip_control(captions))


def segment(
    captions: str | Captions,
    *,
    speakers: dict[str, str] | None = None,
    resolved: list[LabelName] | None = None,
) -> tuple[str, list[SpeakerTurn], list[str]]:
    """Captions (text in any supported format, or already parsed) -> (title, attributed turns, names).
    ``speakers`` maps the captions' speaker labels to people (a name, or "host"); ``resolved`` receives
    how each label was taken."""
    caps = parse(captions) if isinstance(captions, str) else captions
    raw = split_turns(caps.words, rolling=caps.rolling)
    told = None
    cuts: Collection[int] | None = ()
    if unpunctuated(raw):
        raw, told = restore(raw)
        # where a '>>' is missed, the sentences restore gives are cut as in unmarked text; with no '>>'
        # at all, every turn ingest finds starts or (the first) ends at such a cut (None: every turn)
        raw, cuts = cut_inside(raw) if len(raw) > 1 else (raw, None)
    given = {
        lab: HOST if name.strip().lower() == HOST else name
        for lab, name in (speakers or {}).items()
    }
    turns, names = identify_speakers(raw, caps.title, given=given, resolved=resolved, told=told)
    return caps.title, flag_cuts(turns, cuts), names


def speaker_label_preview(caps: Captions) -> list[LabelName]:
    """The captions' speaker labels as ingest would take them with no mapping given, each with its first
    words (for asking the user who they are, and for checking a --speaker mapping)."""
    raw, labels = speaker_labels(split_turns(caps.words, rolling=caps.rolling))
    return people_of_labels([(t, False) for t in raw], labels, caps.title)[2] if labels else []


def _is_filler(sentence: str) -> bool:
    return len(content_words(sentence)) <= 1 and len(words(sentence)) <= 6


def _split_long(sentence: str, limit: int = MAX_QUOTE_WORDS) -> list[str]:
    """Break a run-on caption sentence at commas (or, failing that, word counts) into <= limit words."""
    toks = sentence.split()
    if len(toks) <= limit:
        return [sentence]
    parts: list[str] = []
    cur: list[str] = []
    for tok in toks:
        cur.append(tok)
        if len(cur) >= limit * 0.6 and tok.endswith(",") or len(cur) >= limit:
            parts.append(" ".join(cur))
            cur = []
    if cur:
        parts.append(" ".join(cur))
    return parts


def answer_sentences(text: str) -> list[str]:
    """The sentences quotes are cut from (run-on caption sentences broken up); their words are text.split()."""
    sentences: list[str] = []
    for s in split_sentences(text):
        sentences.extend(_split_long(s))
    return sentences


def span_times(
    times: list[tuple[float | None, float | None]], sentences: list[str], first: int, end: int
) -> tuple[float | None, float | None]:
    """(start, end) seconds of sentences [first, end) of a turn whose words are timed by ``times``."""
    if not times:
        return None, None
    a = sum(len(s.split()) for s in sentences[:first])
    b = a + sum(len(s.split()) for s in sentences[first:end])
    span = times[a:b]
    start = next((x for x, _ in span if x is not None), None)
    stop = next((y for _, y in reversed(span) if y is not None), None)
    return start, stop


def chunk_answer(text: str) -> list[tuple[int, int, str]]:
    """Split one answer into quotes of 1-4 sentences and at most ~90 words: (first, end, text)."""
    sentences = answer_sentences(text)
    chunks: list[tuple[int, int, str]] = []
    start = None
    cur: list[str] = []
    count = 0

    def flush(end: int) -> None:
        nonlocal start, cur, count
        if cur and start is not None:
            cleaned = clean_quote_text(" ".join(cur))
            if len(content_words(cleaned)) >= 3:
                chunks.append((start, end, cleaned))
            elif chunks:  # too thin to stand alone: fold into the previous quote if it fits
                a, _, prev = chunks[-1]
                merged = clean_quote_text(f"{prev} {cleaned}")
                if len(merged.split()) <= MAX_QUOTE_WORDS:
                    chunks[-1] = (a, end, merged)
        start, cur, count = None, [], 0

    for i, s in enumerate(sentences):
        if not cur and _is_filler(s):
            continue
        n = len(s.split())
        if cur and (count + n > MAX_QUOTE_WORDS or len(cur) >= MAX_QUOTE_SENTENCES):
            flush(i)
        if start is None:
            start = i
        cur.append(s)
        count += n
        if count >= TARGET_QUOTE_WORDS:
            flush(i + 1)
    flush(len(sentences))
    return chunks


def _question_text(text: str) -> str:
    """The asking part of a host turn: its last question sentences, at most ~45 words."""
    sents = split_sentences(text)
    picked: list[str] = []
    for s in reversed(sents):
        if picked and sum(len(p.split()) for p in picked) + len(s.split()) > 45:
            break
        picked.insert(0, s)
        if "?" in s and len(picked) >= 1 and sum(len(p.split()) for p in picked) >= 12:
            break
    q = clean_quote_text(" ".join(picked)) if picked else clean_quote_text(text)
    return q


def _keywords(texts: list[str], *, top: int, exclude: set[str] | None = None) -> list[list[str]]:
    """Distinctive words per text (TF-IDF over the set), unstemmed, generic English words last."""
    sw = stopwords()
    common = common_words()
    docs = [[w for w in words(t) if w not in sw and len(w) > 2 and not w.isdigit()] for t in texts]
    df: Counter[str] = Counter()
    for d in docs:
        df.update(set(d))
    n = len(docs)
    out = []
    for d in docs:
        tf = Counter(d)
        scored = []
        for w, c in tf.items():
            if exclude and w in exclude:
                continue
            weight = (1 + math.log(c)) * (math.log((1 + n) / (1 + df[w])) + 1)
            if w in common:
                weight *= 0.3
            scored.append((weight, w))
        scored.sort(key=lambda x: (-x[0], x[1]))
        out.append([w for _, w in scored[:top]])
    return out


_ROLE_WORDS = re.compile(
    r"\b(?:lead|head|vp|director|manager|engineer|researcher|founder|ceo|cto|scientist|professor|"
    r"president|chief|partner|architect|principal|developer|student|planner|designer|maintainer|teacher|"
    r"lawyer|doctor|nurse|farmer|breeder|miller|baker|writer|editor|analyst|consultant|officer|advis[eo]r|"
    r"coordinator|organi[sz]er|[a-z]+(?:ist|ian|ologist))\b",
    re.IGNORECASE,
)


_TOP_ROLE = re.compile(
    r"(?i)ceo|cto|cfo|coo|cso|founder|co-founder|cofounder|president|owner|chair"
)


# lower-case words inside an organisation's name: "Bank of England", "Instituto do Mar", "Universidad de Chile"
_ORG_PARTICLES = {
    "of",
    "and",
    "&",
    "for",
    "do",
    "da",
    "de",
    "del",
    "della",
    "der",
    "di",
    "du",
    "la",
    "le",
    "van",
    "von",
}

# a name given before the role, in the same breath: "I'm Bob Kumar, head of …", "Bob Kumar here, I'm the …",
# "Hi, this is Alice Smith, Lead of …": what follows the comma is read as "I'm …"
_NAMED_THEN_ROLE = re.compile(
    rf"(?:\b(?:I'm|I\u2019m|I am|[Mm]y name is|[Tt]his is)\s+|(?:^|(?<=[.!?])\s+))"
    rf"((?:{NAME_TOKEN})(?:\s+(?!here\b){NAME_TOKEN}){{0,2}})(?:\s+here)?,\s+(?:(?:I'm|I\u2019m|I am)\s+)?"
    rf"(?!(?:and|but|so|I|we|thanks|thank|it|it's|glad|happy|great)\b)"
)


def _named_then_role(text: str) -> str:
    """The intro with a leading name turned into "I'm": "I'm Bob Kumar, head of networking at Zeta Labs" ->
    "I'm head of networking at Zeta Labs" (only when the words before the comma are all names)."""
    out, pos = [], 0
    while m := _NAMED_THEN_ROLE.search(text, pos):
        if all(is_name(tok) for tok in m.group(1).split()):
            out.append(text[pos : m.start()] + " I'm ")
            pos = m.end()
        else:  # "Hi, I'm Alice Smith, …": try again from the next character
            out.append(text[pos : m.start() + 1])
            pos = m.start() + 1
    return "".join(out) + text[pos:]


def _role_from_intro(text: str) -> tuple[str, str]:
    """('VP of Kernels', 'Together AI') from "I'm Dan. I'm the VP of Kernels at Together AI."; ('Head of
    networking', 'Zeta Labs') from "I'm Bob Kumar, head of networking at Zeta Labs" or "Bob Kumar here, I'm
    the head of networking at Zeta Labs"; ('Lead of networking', 'Zeta Labs') from "I lead networking at Zeta
    Labs"."""
    text = _named_then_role(text)
    for verb, rest in re.findall(
        r"\b(?=(I'm|I\u2019m|I am|I lead|I run|I head|I manage|I direct)\s+([^.;!?]+))", text
    ):
        phrase = re.split(r",|(?<!\s)\s+and\s+(?:I|I'm|we|my)\b", rest)[0].strip()
        phrase = re.sub(r"^(?:the|a|an)\s+", "", phrase)
        # the city it is in says where, not what: "… for the tram network in Bordeaux"
        phrase = re.sub(
            r"(?<!\s)\s+in\s+[^\W\d_][\w'\u2019-]*(?:\s+[^\W\d_][\w'\u2019-]*){0,2}\s*$",
            lambda m: "" if all(w[:1].isupper() for w in m.group(0).split()[1:]) else m.group(0),
            phrase,
        )
        if verb.lower() in ("i lead", "i run", "i head", "i manage", "i direct"):
            phrase = f"Lead of {phrase}" if not _ROLE_WORDS.search(phrase) else phrase
        if not _ROLE_WORDS.search(phrase):
            continue
        role, org = phrase, ""
        mo = re.search(
            r"\s(?:at|with|from|for)\s+(?:the\s+)?([^\W\d_][\w&.'-]*(?:\s+[^\W\d_][\w&.'-]*)*)\s*$",
            phrase,
        )
        if mo and not all(w[:1].isupper() or w in _ORG_PARTICLES for w in mo.group(1).split()):
            mo = None
        if mo:
            role, org = phrase[: mo.start()].strip(), mo.group(1)
        else:
            # captions drop the "at": "VP of Kernels Together AI" -> "VP of Kernels", "Together AI"
            toks = phrase.split()
            of = next((i for i, w in enumerate(toks) if w.lower() in ("of", "for")), None)
            if (
                of is not None
                and len(toks) - of >= 4
                and all(w[:1].isupper() for w in toks[of + 1 :])
            ):
                role, org = " ".join(toks[: of + 2]), " ".join(toks[of + 2 :])
            elif (
                of is not None
                and of >= 1
                and _TOP_ROLE.fullmatch(toks[of - 1])
                and all(w[:1].isupper() for w in toks[of + 1 :])
            ):
                role, org = " ".join(toks[:of]), " ".join(toks[of + 1 :])  # "CTO of Vectorly"
        return role[:1].upper() + role[1:], org
    return "", ""


def clean_title(title: str, names: list[str]) -> str:
    """The talk's title without caption-file artefacts: a trailing "— Olive Song" naming a panelist,
    " - YouTube", "(auto-generated)", "[English]"."""
    t = re.sub(
        r"(?<!\s)\s*[\[(](?:auto-generated|automatic captions?|english|en|subtitles?|captions?)[\])]\s*",
        " ",
        title,
        flags=re.IGNORECASE,
    )
    t = re.sub(r"(?<!\s)\s*[-\u2013\u2014|]\s*YouTube\s*$", "", t, flags=re.IGNORECASE)
    for n in names:
        t = re.sub(
            rf"(?<!\s)\s*[-\u2013\u2014|:]\s*{re.escape(n)}(?:\s+[^\W\d_][\w'\u2019-]*){{0,2}}\s*$",
            "",
            t,
        )
    return " ".join(t.split()).strip(" -\u2013\u2014|")


def title_from_filename(path: str) -> str:
    """A title from a caption file's name when the captions have none: yt-dlp's "Agents at Scale [dQw4w9WgXcQ]
    .en.vtt" -> "Agents at Scale"; "talk.srt" -> "" (a bare word like that says nothing)."""
    name = Path(path).name
    name = re.sub(
        r"(\.[A-Za-z]{2,3}(?:-[A-Za-z]{2,4})?)?\.(?:vtt|srt|json3?|txt)$",
        "",
        name,
        flags=re.IGNORECASE,
    )
    name = re.sub(r"(?<!\s)\s*\[[\w-]{6,}\]\s*$", "", name).replace("_", " ").strip()
    return name if len(name.split()) >= 2 else ""


# the name of the show or event the host welcomes people to: "welcome back to Living Languages, the podcast
# about …", "This is Cooler Streets."; it must be capitalised (not "welcome to the afternoon session")
_INTRO_TITLE_RE = re.compile(
    r"\b(?:[Ww]elcome(?: back)?,?(?: everyone| everybody| all)?,? to|[Tt]his is|[Yy]ou're (?:listening to|"
    r"watching)) (?:(?:this year's|the|our) )?"
    r"((?:[A-Z0-9][\w'\u2019&-]*)(?:\s+(?:[A-Z0-9][\w'\u2019&-]*|of|the|and|for|in|on|at|&|a|to)){0,8})"
)


# what the host says the talk is about: "this evening's panel on housing in the valley", "today's
# conversation about rail freight"
_TOPIC_TITLE_RE = re.compile(
    r"\b(?:panel|talk|conversation|discussion|session|debate|forum|evening|episode|event|town hall)"
    r" (?:on|about) ((?:[\w'\u2019-]+)(?:\s+[\w'\u2019-]+){0,7})"
)
# the talk's name said outright: "this session is called Why isn't more freight on rail."
_CALLED_RE = re.compile(
    r"\b(?:session|panel|talk|event|episode|show|podcast|evening|series|lecture|discussion|debate)"
    r" (?:is |was |we've )?(?:called|titled|entitled|named) ([A-Z\u201c\"][^.!?;]{2,80})"
)
# words that end the topic: "housing in the valley and I'm …", "rail freight tonight"
_TOPIC_ENDS = {
    "with",
    "tonight",
    "today",
    "here",
    "now",
    "so",
    "which",
    "where",
    "because",
    "but",
}


# after "and", the speaker going on about themselves or the evening, not more of the topic ("housing in the
# valley and I'm …"; but "climate models and the computers that run them")
_AND_GOES_ON = {
    "i",
    "i'm",
    "i'll",
    "i've",
    "we",
    "we're",
    "we'll",
    "we've",
    "you",
    "let's",
    "my",
    "our",
}


# words a topic cut at eight words cannot end on ("housing in the"; a pronoun can: "... that run them")
_DANGLING = {
    "the",
    "a",
    "an",
    "of",
    "in",
    "on",
    "for",
    "to",
    "at",
    "by",
    "from",
    "or",
    "and",
    "its",
    "their",
}


def _ends_topic(toks: list[str], k: int) -> bool:
    """Whether the topic a host names ends before its k-th word."""
    w = toks[k].lower()
    if w == "and":
        return k + 1 >= len(toks) or toks[k + 1].lower().replace("\u2019", "'") in _AND_GOES_ON
    return w in _TOPIC_ENDS


def title_from_intro(turns: list[SpeakerTurn]) -> str:
    """The talk's title from the host's opening ("Good evening and welcome to Cooler Streets, a
    conversation …" -> "Cooler Streets"; else what the talk is about: "… this evening's panel on housing
    in the valley." -> "Housing in the valley"), or ""."""
    opening = next((t.text for t in turns[:3] if t.speaker == HOST), "")
    head = " ".join(split_sentences(opening)[:4])
    named = _CALLED_RE.search(head)
    if named:  # "this session is called Why isn't more freight on rail."
        return named.group(1).strip()
    for m in _INTRO_TITLE_RE.finditer(head):
        toks = m.group(1).split()
        while toks and toks[-1][:1].islower():  # "Cooler Streets and" -> "Cooler Streets"
            toks.pop()
        if toks and not (len(toks) == 1 and toks[0] in ("I", "It", "We", "A")):
            return " ".join(toks)
    for m in _TOPIC_TITLE_RE.finditer(head):
        toks = m.group(1).split()
        cut = next((k for k, w in enumerate(toks) if _ends_topic(toks, k)), len(toks))
        toks = toks[:cut]
        while toks and toks[-1].lower() in _DANGLING:  # "housing in the" -> "housing"
            toks.pop()
        if len(toks) >= 1 and toks[0].lower() not in stopwords():
            topic = " ".join(toks)
            return topic[:1].upper() + topic[1:]
    return ""


def host_name(turns: list[SpeakerTurn], names: list[str]) -> str:
    """The name the host gives themselves in their first turns ("My name is Marguerite Okafor, I edit
    …"), not a panelist's; "" when they give none."""
    taken = {ascii_fold(n).lower() for n in names}
    for t in [t for t in turns if t.speaker == HOST][:2]:
        for first in find_intro_names(t.text):
            if ascii_fold(first).lower() not in taken:
                return full_intro_name(t.text, first)
    return ""


def build_draft(
    captions: str | Captions,
    name: str,
    *,
    url: str | None = None,
    speakers: dict[str, str] | None = None,
    overrides: dict[int, str] | None = None,
    title_guessed: bool = False,
    model_overrides: dict[int, str] | None = None,
) -> Draft:
    """The draft panel of a talk. ``speakers`` maps the captions' labels to people; ``overrides`` sets the
    speaker of turns by number (1-based, as the health report shows them: a panelist's id or name, or
    "host"), as ``panelbot check --fix``/``--speaker`` record them. ``title_guessed``: the captions'
    title was made from the file's name, so the one the host gives ("welcome to Cooler Streets") wins.
    ``model_overrides``: the speakers a model gave doubtful turns (``ingest --llm``); set by hand wins."""
    caps = parse(captions) if isinstance(captions, str) else captions
    resolved: list[LabelName] = []
    title, turns, names = segment(caps, speakers=speakers, resolved=resolved)
    title = clean_title(title, names)
    if not title or title_guessed:
        title = title_from_intro(turns) or title
    ids = panelist_ids(names)
    if not ids:
        raise DataError(
            "found no panelists: no self-introductions or hand-overs by name in the captions"
            + _no_names_hint(turns)
        )
    if model_overrides:
        apply_overrides(turns, model_overrides, ids, names, why=MODEL_WHY)
    if overrides:
        apply_overrides(turns, overrides, ids, names)
    questions, quotes = _questions_and_quotes(turns, ids)
    if not quotes:
        raise DataError(
            "no answer could be attributed to a named panelist; nothing to build a bank from"
        )
    _align_quoted_turns(turns, quotes)
    people = _people(turns, quotes, names, ids, resolved)
    _quote_keywords(quotes, questions, people)
    panelists = _panelists(people)
    panel = {
        "format": 1,
        "title": title or _people_title(panelists) or name,
        "status": "draft",
        "source": CAPTIONS_NAME,
        **({"source_url": url} if url else {}),
        "host": {"id": HOST, "name": host_name(turns, names) or "Host"},
        "panelists": panelists,
        "topics": _panel_topics(people),
    }
    draft = Draft(
        title, turns, names, panel, questions, quotes, caps.format, list(caps.warnings), resolved
    )
    draft.options = {
        k: v
        for k, v in (
            ("title", caps.title),
            ("speakers", speakers or {}),
            ("url", url),
            ("overrides", {str(n): who for n, who in sorted((overrides or {}).items())}),
            ("model", {str(n): who for n, who in sorted((model_overrides or {}).items())}),
        )
        if v
    }
    return draft


def _no_names_hint(turns: list[SpeakerTurn]) -> str:
    plain = " ".join(t.text for t in turns)
    if plain and not any(ch.isupper() for ch in plain) and not re.search(r"[.?!]", plain):
        return " (these captions have no capital letters or punctuation, so names cannot be told from words)"
    return ""


def apply_overrides(
    turns: list[SpeakerTurn],
    overrides: dict[int, str],
    ids: list[str],
    names: list[str],
    *,
    why: str = BY_HAND,
) -> None:
    """Give turns (numbered from 1) the speaker set by hand; a number past the end or a person not on
    the panel is a usage error."""
    for number, who in overrides.items():
        if not 1 <= number <= len(turns):
            raise UsageError(
                f"there is no turn {number}: the talk has {count_of(len(turns), 'turn')}"
            )
        pid = speaker_for(who, ids, names)
        if pid is None:
            raise UsageError(
                f"turn {number}: {who!r} is not on the panel (one of: host, {', '.join(ids)})"
            )
        t = turns[number - 1]
        t.speaker, t.why, t.parts = pid, why, []
        t.is_question = t.is_question and pid == HOST
        if why == BY_HAND:
            t.confidence = 1.0


def _questions_and_quotes(
    turns: list[SpeakerTurn], ids: list[str]
) -> tuple[list[dict], list[dict]]:
    """The host's questions (host turns a panelist answers) and the answers cut into quotes."""
    questions: list[dict] = []
    current_q: dict | None = None
    quotes: list[dict] = []
    counters: Counter[str] = Counter()
    for i, t in enumerate(turns):
        if t.speaker == HOST:
            nxt = turns[i + 1] if i + 1 < len(turns) else None
            current_q = None
            if t.is_question and nxt is not None and nxt.speaker != HOST:
                current_q = _question_record(t, i, len(questions) + 1, ids)
                questions.append(current_q)
            continue
        if t.speaker not in ids:
            continue
        if current_q is not None and t.speaker not in current_q["answered_by"]:
            current_q["answered_by"].append(t.speaker)
        quotes += _turn_quotes(t, i, current_q["id"] if current_q else None, counters)
    return questions, quotes


def _question_record(t: SpeakerTurn, i: int, number: int, ids: list[str]) -> dict:
    q = {
        "id": f"q{number:02d}",
        "text": _question_text(t.text),
        "turn": i,
        "asked_to": [a for a in t.addressed if a in ids],
        "answered_by": [],
    }
    if t.start is not None:
        q["start"] = t.start
    return q


def _turn_quotes(
    t: SpeakerTurn, i: int, question: str | None, counters: Counter[str]
) -> list[dict]:
    sentences = answer_sentences(t.text)
    out = []
    for first, end, text in chunk_answer(t.text):
        counters[t.speaker] += 1
        quote = {
            "id": f"{t.speaker}-{counters[t.speaker]:02d}",
            "speaker": t.speaker,
            "text": text,
            "question": question,
            "turn": i,
            "sentences": [first, end],
        }
        start, stop = span_times(t.times, sentences, first, end)
        if start is not None:
            quote["start"], quote["end"] = start, stop
        out.append(quote)
    return out


def _align_quoted_turns(turns: list[SpeakerTurn], quotes: list[dict]) -> None:
    """Each turn shows its quotes' cleaned wording, so the context view finds and highlights them."""
    by_turn: dict[int, list[str]] = {}
    for q in quotes:
        by_turn.setdefault(q["turn"], []).append(q["text"])
    for i, texts in by_turn.items():
        turns[i].text = align_turn(turns[i].text, texts)


@dataclass
class _People:
    """What the draft knows of its panelists: ids, display names, intros, roles, the words that are
    names, and all each one said."""

    ids: list[str]
    names: list[str]
    intros: dict[str, str]
    presented: dict[str, str]
    roles: dict[str, tuple[str, str]]
    label_names: dict[str, str]
    name_words: set[str]
    by_speaker: dict[str, str]
    persona_kws: list[list[str]]
    persona_phrases: list[list[str]]


def _people(
    turns: list[SpeakerTurn],
    quotes: list[dict],
    names: list[str],
    ids: list[str],
    resolved: list[LabelName],
) -> _People:
    intros = {
        pid: next(
            (t.text for t in turns if t.speaker == pid and t.why == "introduces themselves"), ""
        )
        or _labelled_intro(turns, pid)
        for pid in ids
    }
    presented = _presented(
        turns, names, ids
    )  # what the host says of a guest, for those who never say it
    roles = {
        pid: _role_from_intro(intros[pid])
        if intros[pid]
        else _role_from_presentation(presented[pid])
        for pid in ids
    }
    name_words = _name_words(names, ids, intros, presented, roles)
    by_speaker = {
        p: " ".join(
            [q["text"] for q in quotes if q["speaker"] == p] + ([] if intros[p] else [presented[p]])
        )
        for p in ids
    }
    texts = [by_speaker[p] for p in ids]
    return _People(
        ids,
        names,
        intros,
        presented,
        roles,
        _full_label_names(resolved),
        name_words,
        by_speaker,
        _keywords(texts, top=PERSONA_KEYWORDS, exclude=name_words),
        _phrases(texts, top=KEYWORD_PHRASES, exclude=name_words),
    )


def _name_words(
    names: list[str],
    ids: list[str],
    intros: dict[str, str],
    presented: dict[str, str],
    roles: dict[str, tuple[str, str]],
) -> set[str]:
    """Names (with surnames: "I'm Sarah Chen"), organisations and places are who they are, not what they
    talk about."""
    name_words = {w for n in names for w in words(n)} | {
        w for n in names for w in words(ascii_fold(n))
    }
    for pid in ids:
        said = intros[pid] or presented[pid]
        name_words.update(words(roles[pid][1]))
        # where they are ("a clinic in Limerick", "a studio in Lisbon called Lanterna") is not what they cover
        for m in re.finditer(
            r"\b(?:in|at|from|near|called|named)\s+((?:[^\W\d_][\w'\u2019-]*\s*){1,3})", said
        ):
            name_words.update(
                w.lower()
                for w in re.findall(r"[^\W\d_][\w'\u2019-]*", m.group(1))
                if w[:1].isupper() and w[1:].islower()
            )
        for n in names:
            m = re.search(rf"{re.escape(n)}((?:\s+[^\W\d_][\w'\u2019-]*){{1,2}})", said)
            if m and m.group(1).strip()[:1].isupper():
                name_words.update(words(ascii_fold(m.group(1))))
    return name_words


def _quote_keywords(quotes: list[dict], questions: list[dict], people: _People) -> None:
    """Each quote's keywords and topics: the speaker's recurring phrases it uses ("sparse attention"),
    its distinctive words, then a word or two of the question it answers."""
    all_phrases = {ph for phs in people.persona_phrases for ph in phs}
    kws = _keywords([q["text"] for q in quotes], top=QUOTE_KEYWORDS, exclude=people.name_words)
    for q, kw in zip(quotes, kws, strict=False):
        norm = " ".join(words(q["text"]))
        phrases = [ph for ph in sorted(all_phrases) if f" {ph} " in f" {norm} "]
        q["keywords"] = phrases + [w for w in kw if not any(w in ph.split() for ph in phrases)]
        q["topics"] = (phrases + kw)[:2]
    # the host's question says what its answers are about, in words the answer may never use ("Why did
    # sourdough get so popular?" answered with "people started baking at home")
    asked = {hq["id"]: hq["text"] for hq in questions}
    common = common_words()
    sw = stopwords()
    for q in quotes:
        extra = [
            w
            for w in words(asked.get(q["question"] or "", ""))
            if len(w) > 3
            and w not in common
            and w not in people.name_words
            and w not in sw
            and w not in q["keywords"]
        ]
        q["keywords"] = q["keywords"] + list(dict.fromkeys(extra))[:2]


def _panelists(people: _People) -> list[dict]:
    out = []
    for k, (pid, disp) in enumerate(zip(people.ids, people.names, strict=False)):
        intro = people.intros[pid]
        role, org = people.roles[pid]
        said = people.by_speaker[pid]
        phrases, kws = people.persona_phrases[k], people.persona_kws[k]
        single = [w for w in kws if not any(w in ph.split() for ph in phrases)]
        out.append(
            {
                "id": pid,
                "name": people.label_names.get(disp) or _full_name(people, pid, disp),
                "role": role,
                "organisation": org,
                "colour": _PALETTE[k % len(_PALETTE)],
                "covers": _covers(phrases + single, said)[:5],
                "keywords": list(
                    dict.fromkeys(
                        _role_keywords(role, org)
                        + phrases
                        + [w for w in kws if _keyword_like(w, said)][:PERSONA_KEYWORDS]
                    )
                ),
                "bio": clean_quote_text(intro) if intro else people.presented[pid],
                "voice": "",
            }
        )
    return out


def _panel_topics(people: _People) -> list[str]:
    said = " ".join(people.by_speaker.values())
    general = _keywords([said], top=24, exclude=people.name_words)[0]
    return _covers(
        list(dict.fromkeys([ph for phs in people.persona_phrases for ph in phs[:4]] + general)),
        said,
    )[:12]


def _labelled_intro(turns: list[SpeakerTurn], pid: str) -> str:
    """A labelled speaker's first turn when it introduces them ("Hello. I'm Anneke de Vries, a
    hydrologist …"): what their role and full name are read from."""
    first = next((t for t in turns if t.speaker == pid), None)
    if first is None or first.why != LABELLED:
        return ""
    return first.text if find_intro_names(first.text) else ""


def _full_label_names(resolved: list[LabelName]) -> dict[str, str]:
    """display name -> the full name a label spells ("Anneke de Vries" for "Anneke"; "MARY JANE" ->
    "Mary Jane")."""
    out = {}
    for lab in resolved:
        toks = lab.label.split()
        if lab.how == NAMED and len(toks) > 1 and lab.name.split()[0] == _label_case(toks[0]):
            out[lab.name] = " ".join(_label_case(t) for t in toks)
    return out


def _label_case(token: str) -> str:
    return token.title() if token.isupper() else token


def _people_title(panelists: list[dict]) -> str:
    """A title from who is on the panel, for captions with none: "Alice Smith (Acme Cloud) and Bob Kumar (Zeta
    Labs)"; organisations are left out beyond three people, so the title stays a line."""
    with_org = len(panelists) <= 3
    people = [
        f"{p['name']} ({p['organisation']})" if with_org and p["organisation"] else p["name"]
        for p in panelists
    ]
    if len(people) <= 1:
        return "".join(people)
    return f"{', '.join(people[:-1])} and {people[-1]}"


def _word_set(text: str) -> frozenset[str]:
    return frozenset(text.split())


# words that come before a noun ("the disk", "other replicas", "of latency") and before a verb ("it
# explodes", "we never recover", "to rebuild")
_BEFORE_NOUN = _word_set(
    "the a an this that these those my our your their his her its of on in about for with from into and or "
    "some any every each other more less most no one two three many much whole own same new big small"
)
_BEFORE_VERB = _word_set(
    "i we you they it he she to will can could would should might must may never always often just also "
    "don't doesn't didn't won't can't really usually sometimes who"
)
# adverbs, prepositions and fillers that are no one's topic
_NOT_TOPICS = _word_set(
    "never always often ever maybe perhaps almost already still yet else instead rather quite pretty actually "
    "basically literally anyway though although unless whether toward towards upon within without among "
    "despite beyond onto via per versus around behind besides throughout together away back anymore "
    "somehow everywhere anywhere nowhere somewhere across kind sort lot lots thing things stuff way "
    # numbers spelled out say how many, not what about
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred hundreds "
    "thousand thousands million millions billion billions half third quarter dozen"
)


# words an object starts with, right after its verb: "feeds the storm", "loses a bit", "shows us"
_OBJECT_START = _word_set("the a an its their our my your his her this these those us them him me")


def _keyword_like(term: str, text: str) -> bool:
    """A word a person would file the panelist under, judged more leniently than a topic (a plural such as
    "lanes" stays): no function word, adverb or number, no word the speaker only uses as a verb ("it loses",
    "we tested", "bolting"), an -s form only when something other than a noun's neighbour says so."""
    if " " in term or term.endswith("s") and not re.search(r"ed$|ing$", term):
        # "-s" forms: only the plain verb test (after "it", "we", "to" more than after "the", "of")
        if term in stopwords() or term in _NOT_TOPICS:
            return False
        if " " in term:
            return True
        toks = words(text)
        at = [i for i in range(len(toks)) if toks[i] == term]
        nounish = sum(i > 0 and toks[i - 1] in _BEFORE_NOUN for i in at)
        # "feeds the storm", "loses a bit", "it explodes": a verb with its object or its subject pronoun
        verbish = sum(
            (i > 0 and toks[i - 1] in _BEFORE_VERB)
            or (i + 1 < len(toks) and toks[i + 1] in _OBJECT_START)
            for i in at
        )
        return verbish <= nounish
    return _topic_like(term, text)


def _topic_like(term: str, text: str) -> bool:
    """Could a person pick this as a topic someone covers? A phrase, or a word that is not a function word,
    an adverb ("quickly") or a verb form ("loses", "explodes", "rebuilt") as the speaker used it: a word
    ending in -s or -ed counts as a noun only when the speaker put it after a determiner or preposition once."""
    if " " in term:
        return True
    if term in stopwords() or term in _NOT_TOPICS:
        return False
    if len(term) > 4 and term.endswith("ly") and term[:-2] in english_words():
        return False  # "quickly", "usually"
    toks = words(text)
    before = [toks[i - 1] for i in range(1, len(toks)) if toks[i] == term]
    nounish = sum(w in _BEFORE_NOUN for w in before)
    verbish = sum(w in _BEFORE_VERB for w in before)
    if verbish > nounish:
        return False
    if re.search(r"(?:ous|ful|less|able|ible)$", term) and len(term) > 6:
        return False  # "glamorous", "careful", "affordable": what a thing is like, not what it is
    if re.search(r"(?:ed|ing)$", term) and not _ever_a_head(term, text):
        return False  # "a leaking roof", "a beaded dress": a modifier of the noun that is the topic
    verb_form = re.search(r"(?<![su])s$|ed$|ing$", term) is not None and not term.endswith(
        ("ss", "ness", "sis")
    )
    return not (verb_form and nounish == 0)


def _ever_a_head(term: str, text: str) -> bool:
    """Does the speaker ever use ``term`` as the last word of a noun phrase (before punctuation or a function
    word: "the cost of baking.", "bread baking is …") rather than before the noun it describes?"""
    sw = stopwords()
    for m in re.finditer(
        rf"(?<!\w){re.escape(term)}(?!\w)(\s*[^\w\s]|\s+([\w'\u2019-]+)|\s*$)", text, re.IGNORECASE
    ):
        nxt = m.group(2)
        if nxt is None or nxt.lower() in sw:
            return True
    return False


def _covers(terms: list[str], text: str) -> list[str]:
    """The terms that read as topics, the most ordinary English words last."""
    from panelbot.ingest.profiles import generic_words

    picked = [t for t in terms if _topic_like(t, text)]
    return [t for t in picked if t not in generic_words()] + [
        t for t in picked if t in generic_words()
    ]


_TRAILING_PUNCT_RE = re.compile(r"(?<![\s,;.?!])[\s,;.?!]+$")
_TRAILING_AND_RE = re.compile(r"(?<![\s,;])[\s,;]+(?:and|or)$")


def _without_trailing_and(piece: str) -> str:
    """``piece`` without the punctuation it ends with, nor a dangling "and"/"or" before it ("…, a baker
    in Utrecht, and." -> "…, a baker in Utrecht"). Two linear expressions: one pattern doing both
    (an optional group, then ``[\\s,;.?!]*$``) rescanned every run of punctuation from each of its
    characters."""
    return _TRAILING_AND_RE.sub("", _TRAILING_PUNCT_RE.sub("", piece), count=1)


def _presented(turns: list[SpeakerTurn], names: list[str], ids: list[str]) -> dict[str, str]:
    """What the host's sentences presenting a guest say of them ("Zoë Achterberg, who runs a cooperative
    sourdough bakery in Utrecht"), for each panelist (first presentation of a few words or more)."""
    by_name: dict[str, str] = {}
    for n, pid in zip(names, ids, strict=True):
        by_name[n] = by_name[ascii_fold(n)] = pid
    name_re = name_pattern(names)
    out = {pid: "" for pid in ids}
    for t in turns:
        if t.speaker != HOST:
            continue
        for sent in split_sentences(t.text):
            for pid, piece in presentations(sent, name_re, by_name):
                piece = _without_trailing_and(piece)
                if (
                    not out[pid]
                    and len(piece.split()) >= 5
                    and (
                        re.search(r",\s+(?:who|a|an|the|our)\b", piece)
                        or _PRESENTED_BY_VERB.match(piece)
                    )
                ):
                    out[pid] = clean_quote_text(piece)
    return out


def _full_name(people: _People, pid: str, name: str) -> str:
    """The panelist's whole name: as they introduce themselves, else (an introduction that gives no more
    than ``name``: "everyone calls me Bea") as the host presents them."""
    intro = people.intros[pid]
    full = full_intro_name(intro, name) if intro else name
    return full if full != name else _presented_name(people.presented[pid], name)


def _presented_name(presented: str, name: str) -> str:
    """The full name the host presents a guest by ("Henrike Vogel restores …", "Zoë Achterberg, who …",
    "Councillor Joaquín de la Torre, who …"), else ``name``."""
    return full_presented_name(presented, name)


def _leading_org(text: str) -> str:
    """The organisation's name a text starts with: capitalised words and the particles inside them ("National
    Museum of the American Indian", "Mauritshuis" of "Mauritshuis in The Hague")."""
    out: list[str] = []
    for w in text.split():
        bare = w.rstrip(",;.")
        if bare[:1].isupper() or (out and bare.lower() in _ORG_PARTICLES | {"the"}):
            out.append(bare)
            if bare != w:
                break
        else:
            break
    while out and out[-1].lower() in _ORG_PARTICLES | {"the"}:
        out.pop()
    return " ".join(out)


# "Tamsin Varga is a volcanologist at …", "Henrike Vogel restores paintings at …": a full name, then what they
# are or do (the host presenting a guest without a comma)
_PRESENTED_BY_VERB = re.compile(
    rf"^((?:Dr\.?\s+|Professor\s+)?{NAME_TOKEN}(?:\s+{NAME_TOKEN}){{1,2}}?)\s+(?:(?:is|was)\s+(?=(?:a|an|the)\s)|(?=[a-z]+s\s))"
)


def _role_from_presentation(text: str) -> tuple[str, str]:
    """('Plant breeder and miller', '') from "Rafał Nowicki, a plant breeder and miller who grows …";
    ('Economist', 'Baltic Farm Institute') from "Tomasz Wiśniewski, an economist at the Baltic Farm Institute";
    ('Volcanologist', 'University of Iceland') from "Tamsin Varga is a volcanologist at the University of
    Iceland"; ('Restores paintings', 'Mauritshuis') from "Henrike Vogel restores paintings at the Mauritshuis"."""
    if m := _PRESENTED_BY_VERB.match(text):
        rest = text[m.end() :]
        text = f"{m.group(1)}, " + (rest if re.match(r"(?:a|an|the)\s", rest) else f"who {rest}")
    if mv := re.match(r"[^,]+,\s+who\s+(?!is\b|was\b)([a-z]+s|founded)\s+([^,;.]+)", text):
        # "…, who restores paintings at the Mauritshuis in The Hague" -> ("Restores paintings", "Mauritshuis")
        does, org = re.split(r"(?<!\s)\s+(?:who|where|and|so|because|which)\s+", mv.group(2))[0], ""
        if at := re.search(r"(?<!\s)\s+(?:at|with|for)\s+(?:the\s+)?(?=[^\W\d_])", does):
            org = _leading_org(does[at.end() :])
            does = does[: at.start()] if org else does
        does = re.split(r"(?<!\s)\s+in\s+(?=[^\W\d_])", does)[0]
        return (f"{mv.group(1).title()} {does}", org) if len(does.split()) <= 6 else ("", "")
    m = re.match(
        r"[^,]+,\s+(?:who is\s+|who's\s+)?(?:a|an|the)\s+([^,;]+?)"
        r"(?=\s+(?:(?:and|but)\s+)?(?:who|which|that|where)\b|[,;]|$)",  # "... in Copenhagen and who ..."
        text,
    )
    if not m:
        return "", ""
    if len(m.group(1).split()) > 10:
        return "", ""
    role, org = _role_from_intro(f"I'm the {m.group(1)}.")
    if not role or not org:
        role = role or m.group(1)
        at = re.search(r"\s(?:at|with|from|of)\s+(?:the\s+)?(?=[^\W\d_])", role)
        if at and (lead := _leading_org(role[at.end() :])) and role[at.end() :].startswith(lead):
            rest = role[at.end() + len(lead) :].strip()
            if not rest or re.match(
                r"in\s+[^\W\d_]", rest
            ):  # "… Hunt Museum in Limerick": the city left out
                role, org = role[: at.start()], lead
    return role[:1].upper() + role[1:], org


def turn_record(t: SpeakerTurn) -> dict:
    """A turn as turns.yaml holds it: speaker, text, start/end when timed, and why when unknown."""
    rec: dict = {"speaker": t.speaker, "text": t.text}
    if t.start is not None:
        rec["start"], rec["end"] = t.start, t.end
    if t.speaker == UNKNOWN and t.why:
        rec["why"] = t.why
    return rec


def _role_keywords(role: str, org: str) -> list[str]:
    """What a role and organisation say about a panelist's subject: "Research lead of RL", "MiniMax" ->
    ["rl", "minimax"]; "VP of Kernels", "Together AI" -> ["kernels", "together ai"]. The most ordinary
    English words ("lead", "head", "team") are left out."""
    from panelbot.ingest.profiles import generic_words

    sw = stopwords()
    out = [w for w in words(role) if w not in sw and w not in generic_words() and len(w) > 1]
    if org:
        out.append(" ".join(words(org)))
    return out


def _phrases(texts: list[str], *, top: int, exclude: set[str]) -> list[list[str]]:
    """Noun-phrase-like keywords per text: two- and three-word runs of content words that the speaker
    says at least twice ("kv cache", "reward hacking"), the ones most their own first."""
    sw = stopwords()
    common = common_words()
    counts: list[Counter[str]] = []
    for t in texts:
        c: Counter[str] = Counter()
        for sent in split_sentences(t):
            toks = words(sent)
            for n in (2, 3):
                for i in range(len(toks) - n + 1):
                    run = toks[i : i + n]
                    if any(
                        w in sw or w in exclude or len(w) < 2 or w.isdigit() and n == 2 for w in run
                    ):
                        continue
                    if all(w in common for w in run):
                        continue  # "good thing", "long time": ordinary English
                    c[" ".join(run)] += 1
        counts.append(c)
    out = []
    for k, c in enumerate(counts):
        others = Counter()
        for j, o in enumerate(counts):
            if j != k:
                others.update(o)
        scored = sorted(
            (
                (n * (2.0 if ph not in others else 1.0) * (1 + 0.5 * (ph.count(" "))), ph)
                for ph, n in c.items()
                if n >= 2
            ),
            key=lambda x: (-x[0], x[1]),
        )
        picked: list[str] = []
        for _, ph in scored:
            if any(ph in p or p in ph for p in picked):
                continue
            picked.append(ph)
            if len(picked) >= top:
                break
        out.append(picked)
    return out


# ----------------------------------------------------------------------------------------------- writing


def _dump(data: object) -> str:
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=110)


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def is_curated(directory: Path) -> str | None:
    """Why this directory must not be overwritten, or None when it is an untouched draft (or absent)."""
    if not directory.exists():
        return None
    if not directory.is_dir():
        return f"{directory} exists and is not a directory"
    if not any(directory.iterdir()):
        return None
    manifest = directory / MANIFEST
    if not manifest.is_file():
        return f"{directory} holds files panelbot ingest did not write"
    try:
        hashes = json.loads(manifest.read_text(encoding="utf-8")).get("files", {})
        if not isinstance(hashes, dict) or not all(
            isinstance(f, str)
            and isinstance(d, str)
            and f
            and "/" not in f
            and "\\" not in f
            and f not in (".", "..")
            for f, d in hashes.items()
        ):
            raise ValueError("not a manifest")
    except (ValueError, OSError, AttributeError, RecursionError):
        return f"{directory}/{MANIFEST} is unreadable"
    for fname, digest in hashes.items():
        f = directory / fname
        if not f.is_file():
            return f"{f} was removed since the ingest"
        if _sha(f.read_text(encoding="utf-8", errors="replace")) != digest:
            return f"{f} was edited since the ingest (curated)"
    return None


def overwrite_refusal(out: Path) -> str | None:
    """Why writing a panel to ``out`` needs --force (a curated panel, other files, or a draft already
    there: a re-run must not silently replace it), or None when ``out`` is absent or empty."""
    reason = is_curated(out)
    if reason:
        return f"refusing to overwrite: {reason}; use --force to replace it"
    if out.is_dir() and any(out.iterdir()):
        return f"refusing to overwrite the draft panel in {out}: use --force to replace it"
    return None


def write_draft(draft: Draft, captions: str, out: Path, *, force: bool = False) -> list[Path]:
    """Write the draft panel. Refuses to overwrite a panel already there (even a draft) unless force."""
    reason = overwrite_refusal(out)
    if reason and not force:
        raise UsageError(reason)
    files = {
        "panel.yaml": "# Draft panel written by `panelbot ingest`. Review it, then set status: curated.\n"
        + _dump(draft.panel),
        "turns.yaml": _dump([turn_record(t) for t in draft.turns]),
        "questions.yaml": _dump(draft.questions),
        "quotes.yaml": _dump(draft.quotes),
        CAPTIONS_NAME: captions,
    }
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for fname, text in files.items():
        written.append(_atomic_write(out / fname, text))
    manifest: dict = {"files": {f: _sha(t) for f, t in files.items()}}
    # what each turn's speaker rests on (the reason of each merged part): the health report flags the doubtful
    manifest["turns"] = [
        {
            "speaker": t.speaker,
            "reasons": [[at, why] for at, why in t.reasons()],
            "confidence": t.confidence,
            **({"sounds_like": t.sounds_like} if t.sounds_like else {}),
        }
        for t in draft.turns
    ]
    if draft.options:  # how to derive it again (panelbot check --fix)
        manifest["ingest"] = draft.options
    if draft.labels:  # who each speaker label was taken to be: the health report shows the guesses
        manifest["speaker_labels"] = [lab.to_dict() for lab in draft.labels]
    _atomic_write(out / MANIFEST, json.dumps(manifest, indent=2) + "\n")
    return written


def rederive(
    directory: Path, overrides: dict[int, str], *, force: bool = False
) -> tuple[Draft, list[Path]]:
    """Derive a draft panel again from the captions it keeps, as it was ingested (the labels' mapping,
    the URL) with the speakers set by hand so far and ``overrides`` (turn number -> person) on top; the
    turns set by hand stay in its manifest, so a later fix keeps them. A panel curated since the ingest
    is not touched unless ``force``."""
    reason = is_curated(directory)
    if reason and not force:
        raise UsageError(
            f"refusing to derive {directory} again: {reason}; --force replaces it (your edits are lost)"
        )
    try:
        captions = (directory / CAPTIONS_NAME).read_text(encoding="utf-8")
        manifest = json.loads((directory / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise DataError(
            f"not a panel that panelbot ingest wrote (no readable {CAPTIONS_NAME} and {MANIFEST}): {exc}",
            str(directory),
        ) from None
    opts = manifest.get("ingest") if isinstance(manifest, dict) else None
    opts = opts if isinstance(opts, dict) else {}
    merged = _numbered(opts.get("overrides"))
    merged.update(overrides)
    caps = parse(captions)
    if not caps.title:
        caps.title = str(opts.get("title") or "")
    speakers = opts.get("speakers") if isinstance(opts.get("speakers"), dict) else None
    url = opts.get("url") if isinstance(opts.get("url"), str) else None
    draft = build_draft(
        caps,
        directory.name,
        url=url,
        speakers=speakers,
        overrides=merged,
        model_overrides=_numbered(opts.get("model")),
    )
    return draft, write_draft(draft, captions, directory, force=True)


def _numbered(recorded: object) -> dict[int, str]:
    """{turn number: person} as the manifest keeps it ({"12": "joost"}); {} for anything else."""
    if not isinstance(recorded, dict):
        return {}
    return {int(n): str(who) for n, who in recorded.items() if str(n).isdigit()}


def _atomic_write(path: Path, text: str) -> Path:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def read_captions_file(path: str, *, limit: int = MAX_CAPTIONS_BYTES) -> str:
    """The text of a captions file: UTF-8 (with or without a BOM), UTF-16 or UTF-32 (with a BOM, or UTF-16
    without one, as Windows tools write it). Read in pieces up to ``limit`` bytes, so a huge file (or an
    endless pipe) is refused in one line instead of filling the memory; binary data is refused too."""
    try:
        with open(path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            if size > limit:
                raise DataError(_too_big(size, limit), path)
            data = _read_capped(fh, limit)
    except FileNotFoundError:
        raise UsageError(f"captions file not found: {path}") from None
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
    if data is None:
        raise DataError(_too_big(None, limit), path)
    text = _decode_captions(data, path)
    if not text.strip():
        raise DataError(f"{path}: the captions file is empty")
    return text


def _read_capped(fh: BinaryIO, limit: int) -> bytes | None:
    """All of ``fh`` when it holds at most ``limit`` bytes, else None (having read at most limit + 1 MB)."""
    chunks: list[bytes] = []
    total = 0
    while chunk := fh.read(min(1 << 20, limit + 1 - total) or 1):
        chunks.append(chunk)
        total += len(chunk)
        if total > limit:
            return None
    return b"".join(chunks)


def _too_big(size: int | None, limit: int) -> str:
    what = f"the file is {size / 1e6:,.1f} MB" if size is not None else "the file is larger"
    return (
        f"{what}; ingest reads captions up to {limit / 1e6:,.0f} MB (a whole talk's captions are a "
        "few MB): not captions, or split it"
    )


_BOMS = (  # longest first: a UTF-32 LE BOM starts with the UTF-16 LE one
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


def text_encoding(data: bytes) -> str | None:
    """The encoding a captions file's bytes are in when a BOM or the pattern of zero bytes says so
    ('utf-16', 'utf-16-le', 'utf-32', ...), else None (UTF-8 is tried)."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return encoding
    head = data[:4096]
    pairs = len(head) // 2
    if pairs >= 8:
        even, odd = head[0::2].count(0), head[1::2].count(0)
        # ASCII text in UTF-16: every other byte is zero (the high byte), the others almost never
        if odd >= 0.3 * pairs and even <= 0.02 * pairs:
            return "utf-16-le"
        if even >= 0.3 * pairs and odd <= 0.02 * pairs:
            return "utf-16-be"
    return None


def _decode_captions(data: bytes, path: str) -> str:
    encoding = text_encoding(data)
    if encoding:
        return data.decode(encoding, errors="replace").lstrip("\ufeff")
    head = data[:65536]
    if b"\x00" in head or data.startswith((b"\x89PNG", b"%PDF", b"PK\x03\x04", b"\x1f\x8b")):
        raise DataError(
            f"{path}: not a captions file (binary data); expected WebVTT, SRT, json3 or text"
        )
    text = data.decode("utf-8", errors="replace")
    if text.count("\ufffd") > max(20, len(text) // 50):
        raise DataError(
            f"{path}: not a captions file (not UTF-8 or UTF-16 text); expected WebVTT, SRT, json3 or text"
        )
    return text
