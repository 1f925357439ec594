"""Check that a hard-paraphrase question set shares no content word with its gold quotes.

    python scripts/check_paraphrase.py [FILE] [--quotes QUOTES]

FILE defaults to eval/paraphrase_dev.yaml, QUOTES to the shipped panel's persona_data/minimax-m3/quotes.yaml.
For every item of ``kind: paraphrase``: each gold id must exist in QUOTES and be spoken by the item's speaker,
and the question must share no content word with the ``text`` or any ``asks`` line of any of its gold quotes.
Words are lowercased, split on anything that is not a letter or digit, stopwords (English function words and
generic question words, STOPWORDS below) dropped, and crudely stemmed (one of -ing/-ed/-es/-ly/-s stripped).
At most MAX_NAMED questions may name a panelist or an organisation (NAMES), to ask that person directly; those
names are counted by that rule, not as shared words.
Prints each violation and exits 1 if there is any.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SET = ROOT / "eval" / "paraphrase_dev.yaml"
DEFAULT_QUOTES = ROOT / "persona_data" / "minimax-m3" / "quotes.yaml"

MAX_NAMED = 10
NAMES = frozenset({"dan", "olive", "together", "minimax"})
SUFFIXES = ("ing", "ed", "es", "ly", "s")

_STOPWORD_TEXT = """
    a an the this that these those there here it its itself they them their theirs themselves
    i me my mine myself we us our ours ourselves you your yours yourself yourselves he him his she her hers
    one ones someone anyone everyone something anything everything nothing
    am is are was were be been being have has had having do does did doing done
    will would shall should can could may might must ought
    and or but nor if then else so than too as because while until unless though although whether
    of in on at by for with about against between into through during before after above below to from
    up down out off over under again further once
    not no yes any some all each every both few more most other such only own same very just
    what whats which who whom whose when where why how whatever whoever however
    think say said tell told explain describe
    s t d ll m re ve don doesn didn isn aren wasn weren won wouldn couldn shouldn hasn haven hadn
    im youre theyre thats whos hows wheres whys
    ok okay well also still even really quite much many lot lots
    please
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())

TOKEN = re.compile(r"[a-z0-9]+")


def stem(word: str) -> str:
    """Strip one of SUFFIXES (the first that fits) if at least three letters remain."""
    for suffix in SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def content_words(text: str) -> set[str]:
    """The stemmed content words of ``text``."""
    return {stem(word) for word in TOKEN.findall(text.lower()) if word not in STOPWORDS}


def load_quotes(path: Path = DEFAULT_QUOTES) -> dict[str, dict]:
    return {quote["id"]: quote for quote in yaml.safe_load(path.read_text(encoding="utf-8"))}


def _gold_words(quote: dict) -> set[str]:
    words = content_words(quote["text"])
    for ask in quote.get("asks") or []:
        words |= content_words(ask)
    return words


def check_item(item: dict, quotes: dict[str, dict]) -> list[str]:
    """The violations of one item (ids, speaker, shared content words); [] when it passes."""
    question = str(item.get("question", ""))
    problems = []
    gold = item.get("quotes") or []
    if not gold:
        problems.append("no gold quotes")
    shared: set[str] = set()
    for quote_id in gold:
        quote = quotes.get(quote_id)
        if quote is None:
            problems.append(f"unknown quote id {quote_id}")
            continue
        if quote["speaker"] != item.get("speaker"):
            problems.append(
                f"{quote_id} is spoken by {quote['speaker']}, not {item.get('speaker')}"
            )
        shared |= (content_words(question) - NAMES) & _gold_words(quote)
    if shared:
        problems.append("shares " + ", ".join(sorted(shared)))
    return problems


def names_in(question: str) -> bool:
    return bool(set(TOKEN.findall(question.lower())) & NAMES)


def check_items(items: list[dict], quotes: dict[str, dict]) -> list[str]:
    """Every violation in a question set, one line each."""
    lines = []
    named = 0
    for number, item in enumerate(items, 1):
        if item.get("kind") != "paraphrase":
            continue
        named += names_in(str(item.get("question", "")))
        for problem in check_item(item, quotes):
            lines.append(f"#{number} {item.get('question')!r}: {problem}")
    if named > MAX_NAMED:
        lines.append(f"{named} questions name a panelist or organisation (at most {MAX_NAMED})")
    return lines


def check_file(path: Path, quotes_path: Path = DEFAULT_QUOTES) -> list[str]:
    items = yaml.safe_load(path.read_text(encoding="utf-8")) or []
    return check_items(items, load_quotes(quotes_path))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", nargs="?", type=Path, default=DEFAULT_SET)
    parser.add_argument("--quotes", type=Path, default=DEFAULT_QUOTES)
    args = parser.parse_args(argv)
    violations = check_file(args.file, args.quotes)
    for line in violations:
        print(line)
    items = yaml.safe_load(args.file.read_text(encoding="utf-8")) or []
    print(f"{len(items)} items, {len(violations)} violations")
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main())
