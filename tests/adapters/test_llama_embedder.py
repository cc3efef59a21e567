"""LlamaEmbedder on a tiny random BERT (generated here) and, when present, on MiniLM.

Empty input: a BERT tokenizer still adds ``[CLS] [SEP]``, so ``""`` gets a valid
vector; a model that adds no special tokens raises ``EmbeddingError``
(``EMBED_FAILED``) for it instead.
"""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("llama_cpp", reason="llama-cpp-python (the llama extra) is not installed")
pytest.importorskip("gguf", reason="gguf is needed to write the tiny test models")

from gno.adapters.llama.embedder import LlamaEmbedder
from gno.ports import Embedder
from tests.tiny_gguf import write_tiny_bert, write_tiny_llama

REPO = Path(__file__).resolve().parents[2]
MINILM = REPO.parent / "shared" / "models" / "all-MiniLM-L6-v2-f16.gguf"
LONG_TEXT = " ".join(["the search index", "trace sample query"] * 2500)  # 15,000 words


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_tiny_bert(tmp_path_factory.mktemp("models") / "tiny-bert.gguf")


@pytest.fixture(scope="module")
def embedder(tiny_bert: Path) -> LlamaEmbedder:
    return LlamaEmbedder(tiny_bert, n_threads=1)


def cos(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def assert_unit(vector: list[float], dims: int) -> None:
    assert len(vector) == dims
    assert all(math.isfinite(x) for x in vector)
    assert math.sqrt(sum(x * x for x in vector)) == pytest.approx(1.0, abs=1e-6)


def test_loads_tiny_bert(embedder: LlamaEmbedder, tiny_bert: Path) -> None:
    assert isinstance(embedder, Embedder)
    assert embedder.dimensions == 32
    assert embedder.model_id == "file:" + str(tiny_bert.resolve())
    assert embedder.max_tokens == 126  # min(256, trained context 128 - 2)


def test_vectors_are_unit_length(embedder: LlamaEmbedder) -> None:
    for vector in embedder.embed_batch(["the search index", "a", "query 42?"]):
        assert_unit(vector, 32)


def test_deterministic_across_calls_and_instances(embedder: LlamaEmbedder, tiny_bert) -> None:
    text = "trace sample query"
    first = embedder.embed_batch([text])[0]
    assert embedder.embed_batch([text])[0] == first
    other = LlamaEmbedder(tiny_bert, n_threads=2)
    assert other.embed_batch([text])[0] == pytest.approx(first, abs=1e-6)


def test_batch_keeps_input_order(embedder: LlamaEmbedder) -> None:
    texts = ["the model", "vector index", "document", "the model"]
    batch = embedder.embed_batch(texts)
    singles = [embedder.embed_batch([t])[0] for t in texts]
    for packed, single in zip(batch, singles, strict=True):
        assert packed == pytest.approx(single, abs=1e-5)
    assert batch[0] == pytest.approx(batch[3], abs=1e-6) and cos(batch[0], batch[1]) < 0.999
    assert embedder.embed_batch([]) == []


def test_packed_decodes_equal_one_at_a_time(embedder: LlamaEmbedder) -> None:
    # Several texts share one llama.cpp decode (their own sequence ids); each vector must
    # equal the text embedded alone, also for texts long enough to be truncated.
    texts = [
        f"the search {w} index " * n
        for n, w in zip(range(1, 40, 3), "abcdefghijklmn", strict=False)
    ]
    texts.append(LONG_TEXT)
    sequences = [embedder._tokens(t) for t in texts]
    packs = embedder._packs(sequences)
    assert len(packs) < len(texts)  # packing really happened
    assert sorted(i for p in packs for i in p) == list(range(len(texts)))  # each text once
    assert all(sum(len(sequences[i]) for i in p) <= embedder._n_ctx for p in packs)
    order = [len(sequences[i]) for p in packs for i in p]
    assert order == sorted(order)  # shortest first: fewer, fuller decodes
    batch = embedder.embed_batch(texts)
    for text, vector in zip(texts, batch, strict=True):
        assert cos(vector, embedder.embed_batch([text])[0]) >= 0.9999


def test_flash_attention_packs_equal_plain_single_decodes(tiny_bert: Path) -> None:
    # The embedder packs with flash attention on (masked pairs skipped); its vectors must
    # equal those of plain attention, one text per decode, as gno embedded before.
    fast = LlamaEmbedder(tiny_bert, n_threads=1)
    plain = LlamaEmbedder(tiny_bert, n_threads=1, pack_tokens=128, flash_attn=False)
    assert fast._llm.context_params.flash_attn_type != plain._llm.context_params.flash_attn_type
    texts = [
        f"span {w} sampler trace " * n
        for n, w in zip(range(1, 60, 4), "abcdefghijklmno", strict=True)
    ]
    texts += [LONG_TEXT, "", "日本語のテキスト"]
    assert len(fast._packs([fast._tokens(t) for t in texts])) < len(texts) / 2
    packed = fast.embed_batch(texts)
    for text, vector in zip(texts, packed, strict=True):
        assert cos(vector, plain.embed_batch([text])[0]) >= 0.9999


def test_token_path_matches_llama_embed(embedder: LlamaEmbedder) -> None:
    # gno decodes token ids itself; for short input it must equal Llama.embed().
    text = "the search query"
    expected = embedder._llm.embed(text, normalize=True)
    assert embedder.embed_batch([text])[0] == pytest.approx(expected, abs=1e-6)


def test_non_ascii_input(embedder: LlamaEmbedder) -> None:
    vectors = embedder.embed_batch(["Café naïve — 日本語のテキスト 🙂", "\x00\ud800 broken"])
    for vector in vectors:
        assert_unit(vector, 32)


def test_long_input_is_truncated_keeping_end_token(embedder: LlamaEmbedder) -> None:
    long_vector = embedder.embed_batch([LONG_TEXT])[0]
    assert_unit(long_vector, 32)
    # Every word is one token: [CLS] + 124 words + [SEP] is exactly max_tokens, so it
    # equals the truncated long text only if truncation kept [SEP] at the end.
    words = LONG_TEXT.split()[: embedder.max_tokens - 2]
    assert len(embedder._tokenize(" ".join(words))) == embedder.max_tokens
    assert embedder.embed_batch([" ".join(words)])[0] == long_vector


def test_empty_string_gets_a_vector(embedder: LlamaEmbedder) -> None:
    assert_unit(embedder.embed_batch([""])[0], 32)


def test_decoder_model_without_pooling_key(tmp_path: Path) -> None:
    # A llama GGUF has no pooling_type key: MEAN is used; the tokenizer adds only BOS.
    embedder = LlamaEmbedder(write_tiny_llama(tmp_path / "tiny-llama.gguf"), n_threads=1)
    assert (embedder.dimensions, embedder.max_tokens) == (64, 254)
    assert embedder._llm.pooling_type() == 1  # LLAMA_POOLING_TYPE_MEAN
    first, empty, long = embedder.embed_batch(["the search", "", "word " * 3000])
    for vector in (first, empty, long):
        assert_unit(vector, 64)
    # The KV cache is cleared between texts: the same text gives the same vector.
    assert embedder.embed_batch(["the search"])[0] == pytest.approx(first, abs=1e-5)
    truncated = embedder._truncate(embedder._tokenize("word " * 3000))
    assert len(truncated) == 254 and truncated[0] == 1  # <s> kept


def test_module_import_is_lazy() -> None:
    code = (
        "import sys, gno.adapters.llama.embedder\n"
        "bad = [m for m in ('llama_cpp', 'numpy') if m in sys.modules]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO)


@pytest.fixture(scope="module")
def minilm() -> LlamaEmbedder:
    if not MINILM.is_file():
        pytest.skip(f"real model not present: {MINILM} (see stack.md section 3.2)")
    return LlamaEmbedder(MINILM, n_threads=2)


def test_minilm_ranks_related_sentence_higher(minilm: LlamaEmbedder) -> None:
    assert minilm.dimensions == 384
    assert minilm.max_tokens == 256
    query, related, unrelated = minilm.embed_batch(
        [
            "How do I sample traces at the collector?",
            "Tail sampling processor keeps interesting traces",
            "Bake the bread for forty minutes",
        ]
    )
    assert cos(query, related) > cos(query, unrelated) + 0.2


def test_minilm_long_input_does_not_abort(minilm: LlamaEmbedder) -> None:
    # 15,000 words is far beyond the 512-token context that would hit a GGML_ASSERT.
    assert_unit(minilm.embed_batch([LONG_TEXT])[0], 384)
