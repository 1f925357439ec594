"""Every regular expression ingest runs on a file's text, run against adversarial text (a property test with
hypothesis), one JSON line per expression on stdout as each finishes. Run by tests/test_ingest_faults.py in a
subprocess with a time budget: a pattern that backtracks catastrophically never finishes its line, and the
parent names it instead of hanging.

The expressions are found in the source, not listed by hand: every ``re.<function>(PATTERN, ...)``,
``re.compile(...)`` and ``LazyPattern(...)`` call in ``panelbot/ingest/*.py`` (a "site"). A pattern that is a
constant of its module (a literal, or an f-string of module constants) is evaluated from the source; one built
at run time (a name pattern made from the panelists' names) is recorded while ``panelbot ingest`` runs on the
fixture talks, up to a few variants per site.

Usage: python tests/ingest_regex_probe.py list | probe [SITE ...]
"""

from __future__ import annotations

import ast
import contextlib
import io
import json
import re
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
INGEST = ROOT / "panelbot" / "ingest"
FIXTURES = ROOT / "tests" / "fixtures"
# the talks ingested to record patterns built at run time: one per format and speaker-marking style
RECORD_ON = [
    "accents_panel.vtt",
    "accents_panel.srt",
    "coffee_panel.json3",
    "four_panel_captions.txt",
    "museum_panel.srt",
    "host_intro_captions.txt",
    "volcano_interview.vtt",
    "transcripts/whisperx_diarized.json",
    "transcripts/podcast_labelled.srt",
    "lowered/choir_panel_lc.vtt",  # no capitals or punctuation: ingest.restore's expressions
]
LABELLED_SRT = "".join(
    f"{i}\n00:00:{2 * i:02d},000 --> 00:00:{2 * i + 1:02d},500\n{line}\n\n"
    for i, line in enumerate(
        [
            "MODERATOR: Welcome everyone. Let's start with storage. What breaks first?",
            "PRIYA: Hi, I'm Priya. Disks fail all the time, so we replicate every volume three times.",
            "MARCUS: I'm Marcus. For robots it is the grasping policy, not the hardware, that fails.",
            "MODERATOR: Marcus, how do you test that before it reaches a warehouse?",
            "MARCUS: In simulation first, then on a real warehouse floor with people around.",
            "MODERATOR: Priya, how long does a rebuild take when a disk goes?",
            "PRIYA: About an hour for a full disk, and we throttle it so users never notice.",
        ],
        start=1,
    )
)
# panelbot.text expressions that ingest runs on file text (text.py's own audit covers the rest of that file)
EXTRA_SITES = {"text.py:split_sentences": ("panelbot.text", "_SENT_RE")}
REGEX_FUNCTIONS = {
    "compile",
    "search",
    "match",
    "fullmatch",
    "findall",
    "finditer",
    "sub",
    "subn",
    "split",
}
# where each function takes its flags positionally (re.search(pattern, string, flags) ...)
_FLAGS_AT = {
    "search": 2,
    "match": 2,
    "fullmatch": 2,
    "findall": 2,
    "finditer": 2,
    "split": 3,
    "sub": 4,
}
_FLAGS_AT |= {"subn": 4, "GuardedPattern": 1}
MAX_VARIANTS = 3  # run-time patterns tried per site
SIZE = 20_000  # characters of adversarial text per example
SLOW = 0.05  # seconds: an example slower than this is run again at 4x the size ...
GROWTH = 10.0  # ... and must then take under GROWTH times as long (linear: 4x; quadratic: 16x)
BUDGET = 1.0  # seconds for one example of SIZE characters (a linear pattern takes milliseconds)
EXAMPLES = 10


def _call_name(node: ast.Call) -> str | None:
    f = node.func
    if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "re":
        return f.attr if f.attr in REGEX_FUNCTIONS else None
    if isinstance(f, ast.Name) and f.id in ("LazyPattern", "GuardedPattern"):
        return f.id
    return None


def sites() -> list[dict]:
    """Every call site of a regular expression in panelbot/ingest, with its source span."""
    out: list[dict] = []
    for path in sorted(INGEST.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        parents: dict[ast.AST, ast.AST] = {}
        for node in ast.walk(tree):
            for child in ast.iter_child_nodes(node):
                parents[child] = node
        seen: dict[str, int] = {}
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            fn = _call_name(node)
            if fn is None:
                continue
            owner, up = "<module>", parents.get(node)
            while up is not None:
                if isinstance(up, ast.FunctionDef | ast.AsyncFunctionDef):
                    owner = up.name
                    break
                if isinstance(up, ast.Assign) and owner == "<module>":
                    targets = [t.id for t in up.targets if isinstance(t, ast.Name)]
                    owner = targets[0] if targets else owner
                up = parents.get(up)
            base = f"{path.name}:{owner}:{fn}"
            seen[base] = seen.get(base, 0) + 1
            at = _FLAGS_AT.get(fn, 1)
            flags = node.args[at] if len(node.args) > at else None
            flags = flags or next((k.value for k in node.keywords if k.arg == "flags"), None)
            out.append(
                {
                    "site": base if seen[base] == 1 else f"{base}#{seen[base]}",
                    "module": f"panelbot.ingest.{path.stem}",
                    "file": path.name,
                    "lines": [node.lineno, node.end_lineno],
                    "pattern_src": ast.unparse(node.args[0]),
                    "flags_src": ast.unparse(flags) if flags is not None else "0",
                    "how": "compile" if fn in ("LazyPattern", "GuardedPattern") else fn,
                }
            )
    for name in EXTRA_SITES:
        out.append({"site": name, "extra": True, "how": "split"})
    return out


def _static(site: dict) -> tuple[str, int] | None:
    """The site's pattern when it is a constant of its module (evaluated in the module's namespace)."""
    import importlib

    if site.get("extra"):
        module, attr = EXTRA_SITES[site["site"]]
        compiled = getattr(importlib.import_module(module), attr)
        compiled = getattr(compiled, "compiled", compiled)
        return compiled.pattern, compiled.flags
    namespace = dict(vars(importlib.import_module(site["module"])))
    try:
        pattern = eval(site["pattern_src"], namespace)  # noqa: S307 - our own source, parsed above
        flags = eval(site["flags_src"], namespace)  # noqa: S307
    except NameError:  # built from a function's locals: recorded at run time instead
        return None
    if isinstance(pattern, re.Pattern):
        return pattern.pattern, pattern.flags
    return (pattern, int(flags)) if isinstance(pattern, str) else None


def _record(wanted: list[dict]) -> dict[str, set[tuple[str, int]]]:
    """Patterns compiled by each wanted site while panelbot ingest runs on the fixture talks."""
    by_line: dict[tuple[str, int], str] = {}
    for s in wanted:
        for line in range(s["lines"][0], s["lines"][1] + 1):
            by_line[(s["file"], line)] = s["site"]
    seen: dict[str, set[tuple[str, int]]] = {}
    real_compile = re._compile  # type: ignore[attr-defined]

    def spy(pattern, flags):  # noqa: ANN001, ANN202 - re's private signature
        frame = sys._getframe(1)
        while frame is not None and frame.f_code.co_filename == re.__file__:
            frame = frame.f_back
        if frame is not None and isinstance(pattern, str):
            site = by_line.get((Path(frame.f_code.co_filename).name, frame.f_lineno))
            if site and Path(frame.f_code.co_filename).parent == INGEST:
                variants = seen.setdefault(site, set())
                if len(variants) < MAX_VARIANTS:
                    variants.add((pattern, int(flags)))
        return real_compile(pattern, flags)

    re._compile = spy  # type: ignore[attr-defined]
    re.purge()
    try:
        from panelbot.cli.main import main

        with tempfile.TemporaryDirectory() as tmp:
            labelled = (
                Path(tmp) / "labelled.srt"
            )  # speaker labels ("MODERATOR: …"), which no fixture talk has
            labelled.write_text(LABELLED_SRT, encoding="utf-8")
            for name in [*RECORD_ON, str(labelled)]:
                if not (FIXTURES / name).is_file():
                    continue
                out = Path(tmp) / Path(name).stem
                sink = io.StringIO()
                with (
                    contextlib.redirect_stdout(sink),
                    contextlib.redirect_stderr(sink),
                    contextlib.suppress(SystemExit),
                ):
                    main(["ingest", str(FIXTURES / name), "--out", str(out), "--force"])
    finally:
        re._compile = real_compile  # type: ignore[attr-defined]
    return seen


# Pieces of adversarial text: runs of whitespace, of letters, of punctuation, caption syntax (timings, tags,
# the change-of-speaker mark, labels), the words the cue and name expressions look for, non-ASCII letters.
PIECES = [
    " ",
    "\n",
    "\t",
    " \n",
    "\n\n",
    "a",
    "A",
    "aA",
    "a ",
    "A ",
    "Ab ",
    "ab",
    "a, ",
    "a,",
    "a.",
    ". ",
    ".",
    "?",
    "!",
    "'",
    "\u2019",
    "a'",
    "-",
    "a-",
    "\u2014",
    " - ",
    "0",
    "1",
    "0:",
    "1:2",
    ":",
    ": ",
    "a: ",
    "A: ",
    "<",
    "<a",
    "<a ",
    "<v ",
    "<c>",
    "</c>",
    "<00:00:01.000>",
    "00:00:01.000 --> 00:00:02.000",
    ">",
    ">>",
    ">> ",
    "[",
    "[a",
    "[A]: ",
    "(",
    "a)",
    "{\\",
    "}",
    "\u00e9",
    "\u00df",
    "\u0130",
    "\u0131",
    "#",
    "|",
    "*",
    "`",
    "=",
    ";",
    "so ",
    "and ",
    "yeah ",
    "um ",
    "mm ",
    "I'm ",
    "I ",
    "my name is ",
    "Dan ",
    "Dan, ",
    "Olive ",
    "Mary Jane ",
    "Dr. ",
    "who ",
    "at the ",
    "of ",
    "in ",
    "the ",
    "you ",
    "what ",
    "thank you ",
    "SPEAKER_00: ",
    "Speaker 1: ",
    "over to you ",
    "each of you ",
    "\u00a0",
]


def _strategy():  # noqa: ANN202 - a hypothesis strategy
    from hypothesis import strategies as st

    unit = st.one_of(
        st.lists(st.sampled_from(PIECES), min_size=1, max_size=3).map("".join),
        st.text(alphabet=" \n.,:;'-aA0<>[]()é", min_size=1, max_size=4),
    )
    edge = st.sampled_from(["", *PIECES])
    return st.tuples(edge, unit, edge)


# runs that made ingest's expressions backtrack before they were fixed: always tried first
KNOWN_BAD = [
    ("", " ", ""),
    ("", "\n", ""),
    ("", "a", ""),
    ("", "a ", "!"),
    ("\n\n", ".", "("),
    (" ", "A", "\u2014"),
    (" ", "[a,", "a-"),
    (">>", "\n", "<v "),
    (". ", "(.>", "Mary Jane "),
]


def _examples(test):  # noqa: ANN001, ANN202 - a hypothesis test
    from hypothesis import example

    for parts in KNOWN_BAD:
        test = example(parts)(test)
    return test


def _pump(prefix: str, unit: str, suffix: str, size: int) -> str:
    return prefix + unit * max(1, size // len(unit)) + suffix


def _run(pattern: re.Pattern[str], text: str, how: str) -> float:
    """Seconds to use ``pattern`` on ``text`` as its site does: ``match`` (anchored at the start), ``search``
    (the first match) or a scan for every match (findall, finditer, sub, split); a compiled pattern's uses
    are not known here, so all three."""
    t0 = time.perf_counter()
    if how in ("match", "fullmatch", "compile"):
        pattern.match(text)
    if how in ("search", "compile"):
        pattern.search(text)
    if how not in ("match", "fullmatch", "search"):
        for _ in pattern.finditer(text):
            pass
    return time.perf_counter() - t0


def probe_pattern(pattern: re.Pattern[str], how: str = "compile") -> str | None:
    """None when the pattern stays linear on every adversarial example, else the example that did not."""
    from hypothesis import HealthCheck, Phase, given, settings

    failure: list[str] = []

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=True,
        phases=[
            Phase.explicit,
            Phase.generate,
        ],  # no shrinking: a slow example would re-run for minutes
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(_strategy())
    @_examples
    def linear(parts: tuple[str, str, str]) -> None:
        if failure:  # one is enough
            return
        text = _pump(*parts, SIZE)
        took = _run(pattern, text, how)
        if took > BUDGET:
            failure.append(f"{parts!r}: {took:.2f}s at {len(text)} chars")
        elif took > SLOW:  # slowish at this size: does it grow faster than the text?
            bigger = _run(pattern, _pump(*parts, 4 * SIZE), how)
            if bigger > GROWTH * took:
                failure.append(f"{parts!r}: {took:.2f}s at {len(text)} chars, {bigger:.2f}s at 4x")

    linear()  # records the first failure instead of raising: hypothesis would run it again to report it
    return failure[0] if failure else None


def main(argv: list[str]) -> int:
    all_sites = sites()
    if argv[:1] == ["list"]:
        print(json.dumps([s["site"] for s in all_sites]))
        return 0
    wanted = [s for s in all_sites if not argv[1:] or s["site"] in argv[1:]]
    static = {s["site"]: _static(s) for s in wanted}
    recorded = _record([s for s in wanted if static[s["site"]] is None])
    for s in wanted:
        variants = [static[s["site"]]] if static[s["site"]] else sorted(recorded.get(s["site"], ()))
        result: dict = {"site": s["site"], "patterns": len(variants), "failures": []}
        for pattern, flags in variants:
            why = probe_pattern(re.compile(pattern, flags), s["how"])
            if why:
                result["failures"].append({"pattern": pattern[:200], "example": why})
        print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
