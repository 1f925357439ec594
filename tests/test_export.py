"""Markdown export: content, atomic write, never clobbering a file unasked."""

from __future__ import annotations

import os
from datetime import datetime, timezone
from pathlib import Path

import pytest

from panelbot.conversation.export import (
    ExportMessage,
    conversation_markdown,
    default_export_name,
    write_export,
)

WHEN = datetime(2026, 11, 30, 9, 0, tzinfo=timezone.utc)


def _md() -> str:
    msgs = [
        ExportMessage("user", "", "How big is the KV cache?\x1b[31m"),
        ExportMessage("assistant", "Dan", "\u201cIt grows.\u201d [dan-007]", ["dan-007"]),
        ExportMessage("decline", "Host", "We didn't cover that; ask about RL."),
    ]
    lookup = {"dan-007": ("Dan", "It grows.")}.get
    return conversation_markdown(
        "KV cache", "Agents at Scale", msgs, quote_lookup=lookup, exported_at=WHEN
    )


def test_markdown_has_speakers_quotes_and_ids() -> None:
    md = _md()
    assert md.startswith("# KV cache\n")
    assert "Panel: Agents at Scale" in md
    assert "## You\n\nHow big is the KV cache?\n" in md
    assert "\x1b" not in md
    assert "### Dan" in md
    assert (
        "- `dan-007` (Dan)\n" in md
    )  # its words are in the answer: listed by id, not written twice
    assert md.count("It grows.") == 1
    assert "### Host (declines)" in md
    assert "2026-11-30 09:00 UTC" in md


def test_default_name() -> None:
    assert (
        default_export_name("What is M3? [bold]", WHEN)
        == "panelbot-what-is-m3-bold-20261130-090000.md"
    )
    assert default_export_name("", WHEN).startswith("panelbot-conversation-")


def test_quote_not_in_the_answer_text_is_written_out_once() -> None:
    msgs = [
        ExportMessage("assistant", "Dan", "In my words.", ["dan-007", "dan-007"]),
        ExportMessage("assistant", "Dan", "Again.", ["dan-007"]),
    ]
    lookup = {"dan-007": ("Dan", "It grows.")}.get
    md = conversation_markdown("KV", "P", msgs, quote_lookup=lookup, exported_at=WHEN)
    assert md.count("\u201cIt grows.\u201d") == 1
    assert md.count("- `dan-007` (Dan)") == 2  # once per answer that used it


def test_empty_messages_make_no_section() -> None:
    md = conversation_markdown(
        "KV", "P", [ExportMessage("assistant", "Olive", "  ", [])], exported_at=WHEN
    )
    assert "### Olive" not in md


def test_write_creates_file_and_leaves_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "sub" / "out.md"
    assert write_export(target, "hello\n") == target
    assert target.read_text() == "hello\n"
    assert os.listdir(target.parent) == ["out.md"]


def test_never_clobbers_without_overwrite(tmp_path: Path) -> None:
    target = tmp_path / "out.md"
    target.write_text("precious")
    with pytest.raises(FileExistsError):
        write_export(target, "new")
    assert target.read_text() == "precious"
    assert os.listdir(tmp_path) == ["out.md"]
    write_export(target, "new", overwrite=True)
    assert target.read_text() == "new"
    assert os.listdir(tmp_path) == ["out.md"]


def test_directory_target_is_refused(tmp_path: Path) -> None:
    with pytest.raises(IsADirectoryError):
        write_export(tmp_path, "x")


def test_a_quote_shown_in_two_answers_is_written_once_then_named_by_id() -> None:
    first = "It grows with every token."
    second = "You store it somewhere else."
    msgs = [
        ExportMessage("user", "", "How big is the KV cache?"),
        ExportMessage("assistant", "Dan", f"\u201c{first}\u201d [dan-1]", ["dan-1"]),
        ExportMessage("user", "", "and where does it go?"),
        # the same quote again, merged with a new one into one passage (re-wrapped: spaces differ)
        ExportMessage(
            "assistant",
            "Dan",
            f"\u201cIt grows with\n every token. {second}\u201d [dan-1] [dan-2]",
            ["dan-1", "dan-2"],
        ),
        ExportMessage("user", "", "say that again"),
        ExportMessage("assistant", "Dan", f"\u201c{first}\u201d [dan-1]", ["dan-1"]),
    ]
    lookup = {"dan-1": ("Dan", first), "dan-2": ("Dan", second)}.get
    md = conversation_markdown("KV", "P", msgs, quote_lookup=lookup, exported_at=WHEN)
    assert md.count("grows with") == 1 and md.count(second) == 1
    # a later answer refers to it by id and keeps what is new
    assert f"\u201c(dan-1: quoted above) {second}\u201d [dan-1] [dan-2]" in md
    # an answer that only repeats says so in one line, still readable on its own
    assert md.rstrip().endswith("(dan-1: quoted above)\n\nSources:\n\n- `dan-1` (Dan)")


def test_words_of_a_quote_not_yet_written_are_kept() -> None:
    msgs = [
        ExportMessage("assistant", "Dan", "\u201cIt grows.\u201d [dan-1]", ["dan-1"]),
        ExportMessage("assistant", "Olive", "\u201cIt grows.\u201d [olive-1]", ["olive-1"]),
    ]
    lookup = {"dan-1": ("Dan", "It grows."), "olive-1": ("Olive", "It grows.")}.get
    md = conversation_markdown("KV", "P", msgs, quote_lookup=lookup, exported_at=WHEN)
    assert (
        md.count("It grows.") == 2
    )  # two quotes that happen to say the same: each is its own source
