"""Follow-ups read by meaning and the outcomes of issue 18 sections 3-4 (panelbot.conversation.kind_bank,
kinds, strategies): behaviour through ``resolve``, the bank and its fitted floor as data."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from test_resolve import ids, talk

from panelbot.conversation.kind_bank import KINDS, MessageKinds, message_bank, parse_bank
from panelbot.errors import DataError
from panelbot.retrieval.lexicon import DATA_DIR
from panelbot.retrieval.tuning import tuning

ROOT = Path(__file__).resolve().parents[1]
KV = "How does Together deal with the KV cache growing?"


# ------------------------------------------------------------------------------------- the bank as data


def test_the_bank_has_every_kind_and_no_word_of_the_talk():
    bank = message_bank()
    assert set(bank) == set(KINDS) and all(bank[k] for k in KINDS)
    text = (DATA_DIR / "message_kinds.yaml").read_text(encoding="utf-8").lower()
    for word in ("minimax", "together", "kv cache", "olive", "dan ", "kernel", "m3"):
        assert word not in text


def test_a_bad_bank_is_one_clear_data_error():
    with pytest.raises(DataError, match="reason must be a non-empty list"):
        parse_bank({k: ["x"] for k in KINDS if k != "reason"})
    with pytest.raises(DataError, match="unknown kinds"):
        parse_bank({**{k: ["x"] for k in KINDS}, "gossip": ["x"]})


def test_the_floor_is_in_the_one_tuning_record_with_the_script_that_fitted_it():
    record = json.loads((DATA_DIR / "tuning.json").read_text(encoding="utf-8"))
    assert 0.0 < record["message_kind_floor"] < 1.0
    assert record["message_kind_fit"]["fitted_by"] == "scripts/fit_message_kinds.py"
    assert not any("heldout" in f for f in record["message_kind_fit"]["dev_conversations"])
    assert tuning().message_kind_floor == record["message_kind_floor"]


def test_the_fitting_script_refuses_held_out_sets():
    out = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "fit_message_kinds.py"), "--dev-conversations"]
        + ["eval/heldout/conversations_followups.yaml", "--dry-run"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 2 and "heldout" in out.stderr


def test_nearest_example_by_meaning(shipped_panel):
    kinds = MessageKinds(shipped_panel)
    assert kinds.nearest("what do you mean exactly?").kind == "clarify"
    assert kinds.nearest("Olive, same question to you").kind == "other"
    # a template is filled per panelist, and a bank of other names fills nothing of this panel
    assert any(text == "what does Olive think?" for _, text in kinds.rows)
    assert not any("{" in text for _, text in kinds.rows)


# ------------------------------------------------------------------------------------- outcomes


def test_how_so_shows_the_last_answers_passage_in_context(router):
    first, how = talk(router, KV, "How so?")
    assert not how.route.abstained and "in context" in how.route.reason
    turns = {router.panel.quote(q).turn for q in ids(first)}
    assert {sq.quote.turn for sq in how.route.quotes} <= turns
    _, mean = talk(router, KV, "what do you mean by that?")
    assert not mean.route.abstained and "nothing more" not in mean.route.reason


def test_why_is_that_hard_does_not_reshow_the_answer_as_if_new(router):
    _, why, again = talk(router, KV, "why is that hard?", "why is that hard?")
    assert why.kind == "reason" and not why.route.abstained
    assert (
        again.kind == "reason" and again.route.abstained
    )  # asked again: said so, not the same quotes


def test_a_switch_cue_is_taken_off_before_the_scope_check(router):
    _, switched = talk(router, KV, "unrelated, how do you avoid reward hacking?")
    assert switched.kind == "standalone" and switched.route.speakers == ["olive"]
    assert (
        switched.route.question == "unrelated, how do you avoid reward hacking?"
    )  # recorded as asked
    _, off = talk(router, KV, "by the way, is it raining in Paris?")
    assert off.route.abstained


def test_off_topic_with_a_pronoun_mid_conversation_is_declined(router):
    _, off = talk(router, KV, "is it expensive to buy one of those for my house?")
    assert off.route.abstained
    _, shop = talk(
        router, "How was M3 trained on images from scratch?", "could it build me a Shopify store?"
    )
    assert shop.route.abstained


def test_a_paraphrase_with_a_pronoun_is_not_vetoed(router):
    _, para = talk(router, KV, "does that approach help when agents' memory keeps ballooning?")
    assert not para.route.abstained and para.route.speakers == ["dan"]


def test_a_panelist_who_never_spoke_to_it_is_named_with_who_did(router):
    _, other = talk(
        router, "How was M3 trained on images from scratch?", "what did Dan say about that?"
    )
    assert other.route.abstained and "Dan didn't speak to" in other.route.reason
    assert "(Olive did)" in other.route.reason


def test_tell_me_more_never_pads_with_a_self_introduction(router):
    intros = {"dan-01", "olive-01"}
    for first in (KV, "who is Dan?", "What did Olive say about open weights?"):
        _, more = talk(router, first, "tell me more")
        assert not set(ids(more)) & intros


def test_after_the_framing_a_panelist_named_is_told_about(router):
    _, dan = talk(router, "what is this talk about?", "and Dan?")
    assert not dan.route.abstained and dan.route.speakers == ["dan"]
    assert "dan's role" not in dan.route.reason and "dan-01" not in ids(dan)
    _, intro = talk(router, "what does Olive do?", "and Dan?")
    assert ids(intro) == ["dan-01"]


def test_a_follow_up_after_a_declined_question_about_the_talk_finds_its_subject(router):
    declined, why = talk(router, "How many GPUs did MiniMax use to train M3?", "tell me more")
    assert declined.route.abstained
    assert not why.route.abstained and why.route.speakers == ["olive"]
    # an off-topic first question leaves nothing to follow up on
    _, bare = talk(router, "Is it expensive to buy a gaming PC?", "tell me more")
    assert bare.route.abstained and "nothing to follow up on" in bare.route.reason


def test_nothing_more_to_say_reads_naturally_for_any_subject_label(router, monkeypatch):
    """A subject is named by a quote's topic, which in an ingested talk may be one bare word ("change"):
    the decline says "nothing more to say about change", never "on change" (read as a place or a verb);
    a topic of more words reads the same way ("about long context infrastructure")."""
    from panelbot.conversation import subject as subject_mod

    def label(router, subject):
        return "change"

    monkeypatch.setattr(subject_mod, "subject_label", label)
    asked = ["How do you handle million-token contexts?", *["tell me more"] * 5]
    declined = [r for r in talk(router, *asked) if r.route.abstained]
    assert declined, "the continuation never ran out"
    reason = declined[0].route.reason
    assert "had nothing more to say about change than" in reason and " on change" not in reason
