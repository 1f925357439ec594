"""How persona_data/minimax-m3 was curated from the raw captions (kept for traceability; re-run with
``python scripts/curate_minimax_m3.py CAPTIONS``). It starts from the same segmentation as ``panelbot ingest``
and applies a reviewer's decisions: who spoke each raw turn, and fixes to caption mishearings. Personas,
keywords and topics were then edited by hand in the YAML files; this script only rebuilds turns, questions
and quotes, and keeps hand-edited keywords of quotes whose text did not change.
"""

from __future__ import annotations

import sys
from pathlib import Path

import yaml

from panelbot.ingest.align import align_turn
from panelbot.ingest.captions import clean_quote_text, read_captions, split_turns
from panelbot.ingest.draft import _keywords, _question_text, chunk_answer

# raw turn index -> speaker; raw turns merged into one when consecutive with the same speaker.
# None drops a back-channel turn ("Yeah.", "[laughter]") that would otherwise split an answer.
SPEAKERS = {
    0: "host",
    1: "dan",
    2: "host",
    3: "olive",
    4: "host",
    5: "olive",
    6: "dan",
    7: "host",
    8: "dan",
    9: "host",
    10: "olive",
    11: "host",
    12: "olive",
    13: "host",
    14: "dan",
    15: "host",
    16: "dan",
    17: "host",
    18: None,
    19: "host",
    20: "dan",
    21: "host",
    22: "olive",
    23: None,
    24: "host",
    25: "dan",
    26: None,
    27: "unknown",
    28: None,
    29: "host",
    30: "dan",
    31: None,
    32: "host",
    33: "olive",
    34: "host",
    35: "olive",
    36: "host",
    37: "dan",
    38: "host",
    39: None,
    40: "host",
    41: "dan",
    42: "host",
    43: "olive",
    44: None,
    45: "olive",
    46: "olive",
    47: "host",
}
# Caption mishearings fixed in quotes (the raw captions keep the original).
FIXES = {
    "KB cache": "KV cache",
    "KV cash": "KV cache",
    "a gen tech": "agentic",
    "JLM": "GLM",
    "work codes": "workloads",
    "Kimmy": "Kimi",
    "bench maxing": "benchmaxxing",
    "Kernels Together AI": "Kernels at Together AI",
    "that together": "at Together",
    "at together": "at Together",
    "deep seek": "DeepSeek",
    "multi-modal": "multimodal",
}


def fix(text: str) -> str:
    for a, b in FIXES.items():
        text = text.replace(a, b)
    return text


def main(captions_path: str, out: str = "persona_data/minimax-m3") -> None:
    raw_text = Path(captions_path).read_text(encoding="utf-8")
    _, body = read_captions(raw_text)
    raw = split_turns(body)
    assert len(raw) == len(SPEAKERS), (len(raw), len(SPEAKERS))
    turns: list[dict] = []
    for t in raw:
        sp = SPEAKERS[t.index]
        if sp is None:
            continue
        if turns and turns[-1]["speaker"] == sp and sp != "unknown":
            turns[-1]["text"] += " " + t.text
        else:
            turns.append({"speaker": sp, "text": t.text})
    outdir = Path(out)
    old_quotes = {}
    if (outdir / "quotes.yaml").is_file():
        old_quotes = {q["text"]: q for q in yaml.safe_load((outdir / "quotes.yaml").read_text())}
    questions, quotes, counters, current = [], [], {}, None
    for i, t in enumerate(turns):
        if t["speaker"] == "host":
            nxt = turns[i + 1]["speaker"] if i + 1 < len(turns) else None
            if nxt in ("dan", "olive"):
                current = {
                    "id": f"q{len(questions) + 1:02d}",
                    "text": fix(_question_text(t["text"])),
                    "turn": i,
                    "asked_to": [],
                    "answered_by": [],
                }
                questions.append(current)
            continue
        if t["speaker"] == "unknown":
            continue
        if current and t["speaker"] not in current["answered_by"]:
            current["answered_by"].append(t["speaker"])
        for first, end, text in chunk_answer(t["text"]):
            counters[t["speaker"]] = counters.get(t["speaker"], 0) + 1
            text = fix(text)
            q = {
                "id": f"{t['speaker']}-{counters[t['speaker']]:02d}",
                "speaker": t["speaker"],
                "text": text,
                "question": current["id"] if current else None,
                "turn": i,
                "sentences": [first, end],
            }
            prev = old_quotes.get(text)
            if prev:
                q["topics"] = prev.get("topics", [])
                q["keywords"] = prev.get("keywords", [])
            quotes.append(q)
    fresh = [q for q in quotes if "keywords" not in q]
    for q, kw in zip(fresh, _keywords([q["text"] for q in fresh], top=6), strict=False):
        q["keywords"], q["topics"] = kw, kw[:2]
    for t in turns:
        t["text"] = clean_quote_text(t["text"]) if t["speaker"] != "host" else t["text"]
    for i, t in enumerate(
        turns
    ):  # each turn carries its quotes' fixed wording (see panelbot/ingest/align.py)
        t["text"] = align_turn(t["text"], [q["text"] for q in quotes if q["turn"] == i])
    dump = lambda d: yaml.safe_dump(d, sort_keys=False, allow_unicode=True, width=110)  # noqa: E731
    (outdir / "turns.yaml").write_text(dump(turns), encoding="utf-8")
    (outdir / "questions.yaml").write_text(dump(questions), encoding="utf-8")
    (outdir / "quotes.yaml").write_text(dump(quotes), encoding="utf-8")
    (outdir / "captions.txt").write_text(raw_text, encoding="utf-8")
    print(f"{len(turns)} turns, {len(questions)} questions, {len(quotes)} quotes -> {outdir}")


if __name__ == "__main__":
    main(*sys.argv[1:])
