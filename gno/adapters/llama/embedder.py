"""Local embeddings with llama-cpp-python (the ``Embedder`` port).

Truncation is done here, on token ids, before llama.cpp sees the input: an input
longer than the trained context makes llama.cpp hit a GGML_ASSERT, which aborts
the whole process instead of raising. Each text is decoded on its own (packing
several sequences into one batch is ~4x slower for BERT models).

``llama_cpp`` (and with it numpy) is imported only when a model is loaded.
"""

from __future__ import annotations

import ctypes
import math
import os
import struct
import threading
from pathlib import Path
from typing import Any, BinaryIO

from gno.ports import EMBED_FAILED, MODEL_LOAD_FAILED, EmbeddingError

MAX_CONTEXT = 512  # n_ctx = n_batch = n_ubatch = min(trained context, MAX_CONTEXT)
DEFAULT_MAX_TOKENS = 256  # sentence-transformers' max_seq_length for MiniLM

# llama_pooling_type values as stored in ``<arch>.pooling_type``: MEAN, CLS, LAST.
_POOLING_KEEP = (1, 2, 3)
_POOLING_DEFAULT = 1  # MEAN

# GGUF value types: fixed-size scalars, string (8) and array (9).
_GGUF_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?"}
_GGUF_SCALARS |= {10: "<Q", 11: "<q", 12: "<d"}
_GGUF_STRING, _GGUF_ARRAY = 8, 9


def read_gguf_metadata(path: Path) -> dict[str, Any]:
    """The scalar and string keys of a GGUF header (arrays are skipped).

    Raises ``ValueError`` when the file is not a little-endian GGUF v2/v3 file,
    so llama.cpp is never handed something that could trip an assertion.
    """
    with path.open("rb") as f:
        try:
            return _read_header(f)
        except (struct.error, OverflowError, MemoryError) as exc:  # absurd sizes
            raise ValueError(f"corrupt GGUF header: {exc}") from exc


def _read_header(f: BinaryIO) -> dict[str, Any]:
    if f.read(4) != b"GGUF":
        raise ValueError("not a GGUF file (bad magic)")
    version, _n_tensors, n_kv = struct.unpack("<IQQ", _read(f, 20))
    if version not in (2, 3):
        raise ValueError(f"unsupported GGUF version {version}")
    meta: dict[str, Any] = {}
    for _ in range(n_kv):
        key = _read_string(f)
        (vtype,) = struct.unpack("<I", _read(f, 4))
        if vtype != _GGUF_ARRAY:
            meta[key] = _read_value(f, vtype)
            continue
        item_type, count = struct.unpack("<IQ", _read(f, 12))
        if item_type == _GGUF_STRING:
            for _ in range(count):
                (size,) = struct.unpack("<Q", _read(f, 8))
                f.seek(size, os.SEEK_CUR)
        elif item_type in _GGUF_SCALARS:
            f.seek(count * struct.calcsize(_GGUF_SCALARS[item_type]), os.SEEK_CUR)
        else:
            raise ValueError(f"bad GGUF array type {item_type} for {key!r}")
    return meta


def _read(f: BinaryIO, size: int) -> bytes:
    data = f.read(size)
    if len(data) != size:
        raise ValueError("truncated GGUF header")
    return data


def _read_string(f: BinaryIO) -> str:
    (size,) = struct.unpack("<Q", _read(f, 8))
    return _read(f, size).decode("utf-8", errors="replace")


def _read_value(f: BinaryIO, vtype: int) -> Any:
    if vtype == _GGUF_STRING:
        return _read_string(f)
    fmt = _GGUF_SCALARS.get(vtype)
    if fmt is None:
        raise ValueError(f"bad GGUF value type {vtype}")
    return struct.unpack(fmt, _read(f, struct.calcsize(fmt)))[0]


_quiet_callback: Any = None  # kept referenced: llama.cpp holds a pointer to it


def _silence_llama_logs(llama_cpp: Any) -> None:
    """llama.cpp logs to stderr from C (even with verbose=False); the CLI's stderr carries
    the JSON error envelope, so its log lines go nowhere. Failures still raise."""
    global _quiet_callback
    if _quiet_callback is None:
        _quiet_callback = llama_cpp.llama_log_callback(lambda level, text, user_data: None)
        llama_cpp.llama_log_set(_quiet_callback, ctypes.c_void_p(0))


class LlamaEmbedder:
    """An ``Embedder`` over a GGUF embedding model (BERT-style or decoder)."""

    def __init__(
        self,
        path: str | Path,
        *,
        n_threads: int | None = None,
        max_tokens: int | None = None,
    ) -> None:
        path = Path(path).expanduser().resolve()
        self.model_id = "file:" + str(path)
        if not path.is_file():
            raise EmbeddingError(MODEL_LOAD_FAILED, f"model file not found: {path}")
        try:
            meta = read_gguf_metadata(path)
        except (OSError, ValueError, struct.error) as exc:
            raise EmbeddingError(MODEL_LOAD_FAILED, f"{path}: {exc}") from exc
        arch = meta.get("general.architecture")
        n_ctx_train = meta.get(f"{arch}.context_length")
        if not isinstance(arch, str) or not isinstance(n_ctx_train, int) or n_ctx_train < 8:
            raise EmbeddingError(MODEL_LOAD_FAILED, f"{path}: no architecture/context length")
        pooling = meta.get(f"{arch}.pooling_type")
        if pooling not in _POOLING_KEEP:
            pooling = _POOLING_DEFAULT
        n_ctx = min(n_ctx_train, MAX_CONTEXT)
        threads = n_threads or min(2, os.cpu_count() or 1)

        try:
            import llama_cpp
        except ImportError as exc:
            raise EmbeddingError(
                MODEL_LOAD_FAILED, "llama-cpp-python is not installed (pip install 'gno[models]')"
            ) from exc
        self._llama_cpp = llama_cpp
        _silence_llama_logs(llama_cpp)
        try:
            self._llm = llama_cpp.Llama(
                str(path),
                embedding=True,
                pooling_type=pooling,
                n_ctx=n_ctx,
                n_batch=n_ctx,
                n_ubatch=n_ctx,
                n_threads=threads,
                n_threads_batch=threads,  # prompt decoding uses this one (default: all cores)
                verbose=False,
            )
        except Exception as exc:  # llama-cpp-python raises ValueError/RuntimeError
            raise EmbeddingError(MODEL_LOAD_FAILED, f"{path}: {exc}") from exc

        self.dimensions: int = self._llm.n_embd()
        self._n_ctx = n_ctx
        limit = max_tokens if max_tokens is not None else min(DEFAULT_MAX_TOKENS, n_ctx_train - 2)
        self.max_tokens: int = max(4, min(limit, n_ctx))
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

    def _embed_tokens(self, tokens: list[int]) -> list[float]:
        # Llama.embed() would tokenize again; this is its decode step for one
        # sequence (llama-cpp-python 0.3.36 internals: _batch, _ctx).
        llm, llama_cpp = self._llm, self._llama_cpp
        llm._batch.reset()
        llm._batch.add_sequence(tokens, 0, True)
        llm._ctx.kv_cache_clear()
        try:
            llm._ctx.decode(llm._batch)
        finally:
            llm._batch.reset()
        ptr = llama_cpp.llama_get_embeddings_seq(llm._ctx.ctx, 0)
        if not ptr:
            raise EmbeddingError(EMBED_FAILED, "llama.cpp returned no pooled embedding")
        return ptr[: self.dimensions]

    def embed_batch(self, texts: list[str]) -> list[list[float]]:
        vectors = []
        with self._lock:
            for text in texts:
                try:
                    tokens = self._truncate(self._tokenize(text))
                    if not tokens:
                        raise EmbeddingError(EMBED_FAILED, "input has no tokens")
                    if len(tokens) > self._n_ctx:  # cannot happen; never let it reach llama.cpp
                        raise EmbeddingError(EMBED_FAILED, f"{len(tokens)} tokens > n_ctx")
                    vectors.append(_normalize(self._embed_tokens(tokens)))
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
