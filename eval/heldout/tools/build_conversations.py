"""Build conversations.yaml. Turn tuple: (kind, speaker, gold ids, question).
continuation gold never repeats ids that were gold in an earlier turn of the same conversation
(checked below)."""
import yaml, pathlib
C = {
"open-source-why": [
 ("single","olive",["olive-02","olive-03"],"Why would MiniMax put M3 out as open weights?"),
 ("other","dan",["dan-02"],"And what's the Together side's view on that?"),
 ("reason","dan",["dan-03"],"Why do they care so much about it?"),
 ("offtopic","none",[],"Unrelated, but can I paste open-source code into my college homework without citing it?"),
 ("after_decline","olive",["olive-02"],"Fine. Back to the panel: did Olive say outside developers can actually contribute?"),
],
"kv-cache-growth": [
 ("single","dan",["dan-22","dan-23"],"How does Together cope when the KV cache keeps growing on huge contexts?"),
 ("elaboration","dan",["dan-22"],"What do you mean it's like a file system?"),
 ("continuation","dan",["dan-24"],"Keep going."),
 ("other","none",[],"Did Olive say anything about that?"),
 ("after_decline","olive",["olive-13","olive-14"],"OK, then what did she say about evaluating those long 12-hour runs?"),
],
"hidden-gems": [
 ("single","olive",["olive-04","olive-05"],"What are the cool things people can build with M3?"),
 ("elaboration","olive",["olive-05"],"Example?"),
 ("continuation","olive",["olive-06"],"What else?"),
 ("offtopic","none",[],"Is it expensive to buy a gaming PC like that for my house?"),
 ("after_decline","olive",["olive-07"],"Back to the talk then: what does it take to post-train it for domains like that?"),
],
"declined-price-then-partnership": [
 ("single","none",[],"How much does it cost per token to run M3 on Together?"),
 ("after_decline","dan",["dan-04","dan-05"],"Alright, so how did Together and MiniMax start working together?"),
 ("continuation","dan",["dan-06","dan-03"],"Go on."),
 ("reason","dan",["dan-05","dan-03"],"Why were they so keen to host it?"),
],
"day-zero-launch": [
 ("single","dan",["dan-10","dan-11"],"What does Together do when a new model like M3 is about to launch?"),
 ("continuation","dan",["dan-12","dan-13","dan-14"],"And then?"),
 ("reason","dan",["dan-14","dan-13"],"Why does it keep getting faster after the launch?"),
 ("other","olive",["olive-03","olive-01"],"Where does Olive's side come into that?"),
 ("switch","olive",["olive-14"],"Different topic: what's the self-evolution thing they mentioned?"),
],
"multimodal-from-scratch": [
 ("single","olive",["olive-08"],"How did MiniMax make M3 multimodal?"),
 ("continuation","olive",["olive-09","olive-10"],"Tell me more about that."),
 ("elaboration","olive",["olive-10","olive-09"],"And during RL?"),
 ("other","none",[],"Does Dan agree that training on images from the start is the way to go?"),
 ("after_decline","dan",["dan-15","dan-16"],"Fine, what did Dan talk about instead, agent workloads?"),
],
"declined-weather-then-intro": [
 ("single","none",[],"Is it going to rain in San Francisco tomorrow?"),
 ("after_decline","both",["dan-01","olive-01"],"Okay, who is on this panel?"),
 ("switch","both",["olive-02","dan-02"],"What was their take on open source?"),
],
"parallel-kernel-bench": [
 ("single","dan",["dan-07","dan-08"],"What's the benchmark Together put out for kernels?"),
 ("elaboration","dan",["dan-08"],"What's in it exactly?"),
 ("continuation","dan",["dan-09"],"And?"),
 ("reason","dan",["dan-09"],"Why would it be fine for people to overfit to it?"),
 ("other","none",[],"Does Olive agree that overfitting to benchmarks is fine?"),
 ("after_decline","olive",["olive-07"],"Then how does Olive's team train the model on kernel tasks?"),
],
"agentic-workloads": [
 ("single","dan",["dan-15","dan-16"],"Do agent workloads change how you build an inference stack?"),
 ("elaboration","dan",["dan-16"],"What's different about the coding ones specifically?"),
 ("offtopic","none",[],"Could those agents fix my car's engine too?"),
 ("after_decline","dan",["dan-15","dan-22"],"Seriously though, where does the KV cache fit into that shift?"),
],
"three-years-out": [
 ("single","dan",["dan-25","dan-26"],"Dan, what will we look back on in three years and cringe about?"),
 ("continuation","dan",["dan-27","dan-28"],"What else?"),
 ("other","olive",["olive-15","olive-16"],"And Olive?"),
 ("reason","olive",["olive-16"],"Why does she think open models can close the gap?"),
 ("offtopic","none",[],"Will my index funds be worth more in three years?"),
],
"reward-hacking": [
 ("single","olive",["olive-13"],"Does the model ever cheat during training?"),
 ("elaboration","olive",["olive-13"],"How do they catch it?"),
 ("other","none",[],"Has Dan run into that kind of hacking too?"),
 ("after_decline","dan",["dan-07"],"Then what did Dan say about models writing kernels?"),
 ("switch","olive",["olive-11","olive-12"],"Unrelated: how did the 12-hour paper replication work?"),
],
"sparse-attention": [
 ("single","dan",["dan-10","dan-19"],"What's special about MiniMax sparse attention?"),
 ("elaboration","dan",["dan-19"],"How's it different from DeepSeek's?"),
 ("continuation","dan",["dan-20","dan-21"],"Go on."),
 ("other","none",[],"Did Olive say anything about sparse attention?"),
 ("after_decline","olive",["olive-08"],"OK, what did she say was different about how M3 was trained?"),
],
"declined-linux-then-kernels": [
 ("single","none",[],"How do I compile a custom Linux kernel for my Raspberry Pi?"),
 ("after_decline","dan",["dan-01","dan-07","dan-11"],"Never mind. What kind of kernels does Dan work on?"),
 ("continuation","dan",["dan-08","dan-20"],"Tell me more."),
],
"partnership-origin": [
 ("single","dan",["dan-04"],"How did the MiniMax and Together partnership come about?"),
 ("elaboration","dan",["dan-04"],"Where was that?"),
 ("continuation","dan",["dan-05","dan-06"],"And after that?"),
 ("other","olive",["olive-03"],"What did Olive say about Together's part in it?"),
 ("offtopic","none",[],"Are hotels in Vegas cheap in July?"),
],
"computer-use": [
 ("single","olive",["olive-05"],"Can M3 use a computer by itself?"),
 ("elaboration","olive",["olive-05"],"What kind of things can it do there?"),
 ("switch","dan",["dan-15","dan-16"],"What about the serving side: how does Together handle agents like that?"),
 ("offtopic","none",[],"Can it do my taxes this year?"),
 ("after_decline","olive",["olive-05","olive-06"],"Okay, back to the panel: which hidden gems did Olive mention?"),
],
"long-run-evaluation": [
 ("single","olive",["olive-13"],"How do they evaluate a model on a 12-hour task?"),
 ("continuation","olive",["olive-14"],"What else do they do?"),
 ("elaboration","olive",["olive-14"],"What's self-evolution?"),
 ("other","dan",["dan-07","dan-11","dan-12"],"Does Together build its own evaluations too?"),
 ("reason","dan",["dan-09"],"Why did they release that benchmark publicly?"),
],
"declined-recipe-then-talk": [
 ("single","none",[],"What's a good vegan lasagna recipe?"),
 ("after_decline","both",["dan-01","olive-01"],"Sorry, wrong tab. What's this talk about?"),
 ("other","olive",["olive-01"],"What does the MiniMax person do?"),
 ("switch","olive",["olive-02"],"Did they explain why M3 is open source?"),
],
"gpu-utilization": [
 ("single","dan",["dan-25","dan-26"],"Are GPUs being wasted today?"),
 ("elaboration","dan",["dan-25"],"What was that 10% figure about?"),
 ("other","none",[],"Olive, do you agree about GPU utilization?"),
 ("after_decline","olive",["olive-16","olive-15"],"Then what did Olive hope for when she looked ahead?"),
 ("offtopic","none",[],"Where can I buy a cheap used GPU for my gaming rig?"),
],
"thousand-things": [
 ("single","dan",["dan-17"],"With a thousand things to optimize, where do they start?"),
 ("continuation","dan",["dan-18"],"Anything else?"),
 ("reason","dan",["dan-17","dan-18"],"Why not just pick the top few?"),
 ("switch","olive",["olive-12"],"unrelated, but did they talk about how rewards are designed?"),
],
"paper-replication": [
 ("single","olive",["olive-11","olive-12"],"How did MiniMax get M3 to reproduce an ICLR paper?"),
 ("reason","olive",["olive-11"],"Why is that so hard?"),
 ("elaboration","olive",["olive-12"],"And for the rewards?"),
 ("other","dan",["dan-22","dan-16"],"What does the inference guy say about very long contexts?"),
 ("offtopic","none",[],"Could it write my master's thesis for me, then?"),
],
"declined-scores-then-training": [
 ("single","none",[],"What score did M3 get on OSWorld?"),
 ("after_decline","olive",["olive-07"],"Then how did they train it for OSWorld-type tasks?"),
 ("elaboration","olive",["olive-07"],"What do you mean by designing the environments?"),
 ("continuation","olive",["olive-12"],"Go on."),
],
"open-vs-closed": [
 ("single","both",["dan-27","olive-16","dan-28"],"Can open models catch up with OpenAI and Anthropic?"),
 ("elaboration","dan",["dan-27"],"Which models show that?"),
 ("reason","olive",["olive-16"],"Why is Olive optimistic about it?"),
 ("offtopic","none",[],"Should I buy shares in one of them?"),
 ("after_decline","dan",["dan-02","dan-03"],"Fair. What did Dan say about open source at Together?"),
],
"lessons-transfer": [
 ("single","dan",["dan-19","dan-20"],"Do lessons from one model carry over to the next at Together?"),
 ("elaboration","dan",["dan-19","dan-20"],"Like what?"),
 ("continuation","dan",["dan-21"],"More?"),
 ("switch","dan",["dan-04"],"Totally different question: how did the partnership start?"),
],
"web-dev-vision": [
 ("single","olive",["olive-09"],"Does vision help M3 build websites?"),
 ("elaboration","olive",["olive-09","olive-10"],"How exactly?"),
 ("offtopic","none",[],"What's a good place to host my personal website?"),
 ("after_decline","olive",["olive-08"],"Right. Was vision trained in from the very start?"),
 ("other","none",[],"What does Dan think of that?"),
],
"intros": [
 ("single","dan",["dan-01"],"Who is Dan?"),
 ("other","olive",["olive-01"],"And the other panelist?"),
 ("elaboration","olive",["olive-01"],"So she handles the training part?"),
 ("switch","both",["olive-04","dan-15","dan-16"],"What did they talk about regarding agents?"),
],
"declined-cover-letter": [
 ("single","none",[],"Can you help me write a cover letter for a job at MiniMax?"),
 ("after_decline","olive",["olive-01"],"OK, then what does Olive do at MiniMax?"),
 ("switch","olive",["olive-14","olive-13"],"How does MiniMax evaluate its models internally?"),
 ("reason","olive",["olive-14"],"Why build their own evaluations?"),
],
"ai-written-kernels": [
 ("single","dan",["dan-07"],"Are AI models good at writing GPU kernels now?"),
 ("other","olive",["olive-07","olive-11"],"What about Olive, does MiniMax train for that?"),
 ("elaboration","olive",["olive-07"],"How?"),
 ("offtopic","none",[],"Speaking of kernels, how do I get popcorn kernels to pop evenly?"),
 ("after_decline","dan",["dan-08"],"Ha, okay. Which kernels does Together say are still missing?"),
],
"faster-over-time": [
 ("single","dan",["dan-14"],"Does M3 get faster on Together after launch?"),
 ("reason","dan",["dan-13","dan-14"],"Why?"),
 ("elaboration","dan",["dan-13"],"What's on that list?"),
 ("other","olive",["olive-03"],"What did Olive say about Together making it faster?"),
],
"self-evolution": [
 ("single","olive",["olive-14"],"Olive, what's this self-evolution idea?"),
 ("continuation","olive",["olive-16"],"Tell me more."),
 ("reason","olive",["olive-16"],"Why does that matter for open models?"),
 ("offtopic","none",[],"Could the same trick help me get better at chess?"),
 ("other","dan",["dan-27","dan-28"],"Does Dan agree open models will catch up?"),
],
"declined-dog-rewards": [
 ("single","none",[],"What's the best reward for training a border collie?"),
 ("after_decline","olive",["olive-12"],"Ha, I meant rewards in the talk: how do they formulate rewards for RL?"),
 ("elaboration","olive",["olive-11","olive-07"],"For which kinds of tasks?"),
 ("other","none",[],"Does Dan do any RL?"),
 ("after_decline","dan",["dan-01"],"Then what does Dan lead?"),
],
}
out = []
from collections import Counter
cnt = Counter(); mid_off = 0; first_declined = 0
bank = {q["id"] for q in yaml.safe_load(open("/work/main/persona_data/minimax-m3/quotes.yaml"))}
for slug, turns in C.items():
    assert 3 <= len(turns) <= 6, slug
    assert turns[0][0] == "single", slug
    seen = set()
    tl = []
    for i, (k, s, ids, q) in enumerate(turns):
        assert all(x in bank for x in ids), (slug, ids)
        assert (s == "none") == (not ids), (slug, q)
        if k == "continuation":
            assert not (set(ids) & seen), (slug, q)
        if i > 0 and k == "offtopic": mid_off += 1
        if i > 0 and k != "single": pass
        seen |= set(ids)
        cnt[k] += 1
        tl.append({"question": q, "speaker": s, "quotes": ids, "kind": k})
    if turns[0][1] == "none": first_declined += 1
    out.append({"conversation": slug, "turns": tl})
HEADER = """# Held-out multi-turn conversations about the MiniMax M3 panel, written blind to panelbot's code.
# Turn kinds: single (first turn), continuation (gold excludes ids gold in earlier turns), reason,
# elaboration, other (speaker none when that panelist never spoke to the subject), switch,
# offtopic (speaker none), after_decline (a talk question right after a declined turn).
"""
p = pathlib.Path(__file__).resolve().parent.parent / "conversations.yaml"
p.write_text(HEADER + yaml.safe_dump(out, sort_keys=False, allow_unicode=True, width=120, default_flow_style=None))
print(len(out), "conversations;", dict(cnt), "; mid-conv offtopic:", mid_off, "; first-turn declined:", first_declined,
      "; other-none:", sum(1 for t in C.values() for k,s,_,_ in t if k=="other" and s=="none"))
