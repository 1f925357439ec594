"""Precision and recall of the resolver's discussion kind on labelled messages (requests for a discussion vs
ordinary questions and follow-ups), on the shipped talk.

    python scripts/discussion_requests.py [FILE ...] [--json]

Default: eval/discussion_requests_dev.yaml. Each message is resolved as a user would send it (after its
``after`` question); it counts as read as a discussion when the resolver gives it the ``discussion`` kind.
Nothing is fitted here.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from panelbot.discussion.evaluation import load_requests, score_requests  # noqa: E402
from panelbot.panel import load_panel  # noqa: E402
from panelbot.retrieval.router import Router  # noqa: E402

PANEL = ROOT / "persona_data" / "minimax-m3"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="*", default=["eval/discussion_requests_dev.yaml"])
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    router = Router(load_panel(PANEL))
    out = {}
    for f in args.files:
        s = score_requests(router, load_requests(ROOT / f))
        out[f] = s.to_dict()
        if not args.json:
            print(
                f"{f}: {s.items} messages; precision {100 * s.precision:.1f}% "
                f"({s.correct}/{s.predicted}), recall {100 * s.recall:.1f}% ({s.correct}/{s.true}); "
                f"subject as labelled {s.subjects_right}/{s.correct}"
            )
            for m in s.misses:
                print(f"  {m}")
    if args.json:
        print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
