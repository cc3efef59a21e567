"""Tiny random-weight GGUF models for unit tests (stack.md section 3.3).

Written with gguf-py's ``GGUFWriter`` and numpy only: no torch, no downloads.
The weights are random (fixed seed), so the vectors and texts they produce mean
nothing; they exercise loading, tokenization, truncation and pooling.
"""

from __future__ import annotations

from pathlib import Path

import gguf
import numpy as np

WORDS = ("the", "search", "trace", "sample", "query", "index", "document", "model", "vector")
LETTERS = "abcdefghijklmnopqrstuvwxyz"
CHARS = LETTERS + "0123456789"
PUNCT = ".,?!'-:"
NORMAL, UNKNOWN, CONTROL, BYTE = 1, 2, 3, 6


def _bert_vocab() -> list[str]:
    """WordPiece in llama.cpp's phantom-space form: ``▁`` starts a word."""
    tokens = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    tokens += ["▁" + w for w in WORDS]
    tokens += ["▁" + c for c in CHARS + PUNCT]
    tokens += list(CHARS)  # continuations inside a word
    assert len(set(tokens)) == len(tokens), "duplicate token strings abort llama.cpp"
    return tokens


def write_tiny_bert(path: Path, *, seed: int = 0, rank: bool = False) -> Path:
    """A 2-layer, 32-d BERT (MEAN pooling), or with ``rank`` the RANK reranker."""
    n_embd, n_ff, n_ctx, n_layer = 32, 64, 128, 2
    tokens = _bert_vocab()
    rng = np.random.default_rng(seed)

    def rand(*shape: int, scale: float = 0.02) -> np.ndarray:
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    def zeros(*shape: int) -> np.ndarray:
        return np.zeros(shape, dtype=np.float32)

    def ones(*shape: int) -> np.ndarray:
        return np.ones(shape, dtype=np.float32)

    writer = gguf.GGUFWriter(str(path), "bert")
    writer.add_block_count(n_layer)
    writer.add_context_length(n_ctx)
    writer.add_embedding_length(n_embd)
    writer.add_feed_forward_length(n_ff)
    writer.add_head_count(2)
    writer.add_layer_norm_eps(1e-12)
    writer.add_causal_attention(False)
    writer.add_pooling_type(gguf.PoolingType.RANK if rank else gguf.PoolingType.MEAN)
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)
    writer.add_tokenizer_model("bert")
    writer.add_tokenizer_pre("jina-v2-en")
    writer.add_token_list(tokens)
    writer.add_token_types([CONTROL] * 5 + [NORMAL] * (len(tokens) - 5))
    writer.add_token_type_count(2)
    writer.add_pad_token_id(0)
    writer.add_unk_token_id(1)
    writer.add_bos_token_id(2)
    writer.add_eos_token_id(3)
    writer.add_sep_token_id(3)
    writer.add_mask_token_id(4)
    writer.add_add_bos_token(True)
    writer.add_add_eos_token(True)

    tensors = {
        "token_embd.weight": rand(len(tokens), n_embd),
        "token_types.weight": rand(2, n_embd),
        "position_embd.weight": rand(n_ctx, n_embd),
        "token_embd_norm.weight": ones(n_embd),
        "token_embd_norm.bias": zeros(n_embd),
    }
    for i in range(n_layer):
        blk = f"blk.{i}."
        for name in ("attn_q", "attn_k", "attn_v", "attn_output"):
            tensors[blk + name + ".weight"] = rand(n_embd, n_embd)
            tensors[blk + name + ".bias"] = zeros(n_embd)
        for norm in ("attn_output_norm", "layer_output_norm"):
            tensors[blk + norm + ".weight"] = ones(n_embd)
            tensors[blk + norm + ".bias"] = zeros(n_embd)
        tensors[blk + "ffn_up.weight"] = rand(n_ff, n_embd)
        tensors[blk + "ffn_up.bias"] = zeros(n_ff)
        tensors[blk + "ffn_down.weight"] = rand(n_embd, n_ff)
        tensors[blk + "ffn_down.bias"] = zeros(n_embd)
    if rank:
        tensors["cls.weight"] = rand(n_embd, n_embd, scale=0.5 * 0.02)
        tensors["cls.bias"] = zeros(n_embd)
        tensors["cls.output.weight"] = rand(1, n_embd, scale=0.5 * 0.02)
        tensors["cls.output.bias"] = zeros(1)
    return _write(writer, tensors, path)


def write_tiny_llama(
    path: Path, *, seed: int = 0, n_ctx: int = 256, chat_template: bool = True
) -> Path:
    """A 2-layer, 64-d llama (GQA 4/2 heads) with an SPM vocab and, unless told otherwise,
    a chat template; ``n_ctx`` is its trained context."""
    n_embd, n_ff, n_layer, n_head, n_head_kv = 64, 128, 2, 4, 2
    head_dim = n_embd // n_head
    tokens = ["<unk>", "<s>", "</s>"] + [f"<0x{b:02X}>" for b in range(256)]
    tokens += ["▁"] + ["▁" + w for w in WORDS] + list(LETTERS)
    assert len(set(tokens)) == len(tokens)
    types = [UNKNOWN, CONTROL, CONTROL] + [BYTE] * 256 + [NORMAL] * (len(tokens) - 259)
    scores = [0.0] * 259 + [-float(i) for i in range(len(tokens) - 259)]
    rng = np.random.default_rng(seed)

    def rand(*shape: int) -> np.ndarray:
        return (rng.standard_normal(shape) * 0.02).astype(np.float32)

    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_block_count(n_layer)
    writer.add_context_length(n_ctx)
    writer.add_embedding_length(n_embd)
    writer.add_feed_forward_length(n_ff)
    writer.add_head_count(n_head)
    writer.add_head_count_kv(n_head_kv)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_rope_dimension_count(head_dim)
    writer.add_vocab_size(len(tokens))
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)
    writer.add_tokenizer_model("llama")
    writer.add_tokenizer_pre("default")
    writer.add_token_list(tokens)
    writer.add_token_types(types)
    writer.add_token_scores(scores)
    writer.add_unk_token_id(0)
    writer.add_bos_token_id(1)
    writer.add_eos_token_id(2)
    writer.add_add_bos_token(True)
    writer.add_add_eos_token(False)
    if chat_template:
        writer.add_chat_template(
            "{% for m in messages %}<|{{ m.role }}|>{{ m.content }}{{ '\\n' }}{% endfor %}"
            "{% if add_generation_prompt %}<|assistant|>{% endif %}"
        )

    tensors = {
        "token_embd.weight": rand(len(tokens), n_embd),
        "output_norm.weight": np.ones(n_embd, dtype=np.float32),
        "output.weight": rand(len(tokens), n_embd),
    }
    for i in range(n_layer):
        blk = f"blk.{i}."
        tensors[blk + "attn_norm.weight"] = np.ones(n_embd, dtype=np.float32)
        tensors[blk + "attn_q.weight"] = rand(n_embd, n_embd)
        tensors[blk + "attn_k.weight"] = rand(n_head_kv * head_dim, n_embd)
        tensors[blk + "attn_v.weight"] = rand(n_head_kv * head_dim, n_embd)
        tensors[blk + "attn_output.weight"] = rand(n_embd, n_embd)
        tensors[blk + "ffn_norm.weight"] = np.ones(n_embd, dtype=np.float32)
        tensors[blk + "ffn_gate.weight"] = rand(n_ff, n_embd)
        tensors[blk + "ffn_up.weight"] = rand(n_ff, n_embd)
        tensors[blk + "ffn_down.weight"] = rand(n_embd, n_ff)
    return _write(writer, tensors, path)


def _write(writer: gguf.GGUFWriter, tensors: dict[str, np.ndarray], path: Path) -> Path:
    for name, data in tensors.items():
        writer.add_tensor(name, data)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path
