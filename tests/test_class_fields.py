"""No class in panelbot declares the same field twice (the second silently replaces the first: a dataclass
keeps one of them, so nothing at run time says so)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "panelbot"


def _fields_declared_twice(source: str) -> list[tuple[str, str, int]]:
    out = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.ClassDef):
            continue
        seen: set[str] = set()
        for stmt in node.body:
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                name = stmt.target.id
                if name in seen:
                    out.append((node.name, name, stmt.lineno))
                seen.add(name)
    return out


def test_the_check_finds_a_field_declared_twice() -> None:
    source = "class Reading:\n    kind: str\n    question: str = ''\n    question: str = ''\n"
    assert _fields_declared_twice(source) == [("Reading", "question", 4)]


def test_no_class_declares_a_field_twice() -> None:
    found = [
        f"{path.relative_to(PACKAGE.parent)}:{line}: {cls}.{name}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for cls, name, line in _fields_declared_twice(path.read_text(encoding="utf-8"))
    ]
    assert found == []
