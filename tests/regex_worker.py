"""The regular expressions (and the functions made of them) that run on untrusted text -- a request's
messages, a user's question, a model's answer -- each as a target that takes one text.

Run as a script it is the worker of ``tests/test_regex_budget.py``: it reads one JSON request per line,
``{"target": name, "text": text}``, runs the target on the text and answers ``{"seconds": s}`` (or
``{"error": ...}``). The test kills it when an answer is late, so a target that backtracks catastrophically
fails the test instead of hanging it.
"""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
SHIPPED_PANEL = REPO / "persona_data" / "minimax-m3"

# what most targets are fed: runs of these (the shapes that make a backtracking engine try every split)
UNITS = (
    " ",
    "\n",
    "\t",
    "*",
    "(",
    ")",
    ":",
    "[",
    "]",
    " \n",
    "\r\n",
    "\n\n",
    " :",
    "**",
    ".",
    ". ",
    ",",
    "a",
    "a ",
    "Dan",
    "Dan (",
    "[dan-",
    "\u201c",
    "\x1b[",
    "\x1b]",
    "why ",
    "so ",
    "and ",
    "ok ",
    "that ",
    "'s ",
    "-",
)
# small talk is judged only on short messages, made of its own words
SMALL_TALK_UNITS = (
    "bye ",
    "bye",
    "good ",
    "night ",
    "morning ",
    "thanks ",
    "thank you ",
    "so ",
    "much ",
    "for ",
    "what ",
    "hi ",
    "there ",
    "dan ",
    "ok ",
    "ha",
    "haha ",
    "k",
    ",",
    ".",
    "!",
    "-",
    "'",
    " ",
    "(",
    ")",
)


@cache
def _panel() -> Any:
    from panelbot.panel import load_panel

    return load_panel(SHIPPED_PANEL)


@cache
def _router() -> Any:
    from panelbot.retrieval.router import Router

    return Router(_panel())


def _pattern(module: str, name: str, how: str) -> Callable[[str], Any]:
    """A module's compiled pattern applied as the code applies it (search, match, finditer, sub)."""

    def run(text: str) -> Any:
        import importlib

        pattern = getattr(importlib.import_module(module), name)
        if how == "finditer":
            return [m.span() for m in pattern.finditer(text)]
        if how == "sub":
            return pattern.sub("", text)
        return getattr(pattern, how)(text)

    return run


def _headings(text: str) -> Any:
    from panelbot.serve.conversation import headings

    return list(headings(text))


def _read_answer(text: str) -> Any:
    from panelbot.serve.conversation import read_answer

    return read_answer(_panel(), text)


def _parse_messages(text: str) -> Any:
    from panelbot.serve.conversation import parse_messages

    messages = [
        {"role": "user", "content": "How do you deal with a KV cache that keeps growing?"},
        {"role": "assistant", "content": text},
        {"role": "user", "content": "why?"},
    ]
    return parse_messages(_panel(), messages, "both")


def _resolve(text: str) -> Any:
    from panelbot.conversation.resolve import resolve
    from panelbot.conversation.turns import ConversationTurn

    turns = [ConversationTurn(text, ["dan"], ["dan-22"], "auto")]
    resolve(_router(), turns, "why?", "auto")
    return resolve(_router(), [], text, "auto")


def _small_talk(text: str) -> Any:
    from panelbot.retrieval.smalltalk import MAX_LENGTH, small_talk

    return small_talk(text[:MAX_LENGTH], ["Dan", "Olive", "dan", "olive"])


def _text(name: str) -> Callable[[str], Any]:
    def run(text: str) -> Any:
        import panelbot.text as t

        calls = {
            "strip_control": lambda: (
                t.strip_control(text),
                t.strip_control(text, keep_newlines=False),
            ),
            "words": lambda: t.words(text),
            "split_sentences": lambda: t.split_sentences(text),
            "cased_like": lambda: t.cased_like("kv cache", text),
            "shorten": lambda: t.shorten(text, 80),
        }
        return calls[name]()

    return run


Target = tuple[Callable[[str], Any], tuple[str, ...], int]


def _patterns(prefix: str, module: str, uses: str) -> dict[str, Target]:
    """Targets for a module's patterns: ``uses`` is "NAME:how NAME:how ..." (how the code applies each)."""
    out = {}
    for use in uses.split():
        name, how = use.split(":")
        out[f"{prefix}.{name}"] = (_pattern(module, name, how), UNITS, 20_000)
    return out


# name -> (the target, the units its input is made of, the input's length)
TARGETS: dict[str, Target] = {
    "serve.headings": (_headings, UNITS, 20_000),
    "serve.read_answer": (_read_answer, UNITS, 20_000),
    "serve.parse_messages": (_parse_messages, UNITS, 20_000),
    "serve._ID_RE": (_pattern("panelbot.serve.conversation", "_ID_RE", "finditer"), UNITS, 20_000),
    "serve._VERDICT_RE": (
        _pattern("panelbot.serve.conversation", "_VERDICT_RE", "sub"),
        (*UNITS, "[grounded", "[NOT grounded: "),
        20_000,
    ),
    **{
        f"text.{name}": (_text(name), UNITS, 20_000)
        for name in ("strip_control", "words", "split_sentences", "cased_like", "shorten")
    },
    **_patterns(
        "reasons",
        "panelbot.conversation.reasons",
        "WHY:finditer WHY_FIRST:match CAUSE:finditer WEAK:match _LEAD:sub _SENTENCE:split "
        "LEANS_BACK:match",
    ),
    **_patterns(
        "cues",
        "panelbot.conversation.cues",
        "SWITCH:search SWITCH_LEAD:sub CONTINUE:sub CLARIFY:search MORE:search OTHER:search "
        "FILLER:sub REFERENCE:finditer THAT:finditer NAME_LEAD:sub ELLIPSIS:match",
    ),
    **_patterns(
        "discussion",
        "panelbot.discussion.followups",
        "_DISAGREE:search _AGREE:search _ABOUT_THEM:search _RESPOND:search",
    ),
    **_patterns("segments", "panelbot.ingest.segments", "_SELF_RE:search"),
    **_patterns("suggest", "panelbot.cli.suggest", "_INVALID_CHOICE:search"),
    **_patterns("export", "panelbot.conversation.export", "_ONLY_REFS:sub _REF_ID:sub"),
    **_patterns(
        "smalltalk",
        "panelbot.retrieval.smalltalk",
        "_SYMBOLS:sub _EMOTICON:sub _WORDS:findall _REPEATS:sub",
    ),
    "smalltalk.small_talk": (_small_talk, SMALL_TALK_UNITS, 120),
    # a question is at most 4,000 characters when it reaches the resolver (the servers' cap)
    "conversation.resolve": (_resolve, UNITS, 4_000),
}


def main() -> None:
    import time

    for line in sys.stdin:
        req = json.loads(line)
        if req.get(
            "warm"
        ):  # load the panel and router, compile every pattern: not part of any budget
            for target, _, _ in TARGETS.values():
                with contextlib.suppress(Exception):  # reported when the target is run for real
                    target("warm up")
            print(json.dumps({"seconds": 0.0}), flush=True)
            continue
        target = TARGETS[req["target"]][0]
        start = time.perf_counter()
        try:
            target(req["text"])
        except Exception as exc:  # reported, not raised: the test says which target and input
            print(json.dumps({"error": f"{type(exc).__name__}: {exc}"}), flush=True)
            continue
        print(json.dumps({"seconds": time.perf_counter() - start}), flush=True)


if __name__ == "__main__":
    main()
