"""Attribution, draft routing and health-report recall of ``panelbot ingest`` on the talks of
tests/fixtures/unseen (each ``NAME.yaml`` holds the true turns; its captions are made by make_unseen.py).

    python scripts/fixture_talks.py [-v] [DIR]

Each captions file (the truth's ``file``, else named by its ``format``) is ingested as a user would (the real
CLI, into a temporary directory; a labelled talk also with the ``mapping`` its truth file gives); an ingest
that fails is a row "ingest failed: <its last line>" and the other talks are still scored. The draft's turns
are aligned word by word with the true turns; a true turn is attributed to the draft speaker holding most of
its words. Counted:

* answers: the panelists' true turns of 4+ words, right / unknown / wrong;
* wrong turns: any true turn (host's too) given to another person, and how many of them the health report
  flags (``Health.doubtful``: a turn flagged by number, or, before that existed, any 'unknown' turn);
* routing: the talk's ``NAME_eval.yaml`` through the draft's router (speaker accuracy).
"""

from __future__ import annotations

import contextlib
import difflib
import io
import sys
import tempfile
from collections import Counter
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from panelbot.cli.main import main as cli  # noqa: E402

sys.path.insert(0, str(ROOT / "tests" / "fixtures" / "unseen"))
from make_unseen import OUTPUT  # noqa: E402

from panelbot.ingest.health import panel_health  # noqa: E402
from panelbot.panel import load_panel  # noqa: E402
from panelbot.retrieval.evaluation import evaluate, load_eval_set  # noqa: E402
from panelbot.retrieval.router import Router  # noqa: E402
from panelbot.text import words  # noqa: E402


def speaker_ids(
    truth_ids: set[str], draft_ids: list[str], aliases: dict[str, list[str]] | None = None
) -> dict[str, str]:
    """Truth id -> the draft's id for that person: the draft's id starts with or holds the truth's, or one
    of the other names the truth file gives that person (``aliases``: a nickname the draft may use)."""
    out = {"host": "host"}
    for t in truth_ids - {"host"}:
        names = [t, *(aliases or {}).get(t, [])]
        hit = [
            d for d in draft_ids for n in names if d == n or d.startswith(n) or n in d.split("-")
        ]
        out[t] = hit[0] if hit else f"?{t}"
    return out


def attribute(panel, truth: list[tuple[str, str]]) -> list[tuple[str, int | None]]:  # noqa: ANN001
    """Per true turn: (the draft speaker holding most of its words, the draft turn index holding most)."""
    dw: list[tuple[str, int]] = []
    for i, t in enumerate(panel.turns):
        dw += [(t.speaker, i)] * len(words(t.text))
    d_words = [w for t in panel.turns for w in words(t.text)]
    t_words, owner = [], []
    for k, (_, text) in enumerate(truth):
        ws = words(text)
        t_words += ws
        owner += [k] * len(ws)
    got: list[Counter] = [Counter() for _ in truth]
    where: list[Counter] = [Counter() for _ in truth]
    sm = difflib.SequenceMatcher(None, t_words, d_words, autojunk=False)
    for a, b, n in sm.get_matching_blocks():
        for j in range(n):
            who, turn = dw[b + j]
            got[owner[a + j]][who] += 1
            where[owner[a + j]][turn] += 1
    return [
        (g.most_common(1)[0][0] if g else "-", w.most_common(1)[0][0] if w else None)
        for g, w in zip(got, where, strict=True)
    ]


def flagged_turns(panel) -> set[int]:  # noqa: ANN001
    """Indices of the turns the health report points at."""
    health = panel_health(panel)
    doubtful = getattr(health, "doubtful", None)
    if doubtful is None:  # the report before per-turn flags: it warned about 'unknown' turns only
        return {i for i, t in enumerate(panel.turns) if t.speaker == "unknown"}
    return {d["index"] for d in doubtful}


class IngestFailed(Exception):
    """``panelbot ingest`` refused a talk; the message is the last line it printed."""


def ingest(src: Path, out: Path, extra: list[str]) -> None:
    sink = io.StringIO()
    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        try:
            code = cli(["ingest", str(src), "--out", str(out), *extra])
        except SystemExit as e:  # argparse and some errors exit instead of returning
            code = e.code if isinstance(e.code, int) else 1
    if code:
        lines = [ln.strip() for ln in sink.getvalue().splitlines() if ln.strip()]
        raise IngestFailed(lines[-1] if lines else f"exit code {code}")


def routing(panel, ev: Path, ids: dict[str, str], tmp: Path) -> float:  # noqa: ANN001
    """Speaker accuracy of the draft's router on the talk's questions; a question for a person the draft
    does not have (no panelist of theirs) counts as wrong."""
    items = yaml.safe_load(ev.read_text(encoding="utf-8"))
    kept, missing = [], 0
    for it in items:
        got = [ids.get(s, s) for s in str(it["speaker"]).split("+")] if it["speaker"] else []
        if any(g.startswith("?") for g in got):
            missing += 1
            continue
        it["speaker"] = ids.get(it["speaker"], it["speaker"])
        kept.append(it)
    mapped = tmp / ev.name
    mapped.write_text(yaml.safe_dump(kept, allow_unicode=True), encoding="utf-8")
    rep = evaluate(Router(panel), load_eval_set(str(mapped), panel))
    return round(100.0 * rep.speaker_ok / max(rep.in_scope + missing, 1), 1)


def score_talk(src: Path, talk: dict, extra: list[str], verbose: bool) -> dict:
    truth = [(row[0], row[1].replace(" | ", " ")) for row in talk["turns"]]
    caps = src.with_name(talk.get("file") or src.stem + OUTPUT[talk["format"]])
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / src.stem
        ingest(caps, out, extra)
        panel = load_panel(out)
        ids = speaker_ids({s for s, _ in truth}, list(panel.panelists), talk.get("aliases"))
        got = attribute(panel, truth)
        flagged = flagged_turns(panel)
        ev = src.with_name(src.stem + "_eval.yaml")
        route = routing(panel, ev, ids, Path(tmp)) if ev.is_file() else None
    n = right = unknown = wrong_turns = caught = 0
    for (who, text), (speaker, turn) in zip(truth, got, strict=True):
        want = ids[who]
        if who != "host" and len(text.split()) >= 4:
            n += 1
            right += speaker == want
            unknown += speaker == "unknown"
        if speaker not in (want, "unknown", "-"):
            wrong_turns += 1
            caught += turn in flagged
            if verbose:
                mark = "flagged" if turn in flagged else "MISSED"
                print(f"  {caps.name}: {who} -> {speaker} ({mark}): {text[:60]}")
    return {
        "file": caps.name + (" (mapped)" if extra else ""),
        "answers": n,
        "right": right,
        "unknown": unknown,
        "wrong": n - right - unknown,
        "wrong_turns": wrong_turns,
        "flagged": caught,
        "routing": route,
        "flags": len(flagged),
    }


def main() -> None:
    verbose = "-v" in sys.argv
    rest = [a for a in sys.argv[1:] if a != "-v"]
    here = Path(rest[0]) if rest else ROOT / "tests" / "fixtures" / "unseen"
    print(
        f"{'talk':<30} {'answers':>7} {'right':>5} {'unkn':>5} {'wrong':>5}  {'wrong turns flagged':>19}"
        f"  {'flags':>5}  routing"
    )
    for src in sorted(here.glob("*.yaml")):
        if src.stem.endswith("_eval"):
            continue
        talk = yaml.safe_load(src.read_text(encoding="utf-8"))
        runs = [[]] + ([talk["mapping"]] if talk.get("mapping") else [])
        for extra in runs:
            try:
                r = score_talk(src, talk, extra, verbose)
            except IngestFailed as e:  # a row of the report; the other talks are still scored
                name = talk.get("file") or src.stem + OUTPUT[talk["format"]]
                print(f"{name + (' (mapped)' if extra else ''):<30} ingest failed: {e}")
                continue
            route = "-" if r["routing"] is None else f"{r['routing']}%"
            print(
                f"{r['file']:<30} {r['answers']:>7} {r['right']:>5} {r['unknown']:>5} {r['wrong']:>5}  "
                f"{r['flagged']:>9} of {r['wrong_turns']:<6}  {r['flags']:>5}  {route}"
            )


if __name__ == "__main__":
    main()
