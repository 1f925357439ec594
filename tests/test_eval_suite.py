"""`panelbot eval --suite`: every talk with an eval file, held to the floors recorded in eval/suite.yaml."""

from __future__ import annotations

from pathlib import Path

import pytest

from panelbot.cli.main import main
from panelbot.errors import DataError
from panelbot.retrieval.suite import format_suite, run_suite

ROOT = Path(__file__).resolve().parent.parent


def test_every_talk_meets_its_recorded_floors() -> None:
    results = run_suite(ROOT / "eval" / "suite.yaml")
    assert {r.talk for r in results} >= {"minimax-m3", "security (draft)", "ocean (draft)"}
    below = [f"{r.talk} {r.file}: {'; '.join(r.broken)}" for r in results if r.broken]
    assert not below, "\n".join(below)


def _tiny_suite(tmp_path: Path, floor: float) -> Path:
    (tmp_path / "qs.yaml").write_text(
        '- {question: "How do you deal with a KV cache that keeps growing?", speaker: dan}\n'
        '- {question: "What is the capital of Australia?", speaker: none}\n',
        encoding="utf-8",
    )
    panel = ROOT / "persona_data" / "minimax-m3"
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        f"talks:\n  - name: shipped\n    panel: {panel}\n    sets:\n"
        f"      - file: qs.yaml\n        min: {{speaker_accuracy: {floor}}}\n"
        f"        max: {{wrongly_abstained: 0.0}}\n",
        encoding="utf-8",
    )
    return suite


def test_a_figure_below_its_floor_fails_the_suite(tmp_path: Path, capsys) -> None:
    assert main(["eval", "--suite", str(_tiny_suite(tmp_path, 100.0))]) == 0
    assert "0 below a floor" in capsys.readouterr().out
    results = run_suite(_tiny_suite(tmp_path, 101.0))
    assert results[0].broken == ["speaker_accuracy 100.0 < 101.0"]
    assert main(["eval", "--suite", str(_tiny_suite(tmp_path, 101.0))]) == 1
    assert "BELOW FLOOR" in format_suite(results) and "BELOW FLOOR" in capsys.readouterr().out


def test_a_malformed_suite_is_one_clear_error(tmp_path: Path, capsys) -> None:
    bad = tmp_path / "suite.yaml"
    bad.write_text("talks: 3\n", encoding="utf-8")
    with pytest.raises(DataError, match="talks"):
        run_suite(bad)
    assert main(["eval", "--suite", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "talks" in err and "Traceback" not in err
