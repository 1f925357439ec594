"""What start-up skips must not change behaviour: the parser built for one command group parses exactly as
the whole parser, and the user directories worked out without platformdirs are the ones it gives."""

from __future__ import annotations

import itertools
import sys

import platformdirs
import pytest

from panelbot import paths
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


@pytest.mark.skipif(sys.platform != "linux", reason="the shortcut is for Linux only")
def test_user_dirs_match_platformdirs(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("PANELBOT_DATA_DIR", "PANELBOT_CONFIG", "PANELBOT_CACHE_DIR"):
        monkeypatch.delenv(var, raising=False)
    for home, xdg in itertools.product(
        ["/home/u", "/home/u/", "/", "relative"], [None, "", "rel/dir", "/abs/x", "/abs/y/", "~/t"]
    ):
        monkeypatch.setenv("HOME", home)
        for var in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"):
            if xdg is None:
                monkeypatch.delenv(var, raising=False)
            else:
                monkeypatch.setenv(var, xdg)
        try:
            want = (
                platformdirs.user_data_path("panelbot", appauthor=False),
                platformdirs.user_config_path("panelbot", appauthor=False) / "config.yaml",
                platformdirs.user_cache_path("panelbot", appauthor=False),
            )
        except RuntimeError:  # platformdirs cannot place a relative home either way
            continue
        assert (paths.user_data_dir(), paths.user_config_path(), paths.user_cache_dir()) == want, (
            home,
            xdg,
        )
