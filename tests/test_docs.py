"""The README and docs/: every relative link and #anchor resolves (GitHub's heading slugs), the
README stays short, and its two set-up commands are the ones CI runs."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^\s*(```|~~~)")


def prose_lines(text: str) -> list[str]:
    """The lines outside fenced code blocks (a '# comment' in a code block is not a heading)."""
    out, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            out.append(line)
    return out


def github_slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    for line in prose_lines(page.read_text(encoding="utf-8")):
        m = re.match(r"#{1,6}\s+(.*)", line)
        if not m:
            continue
        slug = github_slug(m.group(1))
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def links(page: Path) -> list[str]:
    """The link targets outside code (a `[id](url)` in a code span is an example, not a link)."""
    lines = prose_lines(page.read_text(encoding="utf-8"))
    return [t for line in lines for t in LINK.findall(re.sub(r"`[^`]*`", "", line))]


def test_github_slug_matches_githubs_rules() -> None:
    assert (
        github_slug("Many talks: `--all` and the saved index")
        == "many-talks---all-and-the-saved-index"
    )
    assert github_slug("The shipped panel's curation") == "the-shipped-panels-curation"
    assert github_slug("Current figures (idle machine)") == "current-figures-idle-machine"
    assert github_slug("Routing latency on 20,000 quotes") == "routing-latency-on-20000-quotes"


def test_every_relative_link_and_anchor_resolves() -> None:
    broken = []
    for page in PAGES:
        for target in links(page):
            if re.match(r"[a-z]+:", target):  # https:, mailto: ...
                continue
            path, _, anchor = target.partition("#")
            dest = (page.parent / path).resolve() if path else page
            if not dest.exists():
                broken.append(f"{page.name}: {target} (no such file)")
            elif anchor and (dest.is_dir() or anchor not in anchors(dest)):
                broken.append(f"{page.name}: {target} (no such heading)")
    assert broken == []


def test_the_checker_finds_a_broken_anchor(tmp_path: Path) -> None:
    page = tmp_path / "a.md"
    page.write_text(
        "# Title\n\n```sh\n# not a heading\n```\n[x](#title) [y](#not-a-heading) `[z](url)`\n"
    )
    assert anchors(page) == {"title"}
    assert links(page) == ["#title", "#not-a-heading"]


def test_readme_is_short_and_its_commands_are_the_ones_ci_runs() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 200
    run = "python3 -m venv .venv && .venv/bin/pip install -e . && .venv/bin/panelbot"
    test = "python3 -m venv .venv && .venv/bin/pip install -e '.[dev]' && .venv/bin/python -m pytest -n auto"
    assert run in readme.splitlines() and test in readme.splitlines()
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert test.replace("pip install -e", "pip install -q -e") in ci.splitlines()


def test_the_readme_quotes_no_self_test_figure_that_can_drift() -> None:
    """``panelbot check`` prints the self-test's figures itself, and they move with the code and with the
    meaning model installed or not (a trial read "7/8 traps" in the README while check printed 8/8): the
    README says what check prints, not a count."""
    import re

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert not re.search(r"\d+/\d+ (?:off-topic traps|host questions)", readme)
    assert "panelbot check minimax-m3" in readme


def test_the_first_conversation_says_how_the_app_answers_with_a_model() -> None:
    """A new user reading only "A first conversation" learns how the app answers with a model (a trial
    found it only implied) and where the app says so itself."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    first = readme.split("## A first conversation", 1)[1].split("\n## ", 1)[0]
    assert "PANELBOT_BACKEND=openai panelbot" in first and "`/model`" in first


def test_every_slash_command_of_the_app_is_in_docs_app() -> None:
    from panelbot.tui.engine import COMMANDS

    page = (ROOT / "docs" / "app.md").read_text(encoding="utf-8")
    assert [c.name for c in COMMANDS if f"`/{c.name}" not in page] == []
