"""Embedding throughput: packed batches (gno today) against one text per decode and raw
llama-cpp-python, on the same chunk texts, with equal vectors checked.

Indexes files of the benchmark corpus (specification, then semantic conventions) into a temp
dir until there are `--chunks` chunks (default 500), builds each chunk's embedding text as
`gno embed` does, then embeds every text three ways with MiniLM on `--threads` threads
(default 2), interleaved in slices of 16 texts so a busy machine slows all three alike:

- raw:    `llama_cpp.Llama.embed(text)`, one text per call (the same 256-token cut gno makes);
- single: `LlamaEmbedder(flash_attn=False).embed_batch([text])`, one text per decode with
          plain attention (gno before packing: "today's one-at-a-time" of issue 13 item 4);
- packed: gno's `LlamaEmbedder.embed_batch(slice)`, several texts per decode with flash
          attention, shortest first (gno now).

Prints chunks/s (wall) and chunks per CPU-second for each, the ratios to raw, and the lowest
cosine between packed and single vectors over all chunks (target ≥ 0.9999). With
`--service`, also `gno embed` end to end. Exits 0 with a message when the corpus or the model
is missing. Run: `.venv/bin/python bench/embed.py [--chunks N] [--threads T] [--service]`.
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from verdicts import verdict

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpora" / "opentelemetry-docs"
FOLDERS = ("specification/specification", "semantic-conventions/docs")
MODEL = ROOT.parent / "shared" / "models" / "all-MiniLM-L6-v2-f16.gguf"
SLICE = 16
COS_TARGET = 0.9999
QUERIES = [
    "how are spans sampled",
    "propagating trace context between services",
    "metric exporters",
]


def cos(a: list[float], b: list[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    return dot / math.sqrt(sum(x * x for x in a) * sum(y * y for y in b))


def chunk_texts(app, wanted: int, src: Path) -> list[str]:
    """Copy corpus files in until gno's chunker makes at least `wanted` chunks."""
    from gno_contracts.models.init_input import InitInput
    from gno_contracts.models.update_input import UpdateInput

    from gno.core.embedding_text import document_text
    from gno.services.collections import init
    from gno.services.sync import update

    files = [p for folder in FOLDERS for p in sorted((CORPUS / folder).rglob("*.md"))]
    init(app, InitInput(path=str(src), name="spec"))
    taken = 0
    while taken < len(files):
        for path in files[taken : taken + 20]:
            (src / f"{taken:04d}-{path.name}").write_bytes(path.read_bytes())
            taken += 1
        update(app, UpdateInput())
        if app.store().conn.execute("SELECT count(*) FROM content_chunks").fetchone()[0] >= wanted:
            break
    rows = (
        app.store()
        .conn.execute(
            "SELECT c.pos, c.end_pos, d.title, m.markdown FROM content_chunks c "
            "JOIN content m ON m.mirror_hash = c.mirror_hash "
            "JOIN documents d ON d.mirror_hash = c.mirror_hash ORDER BY c.mirror_hash, c.seq"
        )
        .fetchall()
    )
    texts = list(dict.fromkeys(document_text(f"file:{MODEL}", t, md[p:e]) for p, e, t, md in rows))
    return texts[:wanted]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--chunks", type=int, default=500)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--raw", type=int, help="time raw llama_cpp on the first N chunks only")
    parser.add_argument("--windows", type=int, default=0, help="also time packed embedding "
                        "of every chunk's windows (maxWindows N), as `gno embed` does")  # fmt: skip
    parser.add_argument("--service", action="store_true", help="also time `gno embed`")
    args = parser.parse_args()
    if not CORPUS.is_dir() or not MODEL.is_file():
        print(f"skipped: needs {CORPUS} and {MODEL}")
        return
    try:
        import llama_cpp
    except ImportError:
        print("skipped: needs llama-cpp-python (pip install 'gno[models]')")
        return
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.update(GNO_CONFIG_DIR=f"{tmp}/c", GNO_DATA_DIR=f"{tmp}/d", GNO_CACHE_DIR=f"{tmp}/k",
                          GNO_EMBED_MODEL=f"file:{MODEL}", GNO_EMBED_THREADS=str(args.threads))  # fmt: skip
        src = Path(tmp) / "src"
        src.mkdir()
        from gno.adapters.llama.embedder import LlamaEmbedder
        from gno.app import App
        from gno.paths import resolve_paths

        app = App(resolve_paths())
        texts = chunk_texts(app, args.chunks, src)
        gno = LlamaEmbedder(MODEL, n_threads=args.threads)
        old = LlamaEmbedder(MODEL, n_threads=args.threads, pack_tokens=512, flash_attn=False)
        raw = llama_cpp.Llama(str(MODEL), embedding=True, n_ctx=512, n_batch=512, n_ubatch=512,
                              n_threads=args.threads, n_threads_batch=args.threads, verbose=False)  # fmt: skip
        same_work = []  # raw llama.cpp gets the same 256-token cut gno makes
        for text in texts:
            ids = raw.tokenize(text.encode(), add_bos=True, special=False)
            if len(ids) > gno.max_tokens:
                text = raw.detokenize(ids[1 : gno.max_tokens - 1]).decode("utf-8", errors="ignore")
            same_work.append(text)
        tokens = sum(min(len(gno._tokenize(t)), gno.max_tokens) for t in texts)
        gno.embed_batch(texts[:2])
        old.embed_batch(texts[:2])
        raw.embed(same_work[0])
        from gno.core.windows import plan_windows

        windowed = []  # each chunk's window texts, as services/embed.py builds them
        for text in texts:
            prefix, chunk = text.split(" | text: ", 1)
            plan = plan_windows(chunk, gno.token_count(text), gno.max_tokens, args.windows or 1)
            windowed.append([text] + [f"{prefix} | text: {chunk[s:]}" for s in plan.starts[1:]])
        wall = dict.fromkeys(
            ("raw", "single", "packed", "windows", "single@raw", "packed@raw"), 0.0
        )
        cpu = dict(wall)
        with_raw = min(len(texts), -(-(args.raw or len(texts)) // SLICE) * SLICE)  # whole slices
        lowest, singles = 1.0, 0
        busy0 = _busy()
        for start in range(0, len(texts), SLICE):
            part, part_raw = texts[start : start + SLICE], same_work[start : start + SLICE]
            ways = (
                (
                    "raw",
                    lambda p=part_raw: [raw.embed(t, normalize=True, truncate=True) for t in p],
                ),
                ("single", lambda p=part: [old.embed_batch([t])[0] for t in p]),
                ("packed", lambda p=part: gno.embed_batch(p)),
                (
                    "windows",
                    lambda w=windowed[start : start + SLICE]: gno.embed_batch(
                        [t for ts in w for t in ts]
                    ),
                ),
            )
            timed_raw = start < with_raw
            for name, run in ways[0 if timed_raw else 1 : None if args.windows else 3]:
                w, c = time.perf_counter(), time.process_time()
                out = run()
                wall[name] += time.perf_counter() - w
                cpu[name] += time.process_time() - c
                if timed_raw and name in ("single", "packed"):  # the slices raw was timed on
                    wall[f"{name}@raw"] += time.perf_counter() - w
                    cpu[f"{name}@raw"] += time.process_time() - c
                if name == "single":
                    one_by_one = out
                elif name == "packed":
                    lowest = min(
                        [lowest, *(cos(a, b) for a, b in zip(out, one_by_one, strict=True))]
                    )
                    singles += len(out)
            print(f"  {start + len(part)}/{len(texts)}", end="\r", file=sys.stderr, flush=True)
        ways_s = ("raw", "single", "packed")
        elapsed = sum(wall[w] for w in ways_s)
        others = (
            max(0.0, (_busy() - busy0) - sum(cpu[w] for w in ways_s)) / elapsed if elapsed else 0.0
        )
        n = len(texts)
        print(f"{n} chunk texts ({tokens} tokens after the {gno.max_tokens}-token cut), MiniLM f16, "
              f"{args.threads} threads, slices of {SLICE} interleaved; raw timed on the first {with_raw}")  # fmt: skip
        print(
            f"{'way':<8}{'chunks/s':>10}{'vs raw':>8}{'chunks/CPU-s':>14}{'vs raw':>8}   (ratios on the raw slices)"
        )
        for name in ways_s:
            count = with_raw if name == "raw" else n
            same = "raw" if name == "raw" else f"{name}@raw"
            print(f"{name:<8}{count / wall[name]:>10.2f}{wall['raw'] / wall[same]:>8.2f}"
                  f"{count / cpu[name]:>14.2f}{cpu['raw'] / cpu[same]:>8.2f}")  # fmt: skip
        if args.windows:
            count = sum(map(len, windowed))
            print(f"windows (maxWindows {args.windows}): {count / n:.2f} vectors per chunk, "
                  f"{wall['windows'] / n * 1000:.0f} ms per chunk = {wall['windows'] / wall['single']:.2f}x "
                  f"one-at-a-time without windows (wall), {cpu['windows'] / cpu['single']:.2f}x (CPU)")  # fmt: skip
        speedup = wall["single"] / wall["packed"]
        word = verdict(13, "embedding chunks/s, packed vs one at a time", f"{speedup:.2f}×",
                       ">= 2×", speedup >= 2)  # fmt: skip
        print(f"packed vs single: {speedup:.2f}x wall (target >= 2x) {word}, "
              f"{cpu['single'] / cpu['packed']:.2f}x CPU")  # fmt: skip
        word = verdict(13, f"embedding lowest cosine packed vs single ({singles} chunks)",
                       f"{lowest:.7f}", f">= {COS_TARGET}", lowest >= COS_TARGET)  # fmt: skip
        print(f"lowest cosine packed vs one-at-a-time over {singles} chunks: {lowest:.7f} "
              f"(target >= {COS_TARGET}) {word}")  # fmt: skip
        print(f"other processes kept {others:.2f} cores busy meanwhile"
              + (" (timings inflated; ratios measured side by side)" if others > 0.1 else ""))  # fmt: skip
        if args.service:
            _service(app)
        app.close()


def _service(app) -> None:
    from gno_contracts.models.embed_input import EmbedInput
    from gno_contracts.models.search_input import SearchInput

    from gno.services.embed import embed, vsearch

    app.embedder()
    started = time.perf_counter()
    result = embed(app, EmbedInput())
    print(
        f"gno embed: {result.embedded} chunks, {result.embedded / (time.perf_counter() - started):.2f} chunks/s"
    )
    latencies = []
    for query in QUERIES * 5:
        t = time.perf_counter()
        vsearch(app, SearchInput(query=query, limit=10))
        latencies.append((time.perf_counter() - t) * 1000)
    print(
        f"vsearch in-process median {statistics.median(latencies):.1f} ms, max {max(latencies):.1f} ms"
    )


def _busy() -> float:
    """CPU seconds all processes used so far (user + nice + system), from /proc/stat."""
    try:
        fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
        return (int(fields[0]) + int(fields[1]) + int(fields[2])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0


if __name__ == "__main__":
    main()
