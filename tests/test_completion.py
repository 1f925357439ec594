"""``panelbot completion bash|zsh|fish``: the generated scripts sourced in real shells, asked to complete
commands, flags, choices, panel names and conversation ids; and "did you mean" for a mistyped word."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

BIN = str(
    Path(sys.executable).parent
)  # the panelbot the dynamic completions call: this install's own

# Completes the words after `--` the way bash does on Tab: COMP_WORDS/COMP_CWORD set, the registered
# completion function called, COMPREPLY printed one a line.
_BASH_DRIVER = r"""
source "$1"; shift
COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}; COMPREPLY=()
fn=$(complete -p panelbot | sed -E 's/.* -F ([^ ]+) .*/\1/')
"$fn" panelbot "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
printf '%s\n' "${COMPREPLY[@]}"
"""

# An interactive zsh in a pseudo-terminal (zpty), the script installed as zsh expects (a _panelbot file on
# fpath, then compinit); ^T runs complete-word on the typed line and then prints an end mark. compadd is
# wrapped to print the candidates it is given as <<a b c>>.
_ZSH_DRIVER = r"""
zmodload zsh/zpty
fdir=$1; shift
zpty z zsh -f -i
zpty -w z "PROMPT='' RPROMPT=''; fpath=(${(q)fdir} \$fpath); autoload -U compinit; compinit -u -D"
zpty -w z 'compadd() { if (( ${@[(I)-[OAD]]} )); then builtin compadd "$@"; return; fi; local -a h_; builtin compadd -A h_ "$@"; local r=$?; (( $#h_ )) && print -r -- "<<${(j: :)h_}>>"; builtin compadd "$@"; return r }'
zpty -w z "_t() { zle complete-word; print -r -- END-OF-''COMPLETION; }; zle -N _t; bindkey '^T' _t"
zpty -w z "zstyle ':completion:*' list-prompt ''; zstyle ':completion:*' menu no; print RE''ADY"
zpty -r z out '*READY*'
zpty -n -w z "$*"$'\x14'
zpty -r z out '*END-OF-COMPLETION*'
zpty -d z
for l in ${(f)out}; do if [[ $l == *'<<'*'>>'* ]]; then print -r -- ${${l#*<<}%>>*}; fi; done
"""


@pytest.fixture
def shell_env(isolated_env: dict[str, str], run_cli) -> dict[str, str]:
    """The isolated environment with this install's ``panelbot`` first on PATH and one saved conversation."""
    r = run_cli("ask", "--offline", "How do you deal with a KV cache that keeps growing?")
    assert r.returncode == 0, r.stderr
    return {**isolated_env, "PATH": BIN + os.pathsep + isolated_env.get("PATH", "")}


def _script(run_cli, shell: str, path: Path) -> Path:
    r = run_cli("completion", shell)
    assert r.returncode == 0, r.stderr
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(r.stdout, encoding="utf-8")
    return path


def _bash(env: dict[str, str], script: Path, *words: str) -> list[str]:
    r = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", _BASH_DRIVER, "driver", str(script), *words],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    return sorted(w for w in r.stdout.splitlines() if w)


def _zsh(env: dict[str, str], fpath_dir: Path, *words: str) -> list[str]:
    r = subprocess.run(
        ["zsh", "-f", "-c", _ZSH_DRIVER, "driver", str(fpath_dir), *words],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    return sorted(w for line in r.stdout.splitlines() for w in line.split())


def test_bash_completes_commands_flags_choices_panels_and_ids(
    shell_env, run_cli, tmp_path: Path
) -> None:
    script = _script(run_cli, "bash", tmp_path / "panelbot.bash")
    assert "panels --names" in script.read_text() and "history --ids" in script.read_text()
    commands = _bash(shell_env, script, "panelbot", "")
    assert {"ask", "quote", "history", "serve", "mcp", "web", "completion"} <= set(commands)
    assert _bash(shell_env, script, "panelbot", "a") == ["ask"]
    assert _bash(shell_env, script, "panelbot", "history", "s") == ["search", "show"]
    assert "--offline" in _bash(shell_env, script, "panelbot", "ask", "--")
    assert _bash(shell_env, script, "panelbot", "ask", "--of") == ["--offline"]
    assert _bash(shell_env, script, "panelbot", "completion", "") == ["bash", "fish", "zsh"]
    assert "warning" in _bash(shell_env, script, "panelbot", "web", "--log-level", "")
    # the dynamic words: installed panels and saved conversations, looked up at Tab time
    assert _bash(shell_env, script, "panelbot", "--panel", "") == ["minimax-m3"]
    assert _bash(shell_env, script, "panelbot", "ask", "--panel", "mini") == ["minimax-m3"]
    assert _bash(shell_env, script, "panelbot", "check", "") == ["minimax-m3"]
    assert _bash(shell_env, script, "panelbot", "history", "show", "") == ["1"]
    assert _bash(shell_env, script, "panelbot", "ask", "--cid", "") == ["1"]
    assert _bash(shell_env, script, "panelbot", "--resume", "") == ["1"]
    # who answers: ask --to takes auto, both or a panelist id of an installed panel
    assert _bash(shell_env, script, "panelbot", "ask", "--to", "") == [
        "auto",
        "both",
        "dan",
        "olive",
    ]
    assert _bash(shell_env, script, "panelbot", "ask", "--to", "o") == ["olive"]


def _counting_panelbot(tmp_path: Path, env: dict[str, str]) -> tuple[dict[str, str], Path]:
    """An environment whose ``panelbot`` only counts its starts (one line each in the returned file)."""
    trap = tmp_path / "bin"
    trap.mkdir()
    ran = tmp_path / "ran"
    (trap / "panelbot").write_text(f"#!/bin/sh\necho ran >> {ran}\n")
    (trap / "panelbot").chmod(0o755)
    return {**env, "PATH": f"{trap}{os.pathsep}{env['PATH']}"}, ran


def test_sourcing_the_bash_script_runs_no_python(run_cli, isolated_env, tmp_path: Path) -> None:
    """Only Tab on a panel name or an id starts panelbot: sourcing and completing commands do not."""
    script = _script(run_cli, "bash", tmp_path / "panelbot.bash")
    env, ran = _counting_panelbot(tmp_path, isolated_env)
    assert "ask" in _bash(env, script, "panelbot", "")
    assert "--offline" in _bash(env, script, "panelbot", "ask", "--")
    assert not ran.exists()
    _bash(env, script, "panelbot", "--panel", "")
    assert ran.read_text() == "ran\n"


@pytest.mark.skipif(shutil.which("zsh") is None, reason="needs zsh (apt-get install zsh)")
def test_zsh_completes_commands_flags_panels_and_ids(shell_env, run_cli, tmp_path: Path) -> None:
    fpath_dir = tmp_path / "zfunc"
    script = _script(run_cli, "zsh", fpath_dir / "_panelbot")
    assert script.read_text().startswith("#compdef panelbot")
    assert _zsh(shell_env, fpath_dir, "panelbot", "a") == ["ask"]
    commands = _zsh(shell_env, fpath_dir, "panelbot", "")
    assert {"ask", "quote", "history", "serve", "mcp", "web", "completion"} <= set(commands)
    assert _zsh(shell_env, fpath_dir, "panelbot", "ask", "--of") == ["--offline"]
    assert _zsh(shell_env, fpath_dir, "panelbot", "--panel", "") == ["minimax-m3"]
    assert _zsh(shell_env, fpath_dir, "panelbot", "history", "show", "") == ["1"]
    assert _zsh(shell_env, fpath_dir, "panelbot", "completion", "") == ["bash", "fish", "zsh"]


@pytest.mark.skipif(shutil.which("zsh") is None, reason="needs zsh (apt-get install zsh)")
def test_loading_the_zsh_script_runs_no_python(run_cli, isolated_env, tmp_path: Path) -> None:
    """(shtab's own ``cmd()`` would run ``$(panelbot ...)`` once per option as zsh loads the script.)"""
    fpath_dir = tmp_path / "zfunc"
    _script(run_cli, "zsh", fpath_dir / "_panelbot")
    env, ran = _counting_panelbot(tmp_path, isolated_env)
    assert _zsh(env, fpath_dir, "panelbot", "hi") == ["history"]
    assert not ran.exists()
    _zsh(env, fpath_dir, "panelbot", "--panel", "")
    assert ran.read_text() == "ran\n"


@pytest.mark.skipif(shutil.which("fish") is None, reason="needs fish")
def test_fish_completes_commands_and_panels(shell_env, run_cli, tmp_path: Path) -> None:
    script = _script(run_cli, "fish", tmp_path / "panelbot.fish")

    def complete(line: str) -> list[str]:
        r = subprocess.run(
            ["fish", "--no-config", "-c", f"source {script}; complete -C '{line}'"],
            capture_output=True,
            text=True,
            env=shell_env,
            timeout=60,
        )
        assert r.returncode == 0, r.stderr
        return sorted(w.split("\t")[0] for w in r.stdout.splitlines())

    assert complete("panelbot a") == ["ask"]
    assert "--offline" in complete("panelbot ask --of")
    assert complete("panelbot --panel ") == ["minimax-m3"]
    assert complete("panelbot history show ") == ["1"]


def test_the_listing_flags_print_one_word_a_line(shell_env, run_cli) -> None:
    r = run_cli("panels", "--names")
    assert r.returncode == 0 and r.stdout == "minimax-m3\n", r.stderr
    r = run_cli("history", "--ids")
    assert r.returncode == 0 and r.stdout == "1\n", r.stderr


def test_an_unknown_shell_is_refused_with_the_nearest(run_cli) -> None:
    r = run_cli("completion", "bsh")
    assert r.returncode == 2 and "did you mean 'bash'?" in r.stderr
    assert r.stderr.count("\n") == 1 and r.stdout == ""


@pytest.mark.parametrize(
    "argv, guess",
    [
        (["aks", "How do you deal with a KV cache?"], "'ask'"),
        (["qoute", "kv"], "'quote'"),
        (["hist"], "'history'"),
        (["sevre"], "'serve'"),
        (["history", "shwo", "1"], "'show'"),
        (["ask", "--jsn", "kv cache"], "'--json'"),
        (["quote", "--alll", "kv"], "'--all'"),
        (["serve", "--log-level", "warnin"], "'warning'"),
    ],
)
def test_did_you_mean(run_cli, argv: list[str], guess: str) -> None:
    r = run_cli(*argv)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.count("\n") == 1, r.stderr  # one line
    assert f"did you mean {guess}?" in r.stderr and "Traceback" not in r.stderr


def test_no_guess_for_a_word_near_nothing(run_cli) -> None:
    r = run_cli("frobnicate")
    assert r.returncode == 2 and "did you mean" not in r.stderr
    assert "invalid choice" in r.stderr and r.stderr.count("\n") == 1
