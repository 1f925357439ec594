#!/usr/bin/env python3
"""Hold-out 4: check that every `paraphrase` question shares no content word with its gold quotes.

A content word: a lowercased token of letters/digits (split on anything else, so "what's" -> what, s),
not a stopword, longer than one character, crudely stemmed by dropping -ing/-ed/-es/-s/-ly and then a final -e. The
question's content stems must not meet the stems of the gold quotes' `text` nor of their `asks` lines.

    python3 eval/heldout/tools/check_paraphrase_4.py [QUESTIONS] [QUOTES]

Exits 1 and lists the shared words when a paraphrase fails.  Written with the set, blind to the code.
"""

import re
import sys

import yaml

STOP = set(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "am",
        "an",
        "and",
        "any",
        "are",
        "aren",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "cannot",
        "could",
        "couldn",
        "did",
        "didn",
        "do",
        "does",
        "doesn",
        "doing",
        "don",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "hadn",
        "has",
        "hasn",
        "have",
        "haven",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "isn",
        "it",
        "its",
        "itself",
        "just",
        "let",
        "ll",
        "me",
        "more",
        "most",
        "mustn",
        "my",
        "myself",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "ought",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "re",
        "same",
        "shan",
        "she",
        "should",
        "shouldn",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "ve",
        "very",
        "was",
        "wasn",
        "we",
        "were",
        "weren",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "won",
        "would",
        "wouldn",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
        "also",
        "yeah",
        "yes",
        "ok",
        "okay",
        "um",
        "uh",
        "like",
        "really",
        "actually",
        "basically",
        "just",
        "get",
        "got",
        "gets",
        "getting",
        "going",
        "gonna",
        "kind",
        "sort",
        "thing",
        "things",
        "lot",
        "lots",
        "much",
        "many",
        "well",
        "even",
        "still",
        "yet",
        "ever",
        "every",
        "whole",
        "quite",
        "pretty",
        "right",
        "oh",
        "hey",
        "so",
        "s",
        "t",
        "d",
        "m",
        "y",
        "o",
    ]
)


def load(path: str):
    with open(path, encoding="utf-8") as fh:
        return yaml.safe_load(fh)


def write(path: str, text: str) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)


def stem(w):
    for suf in ("ing", "ed", "es", "ly", "s"):
        if w.endswith(suf) and len(w) - len(suf) >= 3:
            w = w[: -len(suf)]
            break
    # hold-out 4: also drop a final -e, so change/changes, create/creating, release/released meet
    return w[:-1] if w.endswith("e") and len(w) > 4 else w


def content(text):
    toks = re.findall(r"[a-z0-9]+", text.lower())
    return {stem(t) for t in toks if t not in STOP and len(t) > 1}


def main():
    qpath = sys.argv[1] if len(sys.argv) > 1 else "eval/heldout/questions_4.yaml"
    kpath = sys.argv[2] if len(sys.argv) > 2 else "persona_data/minimax-m3/quotes.yaml"
    quotes = {q["id"]: q for q in load(kpath)}
    items = load(qpath)
    bad = checked = 0
    for it in items:
        if it.get("kind") != "paraphrase":
            continue
        checked += 1
        gold = set()
        for qid in it.get("quotes") or []:
            q = quotes[qid]
            gold |= content(q["text"])
            for a in q.get("asks") or []:
                gold |= content(a)
        shared = content(it["question"]) & gold
        if shared:
            bad += 1
            print(f"FAIL {it['question']!r}: {sorted(shared)}")
    print(f"{checked} paraphrases checked, {bad} fail")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
