"""Hold-out 4: small helpers shared by its builders and its paraphrase check (written with the sets)."""

import json

import yaml

QUOTES = "persona_data/minimax-m3/quotes.yaml"


def load(path: str):
    with open(path, encoding="utf-8") as fh:
        return yaml.safe_load(fh)


def write(path: str, text: str) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)


def quotes_by_id() -> dict:
    return {q["id"]: q for q in load(QUOTES)}


def rows(table: str) -> list:
    """The rows of a `a | b | c` table; blank lines and `# ...` comment lines are skipped, `## x` kept."""
    out = []
    for line in table.splitlines():
        line = line.strip()
        if not line or (line.startswith("#") and not line.startswith("## ")):
            continue
        out.append(line if line.startswith("## ") else [cell.strip() for cell in line.split(" | ")])
    return out


def check_gold(quotes: dict, speaker: str, gold: list, where: str) -> None:
    """Gold ids exist and their speakers are the expected one(s): none (no gold), both, or a panelist."""
    speakers = {quotes[g]["speaker"] for g in gold}
    if speaker == "none":
        assert not gold, where
    elif speaker == "both":
        assert speakers == {"dan", "olive"}, where
    else:
        assert speakers == {speaker}, (where, speakers)


def flow_item(
    indent: str, question: str, speaker: str, gold: list, kind: str, note: str = ""
) -> str:
    """One question in the block style of questions_3.yaml (strings JSON-quoted, which YAML reads as is)."""
    pad = indent + "  "
    lines = [
        f"{indent}- question: {json.dumps(question, ensure_ascii=False)}",
        f"{pad}speaker: {speaker}",
    ]
    if gold:
        lines.append(f"{pad}quotes: [{', '.join(gold)}]")
    lines.append(f"{pad}kind: {kind}" + (f"   # {note}" if note else ""))
    return "\n".join(lines) + "\n"
