"""``panelbot completion bash|zsh|fish``: a static completion script written from the parser by shtab.

Tab runs no Python: sub-commands, flags and choices are in the script itself. Only panel names, who
answers (``ask --to``) and conversation ids are looked up, by ``panelbot panels --names``, ``panelbot panels
--panelists`` and ``panelbot history --ids``, and only when the word being completed is one of them.
"""

from __future__ import annotations

import argparse
from typing import TextIO

from panelbot.cli.common import EXIT_OK

SHELLS = ("bash", "zsh", "fish")


def _listing(what: str, command: str) -> dict[str, object]:
    """A shtab completer offering the words ``command`` prints, run at Tab time in every shell.

    (shtab's own ``cmd()`` puts ``$(...)`` inside zsh's option arrays, which zsh runs when the script is
    sourced, once per option, on every shell start; a function runs only when its argument is completed.)"""
    fn = f"_panelbot_{what}"
    return {
        "bash": fn,
        "zsh": fn,
        "fish": f"({command} 2>/dev/null)",
        "preamble": {
            "bash": f'{fn}() {{\n  compgen -W "$({command} 2>/dev/null)" -- "$1"\n}}\n',
            "zsh": f'{fn}() {{\n  local -a words_\n  words_=(${{(f)"$({command} 2>/dev/null)"}})\n'
            f"  _wanted {what} expl '{what.replace('_', ' ')}' compadd -a words_\n}}\n",
        },
    }


PANEL_NAMES = _listing("panel_names", "panelbot panels --names")
CONVERSATION_IDS = _listing("conversation_ids", "panelbot history --ids")
ANSWERERS = _listing("answerers", "panelbot panels --panelists")
FILE_METAVARS = {"FILE", "CAPTIONS"}
DIR_METAVARS = {"DIR"}

INSTALL = {
    "bash": "panelbot completion bash > ~/.local/share/bash-completion/completions/panelbot",
    "zsh": "panelbot completion zsh > ~/.zfunc/_panelbot   "
    "(with fpath+=(~/.zfunc); autoload -U compinit; compinit in ~/.zshrc)",
    "fish": "panelbot completion fish > ~/.config/fish/completions/panelbot.fish",
}


def add_parsers(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    completion = sub.add_parser(
        "completion",
        help="a shell completion script (bash, zsh, fish)",
        description="Print a completion script for SHELL: commands, flags, choices, panel names, "
        "who answers (ask --to) and conversation ids. Tab runs no Python, except to list panels, "
        "panelists or conversations.",
        epilog="Install it: "
        + "; ".join(f"{shell}: {how}" for shell, how in INSTALL.items())
        + '. Or for the current shell only: eval "$(panelbot completion bash)" (zsh: the same '
        "after compinit).",
    )
    completion.add_argument("shell", choices=SHELLS, metavar="SHELL", help="bash, zsh or fish")
    completion.set_defaults(handler=cmd_completion)


def _completer(action: argparse.Action) -> dict[str, object] | None:
    """What completes ``action``'s value: panel names, conversation ids, files, directories or nothing."""
    import shtab

    from panelbot.cli.ask import conversation_id

    if action.dest == "panel" or action.metavar == "PANEL":
        return PANEL_NAMES
    if action.type is conversation_id:
        return CONVERSATION_IDS
    if action.dest == "target":
        return ANSWERERS  # ask --to: auto, both or a panelist id
    if action.metavar in FILE_METAVARS:
        return shtab.FILE
    if action.metavar in DIR_METAVARS:
        return shtab.DIRECTORY
    return None


def _mark(parser: argparse.ArgumentParser, seen: set[int]) -> None:
    """Give every action of ``parser`` and its sub-commands its completer (``action.complete``)."""
    if id(parser) in seen:
        return
    seen.add(id(parser))
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                _mark(child, seen)
            continue
        how = _completer(action)
        if how is not None:
            action.complete = how  # type: ignore[attr-defined]


def completion_script(shell: str) -> str:
    """The completion script for ``shell`` (one of :data:`SHELLS`) of the whole ``panelbot`` parser."""
    import shtab

    from panelbot.cli.main import build_parser

    parser = build_parser()
    _mark(parser, set())
    return shtab.complete(parser, shell=shell)


def cmd_completion(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    script = completion_script(args.shell)
    out.write(script if script.endswith("\n") else script + "\n")
    return EXIT_OK
