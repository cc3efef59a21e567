"""Stage ablation on an index built by bench/quality.py (`--home`): every dev query through
`query` (limit 10, no rerank or expand model) under several stage settings, in one process,
with the query vectors cached, so a variant costs only its own stages. Prints nDCG@10 per half
and kind for each variant, and "first hit in the query's language".

    .venv/bin/python bench/quality_ablate.py --home ~/.cache/gno-bench/quality-full \
        --variant "all off:embedWindows=false,shapeWeights=false,languagePreference=false" \
        --variant "chosen:"

A variant is `name:switches`, the switches as in quality.py's `--retrieval` (index.yml's
`retrieval:` keys); keys missing take the defaults. `--fast` runs `query --fast` instead.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from quality import KINDS, MODEL, load_devset, mrr, ndcg, parse_switches, path_language


class CachedEmbedder:
    """The real embedder, with each query text's vector kept for the next variant."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self._seen: dict[str, list[float]] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def embed_batch(self, texts: list[str]) -> list[list[float]]:
        missing = [t for t in dict.fromkeys(texts) if t not in self._seen]
        if missing:
            self._seen.update(zip(missing, self._inner.embed_batch(missing), strict=True))
        return [self._seen[t] for t in texts]


def open_home(home: Path) -> Any:
    """An App on a bench home (``quality.py --home``) whose embedder keeps query vectors:
    the environment is set before gno reads it, so call this before importing gno."""
    os.environ.update(GNO_CONFIG_DIR=str(home / "config"), GNO_DATA_DIR=str(home / "data"),
                      GNO_CACHE_DIR=str(home / "cache"), GNO_EMBED_MODEL=f"file:{MODEL}")  # fmt: skip
    from gno.app import App
    from gno.paths import resolve_paths

    app = App(resolve_paths())
    cached = CachedEmbedder(app.embedder())
    app.embedder = lambda *_a, **_k: cached  # type: ignore[method-assign]
    return app


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--variant", action="append", required=True, help="name:switches")
    parser.add_argument("--fast", action="store_true", help="query --fast (no graph stage)")
    parser.add_argument("--per-query", action="store_true")
    args = parser.parse_args()
    app = open_home(args.home.expanduser().resolve())
    from gno_contracts.models.query_input import QueryInput

    from gno.retrieval_config import parse_retrieval
    from gno.services.query import query

    current = [parse_retrieval(None)]
    type(app).retrieval = property(lambda _self: current[0])  # type: ignore[method-assign]
    queries = load_devset()
    per_query: dict[str, dict[str, float]] = {}
    for spec in args.variant:
        name, _, switches = spec.partition(":")
        current[0] = parse_retrieval(parse_switches(switches))
        scores: dict[str, tuple[float, float, float]] = {}
        took: list[float] = []
        for q in queries:
            start = time.perf_counter()
            found = query(app, QueryInput(query=q.query, limit=10, fast=args.fast))
            took.append((time.perf_counter() - start) * 1000)
            paths = [r.source.relPath for r in found.results]
            first = float(bool(paths) and path_language(paths[0]) == q.lang)
            scores[q.id] = (ndcg(paths, q.relevant), mrr(paths, q.relevant), first)
        per_query[name] = {k: v[0] for k, v in scores.items()}
        for half in ("tune", "test"):
            cells = []
            for kind in ("all", *KINDS):
                group = [q for q in queries if q.half == half and kind in ("all", q.kind)]
                cells.append(f"{kind[:5]} {statistics.mean(scores[q.id][0] for q in group):.3f}")
            lang = statistics.mean(scores[q.id][2] for q in queries if q.half == half)
            print(f"{half}  {name:<34} {'  '.join(cells)}  lang1st {lang:.3f}")
        print(f"      ({statistics.median(took):.1f} ms median per query, cached query vectors)")
        sys.stdout.flush()
    if args.per_query:
        names = list(per_query)
        print("id      " + "".join(f"{n[:12]:>13}" for n in names))
        for q in queries:
            print(f"{q.id:<8}" + "".join(f"{per_query[n][q.id]:>13.2f}" for n in names)
                  + f"   {q.kind[:5]} {q.query[:60]}")  # fmt: skip
    app.close()


if __name__ == "__main__":
    main()
