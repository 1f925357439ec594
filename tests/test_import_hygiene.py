"""``ask --offline``, ``quote`` and the core modules must not pull in Textual or httpx (start-up time)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

HEAVY = ("textual", "httpx", "httpcore")
SERVER_STACK = ("starlette", "uvicorn", "mcp", "anyio", "pydantic", "openai")  # the serve extra
# only `panelbot web` / `panelbot completion` import these
WEB_AND_COMPLETION = ("aiohttp", "textual_serve", "shtab")

_RUN_MAIN = """
import io, json, sys
from contextlib import redirect_stdout, redirect_stderr
argv = json.loads(sys.argv[1])
import panelbot.cli
code = None
if argv is not None:
    buf, err = io.StringIO(), io.StringIO()
    with redirect_stdout(buf), redirect_stderr(err):
        try:
            code = panelbot.cli.main(argv)
        except SystemExit as exc:
            code = exc.code
heavy = sorted({m.split(".")[0] for m in sys.modules} & set(json.loads(sys.argv[2])))
print(json.dumps({"code": code, "heavy": heavy}))
"""


def _loaded(isolated_env: dict[str, str], argv: list[str] | None) -> dict:
    r = subprocess.run(
        [sys.executable, "-c", _RUN_MAIN, json.dumps(argv), json.dumps(list(HEAVY))],
        capture_output=True,
        text=True,
        env=isolated_env,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize(
    "argv",
    [
        None,  # just `import panelbot.cli`
        ["ask", "--offline", "How do you deal with a KV cache that keeps growing?"],
        ["ask", "--offline", "--json", "best pizza in Naples?"],
        ["quote", "-n", "3", "sparse attention"],
        ["quote", "--json", "open source"],
        ["--help"],
        ["ask", "--help"],
        ["panels"],
        ["serve", "--help"],
        ["mcp", "--help"],
        ["ask", "--offline", "--all", "kv cache"],
        ["quote", "--all", "-n", "2", "kernels"],
        ["cache", "info"],
        ["web", "--help"],
        ["completion", "--help"],
        ["panels", "--names"],
        ["history", "--ids"],
        ["discuss", "open source"],
        ["discuss", "--json", "kv cache"],
    ],
)
def test_cli_paths_do_not_import_textual_or_httpx(isolated_env, argv) -> None:
    got = _loaded(isolated_env, argv)
    if argv is not None:
        assert got["code"] in (0, None)
    assert got["heavy"] == []


@pytest.mark.parametrize(
    "argv",
    [
        None,
        ["ask", "--offline", "sparse attention"],
        ["quote", "kv cache"],
        ["--help"],
        ["serve", "--help"],
        ["mcp", "--help"],
        ["web", "--help"],
        ["completion", "--help"],
        ["panels", "--names"],
        ["history", "--ids"],
        ["mcp", "--config-snippet"],
    ],
)
def test_cli_paths_do_not_import_the_server_stack(isolated_env, argv) -> None:
    """Starlette, uvicorn and the MCP SDK load only when ``serve`` or ``mcp`` actually runs; aiohttp,
    textual-serve and shtab only when ``web`` or ``completion`` does."""
    stack = [*SERVER_STACK, *WEB_AND_COMPLETION]
    r = subprocess.run(
        [sys.executable, "-c", _RUN_MAIN, json.dumps(argv), json.dumps(stack)],
        capture_output=True,
        text=True,
        env=isolated_env,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout.strip().splitlines()[-1])["heavy"] == []


@pytest.mark.parametrize(
    "module",
    [
        "ingest.captions",
        "ingest.speakers",
        "ingest.draft",
        "panel",
        "panel.model",
        "panel.loader",
        "retrieval.router",
        "retrieval.index",
        "retrieval.vocabulary",
        "retrieval.cache",
        "retrieval.library",
        "config",
        "retrieval.evaluation",
        "text",
        "answer.compose",
        "answer.events",
        "retrieval.results",
        "retrieval.lexicon",
        "errors",
        "paths",
        "panel.yaml_lines",
        "discussion.pairing",
        "discussion.stage",
        "discussion.render",
        "discussion.voices",
    ],
)
def test_core_modules_do_not_import_textual(isolated_env, module: str) -> None:
    code = (
        f"import sys, panelbot.{module}; "
        f"print(sorted({{m.split('.')[0] for m in sys.modules}} & {set(HEAVY)!r}))"
    )
    r = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=isolated_env, timeout=60
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"


def _imported_by_ask(env: dict[str, str], question: str = "kv cache") -> set[str]:
    r = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "panelbot", "ask", "--offline", question],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    return {
        line.split("|")[-1].strip().split(".")[0] for line in r.stderr.splitlines() if "|" in line
    }


# what a warm start (saved index, config already parsed once) needs none of: YAML, rapidfuzz (only a word
# to correct needs it), numpy (only a bank of thousands of quotes needs it: panelbot.retrieval.semantic),
# shutil (panelbot.text.terminal_columns), locale (argparse's gettext). (The standard library's dataclasses
# and typing are allowed since the semantic step: a few milliseconds, measured by benchmarks/startup.py.)
# shutil holds here because the tests set PANELBOT_CACHE_DIR, _DATA_DIR and _CONFIG: a user's start finds
# its directories through platformdirs, which imports tempfile and shutil (~4-5 ms, under the 10 ms that
# kept a hand-rolled copy of its Linux rules in panelbot/paths.py until it was retired).
# (numpy is imported: the sentence encoder runs in it, panelbot/retrieval/encoder.py)
WARM_NEVER = {"yaml", "rapidfuzz", "shutil", "locale", "zipfile", "torch", "tokenizers"}


def test_importtime_of_ask_offline(isolated_env) -> None:
    """Cross-check with ``python -X importtime`` through the real entry point: the first start reads the YAML
    (and builds the index); a warm one loads none of the heavy modules."""
    first = _imported_by_ask(isolated_env)
    assert "panelbot" in first and "yaml" in first
    assert not first & set(HEAVY)
    warm = _imported_by_ask(isolated_env)
    assert "panelbot" in warm
    assert not warm & (set(HEAVY) | WARM_NEVER)
    # a misspelt panel word still gets corrected: rapidfuzz is imported then, and only then
    assert "rapidfuzz" in _imported_by_ask(isolated_env, "reinforcment lerning environments")


def test_a_question_asking_for_no_discussion_imports_no_staging(isolated_env) -> None:
    """Every message is read as a possible discussion request first; only a request stages one, so a plain
    question loads none of the staging modules (panelbot/discussion/turn.py imports them where used)."""
    _imported_by_ask(isolated_env)  # the first start: the index built and saved
    r = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "panelbot", "ask", "--offline", "kv cache"],
        capture_output=True,
        text=True,
        env=isolated_env,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    loaded = {line.split("|")[-1].strip() for line in r.stderr.splitlines() if "|" in line}
    assert "panelbot.discussion.turn" in loaded
    staging = {
        f"panelbot.discussion.{m}" for m in ("stage", "pairing", "followups", "render", "voices")
    }
    assert not loaded & staging


def test_documented_plugin_import_path_still_works() -> None:
    """docs/generative-answers.md's "Your own backend": ``from panelbot.backends.base import ...`` must keep working."""
    from panelbot.answer.backends import base as real
    from panelbot.backends import base as documented

    for name in (
        "Backend",
        "SpeakerDone",
        "TextDelta",
        "AnswerRequest",
        "Citation",
        "Message",
        "BackendError",
    ):
        assert getattr(documented, name) is getattr(real, name)


CORE_PACKAGES = ("panelbot.ingest", "panelbot.panel", "panelbot.retrieval")
FRONT_AND_ANSWER = (
    "panelbot.answer",
    "panelbot.tui",
    "panelbot.cli",
    "panelbot.serve",
    "panelbot.backends",
)


def _core_modules() -> list[str]:
    import pkgutil

    import panelbot

    root = Path(panelbot.__file__).parent
    names = []
    for pkg in CORE_PACKAGES:
        sub = root / pkg.split(".", 1)[1]
        names.append(pkg)
        names += [f"{pkg}.{m.name}" for m in pkgutil.iter_modules([str(sub)])]
    return names


@pytest.mark.parametrize("module", _core_modules())
def test_core_packages_do_not_import_answer_ui_cli_or_servers(isolated_env, module: str) -> None:
    """ingest, panel and retrieval sit below answering and every front end: importing any of their modules
    loads nothing from answer/, tui/, cli/, serve/ (and so neither Textual nor httpx)."""
    code = (
        f"import sys, {module}; "
        f"print(sorted(m for m in sys.modules if m.startswith({FRONT_AND_ANSWER!r}) "
        f"or m.split('.')[0] in {set(HEAVY)!r}))"
    )
    r = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=isolated_env, timeout=60
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]", f"{module} pulls in {r.stdout.strip()}"


_OUTSIDE_THE_TUI = """
import importlib, json, sys
from pathlib import Path
import panelbot
root = Path(panelbot.__file__).parent  # listed from the files: walk_packages would import every package
names = sorted(".".join(("panelbot", *f.relative_to(root).with_suffix("").parts)).removesuffix(".__init__")
               for f in root.rglob("*.py"))
names = [n for n in names if not n.startswith("panelbot.tui") and not n.endswith("__main__")]
offenders = {}
for name in names:
    importlib.import_module(name)
    loaded = sorted(m for m in sys.modules if m == "panelbot.tui" or m.startswith("panelbot.tui.")
                    or m.split(".")[0] == "textual")
    if loaded:
        offenders[name] = loaded
        break
print(json.dumps({"modules": names, "offenders": offenders}))
"""


def test_nothing_outside_the_tui_imports_it(isolated_env) -> None:
    """The terminal app is a leaf: no module outside ``panelbot.tui`` (core, answering, the CLI, the servers)
    imports it or Textual when imported; the CLI's ``panelbot`` (no arguments) reaches it only when it runs."""
    r = subprocess.run(
        [sys.executable, "-c", _OUTSIDE_THE_TUI],
        capture_output=True,
        text=True,
        env=isolated_env,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout.strip().splitlines()[-1])
    assert "panelbot.conversation.store" in got["modules"] and "panelbot.cli.app" in got["modules"]
    assert got["offenders"] == {}, f"imported the TUI: {got['offenders']}"
