"""Every regular expression that runs on untrusted text stays fast on hostile text: long runs of spaces,
newlines, tabs, ``*``, ``(``, ``:``, ``[`` and mixes of them, 20 KB each (small talk: its 120 characters).

The targets (``tests/regex_worker.py``) run in a worker process; a target that does not finish one input
within ``BUDGET`` seconds -- what a catastrophically backtracking expression does -- fails the test and the
worker is killed, so a regression fails here instead of hanging the suite. The budget is generous (linear
targets take milliseconds); it catches hangs, it does not time anything."""

from __future__ import annotations

import importlib.util
import json
import os
import selectors
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

HERE = Path(__file__).resolve().parent
WORKER = HERE / "regex_worker.py"
BUDGET = 5.0  # seconds for one input of up to 20 KB
WARM_UP = 180.0  # loading the panel and building its router, once


def _targets() -> dict:
    spec = importlib.util.spec_from_file_location("panelbot_test_regex_worker", WORKER)
    mod = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(mod)
    return mod.TARGETS


TARGETS = _targets()


class Worker:
    """``regex_worker.py`` in a subprocess; :meth:`run` answers how long a target took on a text, or fails
    the test when it takes longer than the budget (and starts a fresh worker for the next input)."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen | None = None

    def _start(self) -> subprocess.Popen:
        env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
        proc = subprocess.Popen(
            [sys.executable, str(WORKER)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            env=env,
        )
        self.proc = proc
        self._ask({"warm": True}, WARM_UP, "warming up")
        return proc

    def _ask(self, request: dict, budget: float, what: str) -> dict:
        proc = self.proc
        assert proc is not None and proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(json.dumps(request) + "\n")
        proc.stdin.flush()
        with selectors.DefaultSelector() as sel:
            sel.register(proc.stdout, selectors.EVENT_READ)
            ready = sel.select(budget)
        if not ready:
            self.close()
            pytest.fail(f"{what}: no answer within {budget:.0f} s (catastrophic backtracking?)")
        line = proc.stdout.readline()
        if not line:
            self.close()
            pytest.fail(f"{what}: the worker died")
        return json.loads(line)

    def run(self, target: str, text: str) -> float:
        if self.proc is None or self.proc.poll() is not None:
            self._start()
        shape = describe(text)
        answer = self._ask({"target": target, "text": text}, BUDGET, f"{target} on {shape}")
        assert "error" not in answer, f"{target} raised on {shape}: {answer['error']}"
        return answer["seconds"]

    def close(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait(10)
            self.proc = None


def describe(text: str, limit: int = 4) -> str:
    """A hostile input in a few words: its length and its first runs ('20000 chars: " \\n"x9996, "x"x1')."""
    runs: list[str] = []
    i = 0
    while i < len(text) and len(runs) < limit:
        unit = next(
            (
                text[i : i + p]
                for p in range(1, 21)
                if text[i + p : i + 2 * p] == text[i : i + p] or p == 20
            ),
            text[i],
        )
        if text[i + len(unit) : i + 2 * len(unit)] != unit:
            unit = text[i]
        j = i
        while text[j : j + len(unit)] == unit:
            j += len(unit)
        runs.append(f"{unit!r}x{(j - i) // len(unit)}")
        i = j
    more = ", ..." if i < len(text) else ""
    return f"{len(text)} chars: {', '.join(runs)}{more}"


@pytest.fixture(scope="module")
def worker():
    w = Worker()
    yield w
    w.close()


def fixed_bombs(size: int) -> list[str]:
    """The known shapes, each ``size`` characters: what broke the speaker headings (" \\n" * 300 took 30 s)
    and small talk ("thanks ,.,.,. " * 8 + "for a b": minutes), and their relatives."""
    units = [
        " \n",
        " ",
        "\n",
        "\t",
        "*",
        "(",
        ":",
        "[",
        " *",
        "\n \t",
        " :\n",
        "**\n",
        "(\n",
        "[a",
        "\r\n",
        "bye ",
        "thanks ,.,.,. ",
        "bye bye ",
    ]
    out = []
    for unit in units:
        body = (unit * (size // len(unit) + 1))[: size - 8]
        out += [body, body + "for a b", body + "x:", body + "what"]
    return [t[:size] for t in out]


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_known_bombs_within_budget(worker: Worker, target: str) -> None:
    _, _, size = TARGETS[target]
    for text in fixed_bombs(size):
        worker.run(target, text)


def hostile_text(units: tuple[str, ...], size: int) -> st.SearchStrategy[str]:
    """Runs of the units (a unit repeated up to thousands of times), the pattern of runs repeated to fill
    ``size`` characters, then maybe a tail that makes a match fail at the very end."""
    run = st.tuples(st.sampled_from(units), st.integers(1, max(1, size // 4)))
    tail = st.sampled_from(["", "x", "!", ":", "a:", "\x00", " what", "(", "*"])

    def build(parts: list[tuple[str, int]], end: str) -> str:
        body = "".join(unit * n for unit, n in parts)
        body = (body * (size // len(body) + 1))[: size - len(end)]
        return body + end

    return st.builds(build, st.lists(run, min_size=1, max_size=5), tail)


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_hostile_text_within_budget(worker: Worker, target: str) -> None:
    _, units, size = TARGETS[target]

    @settings(
        max_examples=12,
        deadline=None,
        phases=[Phase.generate],  # no shrinking: each try of a failing input costs the whole budget
        suppress_health_check=list(HealthCheck),
        database=None,
    )
    @given(text=hostile_text(units, size))
    def check(text: str) -> None:
        worker.run(target, text)

    check()
