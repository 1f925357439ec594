"""Mechanical paraphrase check for questions.yaml (and conversations.yaml turns tagged paraphrase, if any).

A `paraphrase` question passes when, after lowercasing, dropping stopwords and crude stemming
(strip one of the suffixes -ing, -ed, -es, -ly, -s), it shares no content word with the `text`
or any `asks` entry of any of its gold quotes.
Usage: python3 tools/check_paraphrase.py [questions.yaml] [quotes.yaml]
"""
import re, sys, yaml, pathlib

HERE = pathlib.Path(__file__).resolve().parent.parent
QFILE = sys.argv[1] if len(sys.argv) > 1 else HERE / "questions.yaml"
BANK = sys.argv[2] if len(sys.argv) > 2 else "/work/main/persona_data/minimax-m3/quotes.yaml"

STOP = set("""a about above after again against all am an and any anybody anyone anything are aren't as at be because been
before being below between both but by can can't cannot could couldn't did didn't do does doesn't doing don't down during
each few for from further had hadn't has hasn't have haven't having he he'd he'll he's her here here's hers herself him
himself his how how's i i'd i'll i'm i've if in into is isn't it it's its itself let's me more most mustn't my myself no
nor not of off on once only or other ought our ours ourselves out over own same shan't she she'd she'll she's should
shouldn't so some such than that that's the their theirs them themselves then there there's these they they'd they'll
they're they've this those through to too under until up very was wasn't we we'd we'll we're we've were weren't what
what's when when's where where's which while who who's whom why why's will with won't would wouldn't you you'd you'll
you're you've your yours yourself yourselves just also like yeah so um uh oh ok okay really actually right well now
any every than whether via per into onto one s t re ve ll d m""".split())

def stem(w):
    for suf in ("ing", "ed", "es", "ly", "s"):
        if w.endswith(suf) and len(w) - len(suf) >= 3:
            return w[: -len(suf)]
    return w

def words(text):
    text = text.lower().replace("\u2019", "'")
    toks = re.findall(r"[a-z0-9]+(?:'[a-z]+)?", text)
    out = set()
    for t in toks:
        if t in STOP:
            continue
        t = re.sub(r"'[a-z]+$", "", t)
        if not t or t in STOP:
            continue
        out.add(stem(t))
    return out

def main():
    bank = {q["id"]: q for q in yaml.safe_load(open(BANK))}
    items = yaml.safe_load(open(QFILE))
    bad = 0
    n = 0
    for it in items:
        if it.get("kind") != "paraphrase":
            continue
        n += 1
        qw = words(it["question"])
        ref = set()
        for gid in it["quotes"]:
            g = bank[gid]
            ref |= words(g["text"])
            for a in g.get("asks", []):
                ref |= words(a)
        shared = sorted(qw & ref)
        if shared:
            bad += 1
            print(f"FAIL {it['quotes']}: {it['question']!r} shares {shared}")
    print(f"{n} paraphrase items checked, {bad} failed")
    sys.exit(1 if bad else 0)

if __name__ == "__main__":
    main()
