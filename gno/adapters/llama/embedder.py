"""Local embeddings with llama-cpp-python (the ``Embedder`` port).

Truncation is done here, on token ids, before llama.cpp sees the input: an input
longer than the trained context makes llama.cpp hit a GGML_ASSERT, which aborts
the whole process instead of raising. ``embed_batch`` packs several texts into one
llama.cpp batch (each its own sequence id, so attention and positions stay per text
and the vectors equal the one-at-a-time ones; bench/README.md "Batched embedding"):
fewer decodes, and far fewer waits between llama.cpp's threads on a busy machine. Flash
attention is on: without it llama.cpp computes the attention of every token pair of the
packed batch and masks most of them away afterwards, which made packing cost as much CPU
per text as one-at-a-time decodes; with it the masked pairs are skipped. Texts are packed
shortest first (fewer, fuller decodes) and returned in the caller's order.

``llama_cpp`` (and with it numpy) is imported only when a model is loaded.
"""

from __future__ import annotations

import math
import threading
from pathlib import Path
from typing import Any

from gno.adapters.llama.gguf import MAX_CONTEXT, decode_pooled_many, load_model
from gno.ports import EMBED_FAILED, EmbeddingError

DEFAULT_MAX_TOKENS = 256  # sentence-transformers' max_seq_length for MiniLM
PACK_TOKENS = 2048  # tokens per packed decode (several texts); bench/embed.py measured it
MAX_PACKED = 32  # texts per packed decode

# llama_pooling_type values as stored in ``<arch>.pooling_type``: MEAN, CLS, LAST.
_POOLING_KEEP = (1, 2, 3)
_POOLING_DEFAULT = 1  # MEAN


class LlamaEmbedder:
    """An ``Embedder`` over a GGUF embedding model (BERT-style or decoder)."""

    def __init__(
        self,
        path: str | Path,
        *,
        n_threads: int | None = None,
        max_tokens: int | None = None,
        pack_tokens: int = PACK_TOKENS,
        flash_attn: bool = True,
    ) -> None:
        self.model_id = "file:" + str(Path(path).expanduser().resolve())

        def pooling(arch: str, meta: dict[str, Any]) -> int:
            value = meta.get(f"{arch}.pooling_type")
            return value if value in _POOLING_KEEP else _POOLING_DEFAULT

        loaded = load_model(
            path, EmbeddingError, pooling, n_threads, pack_tokens=pack_tokens, flash_attn=flash_attn
        )
        self._llama_cpp, self._llm = loaded.llama_cpp, loaded.llm
        n_ctx, n_ctx_train = loaded.n_ctx, loaded.n_ctx_train
        self.dimensions: int = self._llm.n_embd()
        self._n_ctx = n_ctx  # the batch size: one decode holds at most this many tokens
        limit = max_tokens if max_tokens is not None else min(DEFAULT_MAX_TOKENS, n_ctx_train - 2)
        self.max_tokens: int = max(4, min(limit, n_ctx_train, MAX_CONTEXT))
        self._head, self._tail = self._special_counts()
        self._lock = threading.Lock()  # one llama context: one decode at a time

    def _tokenize(self, text: str, *, specials: bool = True) -> list[int]:
        # special=False: "[SEP]" typed in a document stays text, not a control token.
        return self._llm.tokenize(
            text.encode("utf-8", errors="replace"), add_bos=specials, special=False
        )

    def _special_counts(self) -> tuple[int, int]:
        """How many special tokens the tokenizer adds before and after the text."""
        full, bare = self._tokenize("a"), self._tokenize("a", specials=False)
        extra = len(full) - len(bare)
        for head in range(extra + 1):
            if full[head : head + len(bare)] == bare:
                return head, extra - head
        return extra, 0

    def _truncate(self, tokens: list[int]) -> list[int]:
        if len(tokens) <= self.max_tokens:
            return tokens
        keep = max(0, self.max_tokens - self._head - self._tail)
        tail = tokens[len(tokens) - self._tail :] if self._tail else []
        return tokens[: self._head + keep] + tail

    def token_count(self, text: str) -> int:
        """Tokens of ``text`` with the special tokens, before truncation (for windows)."""
        with self._lock:
            return len(self._tokenize(text))

    def _tokens(self, text: str) -> list[int]:
        tokens = self._truncate(self._tokenize(text))
        if not tokens:
            raise EmbeddingError(EMBED_FAILED, "input has no tokens")
        if len(tokens) > self._n_ctx:  # cannot happen; never let it reach llama.cpp
            raise EmbeddingError(EMBED_FAILED, f"{len(tokens)} tokens > n_ctx")
        return tokens

    def _packs(self, sequences: list[list[int]]) -> list[list[int]]:
        """Indexes of ``sequences`` grouped so each group fits one decode, shortest first."""
        packs: list[list[int]] = []
        used = 0
        for i in sorted(range(len(sequences)), key=lambda i: len(sequences[i])):
            size = len(sequences[i])
            if not packs or used + size > self._n_ctx or len(packs[-1]) >= MAX_PACKED:
                packs.append([])
                used = 0
            packs[-1].append(i)
            used += size
        return packs

    def embed_batch(self, texts: list[str]) -> list[list[float]]:
        vectors: list[list[float]] = [[] for _ in texts]
        with self._lock:
            try:
                sequences = [self._tokens(text) for text in texts]
                for pack in self._packs(sequences):
                    pooled = decode_pooled_many(
                        self._llm, self._llama_cpp, [sequences[i] for i in pack]
                    )
                    if any(ptr is None for ptr in pooled):
                        raise EmbeddingError(EMBED_FAILED, "llama.cpp returned no pooled embedding")
                    for i, ptr in zip(pack, pooled, strict=True):
                        vectors[i] = _normalize(ptr[: self.dimensions])
            except EmbeddingError:
                raise
            except Exception as exc:
                raise EmbeddingError(EMBED_FAILED, f"embedding failed: {exc}") from exc
        return vectors

    def close(self) -> None:
        self._llm.close()


def _normalize(vector: list[float]) -> list[float]:
    norm = math.sqrt(math.fsum(x * x for x in vector))
    if not math.isfinite(norm) or norm == 0.0:
        raise EmbeddingError(EMBED_FAILED, "model produced a zero or non-finite vector")
    return [x / norm for x in vector]
