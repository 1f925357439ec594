"""The prompt: persona, only this panelist's sources with ids, the rules, conversation within budget."""

from __future__ import annotations

import pytest

from panelbot.answer.backends.base import Message
from panelbot.answer.llm.prompt import PromptBudget, build_messages

from .conftest import make_panel

PANEL = make_panel()


def prompt(**kw) -> str:
    args = dict(panel=PANEL, speaker="dan", sources=PANEL.quotes_by("dan"), question="Why memory?")
    args.update(kw)
    (msg,) = build_messages(**args)
    assert msg["role"] == "user"
    return msg["content"]


def test_persona_sources_and_rules() -> None:
    p = prompt()
    assert "You are Dan, VP of Kernels, Together AI" in p
    assert "Writes GPU kernels" in p and "numbers first" in p
    assert '1. [dan-1] "The KV cache grows' in p and "2. [dan-2]" in p
    assert "olive-1" not in p and "asynchronous rollouts" not in p
    assert "first person as Dan" in p and "cite the source that says it" in p and "[dan-1]" in p
    assert "no heading" in p and "no verdict" in p
    assert "never for Olive, Hannah (the host)" in p
    assert p.rstrip().endswith("Question: Why memory?\n\nAnswer as Dan:")


def test_refuses_another_speakers_quotes() -> None:
    with pytest.raises(ValueError):
        prompt(sources=PANEL.quotes)


def test_conversation_newest_kept_within_budget() -> None:
    history = [Message("user", f"question {i} " + "x" * 50) for i in range(50)]
    history.append(Message("olive", "Rollouts are async."))
    p = prompt(history=history, budget=PromptBudget(history_chars=400))
    assert "Olive: Rollouts are async." in p and "question 49" in p
    assert "question 0 " not in p
    assert p.index("question 48") < p.index("question 49") < p.index("Olive: Rollouts")


def test_panel_mode_second_panelist_sees_the_first_answer() -> None:
    p = prompt(
        speaker="olive",
        sources=PANEL.quotes_by("olive"),
        earlier=[("dan", "Memory is the wall [dan-1].")],
    )
    assert "Dan has just answered this question:\nMemory is the wall [dan-1]." in p
    assert "only from your own sources" in p


def test_control_characters_in_question_are_removed() -> None:
    assert "\x1b" not in prompt(question="why\x1b[2J memory?")
