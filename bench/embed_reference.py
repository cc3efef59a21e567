"""A sentence-transformers-class reference for gno's embedding throughput (issue 13 item 4).

sentence-transformers runs MiniLM as batched dense matrix products (PyTorch on BLAS): pad a
batch of texts to its longest, one GEMM per projection for the whole batch, mean pooling.
Neither sentence-transformers' weights nor PyTorch's CPU wheels are reachable from this
machine (the Hugging Face hub is not), so this script runs the same computation in numpy
on the same MiniLM weights (read from the shared GGUF with the `gguf` package, f16 widened
to f32), batched the way sentence-transformers batches (32 texts, sorted by length, padded),
on `--threads` BLAS threads. It embeds the same chunk texts as gno's packed llama.cpp
embedder, with the same tokens (llama.cpp's tokenizer and gno's 256-token cut), checks
the vectors agree (lowest cosine), and prints chunks/s of both, interleaved in slices.

    .venv/bin/python bench/embed_reference.py [--chunks 128] [--threads 2]

Needs numpy (it comes with the `office` extra) besides the `models` extra; exits 0 with a
message when the corpus, the model, numpy or llama-cpp-python is missing.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from embed import CORPUS, MODEL, chunk_texts

BATCH = 32  # sentence-transformers' default batch size
SLICE = 64  # texts per interleaved slice (two batches)


class NumpyBert:
    """MiniLM's forward pass: BERT embeddings, 6 encoder layers, mean pooling."""

    def __init__(self, path: Path) -> None:
        import gguf
        import numpy as np

        self.np = np
        reader = gguf.GGUFReader(str(path))
        self.w = {t.name: np.asarray(t.data, dtype=np.float32) for t in reader.tensors}
        # Projections as (in, out), contiguous: one plain GEMM each (a transposed view would
        # send numpy's stacked matmul down a slow loop).
        for name in [
            n
            for n in self.w
            if n.startswith("blk.") and n.endswith("weight") and self.w[n].ndim == 2
        ]:
            self.w[name] = np.ascontiguousarray(self.w[name].T)
        field = reader.fields
        self.layers = int(field["bert.block_count"].parts[-1][0])
        self.heads = int(field["bert.attention.head_count"].parts[-1][0])
        self.eps = float(field["bert.attention.layer_norm_epsilon"].parts[-1][0])

    def _norm(self, x, name: str):
        np = self.np
        mean = x.mean(-1, keepdims=True)
        var = ((x - mean) ** 2).mean(-1, keepdims=True)
        return (x - mean) / np.sqrt(var + self.eps, dtype=np.float32) * self.w[
            f"{name}.weight"
        ] + self.w[f"{name}.bias"]

    def _linear(self, x, name: str):
        flat = x.reshape(-1, x.shape[-1])  # (batch × tokens, in): one GEMM for the batch
        out = flat @ self.w[f"{name}.weight"] + self.w[f"{name}.bias"]
        return out.reshape(*x.shape[:-1], out.shape[-1])

    def _gelu(
        self, x
    ):  # BERT's exact GELU through erf (Abramowitz-Stegun 7.1.26, |error| < 1.5e-7)
        np = self.np
        z = np.abs(x) * (1 / math.sqrt(2.0))  # Python floats: numpy scalars would widen to f64
        t = 1.0 / (1.0 + 0.3275911 * z)
        poly = t * (
            0.254829592
            + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))
        )
        erf = np.sign(x) * (1.0 - poly * np.exp(-z * z))
        return 0.5 * x * (1.0 + erf)

    def embed(self, batch: list[list[int]]):
        np, w = self.np, self.w
        n, longest = len(batch), max(map(len, batch))
        ids = np.zeros((n, longest), dtype=np.int64)
        mask = np.zeros((n, longest), dtype=np.float32)
        for row, tokens in enumerate(batch):
            ids[row, : len(tokens)] = tokens
            mask[row, : len(tokens)] = 1.0
        x = (
            w["token_embd.weight"][ids]
            + w["position_embd.weight"][:longest]
            + w["token_types.weight"][0]
        )
        x = self._norm(x, "token_embd_norm")
        dim = x.shape[-1]
        head = dim // self.heads
        blocked = (1.0 - mask)[:, None, None, :] * np.float32(-1e9)  # padding never attended to
        for i in range(self.layers):
            p = f"blk.{i}"

            def split(y):
                return np.ascontiguousarray(
                    y.reshape(n, longest, self.heads, head).transpose(0, 2, 1, 3)
                )

            q, k, v = (split(self._linear(x, f"{p}.attn_{c}")) for c in "qkv")
            scores = (
                q @ np.ascontiguousarray(k.transpose(0, 1, 3, 2)) * (1 / math.sqrt(head)) + blocked
            )
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            scores /= scores.sum(-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(n, longest, dim)
            x = self._norm(x + self._linear(context, f"{p}.attn_output"), f"{p}.attn_output_norm")
            hidden = self._gelu(self._linear(x, f"{p}.ffn_up"))
            x = self._norm(x + self._linear(hidden, f"{p}.ffn_down"), f"{p}.layer_output_norm")
        pooled = (x * mask[:, :, None]).sum(1) / mask.sum(1, keepdims=True)
        return pooled / np.linalg.norm(pooled, axis=1, keepdims=True)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--chunks", type=int, default=128)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    if not CORPUS.is_dir() or not MODEL.is_file():
        print(f"skipped: needs {CORPUS} and {MODEL}")
        return
    os.environ["OPENBLAS_NUM_THREADS"] = os.environ["OMP_NUM_THREADS"] = str(args.threads)
    try:
        import llama_cpp  # noqa: F401
        import numpy as np
    except ImportError as exc:
        print(
            f"skipped: needs {exc.name} (numpy: pip install 'gno[office]'; llama_cpp: 'gno[models]')"
        )
        return
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.update(
            GNO_CONFIG_DIR=f"{tmp}/c", GNO_DATA_DIR=f"{tmp}/d", GNO_CACHE_DIR=f"{tmp}/k"
        )
        src = Path(tmp) / "src"
        src.mkdir()
        from gno.adapters.llama.embedder import LlamaEmbedder
        from gno.app import App
        from gno.paths import resolve_paths

        app = App(resolve_paths())
        texts = chunk_texts(app, args.chunks, src)
        app.close()
    gno = LlamaEmbedder(MODEL, n_threads=args.threads)
    bert = NumpyBert(MODEL)
    tokens = [gno._truncate(gno._tokenize(t)) for t in texts]  # the very tokens gno embeds
    gno.embed_batch(texts[:4])
    bert.embed(tokens[:4])
    wall = {"gno": 0.0, "numpy": 0.0}
    cpu = dict(wall)
    lowest = 1.0
    for start in range(0, len(texts), SLICE):
        part = list(range(start, min(start + SLICE, len(texts))))
        began, began_cpu = time.perf_counter(), time.process_time()
        ours = gno.embed_batch([texts[i] for i in part])
        wall["gno"] += time.perf_counter() - began
        cpu["gno"] += time.process_time() - began_cpu
        began, began_cpu = time.perf_counter(), time.process_time()
        order = sorted(part, key=lambda i: len(tokens[i]))  # as sentence-transformers sorts
        theirs = {}
        for b in range(0, len(order), BATCH):
            batch = order[b : b + BATCH]
            for i, vector in zip(batch, bert.embed([tokens[i] for i in batch]), strict=True):
                theirs[i] = vector
        wall["numpy"] += time.perf_counter() - began
        cpu["numpy"] += time.process_time() - began_cpu
        for i, vector in zip(part, ours, strict=True):
            lowest = min(lowest, float(np.dot(np.asarray(vector), theirs[i])))
    n = len(texts)
    print(f"{n} chunk texts, {sum(map(len, tokens))} tokens (gno's 256-token cut), {args.threads} threads, "
          f"slices of {SLICE} interleaved; load average {os.getloadavg()[0]:.2f}")  # fmt: skip
    print(f"{'way':<44}{'chunks/s':>10}{'chunks/CPU-s':>14}")
    print(
        f"{'gno: llama.cpp, packed, flash attention':<44}{n / wall['gno']:>10.2f}{n / cpu['gno']:>14.2f}"
    )
    print(
        f"{'reference: numpy BLAS, batches of 32, padded':<44}{n / wall['numpy']:>10.2f}{n / cpu['numpy']:>14.2f}"
    )
    print(f"gno / reference: {wall['numpy'] / wall['gno']:.2f}× wall, {cpu['numpy'] / cpu['gno']:.2f}× per CPU-second; "
          f"lowest cosine between the two: {lowest:.6f}")  # fmt: skip


if __name__ == "__main__":
    main()
