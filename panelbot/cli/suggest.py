""" "Did you mean" for a mistyped command, sub-command, choice or flag: argparse's error, one line, with the
nearest known word (``panelbot aks`` -> ``unknown command 'aks'; did you mean 'ask'?``). Imported only when
a command line is wrong."""

from __future__ import annotations

import argparse
import difflib
import re
from collections.abc import Iterable

_INVALID_CHOICE = re.compile(r"argument (?P<arg>[^:]+): invalid choice: '(?P<word>[^']*)'")
_UNRECOGNIZED = "unrecognized arguments: "


def nearest(word: str, known: Iterable[str]) -> str | None:
    """The known word ``word`` most likely misspells (a swap, a missing or an extra letter), or None."""
    if not word:
        return None
    close = difflib.get_close_matches(word.lower(), list(known), n=1, cutoff=0.6)
    return close[0] if close else None


def _action_named(parser: argparse.ArgumentParser, name: str) -> argparse.Action | None:
    """The action argparse calls ``name`` in its errors: its metavar, its dest, or one of its flags."""
    for action in parser._actions:
        if name in (action.metavar, action.dest) or name in action.option_strings:
            return action
        if name in "/".join(action.option_strings).split("/") and action.option_strings:
            return action
    return None


def _bad_choice(parser: argparse.ArgumentParser, match: re.Match[str]) -> str | None:
    action = _action_named(parser, match["arg"])
    if action is None or action.choices is None:
        return None
    word = match["word"]
    guess = nearest(word, [str(c) for c in action.choices])
    if guess is None:
        return None
    if isinstance(action, argparse._SubParsersAction):
        return f"unknown command {word!r}; did you mean {guess!r}?"
    return f"argument {match['arg']}: invalid choice {word!r}; did you mean {guess!r}?"


def _bad_flags(parser: argparse.ArgumentParser, words: list[str]) -> str | None:
    flags = [w for w in words if w.startswith("-") and len(w) > 1]
    for flag in flags:
        guess = nearest(flag.split("=", 1)[0], parser._option_string_actions)
        if guess is not None:
            return f"unrecognized argument {flag!r}; did you mean {guess!r}?"
    return None


def with_suggestion(parser: argparse.ArgumentParser, message: str) -> str:
    """``message`` (an argparse error of ``parser``) with a "did you mean", when a known word is near."""
    match = _INVALID_CHOICE.match(message)
    if match:
        return _bad_choice(parser, match) or message
    if message.startswith(_UNRECOGNIZED):
        return _bad_flags(parser, message[len(_UNRECOGNIZED) :].split()) or message
    return message
