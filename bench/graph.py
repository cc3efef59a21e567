"""Graph and knowledge delta figures on the opentelemetry-docs corpus (targets: spec/graph.md).

    .venv/bin/python bench/graph.py            # two full indexes (journal on / off) + reads
    .venv/bin/python bench/graph.py --reads    # one index, read timings only

Prints one table (figure, median, target, PASS/MISS) and writes it to
bench/results/graph.json. Exits 0 with a message when the corpus is missing.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CORPUS = Path(
    os.environ.get("GNO_BENCH_CORPUS", ROOT.parent / "shared" / "corpora" / "opentelemetry-docs")
)
RESULTS = ROOT / "bench" / "results" / "graph.json"


def _env(base: Path) -> None:
    for name, sub in (
        ("GNO_CONFIG_DIR", "config"),
        ("GNO_DATA_DIR", "data"),
        ("GNO_CACHE_DIR", "cache"),
    ):
        os.environ[name] = str(base / sub)
    os.environ["HF_HUB_OFFLINE"] = "1"


def _index(base: Path, journal: bool) -> tuple[Any, float, int]:
    """A fresh App over the corpus, fully synced; (app, seconds, index bytes)."""
    _env(base)
    from gno_contracts.models.collection_add_input import CollectionAddInput
    from gno_contracts.models.init_input import InitInput
    from gno_contracts.models.update_input import UpdateInput

    from gno.adapters.sqlite import journal as journal_module
    from gno.app import App
    from gno.paths import resolve_paths
    from gno.services.collections import collection_add, init
    from gno.services.sync import update

    hooks = ("journal_prior", "journal_saved", "journal_reactivated", "journal_inactivated")
    saved = {name: getattr(journal_module.DocumentJournal, name) for name in hooks}
    if not journal:  # the same sync with the journal's hooks doing nothing
        journal_module.DocumentJournal.journal_prior = lambda self, c, r: (None, None)  # type: ignore[method-assign,assignment,return-value]
        for name in hooks[1:]:
            setattr(journal_module.DocumentJournal, name, lambda self, *a: None)
    try:
        app = App(resolve_paths())
        init(app, InitInput())
        collection_add(app, CollectionAddInput(path=str(CORPUS), name="otel"))
        started = time.perf_counter()
        update(app, UpdateInput())
        seconds = time.perf_counter() - started
    finally:
        for name, fn in saved.items():
            setattr(journal_module.DocumentJournal, name, fn)
    store = app.store()
    store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    size = sum(p.stat().st_size for p in Path(os.environ["GNO_DATA_DIR"]).rglob("*.sqlite*"))
    return app, seconds, size


def _median_ms(fn: Callable[[], object], runs: int) -> float:
    fn()
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reads", action="store_true", help="skip the journal-off index")
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    if not CORPUS.is_dir():
        print(f"corpus not found: {CORPUS} (set GNO_BENCH_CORPUS)")
        return 0
    sys.path.insert(0, str(ROOT))
    rows: list[tuple[str, float, str, bool | None]] = []
    with tempfile.TemporaryDirectory() as off_dir, tempfile.TemporaryDirectory() as on_dir:
        if not args.reads:
            off_app, off_s, off_bytes = _index(Path(off_dir), journal=False)
            off_app.close()
        app, on_s, on_bytes = _index(Path(on_dir), journal=True)
        store = app.store()
        journal_bytes = store.journal_state().bytes
        rows.append(("full index, journal on (s)", on_s, "", None))
        if not args.reads:
            rows.append(("full index, journal off (s)", off_s, "", None))
            rows.append(
                (
                    "journal time overhead (%)",
                    100 * (on_s / off_s - 1),
                    "<= 5",
                    on_s <= off_s * 1.05,
                )
            )
            rows.append(
                (
                    "index size overhead (%)",
                    100 * (on_bytes / off_bytes - 1),
                    "<= 5",
                    on_bytes <= off_bytes * 1.05,
                )
            )
        rows.append(("journal bytes / index bytes (%)", 100 * journal_bytes / on_bytes, "", None))
        rows += _reads(app, args.runs)
        app.close()
    width = max(len(r[0]) for r in rows)
    for name, value, target, ok in rows:
        verdict = "" if ok is None else ("PASS" if ok else "MISS")
        print(f"{name:<{width}}  {value:>10.3f}  {target:>8}  {verdict}")
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(
        json.dumps(
            [{"figure": n, "value": round(v, 4), "target": t, "pass": ok} for n, v, t, ok in rows],
            indent=1,
        )
        + "\n"
    )
    return 0


def _reads(app: Any, runs: int) -> list[tuple[str, float, str, bool | None]]:
    from gno_contracts.models.backlinks_input import BacklinksInput
    from gno_contracts.models.changes_input import ChangesInput
    from gno_contracts.models.graph_input import GraphInput
    from gno_contracts.models.graph_query_input import GraphQueryInput
    from gno_contracts.models.impact_input import ImpactInput
    from gno_contracts.models.links_input import LinksInput
    from gno_contracts.models.tags_input import TagsInput

    from gno.core.journal import encode_cursor
    from gno.services.graph_report import graph
    from gno.services.graph_walks import graph_query, impact, path
    from gno.services.journal import changes
    from gno.services.links import backlinks, links, tags

    store = app.store()
    last = store.journal_state().last_sequence
    cursor = encode_cursor(max(0, last - 1000))
    proj = store.projection()
    # The two most linked-to pages: the hub every read starts from, and a path's goal.
    ranked = sorted(proj.docs, key=lambda i: (-len(proj.inbound.get(i, [])), i))
    hub_doc, goal_doc = proj.docs[ranked[0]], proj.docs[ranked[1]]
    hub, goal = f"otel/{hub_doc.rel_path}", f"otel/{goal_doc.rel_path}"
    inbound = len(proj.inbound.get(hub_doc.id, []))

    def cold_projection() -> None:
        store._projection = None
        store.projection()

    out: list[tuple[str, float, str, bool | None]] = [
        ("edges in projection", float(len(proj.edges)), "", None),
        (f"inbound edges of {hub_doc.rel_path}", float(inbound), "", None),
    ]
    cases: list[tuple[str, Callable[[], object], float | None]] = [
        ("projection build, cold (ms)", cold_projection, None),
        ("links (ms)", lambda: links(app, LinksInput(ref=hub)), 2),
        ("backlinks (ms)", lambda: backlinks(app, BacklinksInput(ref=hub)), 2),
        ("tags (ms)", lambda: tags(app, TagsInput()), 2),
        ("graph report, whole corpus (ms)", lambda: graph(app, GraphInput()), 300),
        ("graph query, default caps (ms)", lambda: graph_query(app, GraphQueryInput(ref=hub)), 50),
        ("impact, default caps (ms)", lambda: impact(app, ImpactInput(ref=hub)), 50),
        ("path, default depth (ms)", lambda: path(app, hub, goal), 50),
        (
            "changes, 1000 events (ms)",
            lambda: changes(app, ChangesInput(since=cursor, limit=1000)),
            10,
        ),
    ]
    for name, fn, target in cases:
        value = _median_ms(fn, runs if "cold" not in name else max(3, runs // 10))
        out.append(
            (
                name,
                value,
                "" if target is None else f"<= {target:g}",
                None if target is None else value <= target,
            )
        )
    return out


if __name__ == "__main__":
    raise SystemExit(main())
