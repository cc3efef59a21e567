"""What owner filters cost `gno search` now that scores are normalised over a window of
the best 100 matches that pass the filters (not over the page): a selective filter may have
to look further down the ranking to fill the window.

Indexes the corpus (two collections: the whole corpus, and `sub`, one small folder of it)
in a temporary home, then times each search in-process (median of 7, limit 5). Run:
`.venv/bin/python bench/filtered_search.py [corpus]`. Compare with another checkout by
running it with that checkout first on PYTHONPATH.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CORPUS = Path(
    sys.argv[1]
    if len(sys.argv) > 1
    else Path(__file__).resolve().parents[2] / "shared/corpora/opentelemetry-docs"
)
SUB = "specification/oteps/trace"
GNO = str(Path(sys.executable).parent / "gno")
CASES = [
    ("unfiltered", {"query": "sampling processor"}),
    ("tag nobody has", {"query": "the", "tagsAny": ["nosuchtag"]}),
    ("author nobody is", {"query": "collector configuration", "author": "zzz"}),
    ("since 2030", {"query": "span", "since": "2030-01-01"}),
    ("-c sub, 1 term", {"query": "span", "collection": "sub"}),
    ("-c sub, 2 terms", {"query": "sampling trace", "collection": "sub"}),
    ("-c sub, question", {"query": "how do I keep only slow traces", "collection": "sub"}),
]


def main() -> None:
    if not CORPUS.is_dir():
        print(f"corpus not found: {CORPUS} (skipped)")
        return
    home = Path(tempfile.mkdtemp(prefix="gno-filtered-"))
    for name in ("config", "data", "cache"):
        os.environ[f"GNO_{name.upper()}_DIR"] = str(home / name)
    os.environ["HF_HUB_OFFLINE"] = "1"
    for args in (
        ["init", "--yes"],
        ["collection", "add", str(CORPUS), "--name", "all"],
        ["collection", "add", str(CORPUS / SUB), "--name", "sub"],
        ["update"],
    ):
        subprocess.run([GNO, *args], check=True, capture_output=True)

    from gno_contracts.models.search_input import SearchInput

    from gno.app import App
    from gno.paths import resolve_paths
    from gno.services.search import search

    app = App(resolve_paths())
    print(f"gno from {Path(sys.modules['gno'].__file__ or '').parent}")
    for label, fields in CASES:
        times, result = [], None
        for _ in range(7):
            start = time.perf_counter()
            result = search(app, SearchInput(limit=5, **fields))
            times.append((time.perf_counter() - start) * 1000)
        hits = len(result.results) if result else 0
        print(f"{label:18s} median {statistics.median(times):6.1f} ms   {hits} results")
    app.close()


if __name__ == "__main__":
    main()
