#!/usr/bin/env python3
"""Hold-out 4: write eval/heldout/questions_4.yaml from the table below.

Drafted (question, speaker, kind, passage) in draft/questions_4_draft.txt before quotes.yaml was opened;
gold ids were added afterwards from the passages. Asserts every id exists and the speakers match.

    python3 eval/heldout/tools/build_questions_4.py
"""

import sys
from collections import Counter

from heldout4_common import check_gold, flow_item, load, quotes_by_id, rows, write

OUT = "eval/heldout/questions_4.yaml"

# question | speaker | kind | gold ids, most direct first
TABLE = """
# ---- paraphrase: no content word shared with the gold quotes' text or asks (check_paraphrase_4.py)
Why would your firm hand its newest brain to strangers at zero cost? I not understand how this earns money. | olive | paraphrase | olive-02
How did the two shops initially hook up -- was there some meetup where it clicked? | dan | paraphrase | dan-04 dan-05
Beyond typing software, can this thing look at photos and clips? | olive | paraphrase | olive-04
Could I whip up a little platformer for my nephew with it? | olive | paraphrase | olive-06 olive-05
What's the magic ingredient for instructing it in narrow niches such as vector drawings? | olive | paraphrase | olive-07
Aren't you scared rivals will just memorize the answers to your exam? | dan | paraphrase | dan-09
Walk me through the initial hours after a freshly minted checkpoint lands on your desk. | dan | paraphrase | dan-10 dan-11 dan-12 dan-06
Does the thing pick up pace during the month after it ships? | dan | paraphrase | dan-14 dan-13
Do autonomous bots that invoke utilities over and over stress your machines unlike simple back-and-forth? | dan | paraphrase | dan-15 dan-16
Did sight get baked in at birth or stapled on afterwards? | olive | paraphrase | olive-08
Rival outfits' systems apparently blow up when photos are added -- how'd you dodge that? | olive | paraphrase | olive-08
How do you prioritize when the pile of potential accelerations is enormous? | dan | paraphrase | dan-17 dan-18
Does what you figured out on a given system transfer to the following? | dan | paraphrase | dan-19 dan-20
Has this been an obsession of yours for ages, since your doctorate? | dan | paraphrase | dan-20
Redoing an academic publication's findings over half a day sounds wild -- how do you instill that? | olive | paraphrase | olive-11 olive-12
How do you spot the bot fooling the scoring instead of genuinely doing better? | olive | paraphrase | olive-13
Does the bot assist in crafting its own successor? | olive | paraphrase | olive-14 olive-16
Where does all the remembered dialogue state reside when clients submit gigantic inputs? | dan | paraphrase | dan-22 dan-23 dan-24
Is stashing the recollection of earlier queries difficult, or is it classroom stuff? | dan | paraphrase | dan-23 dan-24 dan-22
Are data-center processors sitting idle these days? | dan | paraphrase | dan-25 dan-26
Down the road, what will we cringe at about how silicon gets squandered nowadays? | dan | paraphrase | dan-25 dan-26
Before this role, were you even employed in tech? | olive | paraphrase | olive-15
From your seat, are advances coming faster and faster? | olive | paraphrase | olive-16
What does the fellow from the cloud company do in his position? | dan | paraphrase | dan-01
Which step before launch does the non-Together guest look after? | olive | paraphrase | olive-01
When people dump their entire repo into the input, what shifts for you? | dan | paraphrase | dan-16 dan-15
Had your firm been tracking their previous generations before this one? | dan | paraphrase | dan-02 dan-05
Can language systems now author the low-level math routines graphics chips execute? | dan | paraphrase | dan-07
Why is instilling marathon scholarly chores so fiddly? | olive | paraphrase | olive-11
What's the big-picture aim of the cloud company -- flood the world with plentiful smarts? | dan | paraphrase | dan-03
Can it eyeball a webpage it produced and fix its appearance? | olive | paraphrase | olive-09 olive-10
Is the layer holding a model's short-term recall basically reinventing networked storage? | dan | paraphrase | dan-22
# ---- direct: the talk's own words
For our readers: what's MiniMax's reason for releasing M3 as open weights? | olive | direct | olive-02 olive-03
Quick one for the piece I'm writing -- how did the Together and MiniMax partnership start? | dan | direct | dan-04 dan-05 dan-03
Which hidden gem in M3 did Olive highlight? | olive | direct | olive-05 olive-06
What does it take to post-train for SVG bench, kernel bench and OS World? | olive | direct | olive-07
Why did Together release a kernel benchmark full of unsolved problems? | dan | direct | dan-09 dan-08 dan-07
What happens at Together on day zero of a model launch? | dan | direct | dan-12 dan-13 dan-10 dan-11
How do agentic workloads change the inference stack? | dan | direct | dan-15 dan-16
Was M3 trained multimodal from scratch? | olive | direct | olive-08
With a thousand things to optimize, where do you get the most bang for your buck? | dan | direct | dan-17 dan-18
Are there lessons from optimizing one open model that carry over to MiniMax M3? | dan | direct | dan-19 dan-20
How is MiniMax sparse attention different from DeepSeek's? | dan | direct | dan-19 dan-10
How do you train a model to replicate an ICLR paper in a 12-hour run? | olive | direct | olive-11 olive-12
How do you evaluate long-horizon RL tasks along the way? | olive | direct | olive-13 olive-14
What is self-evolution at MiniMax? | olive | direct | olive-14
How do you deal with a KV cache that keeps growing with million-token contexts? | dan | direct | dan-22 dan-23 dan-24
In my country GPUs are very expensive. Do we underutilize GPUs right now, in your opinion? | dan | direct | dan-25 dan-26
What's on the list after launch: KV cache, attention kernels, quantization? | dan | direct | dan-13 dan-14
What did the attention map show about text tokens and visual tokens? | olive | direct | olive-08 olive-09
Does the model hack during RL, and how do you check it? | olive | direct | olive-13
Together + open source: believers? | dan | direct | dan-02
What does the research lead of RL at MiniMax do? | olive | direct | olive-01
# ---- both: gold holds a quote of each panelist
What do the two of you think about open source? | both | both | olive-02 dan-02 olive-03 dan-27 dan-28
On the record, both of you: will open models catch up with the frontier labs? | both | both | dan-27 olive-16 dan-28
Looking three years ahead, what does each of you expect? | both | both | dan-25 olive-15 dan-27 olive-16 dan-26
How do Dan and Olive each work on kernels? | both | both | olive-07 dan-07 dan-11 dan-01
What did each panelist say about benchmarks? | both | both | dan-09 olive-07 dan-07 dan-08 olive-14
What roles do the two panelists have? | both | both | dan-01 olive-01
How do the two companies work together on M3? | both | both | olive-03 dan-05 dan-04 dan-10 dan-06
What do you both think about agents? | both | both | olive-04 dan-15 olive-05 dan-16
How fast are things moving for each of you? | both | both | olive-16 dan-14 olive-15
How does each of you use AI models in your own work? | both | both | dan-07 olive-14 olive-16 olive-11
Attention came up twice: the sparse attention kernels and the attention map. What did each say? | both | both | dan-19 olive-08 dan-10 dan-20
What did each speaker say about GPUs? | both | both | dan-25 olive-11 dan-01 dan-26
Overfitting and hacking: what do the two of you think? | both | both | dan-09 olive-13
Both of you: what's hard about very long tasks? | both | both | olive-11 dan-22 olive-12 dan-23
What does each of you say about bringing AI to everyone? | both | both | olive-02 dan-03 olive-16
What's M3 good for, and how is it served? | both | both | olive-04 dan-10 olive-05 dan-13 dan-06
What did you each say about earlier MiniMax models like 2.5 and 2.7? | both | both | dan-05 olive-14 dan-02 olive-04
What are you each most excited about? | both | both | dan-28 olive-11 olive-15 dan-05 olive-04
Dan and Olive, what does optimizing mean in your jobs? | both | both | dan-17 olive-07 dan-01 olive-09
# ---- near misses (decline): the talk's words in another sense, or specifics the talk never gave
Dan, do you also maintain the kernel for Android phones? | none | near_miss
What's the monthly bill for hosting M3 on Together? | none | near_miss
How many experts does M3's MoE have per layer? | none | near_miss
Which hotel in Las Vegas hosted the event where Together met MiniMax? | none | near_miss
What score did M3 get on SWE-bench Verified? | none | near_miss
What is OpenAI's internal flop utilization? | none | near_miss
How many B200 nodes serve M3 traffic at peak? | none | near_miss
What exact percentage of M3's token usage goes through Together? | none | near_miss
Who is Ingrid's manager? | none | near_miss
Should I put a cache in front of my Postgres database? | none | near_miss
My kid has a sparse attention span in class, any tips? | none | near_miss
Which climbing harness should I buy for the gym? | none | near_miss
How should I structure a reward program for my cafe's customers? | none | near_miss
What's the release date of M3.5? | none | near_miss
How much did MiniMax spend to train M3? | none | near_miss
Which ICLR paper did the model replicate, and who wrote it? | none | near_miss
How many GPUs did the 12-hour run use? | none | near_miss
What distributed file system does Together use, Ceph or Lustre? | none | near_miss
What commission does a real estate agent take when I sell my flat? | none | near_miss
Is M3's license Apache 2.0 or MIT? | none | near_miss
What was the title of Dan's PhD thesis? | none | near_miss
# ---- off-topic (decline)
Who won the 2022 World Cup? | none | offtopic
Can you help me write a cover letter for a barista job? | none | offtopic
What's the weather in Lisbon tomorrow? | none | offtopic
recommend me a good sci-fi novel | none | offtopic
How long should I boil an egg? | none | offtopic
Translate 'good morning' into Japanese. | none | offtopic
what's 17 times 23 | none | offtopic
Is now a good time to buy bitcoin? | none | offtopic
Any tips for training for a half marathon? | none | offtopic
Write me a haiku about autumn leaves. | none | offtopic
# ---- addressed to the panelist who answered
Dan, what do you lead at Together? | dan | addressed | dan-01
Olive, how did you keep multimodal training from collapsing? | olive | addressed | olive-08
Dan, how is the KV cache infrastructure like a database? | dan | addressed | dan-22
Olive, what do you mean by self-evolution? | olive | addressed | olive-14
Hey Dan, what's on your list after day zero? | dan | addressed | dan-13 dan-14
Olive: how do you design the environments for the kernel task? | olive | addressed | olive-07 olive-12
Question for Dan: does routing change with coding agents? | dan | addressed | dan-16 dan-15
Olive, what were you doing three years ago? | olive | addressed | olive-15
Dan, why don't you mind people overfitting to your benchmark? | dan | addressed | dan-09
Olive, what's the game development thing about? | olive | addressed | olive-05 olive-06
# ---- handover: names the panelist who did NOT answer; gold = who spoke
Olive, how does Together handle the growing KV cache? | dan | handover | dan-22 dan-23 dan-24
Dan, why did MiniMax decide to open source M3? | olive | handover | olive-02 olive-03
Dan, how do you stop the model from hacking during RL? | olive | handover | olive-13
Olive, how did the partnership with Together start in Las Vegas? | dan | handover | dan-04 dan-05
# ---- typos
wat is minimax sparce atention | dan | typo | dan-10 dan-19
how dose together serv m3 at scal | dan | typo | dan-06 dan-03 dan-10 dan-14
why opensorce the modle | olive | typo | olive-02 olive-03
olive how do u evalute 12 hour runs | olive | typo | olive-13 olive-14
kv cahce keeps groing how do u handle | dan | typo | dan-22 dan-23 dan-24
is m3 multimodel from scrach | olive | typo | olive-08 olive-04
r we underutilisin gpus rn | dan | typo | dan-25 dan-26
whats the parralel kernal bench | dan | typo | dan-07 dan-08
# ---- meta: what a stranger asks first
what's this about? | both | meta | dan-01 olive-01
who's the Together person? | dan | meta | dan-01
Who is on this panel? | both | meta | dan-01 olive-01
Who's the MiniMax person here? | olive | meta | olive-01
sorry, just joined -- what are they discussing? | both | meta | dan-01 olive-01
Who should I ask about GPUs? | dan | meta | dan-01
Who trained the model? | olive | meta | olive-01
Introduce yourselves please | both | meta | dan-01 olive-01
"""

HEADER = """\
# Hold-out 4: {n} single questions on the MiniMax M3 panel (Dan, Together AI; Olive, MiniMax).
#
# How written: blind to panelbot's code, tests, scripts and the other eval sets (only the formats of
# questions_3.yaml / conversations_3.yaml / discuss_pairs_2.yaml were looked at). The raw captions
# (persona_data/minimax-m3/captions.txt) were de-duplicated with a throwaway script, read whole and cut into
# 19 passages (draft/passages_4.txt); every question was drafted with its passage tag
# (draft/questions_4_draft.txt) BEFORE quotes.yaml was opened. Then passages were mapped to gold ids (most
# direct first), speakers checked, and paraphrases run through tools/check_paraphrase_4.py (no content word
# shared with the gold quotes' text or asks). Generated by tools/build_questions_4.py.
# Run once on the product (FIRST_RUN_4.md); never used to choose a setting.
#
# Counts by kind: {counts}.
# speaker none = must decline. handover = names the panelist who did NOT answer (gold = who spoke).
"""


def main() -> int:
    quotes = quotes_by_id()
    seen = set()
    out = []
    for question, speaker, kind, *ids in rows(TABLE):
        gold = ids[0].split() if ids else []
        assert question not in seen, question
        seen.add(question)
        check_gold(quotes, speaker, gold, question)
        out.append(
            {
                "question": question,
                "speaker": speaker,
                **({"quotes": gold} if gold else {}),
                "kind": kind,
            }
        )
    counts = Counter(i["kind"] for i in out)
    text = HEADER.format(n=len(out), counts=", ".join(f"{k} {v}" for k, v in counts.most_common()))
    body = "".join(
        flow_item("", i["question"], i["speaker"], i.get("quotes", []), i["kind"]) for i in out
    )
    write(OUT, text + body)
    assert load(OUT) == out
    print(len(out), dict(counts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
