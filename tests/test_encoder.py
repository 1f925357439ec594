"""The numpy sentence encoder (panelbot.retrieval.encoder) against sentence-transformers and tokenizers."""

from __future__ import annotations

import json
from pathlib import Path

import numpy
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from panelbot.panel import load_panel
from panelbot.retrieval import encoder
from panelbot.retrieval.encoder import SentenceEncoder, shipped_model
from panelbot.retrieval.semantic import ModelError, cosine

FIXTURES = Path(__file__).resolve().parent / "fixtures"
SHIPPED = Path(__file__).resolve().parent.parent / "persona_data" / "minimax-m3"


def _vector(v) -> numpy.ndarray:
    return numpy.frombuffer(v, dtype=numpy.float32)


def test_vectors_are_sentence_transformers_own() -> None:
    """scripts/encoder_reference.py wrote these with sentence-transformers (torch) from the float32 checkpoint:
    short and long (truncated) texts, accents, CJK, numbers, emoji. panelbot ships the weights rounded to
    float16, which moves a coordinate by at most ~3e-4 (it was 1e-5 from the float32 weights)."""
    data = json.loads((FIXTURES / "encoder_reference.json").read_text(encoding="utf-8"))
    model = shipped_model()
    for item in data["items"]:
        ours = _vector(model.embed(item["text"]))
        theirs = numpy.asarray(item["vector"], dtype=numpy.float64)
        assert ours.shape == (384,)
        assert float(ours @ theirs) > 0.99999, item["text"][:40]
        assert float(numpy.abs(ours - theirs).max()) < 5e-4, item["text"][:40]


def test_token_ids_are_the_tokenizers_librarys() -> None:
    from tokenizers import Tokenizer

    model = shipped_model()
    library = Tokenizer.from_file(str(model.path / encoder.TOKENIZER))
    library.no_truncation()
    library.no_padding()
    texts = [q.text for q in load_panel(SHIPPED).quotes] + [
        "Héllo wörld — naïve café 北京 ok?",
        "SWE-bench 87.5% @ $0.002/1K",
        "[CLS] literal [SEP] tokens",
    ]
    for text in texts:
        body = library.encode(text, add_special_tokens=False).ids[: encoder.MAX_TOKENS - 2]
        want = [library.token_to_id("[CLS]"), *body, library.token_to_id("[SEP]")]
        assert model.token_ids(text) == want, text[:40]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.text(min_size=0, max_size=120), min_size=1, max_size=6))
def test_a_batch_gives_each_text_its_own_vector(texts: list[str]) -> None:
    """Padding a batch to its longest text changes nothing: each vector is the one embedded alone."""
    fresh = SentenceEncoder(shipped_model().path)
    together = fresh.embed_many(texts)
    for text, vector in zip(texts, together, strict=True):
        alone = SentenceEncoder(shipped_model().path).embed(text)
        assert float(_vector(vector) @ _vector(alone)) > 0.99999


def test_vectors_are_unit_length_and_meaning_is_closer_than_words() -> None:
    model = shipped_model()
    a = model.embed("How do you stop the model from cheating on its tests?")
    b = model.embed("What keeps the AI from gaming the benchmark?")
    c = model.embed("Where can I buy a cheap second-hand bicycle?")
    for v in (a, b, c):
        assert abs(float(numpy.linalg.norm(_vector(v))) - 1.0) < 1e-5
    assert cosine(a, b) > cosine(a, c) + 0.1


def test_the_weights_are_widened_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PANELBOT_CACHE_DIR", str(tmp_path))
    first = encoder._widened_dir()
    assert first.parent == tmp_path / "models"
    weights = first / encoder.WEIGHTS
    stamp = weights.stat().st_mtime_ns
    again = encoder._widened_dir()
    assert again == first and weights.stat().st_mtime_ns == stamp
    assert not [p for p in first.parent.iterdir() if p.name.startswith(".")]  # no temporary left
    widened = encoder._read_safetensors(weights)
    shipped = encoder._read_safetensors(encoder.SHIPPED_DIR / encoder.SHIPPED_WEIGHTS)
    assert widened.keys() == shipped.keys()
    for name, tensor in shipped.items():
        assert tensor.dtype == numpy.float16 and widened[name].dtype == numpy.float32
        assert numpy.array_equal(widened[name], tensor.astype(numpy.float32)), name
    model = SentenceEncoder(first)
    assert cosine(model.embed("kv cache"), shipped_model().embed("kv cache")) > 0.99999


def test_an_unwritable_cache_only_costs_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    monkeypatch.setenv("PANELBOT_CACHE_DIR", str(blocked))
    where = encoder._widened_dir()
    assert not where.is_relative_to(blocked) and (where / encoder.WEIGHTS).is_file()
    assert SentenceEncoder(where).embed("kv cache") == shipped_model().embed("kv cache")


def test_the_shipped_model_carries_its_licence() -> None:
    notice = (encoder.SHIPPED_DIR / "NOTICE").read_text(encoding="utf-8")
    assert "Apache License, Version 2.0" in notice and "float16" in notice
    assert "scripts/ship_encoder.py" in notice


def test_missing_weights_are_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="weights are missing"):
        SentenceEncoder(tmp_path)


def test_a_broken_shipped_model_is_one_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PANELBOT_CACHE_DIR", str(tmp_path / "cache"))
    broken = tmp_path / "model"
    broken.mkdir()
    (broken / encoder.SHIPPED_WEIGHTS).write_bytes(b"\xff" * 8 + b"not safetensors")
    with pytest.raises(ModelError, match="cannot read the sentence model"):
        encoder._widened_dir(broken)
    (broken / encoder.SHIPPED_WEIGHTS).unlink()
    with pytest.raises(ModelError, match="cannot read the sentence model"):
        encoder._widened_dir(broken)


def test_the_compact_tokenizer_reads_as_tokenizer_json(tmp_path: Path) -> None:
    shipped = encoder.SHIPPED_DIR / encoder.TOKENIZER
    (tmp_path / encoder.TOKENIZER).write_bytes(shipped.read_bytes())
    full = encoder._load_tokenizer(tmp_path)  # from tokenizer.json, the compact copy written
    assert (tmp_path / encoder.COMPACT_TOKENIZER).is_file()
    compact = encoder._load_tokenizer(tmp_path)
    assert compact.vocab == full.vocab and compact.settings == full.settings
    text = "Ünïcode [MASK] tokenisation of KV-caches, naïvely 東京"
    assert compact.encode(text) == full.encode(text)
    (tmp_path / encoder.COMPACT_TOKENIZER).write_text('{"settings": {}', encoding="utf-8")
    # a broken copy: tokenizer.json again
    assert encoder._load_tokenizer(tmp_path).vocab == full.vocab
