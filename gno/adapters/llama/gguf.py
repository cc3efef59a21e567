"""Loading a GGUF model into llama-cpp-python, shared by the embedder, the reranker and
the generator.

The GGUF header is read in pure Python first (architecture, trained context, pooling), so
llama.cpp is never handed a file that could trip an assertion, and ``llama_cpp`` (with numpy)
is imported only when a model is actually loaded.
"""

from __future__ import annotations

import ctypes
import os
import struct
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from gno.ports import MODEL_LOAD_FAILED

MAX_CONTEXT = 512  # n_ctx = n_batch = n_ubatch = min(trained context, MAX_CONTEXT)

# GGUF value types: fixed-size scalars, string (8) and array (9).
_GGUF_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?"}
_GGUF_SCALARS |= {10: "<Q", 11: "<q", 12: "<d"}
_GGUF_STRING, _GGUF_ARRAY = 8, 9


def read_gguf_metadata(path: Path) -> dict[str, Any]:
    """The scalar and string keys of a GGUF header (arrays are skipped).

    Raises ``ValueError`` when the file is not a little-endian GGUF v2/v3 file,
    so llama.cpp is never handed something that could trip an assertion.
    """
    from gno.ingest.reading import open_regular

    # Opened without blocking and checked on the descriptor: a `file:` model URI or a
    # download path naming a named pipe or a device is refused, never waited on.
    with os.fdopen(open_regular(os.fspath(path), sys.maxsize), "rb") as f:
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


def silence_llama_logs(llama_cpp: Any) -> None:
    """llama.cpp logs to stderr from C (even with verbose=False); the CLI's stderr carries
    the JSON error envelope, so its log lines go nowhere. Failures still raise."""
    global _quiet_callback
    if _quiet_callback is None:
        _quiet_callback = llama_cpp.llama_log_callback(lambda level, text, user_data: None)
        llama_cpp.llama_log_set(_quiet_callback, ctypes.c_void_p(0))


@dataclass
class LoadedModel:
    llama_cpp: Any  # the module
    llm: Any  # llama_cpp.Llama
    meta: dict[str, Any]
    arch: str
    n_ctx_train: int
    n_ctx: int


def load_model(
    path: str | Path,
    error: Callable[[str, str], Exception],
    choose_pooling: Callable[[str, dict[str, Any]], int] | None,
    n_threads: int | None = None,
    *,
    n_ctx: int | None = None,
    seed: int | None = None,
    pack_tokens: int | None = None,
    flash_attn: bool = False,
) -> LoadedModel:
    """Validate the header, pick the pooling (``choose_pooling`` may refuse by raising), load.

    With ``choose_pooling`` the model is loaded for pooled outputs (embeddings, rank scores)
    with a context of ``min(trained context, MAX_CONTEXT)``; without it, for generation with
    a context of ``min(trained context, n_ctx)`` (default ``MAX_CONTEXT``) and logits for
    sampling. ``pack_tokens`` (pooled models) widens the batch so several sequences of at
    most ``min(trained context, MAX_CONTEXT)`` tokens each share one decode; positions
    restart per sequence, so no sequence sees more than the trained context. ``flash_attn``
    (pooled encoders: ``<arch>.attention.causal`` false, e.g. BERT) turns on llama.cpp's
    fused attention, which skips the masked-out pairs of a packed batch instead of computing
    them (bench/README.md "Batched embedding"); decoder models keep plain attention, whose
    packed vectors equal the one-at-a-time ones more closely.
    Every failure is ``error(MODEL_LOAD_FAILED, message)``."""
    path = Path(path).expanduser().resolve()
    if not path.is_file():
        raise error(MODEL_LOAD_FAILED, f"model file not found: {path}")
    try:
        meta = read_gguf_metadata(path)
    except (OSError, ValueError, struct.error) as exc:
        raise error(MODEL_LOAD_FAILED, f"{path}: {exc}") from exc
    arch = meta.get("general.architecture")
    n_ctx_train = meta.get(f"{arch}.context_length")
    if not isinstance(arch, str) or not isinstance(n_ctx_train, int) or n_ctx_train < 8:
        raise error(MODEL_LOAD_FAILED, f"{path}: no architecture/context length")
    pooling = choose_pooling(arch, meta) if choose_pooling is not None else None
    if pooling is not None:  # the whole context is one batch (one or several sequences)
        n_ctx = n_batch = max(min(n_ctx_train, MAX_CONTEXT), pack_tokens or 0)
    else:  # generation: the caller sizes the context, the prompt is decoded in batches
        n_ctx = min(n_ctx_train, n_ctx or MAX_CONTEXT)
        n_batch = min(n_ctx, MAX_CONTEXT)
    threads = n_threads or min(2, os.cpu_count() or 1)
    try:
        import llama_cpp
    except ImportError as exc:
        raise error(
            MODEL_LOAD_FAILED, "llama-cpp-python is not installed (pip install 'gno[models]')"
        ) from exc
    silence_llama_logs(llama_cpp)
    try:
        mode: dict[str, Any] = (
            {
                "embedding": True,
                "pooling_type": pooling,
                "flash_attn": flash_attn and meta.get(f"{arch}.attention.causal") is False,
            }
            if pooling is not None
            else {"seed": llama_cpp.LLAMA_DEFAULT_SEED if seed is None else seed}
        )
        llm = llama_cpp.Llama(
            str(path),
            n_ctx=n_ctx,
            n_batch=n_batch,
            n_ubatch=n_batch,
            n_threads=threads,
            n_threads_batch=threads,  # prompt decoding uses this one (default: all cores)
            verbose=False,
            **mode,
        )
    except Exception as exc:  # llama-cpp-python raises ValueError/RuntimeError
        raise error(MODEL_LOAD_FAILED, f"{path}: {exc}") from exc
    return LoadedModel(llama_cpp, llm, meta, arch, n_ctx_train, n_ctx)


def decode_pooled(llm: Any, llama_cpp: Any, tokens: list[int]) -> Any:
    """Decode one token sequence on its own and return llama.cpp's pooled output for it
    (None when there is none)."""
    return decode_pooled_many(llm, llama_cpp, [tokens])[0]


def decode_pooled_many(llm: Any, llama_cpp: Any, sequences: list[list[int]]) -> list[Any]:
    """Decode several token sequences in one batch, each with its own sequence id (so the
    attention mask keeps them apart and positions restart at 0), and return llama.cpp's
    pooled output per sequence (None when there is none). The caller keeps the total within
    the batch size. This is ``Llama.embed``'s decode step without its tokenizing
    (llama-cpp-python 0.3.36 internals: ``_batch``, ``_ctx``)."""
    llm._batch.reset()
    for seq_id, tokens in enumerate(sequences):
        llm._batch.add_sequence(tokens, seq_id, True)
    llm._ctx.kv_cache_clear()
    try:
        llm._ctx.decode(llm._batch)
    finally:
        llm._batch.reset()
    return [
        llama_cpp.llama_get_embeddings_seq(llm._ctx.ctx, seq_id) or None
        for seq_id in range(len(sequences))
    ]
