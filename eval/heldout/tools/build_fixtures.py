"""Build <talk>_questions.yaml for fixture talks. Tuple: (kind, speaker, text|None, question).
Checks: text is a verbatim 4-10 word phrase of the transcript; speaker none <=> no text;
paraphrase questions share no content word with their text phrase (same rule as check_paraphrase.py)."""
import re, sys, yaml, pathlib
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from check_paraphrase import words
FIX = pathlib.Path("/work/main/tests/fixtures")
OUT = pathlib.Path(__file__).resolve().parent.parent

TALKS = {}
TALKS["security_panel"] = ("""# Panelists, exactly as named in the transcript: Ingrid Halvorsen, Paulo
# speaker keys: ingrid, paulo (first name, lowercased, ascii-folded); both = both answered; none = decline.
# The two closing answers ("Pin your dependencies..." / "Turn on two-factor...") are not attributed in the
# transcript, so they are used only for `both` items.
""", [
("direct","ingrid","it was a wake-up call","What did the compression tool backdoor teach the people who maintain libraries?"),
("direct","ingrid","two people have to approve every release","What did Ingrid's project change after the backdoor incident?"),
("direct","paulo","the long patient version is rare","How common are supply chain attacks like that backdoor?"),
("direct","paulo","a package named almost like a popular one","What is typosquatting?"),
("direct","paulo","They do scan, but attackers test against the scanners","Why don't package registries just scan everything before it's published?"),
("direct","ingrid","It helps, but it is not the fix people think","Does money actually fix the problems of overworked maintainers?"),
("direct","paulo","take about twice as long to ship a fix","How do projects with a single maintainer compare when a vulnerability is reported?"),
("direct","ingrid","paid for a security audit","What did the grant pay for?"),
("direct","ingrid","maintainers can help a lot by signing releases","How can maintainers protect users against typosquats?"),
("paraphrase","ingrid","spent years earning trust as a co-maintainer","How did the intruder worm their way into the project?"),
("paraphrase","ingrid","No code review process catches that","Why couldn't inspecting patches have stopped that kind of infiltration?"),
("paraphrase","paulo","we found a few thousand of those a month","How many look-alike uploads turn up on npm and PyPI, roughly?"),
("paraphrase","paulo","fetch the payload only after install","How do the sneaky malicious uploads slip past automated inspection?"),
("paraphrase","paulo","We have had more luck with reputation signals","What hints, besides reading the source, have worked better to flag fakes?"),
("paraphrase","ingrid","money does not create a second trusted maintainer","Did the cash they got solve everything for her library?"),
("paraphrase","paulo","Projects with a single maintainer take about twice as long","Does a lone caretaker slow down remedies once a bug is disclosed?"),
("paraphrase","ingrid","people who want commit access quickly","What harder line do they take now with newcomers seeking write permissions?"),
("paraphrase","paulo","Most get removed within days","How long do shady uploads linger before being pulled?"),
("both","both","Pin your dependencies and read the diff","What's one habit every developer should pick up on Monday, according to the panel?"),
("both","both","It helps, but it is not the fix people think","What did both panelists say about funding maintainers?"),
("both","both","a typosquat with a different key stands out","How do the two panelists think typosquatted packages can be caught?"),
("meta","ingrid","leading the security response team at Lattice","What does Ingrid do?"),
("meta","paulo","I study software supply chains","Who is Paulo and what does he research?"),
("addressed","ingrid","two people have to approve every release","Paulo, how did your project change its release process after the backdoor?"),
("addressed","paulo","What we see most in the registries is typosquatting","Ingrid, what kind of attack shows up most in the registries?"),
("addressed","ingrid","The audit found three real bugs","Ingrid, did the security audit find anything?"),
("typo","paulo","a package named almost like a popular one","wat is typosqatting exactly?"),
("typo","ingrid","The attacker spent years earning trust","how did the atacker get trust of the mantainer"),
("near_miss","none",None,"How do I compress a video file small enough to email?"),
("near_miss","none",None,"What was the exact name of the compression tool that got backdoored?"),
("near_miss","none",None,"How much money was Ingrid's grant?"),
("near_miss","none",None,"Which package registry had the most typosquats last month?"),
("near_miss","none",None,"How do I set up a supply chain for my bakery?"),
("near_miss","none",None,"Should I turn on two-factor authentication for my bank account?"),
("offtopic","none",None,"What's a good pizza place downtown?"),
("offtopic","none",None,"How tall is Mount Everest?"),
])

TALKS["energy_panel"] = ("""# Panelists, exactly as named in the transcript: Kenji, Renée Dubois, Amara Okonkwo
# speaker keys: kenji, renee, amara (first name, lowercased, ascii-folded); both = several panelists answered.
# Unattributed/ambiguous turns ("And we are nowhere near enough storage yet", "I'd push back a little on
# the spreadsheet point") are not used as gold. The closing three answers are attributed by content
# (transmission permitting = grid operator, storage test standard = battery chemist, patient capital = investor)
# and used only in a `both` item.
""", [
("direct","kenji","mostly gas turbines and the spinning mass of big generators","When the sun goes down and the wind stops, what keeps the grid stable today?"),
("direct","kenji","inverters have no inertia","Why do solar and wind make grid stability harder?"),
("direct","renee","the cells do not need cobalt or nickel","Why is Voltaic working on sodium instead of lithium?"),
("direct","renee","manufacturing yield and cycle life data","What's the hardest part of getting a new cell chemistry from the lab to a utility?"),
("direct","renee","the first cells swelled after a few hundred cycles","What was the surprise with the electrolyte?"),
("direct","amara","the cost curve, the team","How does the investor tell which technologies will actually make it?"),
("direct","kenji","it is smaller than the press releases","Are virtual power plants real or hype?"),
("direct","amara","The hardware is becoming a commodity","Why fund the forecasting software instead of the hardware?"),
("direct","renee","Four-hour lithium systems are fine for the evening peak","Are four-hour lithium batteries good enough for the grid?"),
("paraphrase","kenji","That inertia buys us a few seconds","What gives the network a brief cushion when a big unit suddenly drops offline?"),
("paraphrase","renee","The materials are abundant","What makes the salt-based alternative attractive compared to what powers phones?"),
("paraphrase","renee","A utility wants ten years of degradation data","Why won't power companies commit to an unproven battery type quickly?"),
("paraphrase","renee","we run accelerated aging tests around the clock","How do they speed up proof that packs will last?"),
("paraphrase","amara","a customer who will sign a purchase agreement","What does the VC look for before writing a check?"),
("paraphrase","kenji","it behaves differently from a power plant","Can thousands of households' gadgets really stand in for a generating station?"),
("paraphrase","amara","I fund the forecasting layer rather than the hardware","Where is her money going in that space: devices or prediction code?"),
("paraphrase","amara","Policy risk is the part of the model","Which piece of her financial projections does the investor doubt the most?"),
("paraphrase","kenji","maybe sixty megawatts we can call on","How much dispatchable capacity do all those residential devices add up to?"),
("paraphrase","kenji","People override their thermostats, internet connections drop","Why is it tricky to rely on home gear during a heat wave?"),
("both","both","Permitting for transmission lines","If each panelist could change one thing in the next five years, what would it be?"),
("both","both","it is smaller than the press releases","What did the grid operator and the investor each say about virtual power plants?"),
("meta","kenji","the head of grid operations at Pacific Power","What does Kenji do?"),
("meta","amara","a partner at Greenfield Capital","Who is Amara?"),
("meta","renee","the team working on sodium-ion cells","What is Renée working on?"),
("addressed","kenji","We run a program with about forty thousand home batteries","Renée, do you think virtual power plants are just hype?"),
("addressed","renee","manufacturing yield and cycle life data","Amara, what's the hardest part of bringing a new battery to market?"),
("addressed","amara","I want to see the spreadsheet","Amara, what do you want founders to show you?"),
("typo","kenji","mostly gas turbines and the spinning mass","wat keeps teh grid stabel at nite when no sun"),
("typo","renee","That is why we work on sodium","why sodum ion insted of lithum?"),
("near_miss","none",None,"How do I make my phone battery last longer?"),
("near_miss","none",None,"What's Pacific Power's electricity rate per kilowatt hour?"),
("near_miss","none",None,"How much money is in Greenfield Capital's latest fund?"),
("near_miss","none",None,"How do I use CSS grid to lay out a web page?"),
("near_miss","none",None,"Should I put solar panels on my roof?"),
("near_miss","none",None,"When will Voltaic's sodium-ion cells go on sale?"),
("offtopic","none",None,"Who wrote Pride and Prejudice?"),
("offtopic","none",None,"What's a good stretch for lower back pain?"),
])

TALKS["four_panel"] = ("""# Panelists, exactly as named in the transcript: Mary Jane Okafor, 王芳 (Wang Fang), Siobhán O'Neill, D'Andre
# speaker keys used here: mary jane, wang fang, siobhan, d'andre (given name as used on stage, lowercased,
# ascii-folded; 王芳 goes by "Wang Fang"). Remap if the product keys these panelists differently.
# The closing "emulators and the physics models will merge" answer is unattributed: used only in `both`.
# "I'd disagree a bit with the weather part" is attributed to Siobhán by content (data assimilation, "our analysis").
""", [
("direct","mary jane","For the ocean models it is resolution","What slows down the ocean modelling work the most?"),
("direct","wang fang","For us it is memory bandwidth","What's the biggest bottleneck for the hardware architect?"),
("direct","siobhan","it's the volume of observations","What slows down data assimilation the most?"),
("direct","d'andre","Training data. Our emulators are only as good","What holds back the machine learning emulators?"),
("direct","d'andre","I would not trust them alone yet","Can a neural network really replace a physics model for climate?"),
("direct","mary jane","We run it backwards first","How do you know a hundred-year simulation is right?"),
("direct","wang fang","far more memory close to the compute units","What would Wang Fang change in the hardware if designing from scratch?"),
("paraphrase","mary jane","Eddies smaller than ten kilometres","Why can't the sea simulations just zoom in further?"),
("paraphrase","wang fang","the chip spends most of its time waiting on memory","Why do the processors sit idle during fluid solving?"),
("paraphrase","siobhan","deciding which ones to trust before the next forecast cycle","What's the hardest call her team makes with all that satellite input every few hours?"),
("paraphrase","d'andre","run in seconds instead of hours on a supercomputer","Are learned weather predictors already as good as the traditional approach for the coming week?"),
("paraphrase","siobhan","they start from our analysis","Why did the European centre's lead push back on the learned predictors?"),
("paraphrase","d'andre","we depend on your analysis completely","Did the Stormline engineer concede that his forecasts lean on the traditional pipeline?"),
("paraphrase","wang fang","keeping the whole grid tile in on-chip memory","If she designed a processor from a blank slate, what's the real win?"),
("paraphrase","mary jane","we run large ensembles so we see the spread","How do they avoid betting everything on a single projection?"),
("both","both","the chips will follow","Where will the field be in five years, according to the panel?"),
("both","both","only as good as the simulations","What does each panelist say slows their work down most?"),
("meta","mary jane","I run the ocean modelling group","Who is Mary Jane?"),
("meta","wang fang","we design accelerators for weather and fluid simulation","What does Wang Fang do?"),
("meta","siobhan","I lead the data assimilation team","What does Siobhán do at the European Forecast Centre?"),
("meta","d'andre","we train neural networks to emulate the physics models","What does D'Andre work on?"),
("addressed","siobhan","they start from our analysis","D'Andre, why are the learned weather models only competitive because of physics?"),
("addressed","mary jane","reproduce the last hundred and fifty years","Mary Jane, how do you test a model against the past?"),
("typo","siobhan","billions of satellite readings a day","how many satelite readins do they get each day"),
("typo","d'andre","the learned models are already competitive","can nueral nets replace wether models?"),
("near_miss","none",None,"What will the weather be in Dublin next Tuesday?"),
("near_miss","none",None,"How much does a Tessellate accelerator cost?"),
("near_miss","none",None,"How do I model a 3D ocean scene in Blender?"),
("near_miss","none",None,"Which GPU should I buy to train my own weather model at home?"),
("near_miss","none",None,"What was the exact global temperature rise predicted for 2100?"),
("offtopic","none",None,"What's the best way to learn to play guitar?"),
("offtopic","none",None,"Can you recommend a good sci-fi novel?"),
])

def norm(s): return re.sub(r"\s+", " ", s).strip()
from collections import Counter
for name, (header, items) in TALKS.items():
    src = norm((FIX / f"{name}_clean.txt").read_text())
    out = []
    bad = 0
    for kind, spk, text, q in items:
        assert (spk == "none") == (text is None), q
        if text is not None:
            n = len(text.split())
            if not (4 <= n <= 10):
                print("LEN", n, text); bad += 1
            if norm(text) not in src:
                print("NOT VERBATIM:", text); bad += 1
            if kind == "paraphrase":
                sh = words(q) & words(text)
                if sh: print("PARA overlap", sorted(sh), q); bad += 1
        d = {"question": q, "speaker": spk}
        if text is not None: d["text"] = text
        d["kind"] = kind
        out.append(d)
    (OUT / f"{name}_questions.yaml").write_text(header + yaml.safe_dump(out, sort_keys=False, allow_unicode=True, width=120))
    print(name, len(out), dict(Counter(k for k, *_ in items)), "problems:", bad)
