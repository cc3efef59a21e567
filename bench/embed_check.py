"""Vectors of today's embedder against vectors already stored in an index (made by an
earlier build of gno, e.g. one text per decode): the lowest cosine over N chunks, and this
embedder's chunks/s on them. Cheaper than bench/embed.py's side-by-side run on a busy
machine, because the reference vectors are read, not recomputed.

    .venv/bin/python bench/embed_check.py --home ~/.cache/gno-bench/q400w --chunks 500

`--home` is a gno home built by bench/quality.py; its one-vector set (the vectors of
model id `--model-id`, default the first) is the reference.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MODEL = ROOT.parent / "shared" / "models" / "all-MiniLM-L6-v2-f16.gguf"
COS_TARGET = 0.9999


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--chunks", type=int, default=500)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--model-id", type=int, default=1)
    args = parser.parse_args()
    if not MODEL.is_file():
        print(f"skipped: needs {MODEL}")
        return
    import apsw

    from gno.adapters.llama.embedder import LlamaEmbedder
    from gno.core.embedding_text import document_text, text_hash
    from gno.rows import unpack

    db = args.home.expanduser() / "data" / "index-default.sqlite"
    conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    rows = conn.execute(
        "SELECT c.pos, c.end_pos, d.title, m.markdown FROM content_chunks c "
        "JOIN content m ON m.mirror_hash = c.mirror_hash "
        "JOIN documents d ON d.mirror_hash = c.mirror_hash ORDER BY c.mirror_hash, c.seq"
    ).fetchall()
    uri = f"file:{MODEL.resolve()}"
    texts = list(dict.fromkeys(document_text(uri, t, md[p:e]) for p, e, t, md in rows))
    stored = dict(
        conn.execute(
            "SELECT text_hash, embedding FROM text_vectors WHERE model_id = ?", (args.model_id,)
        ).fetchall()
    )
    pairs = [(t, stored[text_hash(t)]) for t in texts if text_hash(t) in stored][: args.chunks]
    if not pairs:
        sys.exit(f"no stored vectors of model {args.model_id} match these chunk texts")
    embedder = LlamaEmbedder(MODEL, n_threads=args.threads)
    embedder.embed_batch([pairs[0][0]])  # warm up
    wall, cpu = time.perf_counter(), time.process_time()
    got = []
    for start in range(0, len(pairs), 64):  # pages of 64, as `gno embed` hands them over
        got += embedder.embed_batch([t for t, _ in pairs[start : start + 64]])
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    lowest = min(
        sum(x * y for x, y in zip(v, unpack(ref), strict=True))
        / math.sqrt(sum(x * x for x in v) * sum(y * y for y in unpack(ref)))
        for v, (_, ref) in zip(got, pairs, strict=True)
    )
    verdict = "PASS" if lowest >= COS_TARGET else "MISS"
    print(f"{len(pairs)} chunks, {args.threads} threads: {len(pairs) / wall:.2f} chunks/s wall, "
          f"{len(pairs) / cpu:.2f} chunks per CPU-second")  # fmt: skip
    print(
        f"lowest cosine against the stored vectors: {lowest:.7f} (target >= {COS_TARGET}) {verdict}"
    )
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
