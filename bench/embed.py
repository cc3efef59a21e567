"""Embedding throughput: `gno embed` against raw llama-cpp-python on the same chunks.

Indexes the first files of the benchmark corpus into a temp dir, embeds them with the
MiniLM GGUF through gno (n_threads = 2), then embeds the same chunk texts with
`llama_cpp.Llama.embed`, one text per call. Prints chunks/s for both, their ratio
(target ≥ 0.95) and the median/max in-process `vsearch` latency.
Run: `.venv/bin/python bench/embed.py [files]`.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = (
    ROOT.parent / "shared" / "corpora" / "opentelemetry-docs" / "specification" / "specification"
)
MODEL = ROOT.parent / "shared" / "models" / "all-MiniLM-L6-v2-f16.gguf"
QUERIES = [
    "how are spans sampled",
    "propagating trace context between services",
    "metric exporters",
]


def main(files: int) -> None:
    if not CORPUS.is_dir() or not MODEL.is_file():
        print(f"skipped: needs {CORPUS} and {MODEL}")
        return
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.update(GNO_CONFIG_DIR=f"{tmp}/c", GNO_DATA_DIR=f"{tmp}/d", GNO_CACHE_DIR=f"{tmp}/k",
                          GNO_EMBED_MODEL=f"file:{MODEL}")  # fmt: skip
        src = Path(tmp) / "src"
        src.mkdir()
        for path in sorted(CORPUS.rglob("*.md"))[:files]:
            (src / path.name).write_bytes(path.read_bytes())
        from gno_contracts.models.embed_input import EmbedInput
        from gno_contracts.models.init_input import InitInput
        from gno_contracts.models.search_input import SearchInput
        from gno_contracts.models.update_input import UpdateInput

        from gno.app import App
        from gno.core.embedding_text import document_text
        from gno.paths import resolve_paths
        from gno.services.collections import init
        from gno.services.embed import embed, vsearch
        from gno.services.sync import update

        app = App(resolve_paths())
        init(app, InitInput(path=str(src), name="spec"))
        update(app, UpdateInput())
        app.embedder()  # load once, outside the timing
        started = time.perf_counter()
        result = embed(app, EmbedInput())
        gno_rate = result.embedded / (time.perf_counter() - started)

        store = app.store()
        rows = store.conn.execute(
            "SELECT c.pos, c.end_pos, d.title, m.markdown FROM content_chunks c "
            "JOIN content m ON m.mirror_hash = c.mirror_hash JOIN documents d ON d.mirror_hash = c.mirror_hash"
        ).fetchall()
        texts = [
            document_text(app.embed_uri or "", title, markdown[pos:end])
            for pos, end, title, markdown in rows
        ]
        import llama_cpp

        llm = llama_cpp.Llama(str(MODEL), embedding=True, n_ctx=512, n_batch=512, n_ubatch=512,
                              n_threads=2, n_threads_batch=2, verbose=False)  # fmt: skip
        max_tokens = app.embedder().max_tokens
        same_work = []  # give raw llama.cpp the same 256-token cut gno makes
        for text in texts:
            ids = llm.tokenize(text.encode(), add_bos=True, special=False)
            if len(ids) > max_tokens:
                text = llm.detokenize(ids[1 : max_tokens - 1]).decode("utf-8", errors="ignore")
            same_work.append(text)
        started = time.perf_counter()
        for text in same_work:
            llm.embed(text, normalize=True, truncate=True)
        raw_rate = len(texts) / (time.perf_counter() - started)

        latencies = []
        for query in QUERIES * 5:
            t = time.perf_counter()
            vsearch(app, SearchInput(query=query, limit=10))
            latencies.append((time.perf_counter() - t) * 1000)
        print(
            f"{files} files, {result.embedded} chunks embedded by gno ({len(texts)} chunk texts for raw)"
        )
        print(f"gno embed     {gno_rate:6.1f} chunks/s")
        print(
            f"raw llama_cpp {raw_rate:6.1f} chunks/s   ratio gno/raw {gno_rate / raw_rate:.2f} (target >= 0.95)"
        )
        print(
            f"vsearch in-process median {statistics.median(latencies):.1f} ms, max {max(latencies):.1f} ms"
        )
        app.close()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 40)
