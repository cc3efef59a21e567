"""Embedding settings side by side (issue 13 item 4): one text per decode against packed
decodes with and without flash attention, at several pack sizes, on the chunk texts of a gno
index, interleaved in slices of 8 so a busy machine slows every way alike. Prints a running
line per slice, then chunks/s, chunks per CPU-second, the ratio to the first way and the
lowest cosine against it.

    .venv/bin/python bench/embed_sweep.py HOME [N] [name/ctx/ubatch/flash/pack/maxtexts/sorted,...]

HOME is a gno home built by bench/quality.py (its index supplies the chunk texts); N chunk
texts (default 160); T=threads in the environment (default 2). Each way is a raw
`llama_cpp.Llama` with those settings, decoded through gno's `decode_pooled_many`.
"""

from __future__ import annotations

import math
import os
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
MODEL = str(ROOT.parent / "shared" / "models" / "all-MiniLM-L6-v2-f16.gguf")
DEFAULT = [
    "single/1024/1024/0/256/1/0",
    "packed1024/1024/1024/0/1024/16/0",
    "p1024fa/1024/1024/1/1024/16/0",
    "p2048fa/2048/2048/1/2048/32/1",
]
SLICE = 8


def load(llama_cpp: Any, ctx: int, ubatch: int, flash: bool, threads: int) -> Any:
    return llama_cpp.Llama(MODEL, embedding=True, pooling_type=1, n_ctx=ctx, n_batch=ctx,
                           n_ubatch=ubatch, n_threads=threads, n_threads_batch=threads,
                           flash_attn=flash, verbose=False)  # fmt: skip


def tokens(llm: Any, text: str) -> list[int]:
    ids = llm.tokenize(text.encode(), add_bos=True, special=False)
    return ids if len(ids) <= 256 else ids[:255] + ids[-1:]  # gno's cut, [SEP] kept


def run(llm: Any, seqs: list[list[int]], pack: int, most: int, shortest_first: bool) -> list[Any]:
    from gno.adapters.llama.gguf import decode_pooled_many

    order = (
        sorted(range(len(seqs)), key=lambda i: len(seqs[i])) if shortest_first else range(len(seqs))
    )
    out: list[Any] = [None] * len(seqs)
    group: list[int] = []
    used = 0

    def flush() -> None:
        import llama_cpp

        pooled = decode_pooled_many(llm, llama_cpp, [seqs[i] for i in group])
        for i, ptr in zip(group, pooled, strict=True):
            out[i] = ptr[:384]

    for i in order:
        if group and (used + len(seqs[i]) > pack or len(group) >= most):
            flush()
            group, used = [], 0
        group.append(i)
        used += len(seqs[i])
    if group:
        flush()
    return out


def cos(a: list[float], b: list[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    return dot / math.sqrt(sum(x * x for x in a) * sum(y * y for y in b))


def main() -> None:
    import apsw
    import llama_cpp

    from gno.adapters.llama.gguf import silence_llama_logs
    from gno.core.embedding_text import document_text

    home = Path(sys.argv[1]).expanduser()
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 160
    ways = [c.split("/") for c in (sys.argv[3].split(",") if len(sys.argv) > 3 else DEFAULT)]
    threads = int(os.environ.get("T", "2"))
    db = apsw.Connection(
        str(home / "data" / "index-default.sqlite"), flags=apsw.SQLITE_OPEN_READONLY
    )
    rows = db.execute(
        "SELECT c.pos, c.end_pos, d.title, m.markdown FROM content_chunks c "
        "JOIN content m ON m.mirror_hash = c.mirror_hash "
        "JOIN documents d ON d.mirror_hash = c.mirror_hash ORDER BY c.mirror_hash, c.seq LIMIT ?",
        (count * 2,),
    ).fetchall()
    uri = "file:" + MODEL
    texts = list(dict.fromkeys(document_text(uri, t, md[p:e]) for p, e, t, md in rows))[:count]
    silence_llama_logs(llama_cpp)
    models = {
        name: (
            load(llama_cpp, int(ctx), int(ub), fa == "1", threads),
            int(pack),
            int(most),
            srt == "1",
        )
        for name, ctx, ub, fa, pack, most, srt in ways
    }
    seqs = [tokens(models[ways[0][0]][0], t) for t in texts]
    print(f"{len(seqs)} texts, {sum(map(len, seqs))} tokens, {threads} threads")
    wall = dict.fromkeys(models, 0.0)
    cpu = dict(wall)
    vectors: dict[str, list[Any]] = {name: [] for name in models}
    for start in range(0, len(seqs), SLICE):
        part = seqs[start : start + SLICE]
        for name, (llm, pack, most, srt) in models.items():
            w, c = time.perf_counter(), time.process_time()
            vectors[name] += run(llm, part, pack, most, srt)
            wall[name] += time.perf_counter() - w
            cpu[name] += time.process_time() - c
        done = start + len(part)
        print(
            done,
            " ".join(f"{n}:{done / wall[n]:.2f}/s,{done / cpu[n]:.2f}/cpu" for n in models),
            flush=True,
        )
    base = ways[0][0]
    for name in models:
        low = min(cos(a, b) for a, b in zip(vectors[name], vectors[base], strict=True))
        print(f"{name:<14} {len(seqs) / wall[name]:7.2f} chunks/s  {len(seqs) / cpu[name]:7.2f} chunks/CPU-s  "
              f"x{wall[base] / wall[name]:.2f} wall x{cpu[base] / cpu[name]:.2f} cpu  lowest cosine {low:.7f}")  # fmt: skip
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
