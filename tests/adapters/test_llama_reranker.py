"""LlamaReranker on a tiny random BERT cross-encoder (RANK pooling, generated here).

The weights are random, so the scores mean nothing; these tests pin the port's
invariants: one finite score per document in input order, determinism,
truncation instead of a llama.cpp abort, and refusal of non-RANK models.
"""

from __future__ import annotations

import math
import subprocess
import sys
import threading
from pathlib import Path

import pytest

pytest.importorskip("llama_cpp", reason="llama-cpp-python (the llama extra) is not installed")
pytest.importorskip("gguf", reason="gguf is needed to write the tiny test models")

from gno.adapters.llama import gguf as gguf_module
from gno.adapters.llama.reranker import TEMPLATE_KEY, LlamaReranker
from gno.ports import MODEL_LOAD_FAILED, Reranker, RerankError
from tests.tiny_gguf import write_tiny_bert

REPO = Path(__file__).resolve().parents[2]
QUERY = "the search query"
DOCS = ["the document", "vector index", "trace sample", "model", "the search query"]
LONG_DOC = " ".join(["the search index", "trace sample query"] * 1667)  # 10,002 words
CLS, SEP = 2, 3  # tiny BERT special ids


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("models")


@pytest.fixture(scope="module")
def tiny_rank(models: Path) -> Path:
    return write_tiny_bert(models / "tiny-bert-rerank.gguf", rank=True)


@pytest.fixture(scope="module")
def reranker(tiny_rank: Path) -> LlamaReranker:
    return LlamaReranker(tiny_rank, n_threads=1)


def test_loads_tiny_rank_model(reranker: LlamaReranker, tiny_rank: Path) -> None:
    assert isinstance(reranker, Reranker)
    assert reranker.model_id == "file:" + str(tiny_rank.resolve())
    assert reranker.max_tokens == 128  # min(trained context 128, 512)
    assert reranker.prompt_format == "default"
    assert reranker._llm.pooling_type() == 4  # LLAMA_POOLING_TYPE_RANK


def test_prompt_layout_matches_llama_server(reranker: LlamaReranker) -> None:
    # [BOS] q [EOS] [SEP] d [EOS]: the BERT vocab has add_bos, add_eos and (by
    # default for WordPiece) add_sep; EOS and SEP are both [SEP] here.
    q = reranker._tokenize(QUERY)
    d = reranker._tokenize("the document")
    prompt = reranker._prompt(reranker._query_slots(QUERY), "the document")
    assert prompt == [CLS, *q, SEP, SEP, *d, SEP]


def test_one_finite_score_per_document(reranker: LlamaReranker) -> None:
    scores = reranker.rerank(QUERY, DOCS)
    assert len(scores) == len(DOCS)
    assert all(isinstance(s, float) and math.isfinite(s) for s in scores)
    assert len(set(scores)) == len(DOCS)  # distinct inputs, distinct scores


def test_scores_follow_input_order(reranker: LlamaReranker) -> None:
    scores = dict(zip(DOCS, reranker.rerank(QUERY, DOCS), strict=True))
    shuffled = [DOCS[i] for i in (3, 0, 4, 2, 1)]
    assert reranker.rerank(QUERY, shuffled) == [scores[d] for d in shuffled]
    assert [reranker.rerank(QUERY, [d])[0] for d in DOCS] == [scores[d] for d in DOCS]


def test_deterministic_across_calls_and_instances(reranker: LlamaReranker, tiny_rank) -> None:
    first = reranker.rerank(QUERY, DOCS)
    assert reranker.rerank(QUERY, DOCS) == first
    # One thread: with two on a busy two-core machine each tiny decode took ~0.4 s.
    other = LlamaReranker(tiny_rank, n_threads=1)
    assert other.rerank(QUERY, DOCS) == first


def test_query_changes_scores(reranker: LlamaReranker) -> None:
    assert reranker.rerank(QUERY, DOCS) != reranker.rerank("vector model", DOCS)


def test_duplicates_scored_once_with_equal_scores(
    reranker: LlamaReranker, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = []
    score = reranker._score
    monkeypatch.setattr(reranker, "_score", lambda tokens: calls.append(tokens) or score(tokens))
    scores = reranker.rerank(QUERY, ["model", "the document", "model", "model"])
    assert len(calls) == 2
    assert scores[0] == scores[2] == scores[3] != scores[1]


def test_empty_list_and_empty_strings(reranker: LlamaReranker) -> None:
    assert reranker.rerank(QUERY, []) == []
    for score in reranker.rerank("", ["", "the document"]):
        assert math.isfinite(score)


def test_non_ascii_and_special_token_text(reranker: LlamaReranker) -> None:
    docs = ["Café naïve — 日本語のテキスト 🙂", "\x00\ud800 broken", "[SEP] [CLS] the"]
    assert all(math.isfinite(s) for s in reranker.rerank("naïve [SEP]", docs))
    # "[SEP]" typed in a document stays text, not a control token.
    prompt = reranker._prompt(reranker._query_slots(QUERY), "[SEP] the")
    assert prompt.count(SEP) == 3


def test_long_document_is_truncated(reranker: LlamaReranker) -> None:
    slots = reranker._query_slots(QUERY)
    prompt = reranker._prompt(slots, LONG_DOC)
    assert len(prompt) == reranker.max_tokens and prompt[-1] == SEP
    (long_score,) = reranker.rerank(QUERY, [LONG_DOC])
    assert math.isfinite(long_score)
    # Every word is one token: the document is cut to exactly what fits, so the
    # long document scores like its first fitting words.
    fits = reranker.max_tokens - len(slots[("{query}", "")]) - 4
    assert reranker.rerank(QUERY, [" ".join(LONG_DOC.split()[:fits])]) == [long_score]


def test_long_query_is_capped_to_half_the_budget(reranker: LlamaReranker) -> None:
    slots = reranker._query_slots(LONG_DOC)
    assert len(slots[("{query}", "")]) == reranker._budget // 2
    prompt = reranker._prompt(slots, LONG_DOC)
    assert len(prompt) <= reranker.max_tokens
    assert all(math.isfinite(s) for s in reranker.rerank(LONG_DOC, [LONG_DOC, "model"]))


def test_max_tokens_shrinks_the_prompt(tiny_rank: Path) -> None:
    small = LlamaReranker(tiny_rank, n_threads=1, max_tokens=32)
    assert small.max_tokens == 32
    assert len(small._prompt(small._query_slots(QUERY), LONG_DOC)) == 32
    assert math.isfinite(small.rerank(QUERY, [LONG_DOC])[0])


def test_thread_safe(reranker: LlamaReranker) -> None:
    expected = reranker.rerank(QUERY, DOCS)
    results: list[list[float]] = []
    threads = [
        threading.Thread(target=lambda: results.append(reranker.rerank(QUERY, DOCS)))
        for _ in range(4)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [expected] * 4


def test_rerank_template_from_gguf(tiny_rank: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The tiny model has no rerank template; add one to the metadata the adapter reads.
    template = "[CLS] query: {query} [SEP] {document} [SEP]"
    read = gguf_module.read_gguf_metadata
    monkeypatch.setattr(
        gguf_module, "read_gguf_metadata", lambda p: {**read(p), TEMPLATE_KEY: template}
    )
    templated = LlamaReranker(tiny_rank, n_threads=1)
    assert templated.prompt_format == "template"
    prompt = templated._prompt(templated._query_slots(QUERY), "the document")
    filled = template.replace("{query}", QUERY).replace("{document}", "the document")
    assert prompt == templated._tokenize(filled, special=True)  # as llama-server tokenizes it
    # Control tokens are parsed in the template only, not in the document.
    assert templated._prompt(templated._query_slots(QUERY), "[SEP]").count(SEP) == 2
    assert len(templated._prompt(templated._query_slots(LONG_DOC), LONG_DOC)) == 128
    scores = templated.rerank(QUERY, DOCS)
    assert len(scores) == len(DOCS) and all(math.isfinite(s) for s in scores)


def test_bpe_template_moves_space_into_slot(reranker: LlamaReranker) -> None:
    reranker._bpe = True
    try:
        parts = reranker._template_parts("<Query>: {query}\n<Document>: {document}<end>")
    finally:
        reranker._bpe = False
    assert [p for p in parts if isinstance(p, tuple)] == [("{query}", " "), ("{document}", " ")]


def test_mean_embedder_is_refused(models: Path) -> None:
    with pytest.raises(RerankError) as err:
        LlamaReranker(write_tiny_bert(models / "tiny-bert.gguf", rank=False))
    assert err.value.code == MODEL_LOAD_FAILED
    assert "pooling_type" in err.value.message


def test_module_import_is_lazy() -> None:
    code = (
        "import sys, gno.adapters.llama.reranker\n"
        "bad = [m for m in ('llama_cpp', 'numpy') if m in sys.modules]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO)
