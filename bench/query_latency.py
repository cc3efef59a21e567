"""`query` latency in process (issue 12 target: p95 ≤ 60 ms on the corpus index, vectors
warm, MiniLM, no rerank or expand model): every dev query through the `query` handler on an
index built by bench/quality.py (`--home`), the query embedded each time (no cache), after
one untimed warm-up pass that loads the model and pages the index in. `--split` also times
the query embedding alone ("embed") and the pipeline with each query's vector cached
("cached": BM25, KNN, fusion and the model-free stages). Reports p50/p95/max of
wall time and of CPU time (the process's, every thread: the embedder's two threads count),
because on a shared machine wall time mostly measures the other processes.

    nice -n 10 .venv/bin/python bench/query_latency.py --home ~/.cache/gno-bench/quality-full \
        --reps 3 [--retrieval embedWindows=false] [--fast]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from quality import MODEL, load_devset, parse_switches


def percentile(values: list[float], share: float) -> float:
    """Nearest-rank percentile (share in 0..1) of a non-empty list."""
    ordered = sorted(values)
    rank = max(1, round(share * len(ordered) + 0.5))
    return ordered[min(len(ordered), rank) - 1]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--reps", type=int, default=3, help="timed passes over the dev set")
    parser.add_argument("--retrieval", help="retrieval switches, as in quality.py")
    parser.add_argument("--fast", action="store_true", help="query --fast")
    parser.add_argument("--split", action="store_true", help="also time the query embedding "
                        "alone and the pipeline with each query's vector cached")  # fmt: skip
    args = parser.parse_args()
    home = args.home.expanduser().resolve()
    os.environ.update(GNO_CONFIG_DIR=str(home / "config"), GNO_DATA_DIR=str(home / "data"),
                      GNO_CACHE_DIR=str(home / "cache"), GNO_EMBED_MODEL=f"file:{MODEL}")  # fmt: skip
    from gno_contracts.models.query_input import QueryInput

    from gno.app import App
    from gno.paths import resolve_paths
    from gno.retrieval_config import parse_retrieval
    from gno.services.query import query

    app = App(resolve_paths())
    settings = parse_retrieval(parse_switches(args.retrieval))
    type(app).retrieval = property(lambda _self: settings)  # type: ignore[method-assign]
    queries = [q.query for q in load_devset()]
    inputs = [QueryInput(query=q, limit=10, fast=args.fast) for q in queries]
    modes = set()
    for inp in inputs:  # warm-up: model loaded, index pages read once
        modes.add(query(app, inp).meta.mode)

    def timed(call: Any) -> tuple[list[float], list[float]]:
        wall: list[float] = []
        cpu: list[float] = []
        for _ in range(args.reps):
            for inp in inputs:
                w0, c0 = time.perf_counter(), time.process_time()
                call(inp)
                cpu.append((time.process_time() - c0) * 1000)
                wall.append((time.perf_counter() - w0) * 1000)
        return wall, cpu

    wall, cpu = timed(lambda inp: query(app, inp))
    rows = [("", wall, cpu)]
    if args.split:  # where the time goes: the query embedding, and everything else
        from quality_ablate import CachedEmbedder

        embedder = app.embedder()
        rows.append(("embed", *timed(lambda inp: embedder.embed_batch([inp.query]))))
        cached = CachedEmbedder(embedder)
        app.embedder = lambda *_a, **_k: cached  # type: ignore[method-assign]
        for inp in inputs:
            query(app, inp)
        rows.append(("cached", *timed(lambda inp: query(app, inp))))
    load = os.getloadavg()
    name = "query --fast" if args.fast else "query"
    print(f"{name}: {len(wall)} calls ({len(queries)} dev queries x {args.reps}), "
          f"mode {'/'.join(sorted(modes))}, retrieval {args.retrieval or 'defaults'}, "
          f"load average {load[0]:.1f}")  # fmt: skip
    for part, part_wall, part_cpu in rows:
        for label, values in (("wall", part_wall), ("cpu", part_cpu)):
            print(f"  {part:6s} {label:4s} ms  p50 {statistics.median(values):7.1f}  "
                  f"p95 {percentile(values, 0.95):7.1f}  max {max(values):7.1f}")  # fmt: skip
    target = percentile(cpu, 0.95)
    print(f"  target p95 <= 60 ms: {'PASS' if target <= 60 else 'MISS'} on CPU time "
          f"({target:.1f} ms); wall {percentile(wall, 0.95):.1f} ms")  # fmt: skip
    app.close()
    sys.stdout.flush()


if __name__ == "__main__":
    main()
