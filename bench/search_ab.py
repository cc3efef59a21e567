"""In-process search() on several indexes, interleaved query by query (bench/README.md,
"10× scale, session 8").

    .venv/bin/python bench/search_ab.py HOME [HOME ...] [--rounds 3] [--calls 5]

Each HOME holds ``config/``, ``data/`` and ``cache/`` (the GNO_* folders of one index, e.g. an
index of the corpus and one of the 10× corpus, each in the old and the new format). Per
round, per bench query, per index: ``--calls`` consecutive ``search()`` calls (limit 10), each
timed in CPU (``time.process_time``) as bench/scale.py's worker does. All indexes are searched
by one process in turns, so other jobs on a shared machine weigh on each alike. Indexes are
opened as they are, without migrations, so an index written by an older gno keeps its format
(the read path is the same). Prints per index the median of all calls and the median over the
queries of each query's fastest call.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import QUERIES


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("homes", nargs="+", type=Path)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--calls", type=int, default=5)
    args = parser.parse_args()

    from gno_contracts.models.search_input import SearchInput

    from gno.adapters.sqlite.store import SqliteStore
    from gno.app import App
    from gno.paths import resolve_paths
    from gno.services.search import search

    SqliteStore.migrate = lambda self, tokenizer="porter": None  # type: ignore[method-assign]
    apps = {}
    for home in args.homes:
        home = home.expanduser().resolve()
        os.environ.update(
            GNO_CONFIG_DIR=str(home / "config"),
            GNO_DATA_DIR=str(home / "data"),
            GNO_CACHE_DIR=str(home / "cache"),
        )
        apps[home.name] = App(resolve_paths())
    inputs = [SearchInput(query=q, limit=10) for q in QUERIES]
    for app in apps.values():  # warm-up: one pass each
        for inp in inputs:
            search(app, inp)
    cpu: dict[tuple[str, str], list[float]] = {(n, q): [] for n in apps for q in QUERIES}
    for _ in range(args.rounds):
        for inp in inputs:
            for name, app in apps.items():
                for _ in range(args.calls):
                    start = time.process_time()
                    search(app, inp)
                    cpu[name, inp.query].append((time.process_time() - start) * 1000)
    for name, app in apps.items():
        calls = [ms for q in QUERIES for ms in cpu[name, q]]
        floor = statistics.median(min(cpu[name, q]) for q in QUERIES)
        print(
            f"{name:24s} schema {app.store().schema_version():2d}  "
            f"CPU median of calls {statistics.median(calls):6.3f} ms  "
            f"median of per-query min {floor:6.3f} ms"
        )
        app.close()


if __name__ == "__main__":
    main()
