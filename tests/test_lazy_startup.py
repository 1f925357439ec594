"""What start-up skips must not change behaviour: the parser built for one command group parses exactly as
the whole parser."""

from __future__ import annotations

import pytest

from panelbot.cli.main import COMMANDS, build_parser, command_group

ARGVS = [
    ["ask", "--offline", "kv cache"],
    ["--panel", "minimax-m3", "ask", "-k", "3", "--json", "what", "about", "kv"],
    ["--panel=ask", "quote", "-n", "2", "batching"],
    ["--pan", "history", "ask", "x"],
    ["--config", "c.yaml", "--panel", "p", "quote", "--speaker", "dan", "q"],
    ["panels", "--json"],
    ["ingest", "captions.vtt", "--out", "d"],
    ["check", "--json"],
    ["eval", "eval/final.yaml"],
    ["history", "show", "1"],
    ["cache", "info"],
    ["serve", "--port", "0"],
    ["mcp"],
]


@pytest.mark.parametrize("argv", ARGVS, ids=" ".join)
def test_one_group_parses_as_the_whole_parser(argv: list[str]) -> None:
    group = command_group(argv)
    assert group is not None
    try:
        full = vars(build_parser().parse_args(argv))
    except SystemExit as exc:  # a usage error must be the same error
        with pytest.raises(SystemExit) as again:
            build_parser(group).parse_args(argv)
        assert again.value.code == exc.code
        return
    assert vars(build_parser(group).parse_args(argv)) == full


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["--help"],
        ["-h", "ask"],
        ["--resume", "ask"],
        ["--resume"],
        ["--version"],
        ["nonsense"],
        ["--", "ask"],
        ["--p", "x", "ask"],
    ],
)
def test_anything_unsure_builds_every_group(argv: list[str]) -> None:
    assert command_group(argv) is None


def test_every_command_is_mapped_to_the_group_that_adds_it() -> None:
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    assert list(sub.choices) == list(COMMANDS)
    for name, group in COMMANDS.items():
        one = next(a for a in build_parser(group)._actions if a.dest == "command")
        assert name in one.choices
