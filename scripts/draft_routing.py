"""How well the *uncurated* draft of the seed talk answers: routing and retrieval of the three eval sets
against the panel `panelbot ingest` writes from persona_data/minimax-m3/captions.txt, with no curation.

    python scripts/draft_routing.py [-v]

Then the same for the fixtures that have an eval file of their own (tests/fixtures/*_eval.yaml).

The eval sets name quotes of the curated panel; each is mapped to the draft quotes of the same speaker that
hold at least half of its words (the draft cuts answers differently), so "the right quote in the top 3" means
a draft quote carrying that passage.
"""

from __future__ import annotations

import dataclasses
import sys
import tempfile
from pathlib import Path

import yaml

from panelbot import records


def replace(obj, /, **changes):  # noqa: ANN001, ANN201 - an eval item, a dataclass or a panelbot record
    """``dataclasses.replace`` or ``panelbot.records.replace``, whichever the eval item is."""
    return (
        dataclasses.replace(obj, **changes)
        if dataclasses.is_dataclass(obj)
        else records.replace(obj, **changes)
    )


ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from panelbot.ingest.draft import build_draft, write_draft  # noqa: E402
from panelbot.panel import load_panel  # noqa: E402
from panelbot.retrieval.evaluation import evaluate, format_report, load_eval_set  # noqa: E402
from panelbot.retrieval.router import Router  # noqa: E402
from panelbot.text import words  # noqa: E402


def main() -> None:
    curated = load_panel(ROOT / "persona_data" / "minimax-m3")
    captions = (curated.path / "captions.txt").read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "m3-draft"
        write_draft(build_draft(captions, out.name), captions, out)
        draft = load_panel(out)
    mapping: dict[str, tuple[str, ...]] = {}
    for q in curated.quotes:
        mine = set(words(q.text))
        hits = [
            d.id
            for d in draft.quotes
            if d.speaker == q.speaker and len(mine & set(words(d.text))) >= 0.5 * len(mine)
        ]
        mapping[q.id] = tuple(hits)
    router = Router(draft)
    verbose = "-v" in sys.argv
    for name in ("dev", "test", "final"):
        items = load_eval_set(str(ROOT / "eval" / f"{name}.yaml"), curated)
        items = [
            replace(it, quotes=tuple(d for q in it.quotes for d in mapping.get(q, ())))
            for it in items
        ]
        rep = evaluate(router, items)
        d = rep.to_dict()
        print(
            f"{name:<6} items {d['items']:>3}  speaker {d['speaker_accuracy']}%  recall@3 {d['recall_at_3']}%  "
            f"abstained off-topic {d['abstention_recall']}%  wrongly abstained {d['wrongly_abstained']}%"
        )
        if verbose:
            print(format_report(rep, verbose=True))
    unmapped = [q for q, v in mapping.items() if not v]
    print(f"curated quotes with no draft counterpart: {len(unmapped)} of {len(mapping)}")
    fixtures(verbose)


def fixtures(verbose: bool) -> None:
    """The fixtures that have an eval file (tests/fixtures/NAME_eval.yaml, questions with the phrase a right
    quote holds), each through the draft of its captions (the fixture in truth.yaml whose name starts so)."""
    here = ROOT / "tests" / "fixtures"
    captions_of = yaml.safe_load((here / "truth.yaml").read_text(encoding="utf-8"))
    for ev in sorted(here.glob("*_eval.yaml")):
        stem = ev.name.removesuffix("_eval.yaml")
        source = next(name for name in captions_of if name.startswith(stem))
        captions = (here / source).read_text(encoding="utf-8")
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / stem
            write_draft(build_draft(captions, stem), captions, out)
            draft = load_panel(out)
            rep = evaluate(Router(draft), load_eval_set(str(ev), draft))
        d = rep.to_dict()
        print(
            f"{source:<28} items {d['items']:>3}  speaker {d['speaker_accuracy']}%  recall@3 {d['recall_at_3']}%  "
            f"abstained off-topic {d['abstention_recall']}%  wrongly abstained {d['wrongly_abstained']}%"
        )
        if verbose:
            print(format_report(rep, verbose=True))


if __name__ == "__main__":
    main()
