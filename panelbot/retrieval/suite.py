"""``panelbot eval --suite``: every talk with an eval file, each figure held to a floor recorded in the repo.

A suite file (``eval/suite.yaml``) lists talks. A talk is a panel directory (``panel:``) or a captions file
ingested on the spot into an uncurated draft (``captions:``), so the same figures are measured on talks no one
curated. Each talk lists eval sets (question sets or conversation sets, as ``panelbot eval`` reads them) with
floors: ``min:`` figures that must not drop below the value, ``max:`` figures that must not rise above it::

    talks:
      - name: minimax-m3
        panel: persona_data/minimax-m3
        sets:
          - file: eval/dev.yaml
            min: {strictly_right: 90.0}
            max: {wrongly_abstained: 3.0}

Paths are relative to the suite file. A figure is a key of the set's ``--json`` report.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from panelbot.errors import DataError
from panelbot.panel import Panel, load_panel
from panelbot.panel.yaml_lines import load_yaml
from panelbot.retrieval.evaluation import evaluate, load_eval_set, read_eval_file
from panelbot.retrieval.router import Router
from panelbot.text import count_of


@dataclass
class SetResult:
    talk: str
    file: str
    figures: dict[str, Any]
    broken: list[str] = field(default_factory=list)  # "strictly_right 84.0 < 90.0"


def _figures(router: Router, panel: Panel, path: str) -> dict[str, Any]:
    from panelbot.conversation.evaluation import (
        evaluate_conversations,
        is_conversation_set,
        load_conversations,
    )

    raw = read_eval_file(path)
    if is_conversation_set(raw):
        d = evaluate_conversations(router, load_conversations(path, panel, raw)).to_dict()
    else:
        d = evaluate(router, load_eval_set(path, panel)).to_dict()
    d.pop("misses", None)
    return d


def _check(figures: dict[str, Any], floors: dict[str, Any], *, low: bool) -> list[str]:
    broken = []
    for key, floor in (floors or {}).items():
        if key.startswith("__"):  # the YAML reader's line numbers
            continue
        got = figures.get(key)
        if not isinstance(got, (int, float)):
            broken.append(f"{key}: no such figure")
        elif (got < floor) if low else (got > floor):
            broken.append(f"{key} {got} {'<' if low else '>'} {floor}")
    return broken


def _draft(captions: Path, name: str, tmp: Path) -> Panel:
    from panelbot.ingest.draft import build_draft, write_draft

    text = captions.read_text(encoding="utf-8")
    out = tmp / name
    write_draft(build_draft(text, name), text, out)
    return load_panel(out)


def run_suite(path: str | Path) -> list[SetResult]:
    """Every set of every talk in the suite file, with the floors it broke."""
    suite = Path(path)
    if not suite.is_file():
        raise DataError("suite file not found", str(suite))
    data = load_yaml(suite)
    talks = data.get("talks") if isinstance(data, dict) else None
    if not isinstance(talks, list) or not talks:
        raise DataError("expected 'talks:', a non-empty list", str(suite), 1)
    base = suite.parent
    results: list[SetResult] = []
    with tempfile.TemporaryDirectory() as tmp:
        for n, talk in enumerate(talks, 1):
            if not isinstance(talk, dict) or not isinstance(talk.get("sets"), list):
                raise DataError(f"talk {n}: needs 'sets:', a list", str(suite))
            name = str(talk.get("name") or f"talk-{n}")
            if talk.get("panel"):
                panel = load_panel(base / str(talk["panel"]))
            elif talk.get("captions"):
                panel = _draft(base / str(talk["captions"]), name, Path(tmp))
            else:
                raise DataError(f"talk {name}: needs 'panel:' or 'captions:'", str(suite))
            router = Router(panel)
            for entry in talk["sets"]:
                file = str(base / str(entry["file"]))
                figures = _figures(router, panel, file)
                broken = _check(figures, entry.get("min"), low=True)
                broken += _check(figures, entry.get("max"), low=False)
                results.append(SetResult(name, str(entry["file"]), figures, broken))
    return results


HEADLINE = (
    "strictly_right",
    "speaker_accuracy",
    "recall_at_3",
    "abstention_recall",
    "wrongly_abstained",
    "turn_accuracy",
    "follow_up_accuracy",
    "offtopic_answered",
)


def format_suite(results: list[SetResult]) -> str:
    lines = []
    for r in results:
        shown = "  ".join(f"{k} {r.figures[k]}" for k in HEADLINE if k in r.figures)
        mark = "BELOW FLOOR: " + "; ".join(r.broken) if r.broken else "ok"
        lines.append(f"{r.talk:<22} {r.file:<44} {shown}  [{mark}]")
    bad = sum(1 for r in results if r.broken)
    lines.append(f"{count_of(len(results), 'set')}, {bad} below a floor")
    return "\n".join(lines)
