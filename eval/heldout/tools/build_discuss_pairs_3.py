#!/usr/bin/env python3
"""Hold-out 4 (discussion): write eval/heldout/discuss_pairs_3.yaml from the table below.

Each pair was labelled by reading the two quotes (persona_data/minimax-m3/quotes.yaml) against the talk.
Asserts: a is Dan's, b is Olive's, ids exist, no pair repeats, none is already in discuss_pairs_2.yaml.

    python3 eval/heldout/tools/build_discuss_pairs_3.py
"""

import sys
from collections import Counter

from heldout4_common import load, quotes_by_id, rows, write

PREVIOUS = "eval/heldout/discuss_pairs_2.yaml"
OUT = "eval/heldout/discuss_pairs_3.yaml"

# Dan's id | Olive's id | label | subject (empty when unrelated) | why
TABLE = """
# ---- agree: same thing, same point
dan-27 | olive-16 | agree | open models catching up | the open-source frontier can catch up / open weight models can really catch up with frontier labs
dan-28 | olive-16 | agree | open models catching up | open models not even that far behind / open weights catching up with the frontier labs
dan-02 | olive-02 | agree | open source | big believers in open source / the open source community is strong and powerful
dan-03 | olive-02 | agree | AI for everyone | make intelligence abundant, into more people's hands / intelligence with everyone, everyone can use it
dan-03 | olive-16 | agree | AI for everyone | more tokens to more people / the mission to bring the model to everyone
dan-06 | olive-03 | agree | Together optimising M3 | we start optimising the architecture to serve it / Dan will optimise our open weights to serve faster
dan-14 | olive-03 | agree | Together making M3 faster | the models get faster between day zero and day 14 / Dan can make its inference faster
dan-05 | olive-04 | agree | what people do with the model | what people were doing with it was exciting / a lot of applications on multimodal agents, very cool
dan-07 | olive-14 | agree | using models in your own work | we use models all the time to develop kernels / we use the model to speed up our own development
# ---- differ: same thing (same host question or subject), different answer or aspect
dan-07 | olive-07 | differ | models and kernels | models are getting better at writing kernels and we use them / how to build RL environments so the model optimises kernels
dan-09 | olive-07 | differ | models and kernels | overfitting to the kernel benchmark yields kernels we use / data and environments to train kernel optimisation
dan-08 | olive-07 | differ | kernel benchmarks | what the kernel benchmark contains (unsolved problems) / how to post-train for kernel tasks
dan-09 | olive-13 | differ | gaming the metric | overfitting to the benchmark is fine, we use the kernels / hacking is checked with validation and test
dan-02 | olive-03 | differ | open source | Together believes in open source and followed MiniMax / open weights let Dan optimise the model
dan-15 | olive-04 | differ | agents | agentic workloads change what to optimise in the stack / M3 powers multimodal agents
dan-16 | olive-04 | differ | agents and code | coding agents upload a whole code base: a serving problem / M3 writes code and sees images and video
dan-25 | olive-15 | differ | three years out | same host question: GPUs underutilised, embarrassing in 3 years / 3 years ago she was not in the industry
dan-27 | olive-15 | differ | three years out | same host question: the open-vs-closed question settled / she could not have imagined today
dan-26 | olive-16 | differ | three years out | same host question: better use of training hardware / development is accelerating
dan-25 | olive-16 | differ | three years out | same host question: GPU flop utilisation / models speeding up development
dan-28 | olive-15 | differ | three years out | same host question; both 'exciting': open models near the frontier / she was new to the industry
dan-01 | olive-01 | differ | the panelists' roles | same host question: Dan leads inference and GPU optimisation / Olive leads RL, everything before inference
dan-04 | olive-03 | differ | the partnership | how it started at an event in Las Vegas / what open weights let the partner do
dan-10 | olive-04 | differ | what's new in M3 | M3's sparse attention and choices unlike any model / M3 is multimodal unlike the M2 series
# ---- unrelated: not about the same thing (several traps share a word in two senses)
dan-10 | olive-08 | unrelated |  | trap 'attention': MiniMax sparse attention kernels / the attention map of text and visual tokens
dan-19 | olive-08 | unrelated |  | trap 'attention': sparse attention vs DeepSeek / multimodal training and its attention map
dan-11 | olive-08 | unrelated |  | trap 'from scratch': writing a kernel from scratch / training multimodal from scratch
dan-14 | olive-16 | unrelated |  | trap 'faster/speed': inference speed after launch / the speed of research development
dan-17 | olive-12 | unrelated |  | pushing on every inference edge / formulating RL rewards and environments
dan-23 | olive-15 | unrelated |  | trap 'third year / 3 years': an undergrad systems class / her career three years ago
dan-05 | olive-14 | unrelated |  | trap '2.7': Together served MiniMax 2.7 / self-evolution in the 2.7 release
dan-22 | olive-11 | unrelated |  | KV cache as a distributed file system / long-horizon training needing GPUs
dan-24 | olive-12 | unrelated |  | sending the cache between machines / the key to training long RL tasks
dan-18 | olive-12 | unrelated |  | 'try harder' on the next optimisation / changing the RL algorithm
dan-13 | olive-10 | unrelated |  | the post-launch list (KV cache, attention kernels, quantisation) / vision used during RL
dan-16 | olive-09 | unrelated |  | serving a whole code base to coding agents / looking at a website to optimise its design
dan-03 | olive-04 | unrelated |  | making intelligence abundant / M3's multimodal capabilities
dan-06 | olive-07 | unrelated |  | trap 'optimise': optimising the architecture for serving / RL where the model optimises kernels
dan-12 | olive-09 | unrelated |  | trap 'experience / how it looks': day-zero quality and user experience / the model seeing a website
dan-21 | olive-16 | unrelated |  | validation of sparse attention at scale / accelerating development and open weights
dan-23 | olive-13 | unrelated |  | trap 'seen before / test': cache lookup / validation and test against hacking
dan-24 | olive-11 | unrelated |  | 'not that complicated' cache transfer / 'very tricky' long-horizon training
dan-11 | olive-12 | unrelated |  | trap 'modify': modifying existing kernels / changing the RL algorithm a little
dan-26 | olive-11 | unrelated |  | trap 'hardware': using training hardware better / tasks with hardware constraints
"""

HEADER = """\
# Hold-out 4 (discussion): {n} labelled pairs of quotes, one from each panelist, for `panelbot discuss`.
# Written by reading the two quotes of each pair (persona_data/minimax-m3/quotes.yaml) against the talk
# (captions read whole), not the code; no pair of discuss_pairs_2.yaml is repeated (checked by
# tools/build_discuss_pairs_3.py; the development pair sets under eval/ were not read, by rule, so an
# overlap with them is possible). Labels, as in discuss_pairs_2.yaml:
#   agree     -- the two quotes are about the same thing and make the same point;
#   differ    -- about the same thing (the same host question or the same subject) and say different things:
#                a different answer, or a different aspect of it;
#   unrelated -- not about the same thing (many are traps: a shared word in two senses: "attention",
#                "from scratch", "faster", "2.7", "hardware", "optimise", "3 years").
# Counts: {counts}. Run once (FIRST_RUN_4.md); never used to fit or choose a setting.
talk: minimax-m3
pairs:
"""


def main() -> int:
    quotes = quotes_by_id()
    prev = load(PREVIOUS)["pairs"]
    previous = {(p["a"], p["b"]) for p in prev} | {(p["b"], p["a"]) for p in prev}
    pairs = rows(TABLE)
    seen = set()
    lines = []
    for a, b, label, subject, why in pairs:
        assert quotes[a]["speaker"] == "dan" and quotes[b]["speaker"] == "olive", (a, b)
        assert label in ("agree", "differ", "unrelated")
        assert (label == "unrelated") == (not subject), (a, b)
        assert (a, b) not in previous and (a, b) not in seen, (a, b)
        seen.add((a, b))
        extra = f', subject: "{subject}"' if subject else ""
        lines.append(f"  - {{a: {a}, b: {b}, label: {label}{extra}}}\n    # {why}\n")
    counts = Counter(p[2] for p in pairs)
    text = HEADER.format(
        n=len(pairs), counts=", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
    )
    write(OUT, text + "".join(lines))
    assert len(load(OUT)["pairs"]) == len(pairs)
    print(len(pairs), dict(counts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
