#!/usr/bin/env python3
"""Hold-out 4: write eval/heldout/conversations_4.yaml from the table below.

Drafted (turn, speaker, kind, passage) in draft/conversations_4_draft.txt before quotes.yaml was opened;
gold ids added afterwards from the passages. Asserts ids exist, speakers match, and that a continuation or
other-panelist turn's gold holds no id that was gold in an earlier turn of the same conversation.

    python3 eval/heldout/tools/build_conversations_4.py
"""

import sys
from collections import Counter

from heldout4_common import check_gold, flow_item, load, quotes_by_id, rows, write

OUT = "eval/heldout/conversations_4.yaml"

# "## id" starts a conversation; then one turn a line: question | speaker | kind | gold ids | note
TABLE = """
## c01-open-weights-why
So what made MiniMax put M3 out in the open? | olive | single | olive-02 olive-03
what's the motivation behind that? | olive | reason | olive-02
and Dan, do you guys agree? | dan | other | dan-02 dan-27 dan-28
cool, thanks | none | smalltalk
## c02-cache-where
Dan, million-token contexts: where does the KV cache go? | dan | single | dan-22 dan-23
go on | dan | continuation | dan-24
and is that hard to build? | dan | elaboration | dan-24 dan-22 dan-23
does Olive say anything on that? | none | other |  | Olive never spoke to the KV cache
## c03-declined-cat-then-partnership
what's a good name for my cat? | none | offtopic
ok then, how did Together and MiniMax end up partnering? | dan | after_decline | dan-04 dan-03
tell me more | dan | continuation | dan-05 dan-06
would that work for my bakery? | none | offtopic |  | pronoun, mid-conversation
## c04-images-then-day-zero
how was M3 trained on images? | olive | single | olive-08
what do you mean by that? | olive | elaboration | olive-08 olive-09 | clarify: the same answer may be shown again
why train both at once? | olive | reason | olive-09 olive-08
switching topics: what happens on the inference side on day zero? | dan | switch | dan-12 dan-10 dan-11 dan-13 | switch with a cue
## c05-overlooked-uses
What can M3 do that people overlook? | olive | single | olive-05
anything else? | olive | continuation | olive-06 olive-04
and can it build games? | olive | elaboration | olive-06 olive-05
nice! | none | smalltalk
## c06-benchmark-then-hacking
Tell me about the kernel benchmark Together released. | dan | single | dan-07 dan-08
why put it out? | dan | reason | dan-09 dan-08
and if models overfit to it? | dan | elaboration | dan-09
what does Olive think about models hacking? | olive | other | olive-13
## c07-launch-then-olive-job
What does Together do when a new model launches? | dan | single | dan-12 dan-10 dan-11 dan-06
and after day zero? | dan | continuation | dan-13 dan-14
does it actually get faster over those weeks? | dan | elaboration | dan-14 | new words
different question: what's Olive's job? | olive | switch | olive-01 | switch with a cue
## c08-agents-taxes
Do agents change how you build inference? | dan | single | dan-15 dan-16
how so? | dan | elaboration | dan-15 dan-16 | clarify: the same answer may be shown again
Olive, what kind of agents does M3 power? | olive | other | olive-04 olive-05
can an agent file my taxes? | none | offtopic |  | the talk's word in another sense
## c09-thousand-things-then-evals
Dan, with so many optimizations possible, what do you focus on? | dan | single | dan-17
why not just pick the top few? | dan | reason | dan-17 dan-18
ok, on another note: how do you evaluate a 12-hour run? | olive | switch | olive-13 | switch with a cue
what else do you check? | olive | continuation | olive-14
## c10-declined-params-then-m2
how many parameters does M3 have? | none | offtopic |  | near miss: a number the talk never gave
fine, what makes M3 different from the M2 series? | olive | after_decline | olive-04 olive-08
and from scratch means what exactly? | olive | elaboration | olive-08
Dan, anything on that? | none | other |  | Dan never spoke to multimodal training
## c11-paper-replication
Olive, the paper-replication thing from the blog post: how do you train for it? | olive | single | olive-11
why is it so tricky? | olive | reason | olive-11
tell me more | olive | continuation | olive-12 olive-13 olive-14
thanks, that's helpful | none | smalltalk
## c12-three-years
Dan, three years from now, what will look silly? | dan | single | dan-25 dan-26
and Olive? | olive | other | olive-15 olive-16
why does she think open weights can catch up? | olive | reason | olive-16
will I still have a job in three years? | none | offtopic
## c13-hi-then-panel
hi there! | none | smalltalk
who are the panelists? | both | single | dan-01 olive-01
what does the Together one work on? | dan | elaboration | dan-01
new question: why does MiniMax open source? | olive | switch | olive-02 olive-03 | switch with a cue
## c14-reuse-sparse-attention
can you reuse work from other open models? | dan | single | dan-19
like DeepSeek's sparse attention? | dan | elaboration | dan-19
anything else? | dan | continuation | dan-20 dan-21
what's DeepSeek's stock price? | none | offtopic |  | near miss
## c15-declined-flight-then-vegas
book me a flight to Vegas | none | offtopic
sorry. What happened at the Vegas event? | dan | after_decline | dan-04
and then? | dan | continuation | dan-05 dan-06
Olive, what's your side of the partnership? | olive | other | olive-03 olive-02
## c16-cheating
does M3 cheat during training? | olive | single | olive-13
so how do you tell it's really improving? | olive | elaboration | olive-13 olive-14
Dan, do you worry about models gaming things? | dan | other | dan-09
ok cool | none | smalltalk
## c17-kernel-posttraining
Olive, how do you post-train it for kernel bench? | olive | single | olive-07
why are the environments so important? | olive | reason | olive-07 olive-12
Dan, are models any good at writing kernels? | dan | other | dan-07
go on | dan | continuation | dan-08 dan-09
## c18-sparse-attention-peru
what's MiniMax sparse attention? | dan | single | dan-10 dan-19
also what's the capital of Peru? | none | offtopic |  | mid-conversation
back to the attention thing: is it like DeepSeek's? | dan | elaboration | dan-19
Different topic: can M3 use a computer? | olive | switch | olive-05 | switch with a cue
## c19-self-evolution-then-cache
what's self-evolution? | olive | single | olive-14
what do you mean, the model builds its own harness? | olive | elaboration | olive-14 olive-16 | clarify
why does that speed things up? | olive | reason | olive-16 olive-14
and on serving: how do you store the cache? | dan | switch | dan-22 dan-23 | switch with a light cue
tell me more | dan | continuation | dan-24
## c20-open-gap
are open models far behind the closed ones? | dan | single | dan-28 dan-27
what does Olive say? | olive | other | olive-16
and what part does open sourcing play in that? | olive | elaboration | olive-02 olive-16 olive-03 | new words
should I learn Rust or Go? | none | offtopic
## c21-chat-vs-coding
what's different about serving chat compared to coding agents? | dan | single | dan-15 dan-16
and the whole code base goes in the prompt? | dan | elaboration | dan-16
haha wild | none | smalltalk
ok another thing: is M3 good at websites? | olive | switch | olive-09 | switch with a cue
## c22-declined-pizza-then-who
what's your favorite pizza? | none | offtopic
fine, who's speaking today? | both | after_decline | dan-01 olive-01
what does the RL lead do? | olive | elaboration | olive-01
ok, and what's Together's mission? | dan | switch | dan-03 | switch with a light cue
## c23-wasted-gpus
are we wasting GPUs? | dan | single | dan-25
why do you say that? | dan | reason | dan-25 dan-26
what else do you hope for? | dan | continuation | dan-27 dan-28
can I mine crypto on my GPU? | none | offtopic |  | the talk's word in another use
## c24-launch-day-then-long-tasks
on launch day what do you care about most? | dan | single | dan-12
then what? | dan | continuation | dan-13 dan-14
switching gears, why is training a 12-hour task hard? | olive | switch | olive-11 | switch with a cue
Dan, anything about long tasks on your side? | dan | other | dan-22 dan-23 | Dan's KV cache answer was to the host's question about 12-hour tasks
## c25-gem-thanks-collapse
Olive, what's the hidden gem? | olive | single | olive-05
thanks! | none | smalltalk
one more: how did they stop multimodal training from collapsing? | olive | switch | olive-08 | switch with a cue
Dan? | none | other |  | Dan never spoke to it
## c26-typos-day-zero
hw do u serv a new modle on day 0 | dan | single | dan-12 dan-10 dan-11 dan-06
more pls | dan | continuation | dan-13 dan-14
why write new kernels at all? | dan | reason | dan-11 dan-10
lol ok whats 2+2 | none | offtopic
## c27-declined-price-then-speedups
What's Together's price per million tokens for M3? | none | offtopic |  | near miss: a price the talk never gave
ok, then how does it get faster after launch? | dan | after_decline | dan-14 dan-13
why does it speed up? | dan | reason | dan-13 dan-14 dan-11
did Olive say anything about speed? | olive | other | olive-16 | speed of development
## c28-open-catch-up-and-dan
Olive, is the open-weights world catching up? | olive | single | olive-16
and Dan? | dan | other | dan-27 dan-28
anything more? | dan | continuation | dan-02 dan-03
is Kimi a good name for a dog? | none | offtopic |  | a model's name from the talk in another use
"""

HEADER = """\
# Hold-out 4: {n} conversations ({t} turns) on the MiniMax M3 panel, written with questions_4.yaml
# (blind to the code; drafted with passage tags in draft/conversations_4_draft.txt before quotes.yaml was
# opened, then mapped to gold ids). Generated by tools/build_conversations_4.py.
# Each turn: question, expected speaker (none = must decline), acceptable quote ids, kind of turn.
# Follow-ups: continuation ("go on", "tell me more", "anything else?"), reason ("why?"), elaboration in new
# words or a clarification ("what do you mean by that?", "how so?"; marked clarify: the same answer may be
# shown again, so these are elaboration, not continuation), other panelist ("and Olive?", "Dan?"; three
# with speaker none: that panelist never spoke to it), switch (with a cue; comment says so), off-topic turns
# mid-conversation (some leaning on a pronoun, some near misses), small talk (speaker none), and five
# conversations that open with a declined question followed by one about the talk (after_decline).
# Turn kinds: {counts}.
"""


def conversations() -> dict:
    convs: dict = {}
    for row in rows(TABLE):
        if isinstance(row, str):
            convs[row[3:]] = []
            continue
        question, speaker, kind, *rest = row
        gold = rest[0].split() if rest else []
        note = rest[1] if len(rest) > 1 else ""
        convs[list(convs)[-1]].append((question, speaker, kind, gold, note))
    return convs


def main() -> int:
    quotes = quotes_by_id()
    convs = conversations()
    counts: Counter = Counter()
    body = []
    for cid, conv in convs.items():
        assert 3 <= len(conv) <= 5, cid
        body.append(f"- id: {cid}\n  turns:\n")
        earlier: set = set()
        for question, speaker, kind, gold, note in conv:
            check_gold(quotes, speaker, gold, question)
            if kind in ("continuation", "other"):
                assert not (set(gold) & earlier), (cid, question)
            earlier |= set(gold)
            counts[kind] += 1
            body.append(flow_item("  ", question, speaker, gold, kind, note))
    turns = sum(counts.values())
    text = HEADER.format(
        n=len(convs), t=turns, counts=", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
    )
    write(OUT, text + "".join(body))
    assert len(load(OUT)) == len(convs)
    print(len(convs), turns, dict(sorted(counts.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
