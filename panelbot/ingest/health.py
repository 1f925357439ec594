"""How healthy a panel is (``panelbot check``, and the report ``panelbot ingest`` prints after writing one).

Counts per speaker (turns, words, quotes), answers still ``unknown``, quotes whose text is not found in the
turn they point to, and a self-test built from the talk itself: the host's own questions and a keyword
paraphrase of each are routed through the panel (right when a panelist who answered it answers, and a quote
from that answer is in the top 3), and off-topic traps made from the panel's own words in other senses must be
declined. Warnings say what to curate first. Plain data; the CLI formats it.
"""

from __future__ import annotations

import re
import shlex
from collections import Counter
from dataclasses import asdict, dataclass, field

from panelbot.ingest.basis import doubtful_part
from panelbot.ingest.names import ASKS, HANDED, INTRODUCED, LABELLED, PROVISIONAL
from panelbot.ingest.profiles import generic_words
from panelbot.ingest.self_address import label_slips, self_addressed
from panelbot.panel import Panel
from panelbot.retrieval.lexicon import common_words, stopwords
from panelbot.text import (
    agree,
    count_of,
    normalize_for_match,
    split_sentences,
    strip_control,
    words,
)

# Everyday frames: a panel word dropped into one of these means something else ("a cheap cache for my garden").
_TRAP_FRAMES = (
    "What is the best {w} recipe for a family dinner?",
    "Where can I buy a cheap {w} for my garden?",
    "Which {w} song should I play at my wedding?",
    "How do I clean an old {w} before painting it?",
)


@dataclass
class SpeakerHealth:
    id: str
    name: str
    turns: int = 0
    words: int = 0
    quotes: int = 0


@dataclass
class Health:
    panel: str
    title: str
    speakers: list[SpeakerHealth]
    unknown_turns: int
    unknown_words: int
    timed_quotes: int
    quotes: int
    mismatched_quotes: list[str]
    self_test: dict[str, float | int]
    warnings: list[str] = field(default_factory=list)
    # the captions' speaker labels and who ingest took each to be (label, name, how, first_words, turns)
    speaker_labels: list[dict] = field(default_factory=list)
    # the turns whose speaker rests only on order or field, or is unknown: turn (1-based), index, speaker,
    # why, first_words (of the doubtful part)
    doubtful: list[dict] = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)


def quote_mismatches(panel: Panel) -> list[str]:
    """Ids of quotes whose text (normalised) does not occur in the text of the turn they point to."""
    bad = []
    for q in panel.quotes:
        turn = panel.turn(q.turn)
        if turn is None:
            continue
        if normalize_for_match(q.text) not in normalize_for_match(turn.text):
            bad.append(q.id)
    return bad


def _paraphrase(question: str) -> str:
    """A keyword paraphrase: the question's content words, without its chatter."""
    sw = stopwords()
    kept = [w for w in words(question) if w not in sw and len(w) > 2]
    return " ".join(kept[-8:])


_OPENERS_RE = re.compile(
    r"^(?:(?:so|okay|ok|right|well|and|now|great|yeah|alright|let me (?:ask|start with) (?:you|that)|"
    r"i (?:want|wanted) to ask(?: you)?|i'm curious)\b[\s,.:;-]*)+",
    re.IGNORECASE,
)


def near_verbatim(question: str, names: set[str]) -> str:
    """The host's question nearly as asked, as a viewer would retype it: its last question sentence,
    without the names it is put to or the opening chatter ("So, Joost, what can you do about that?" ->
    "what can you do about that?")."""
    asks = [s for s in split_sentences(question) if s.rstrip().endswith("?")] or [question]
    text = asks[-1]
    kept = [w for w in text.split() if words(w) and words(w)[0] not in names or not words(w)]
    text = " ".join(kept).strip(" ,")
    return _OPENERS_RE.sub("", text).strip(" ,") or text


def _trap_words(panel: Panel, n: int = 8) -> list[str]:
    """The panel's own subject words that also have an everyday sense: single-word keywords of its quotes
    and panelists that are common English nouns-or-so, but not the most general words ("better", "open")."""
    common = common_words()
    generic = generic_words()
    sw = stopwords()
    counts: Counter[str] = Counter()
    keys = [k for q in panel.quotes for k in (*q.keywords, *q.topics)]
    keys += [k for p in panel.panelists.values() for k in (*p.keywords, *p.covers)]
    for k in keys:
        for w in words(k):
            if (
                w in common
                and w not in generic
                and w not in sw
                and len(w) > 3
                and w.isalpha()
                and not w.endswith(("ly", "ed", "ing", "ful", "ous", "ive"))
            ):
                counts[w] += 1
    return [w for w, _ in counts.most_common(n)]


def self_test(panel: Panel) -> dict[str, float | int]:
    from panelbot.retrieval.router import Router

    router = Router(panel)
    asked = routed = quoted = 0
    sw = stopwords()
    names = {w for p in panel.panelists.values() for w in words(p.name)} | set(panel.panelists)
    for hq in panel.questions:
        substance = [w for w in words(hq.text) if w not in sw and w not in names and len(w) > 2]
        if not hq.answered_by or len(substance) < 4:
            continue  # "Siobhán?", "And finally, D'Andre.": a hand-over, not a question anyone would ask
        answer_ids = {q.id for q in panel.quotes if q.question == hq.id}
        for text in dict.fromkeys((hq.text, near_verbatim(hq.text, names), _paraphrase(hq.text))):
            if not text.strip():
                continue
            asked += 1
            res = router.route(text)
            if set(res.speakers) & set(hq.answered_by):
                routed += 1
            if answer_ids & {sq.quote.id for sq in res.quotes[:3]}:
                quoted += 1
    traps = [
        frame.format(w=w)
        for i, w in enumerate(_trap_words(panel))
        for frame in _TRAP_FRAMES[i % len(_TRAP_FRAMES) : i % len(_TRAP_FRAMES) + 1]
    ]
    declined = sum(1 for t in traps if router.route(t).abstained)
    return {
        "questions": asked,
        "routed_right": routed,
        "quote_in_top3": quoted,
        "routed_share": round(routed / asked, 3) if asked else 0.0,
        "quote_share": round(quoted / asked, 3) if asked else 0.0,
        "traps": len(traps),
        "declined_right": declined,
        "declined_share": round(declined / len(traps), 3) if traps else 0.0,
    }


def panel_health(panel: Panel) -> Health:
    speakers = {pid: SpeakerHealth(pid, p.name) for pid, p in panel.panelists.items()}
    unknown_turns = unknown_words = 0
    for t in panel.turns:
        if t.speaker in speakers:
            speakers[t.speaker].turns += 1
            speakers[t.speaker].words += len(t.text.split())
        elif t.speaker == "unknown":
            unknown_turns += 1
            unknown_words += len(t.text.split())
    for q in panel.quotes:
        speakers[q.speaker].quotes += 1
    h = Health(
        panel.name,
        panel.title,
        list(speakers.values()),
        unknown_turns,
        unknown_words,
        sum(1 for q in panel.quotes if q.start is not None),
        len(panel.quotes),
        quote_mismatches(panel),
        self_test(panel),
    )
    manifest = _manifest(panel)
    h.speaker_labels = _speaker_labels(manifest)
    h.doubtful = doubtful_turns(panel, manifest)
    h.warnings = _warnings(h, panel)
    return h


def _warnings(h: Health, panel: Panel) -> list[str]:
    """What to curate first, most telling first."""
    w = []
    test = h.self_test
    where = shlex.quote(str(panel.path.resolve()))
    guessed = [t for t in h.doubtful if t["speaker"] != "unknown"]
    if guessed:
        w.append(
            f"{count_of(len(guessed), 'turn')} {agree(len(guessed), 'has', 'have')} a speaker that rests "
            "only on their order or field, not on a "
            f"name, a hand-over or a label, or on weak evidence, or a label that may have slipped (listed "
            f"above): check them with panelbot check {where} --fix, "
            f"or set one with panelbot check {where} --speaker TURN=NAME"
        )
    if h.unknown_turns:
        how = (
            f"with panelbot check {where} --fix (or in turns.yaml: the reason is beside each)"
            if (panel.path / ".ingest.json").is_file()  # a draft ingest can derive again
            else "in turns.yaml (the reason is beside each)"
        )
        w.append(
            f"{count_of(h.unknown_turns, 'answer turn')} ({count_of(h.unknown_words, 'word')}) "
            f"{agree(h.unknown_turns, 'is', 'are')} 'unknown': give {agree(h.unknown_turns, 'it', 'them')} a "
            f"speaker {how}"
        )
    for s in h.speakers:
        if s.quotes < 3:
            w.append(
                f"{s.name} has only {count_of(s.quotes, 'quote')}: check turns.yaml for answers given to "
                "someone else"
            )
    if test["questions"] and test["routed_share"] < 0.85:
        w.append(
            f"the self-test routes {test['routed_share']:.0%} of the host's questions to a panelist who "
            "answered them: add keywords and 'asks' to the quotes of the weakest panelist"
        )
    if test["traps"] and test["declined_share"] < 0.75:
        w.append(
            f"only {test['declined_share']:.0%} of off-topic traps are declined: add a 'vocabulary:' of the "
            "panel's own terms so generic words count less"
        )
    mism = h.mismatched_quotes
    if mism:
        shown = ", ".join(mism[:5]) + (" ..." if len(mism) > 5 else "")
        w.append(
            f"{count_of(len(mism), 'quote')} {agree(len(mism), 'is', 'are')} not found in their turn's "
            f"text ({shown}): make the two agree"
        )
    w += _label_warnings(h, panel)
    if panel.quotes and not h.timed_quotes:
        w.append(
            "no quote has a time: captions with times (VTT, SRT, json3) and --url give each quote a link"
        )
    return w


def _label_warnings(h: Health, panel: Panel) -> list[str]:
    guessed = [lab for lab in h.speaker_labels if lab["how"] in _GUESSED]
    if not guessed:
        return []
    fix = " ".join("--speaker " + shlex.quote(lab["label"] + "=NAME") for lab in guessed)
    source = shlex.quote(str(panel.path.resolve() / "captions.txt"))
    return [
        f"{count_of(len(guessed), 'speaker label')} {agree(len(guessed), 'was', 'were')} not named by you: "
        + "; ".join(
            f'{lab["label"]} taken as {lab["name"]} ({lab["how"]}: "{lab["first_words"]} …")'
            for lab in guessed
        )
        + f". If one is wrong: panelbot ingest {source} --out {shlex.quote(str(panel.path.resolve()))} "
        f"--force {fix}"
    ]


FIRST_WORDS = 10


def doubtful_turns(panel: Panel, manifest: dict | None = None) -> list[dict]:
    """Every turn whose speaker is 'unknown' or rests only on order or field, by what ingest recorded
    of each turn (a turn whose speaker was changed since, by hand, is firm). None for a panel written by
    hand."""
    manifest = _manifest(panel) if manifest is None else manifest
    recorded = manifest.get("turns")
    if not isinstance(recorded, list) or len(recorded) != len(panel.turns):
        recorded = [None] * len(panel.turns)
    out = []
    below = _flag_below()
    slipped = {
        **label_slips(
            panel, [_labelled(rec, t.speaker) for t, rec in zip(panel.turns, recorded, strict=True)]
        ),
        **self_addressed(panel),
    }
    for i, (t, rec) in enumerate(zip(panel.turns, recorded, strict=True)):
        part = _doubtful_recorded(rec, t.speaker)
        if t.speaker == "unknown":
            part = part or (0, "no speaker found")
        if part is None and i in slipped:
            part = (0, slipped[i])
        conf = _recorded_confidence(rec, t.speaker)
        if part is None and conf is not None and conf < below:
            # firm by its reason, but the evidence is weak or contradicts it (its meaning sounds like
            # someone else's): the fitted threshold says such turns are often wrong
            part = (0, _weak_reason(rec, conf, below))
        if part is None:
            continue
        at, why = part
        shown = t.text.split()[at : at + FIRST_WORDS] or t.text.split()[:FIRST_WORDS]
        out.append(
            {
                "turn": i + 1,
                "index": i,
                "speaker": t.speaker,
                "confidence": conf,
                "why": strip_control(why, keep_newlines=False),
                "first_words": strip_control(" ".join(shown), keep_newlines=False),
            }
        )
    return out


def _labelled(rec: object, speaker: str) -> bool:
    """Did ingest take the turn's speaker from a label in the file (and no one changed it since)?"""
    if not isinstance(rec, dict) or rec.get("speaker") != speaker:
        return False
    reasons = rec.get("reasons")
    return isinstance(reasons, list) and any(
        isinstance(r, list) and len(r) == 2 and r[1] == LABELLED for r in reasons
    )


def _doubtful_recorded(rec: object, speaker: str) -> tuple[int, str] | None:
    """The doubtful part of a turn as the manifest records it (None when firm, changed or unrecorded)."""
    if not isinstance(rec, dict) or rec.get("speaker") != speaker:
        return None
    reasons = rec.get("reasons")
    if not isinstance(reasons, list):
        return None
    parts = [
        (r[0], r[1])
        for r in reasons
        if isinstance(r, list) and len(r) == 2 and isinstance(r[0], int) and isinstance(r[1], str)
    ]
    return doubtful_part(parts)


def _recorded_confidence(rec: object, speaker: str) -> float | None:
    """The confidence ingest recorded for a turn (None when unrecorded, or its speaker changed since)."""
    if not isinstance(rec, dict) or rec.get("speaker") != speaker:
        return None
    conf = rec.get("confidence")
    return float(conf) if isinstance(conf, (int, float)) and not isinstance(conf, bool) else None


def _weak_reason(rec: dict, conf: float, below: float) -> str:
    """Why a turn firm by its reason is flagged: its confidence, and whom part of it sounds like."""
    like = rec.get("sounds_like")
    also = f"; part of it sounds more like {like}" if isinstance(like, str) and like else ""
    return f"weak evidence: confidence {conf:.4f} under the fitted {below:.4f}{also}"


def _flag_below() -> float:
    """The fitted confidence under which a turn is flagged (``tuning.json``, section ``attribution``)."""
    from panelbot.retrieval.tuning import attribution_tuning

    return float(attribution_tuning()["flag_below"])


_GUESSED = (INTRODUCED, ASKS, HANDED, PROVISIONAL)


def _manifest(panel: Panel) -> dict:
    """What ingest recorded of the panel (.ingest.json), {} for a panel written by hand."""
    import json

    try:
        data = json.loads((panel.path / ".ingest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}


def _speaker_labels(manifest: dict) -> list[dict]:
    """How ingest resolved the captions' speaker labels, from the manifest it wrote (none for a panel
    written by hand, or whose captions carry no labels)."""
    labels = manifest.get("speaker_labels")
    keys = ("label", "name", "how", "first_words")
    if not isinstance(labels, list):
        return []
    return [
        {k: strip_control(str(lab[k]), keep_newlines=False) for k in keys}
        for lab in labels
        if isinstance(lab, dict) and all(isinstance(lab.get(k), str) for k in keys)
    ]


def _counted(n: int, width: int, noun: str) -> str:
    """A table cell "  1 turn " / " 12 turns": the count right-aligned, the noun agreeing, the cell as wide
    either way (the columns stay aligned)."""
    return f"{n:>{width}} {noun + ' ' if n == 1 else noun + 's'}"


def _pad(text: str, width: int) -> str:
    """Left-justify in terminal columns (a CJK character takes two)."""
    return text + " " * max(width - _columns(text), 0)


def _columns(text: str) -> int:
    import unicodedata

    return sum(2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1 for ch in text)


def format_health(h: Health) -> str:
    lines = [f"Health of {h.panel}: {h.title}"]
    width = max(
        [16, *(_columns(s.name) for s in h.speakers)]
    )  # long full names keep the columns aligned
    for s in h.speakers:
        lines.append(
            f"  {_pad(s.name, width)} {_counted(s.turns, 3, 'turn')} {_counted(s.words, 6, 'word')} "
            f"{_counted(s.quotes, 4, 'quote')}".rstrip()
        )
    lines.append(
        f"  {_pad('unknown', width)} {_counted(h.unknown_turns, 3, 'turn')} "
        f"{_counted(h.unknown_words, 6, 'word')}".rstrip()
    )
    t = h.self_test
    lines.append(
        f"  self-test: {t['routed_right']}/{t['questions']} host questions and paraphrases routed right "
        f"({t['routed_share']:.0%}), answer quote in the top 3 for {t['quote_in_top3']} ({t['quote_share']:.0%}); "
        f"{t['declined_right']}/{t['traps']} off-topic traps declined ({t['declined_share']:.0%})"
    )
    lines.append(
        f"  {h.timed_quotes}/{h.quotes} quotes carry a time; "
        f"{count_of(len(h.mismatched_quotes), 'quote')} not found in their turn"
    )
    for lab in h.speaker_labels:
        lines.append(f"  speaker label {lab['label']}: {lab['name']} ({lab['how']})")
    if h.doubtful:
        lines.append(
            f"  {count_of(len(h.doubtful), 'doubtful turn')} (speaker not from a name, hand-over or label, or a "
            "label that may have slipped):"
        )
        lines.extend(f"    {format_doubtful(d)}" for d in h.doubtful)
    if h.warnings:
        lines.append("Curate first:")
        lines.extend(f"  - {w}" for w in h.warnings)
    else:
        lines.append("No warnings.")
    return "\n".join(lines)


def format_doubtful(d: dict) -> str:
    """'turn 12  joost  (their field …): "It is, and it's the thing …"'."""
    conf = d.get("confidence")
    sure = (
        f" [confidence {conf:.3f}]" if isinstance(conf, float) and d["speaker"] != "unknown" else ""
    )
    return f'turn {d["turn"]:>3}  {d["speaker"]}  ({d["why"]}){sure}: "{d["first_words"]} …"'
