"""``panelbot ingest``: raw captions -> a draft panel directory that answers at once and a person then curates.

Writes ``panel.yaml`` (status: draft), ``turns.yaml``, ``questions.yaml``, ``quotes.yaml``, a copy of the
captions, and ``.ingest.json`` (hashes of what it wrote). Re-running refuses to touch a panel that was curated
(status: curated, or any file changed since the ingest wrote it) unless ``force``.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import yaml

from panelbot.errors import DataError, UsageError
from panelbot.ingest.captions import clean_quote_text, read_captions, split_turns
from panelbot.ingest.speakers import HOST, UNKNOWN, SpeakerTurn, identify_speakers
from panelbot.retrieval.lexicon import common_words, content_words, stopwords
from panelbot.text import split_sentences, strip_control, words

MANIFEST = ".ingest.json"
CAPTIONS_NAME = "captions.txt"
MAX_QUOTE_WORDS = 90
MAX_QUOTE_SENTENCES = 4
TARGET_QUOTE_WORDS = 55
_PALETTE = ["#4EA8DE", "#F4A259", "#8AC926", "#E56B6F", "#B388EB", "#43AA8B"]


@dataclass
class Draft:
    title: str
    turns: list[SpeakerTurn]
    names: list[str]
    panel: dict
    questions: list[dict]
    quotes: list[dict]


def segment(captions: str) -> tuple[str, list[SpeakerTurn], list[str]]:
    """Captions text -> (title, attributed turns, panelist names)."""
    captions = strip_control(captions)
    title, body = read_captions(captions)
    raw = split_turns(body)
    turns, names = identify_speakers(raw, title)
    return title, turns, names


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


def chunk_answer(text: str) -> list[tuple[int, int, str]]:
    """Split one answer into quotes of 1-4 sentences and at most ~90 words: (first, end, text)."""
    sentences: list[str] = []
    for s in split_sentences(text):
        sentences.extend(_split_long(s))
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
    r"president|chief|partner|architect|principal|developer|student)\b",
    re.IGNORECASE,
)


def _role_from_intro(text: str) -> tuple[str, str]:
    """('VP of Kernels', 'Together AI') from "I'm Dan. I'm the VP of Kernels at Together AI."."""
    for verb, rest in re.findall(r"\b(?=(I'm|I am|I lead|I run|I head)\s+([^.;!?]+))", text):
        phrase = re.split(r",|\s+and\s+(?:I|I'm|we|my)\b", rest)[0].strip()
        phrase = re.sub(r"^(?:the|a|an)\s+", "", phrase)
        if verb.lower() in ("i lead", "i run", "i head"):
            phrase = f"Lead of {phrase}" if not _ROLE_WORDS.search(phrase) else phrase
        if not _ROLE_WORDS.search(phrase):
            continue
        role, org = phrase, ""
        mo = re.search(r"\s(?:at|with|from|for)\s+([A-Z][\w&.-]*(?:\s+[A-Z][\w&.-]*)*)\s*$", phrase)
        if mo:
            role, org = phrase[: mo.start()].strip(), mo.group(1)
        return role[:1].upper() + role[1:], org
    return "", ""


def build_draft(captions: str, name: str) -> Draft:
    title, turns, names = segment(captions)
    ids = [n.lower() for n in names]
    if not ids:
        raise DataError("found no panelists: no self-introductions or hand-overs by name in the captions")
    # questions: host turns followed by at least one panelist answer
    questions: list[dict] = []
    current_q: dict | None = None
    quotes: list[dict] = []
    counters: Counter[str] = Counter()
    for i, t in enumerate(turns):
        if t.speaker == HOST:
            nxt = turns[i + 1] if i + 1 < len(turns) else None
            if t.is_question and nxt is not None and nxt.speaker != HOST:
                current_q = {
                    "id": f"q{len(questions) + 1:02d}",
                    "text": _question_text(t.text),
                    "turn": i,
                    "asked_to": [a for a in t.addressed if a in ids],
                    "answered_by": [],
                }
                questions.append(current_q)
            else:
                current_q = None
            continue
        if t.speaker == UNKNOWN or t.speaker not in ids:
            continue
        if current_q is not None and t.speaker not in current_q["answered_by"]:
            current_q["answered_by"].append(t.speaker)
        for first, end, text in chunk_answer(t.text):
            counters[t.speaker] += 1
            quotes.append({
                "id": f"{t.speaker}-{counters[t.speaker]:02d}",
                "speaker": t.speaker,
                "text": text,
                "question": current_q["id"] if current_q else None,
                "turn": i,
                "sentences": [first, end],
            })
    if not quotes:
        raise DataError("no answer could be attributed to a named panelist; nothing to build a bank from")
    name_words = {w for n in names for w in words(n)}
    kws = _keywords([q["text"] for q in quotes], top=6, exclude=name_words)
    for q, kw in zip(quotes, kws, strict=False):
        q["keywords"] = kw
        q["topics"] = kw[:2]
    # personas
    by_speaker = {p: " ".join(q["text"] for q in quotes if q["speaker"] == p) for p in ids}
    persona_kws = _keywords([by_speaker[p] for p in ids], top=15, exclude=name_words)
    panelists = []
    for k, (pid, disp) in enumerate(zip(ids, names, strict=False)):
        intro = next((t.text for t in turns if t.speaker == pid and t.why == "introduces themselves"), "")
        role, org = _role_from_intro(intro)
        panelists.append({
            "id": pid,
            "name": disp,
            "role": role,
            "organisation": org,
            "colour": _PALETTE[k % len(_PALETTE)],
            "covers": persona_kws[k][:5],
            "keywords": persona_kws[k],
            "bio": clean_quote_text(intro) if intro else "",
            "voice": "",
        })
    panel_topics = _keywords([" ".join(by_speaker.values())], top=12, exclude=name_words)[0]
    panel = {
        "format": 1,
        "title": title or name,
        "status": "draft",
        "source": CAPTIONS_NAME,
        "host": {"id": HOST, "name": "Host"},
        "panelists": panelists,
        "topics": panel_topics,
    }
    return Draft(title, turns, names, panel, questions, quotes)


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
                isinstance(f, str) and isinstance(d, str) and f and "/" not in f and "\\" not in f
                and f not in (".", "..") for f, d in hashes.items()):
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


def write_draft(draft: Draft, captions: str, out: Path, *, force: bool = False) -> list[Path]:
    """Write the draft panel. Refuses to overwrite a curated panel unless force."""
    reason = is_curated(out)
    if reason and not force:
        raise UsageError(f"refusing to overwrite: {reason}; use --force to replace it")
    files = {
        "panel.yaml": "# Draft panel written by `panelbot ingest`. Review it, then set status: curated.\n"
        + _dump(draft.panel),
        "turns.yaml": _dump([t.to_dict() for t in draft.turns]),
        "questions.yaml": _dump(draft.questions),
        "quotes.yaml": _dump(draft.quotes),
        CAPTIONS_NAME: captions,
    }
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for fname, text in files.items():
        written.append(_atomic_write(out / fname, text))
    manifest = {"files": {f: _sha(t) for f, t in files.items()}}
    _atomic_write(out / MANIFEST, json.dumps(manifest, indent=2) + "\n")
    return written


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


def read_captions_file(path: str) -> str:
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise UsageError(f"captions file not found: {path}") from None
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from None
    return data.decode("utf-8", errors="replace")
