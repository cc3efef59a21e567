"""What a typed metadata ``filter`` costs (issue 17 item 3): a seeded collection of notes
with frontmatter (status, priority, due date, reviewers list), indexed once in a temporary
home; then each case timed in-process, median of 7: BM25 ``search`` unfiltered and with
predicates of each kind, and ``ls`` (a full scan of the collection) with a filter.

Run: ``nice -n 10 .venv/bin/python bench/metadata_filters.py [--notes N]`` (default 20,000).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

GNO = str(Path(sys.executable).parent / "gno")
STATUSES = ("draft", "review", "approved", "archived")
PEOPLE = ("ana", "ben", "cy", "dee", "eli", "fay", "gus", "hal")
CASES: list[tuple[str, dict[str, Any] | None]] = [
    ("unfiltered", None),
    ("eq string (1 in 4)", {"op": "eq", "key": "status", "value": "approved"}),
    ("eq string (none)", {"op": "eq", "key": "status", "value": "nobody"}),
    ("gte number", {"op": "gte", "key": "priority", "value": 9}),
    ("date range", {"op": "and", "predicates": [
        {"op": "gte", "key": "due", "value": "2026-03-01"},
        {"op": "lt", "key": "due", "value": "2026-04-01"}]}),
    ("all of a list", {"op": "all", "key": "reviewers", "values": ["ana", "ben"]}),
    ("not in a list", {"op": "not", "predicate": {"op": "in", "key": "reviewers", "values": ["ana"]}}),
]  # fmt: skip


def write_notes(root: Path, count: int) -> None:
    rng = random.Random(17)
    for n in range(count):
        folder = root / f"d{n // 1000:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        reviewers = ", ".join(rng.sample(PEOPLE, rng.randint(1, 3)))
        day = 1 + n % 28
        (folder / f"note{n}.md").write_text(
            f"---\nstatus: {rng.choice(STATUSES)}\npriority: {rng.randint(0, 10)}\n"
            f"due: 2026-{1 + n % 12:02d}-{day:02d}\nreviewers: [{reviewers}]\n---\n"
            f"# Note {n}\n\nThe rollout plan number {n} for the orrery project.\n",
            encoding="utf-8",
        )


def timed(call: Any) -> tuple[float, Any]:
    runs = []
    result = None
    for _ in range(7):
        start = time.perf_counter()
        result = call()
        runs.append(time.perf_counter() - start)
    return statistics.median(runs), result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--notes", type=int, default=20_000)
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="gno-metafilter-"))
    for name in ("config", "data", "cache"):
        os.environ[f"GNO_{name.upper()}_DIR"] = str(home / name)
    os.environ["HF_HUB_OFFLINE"] = "1"
    notes = home / "notes"
    write_notes(notes, args.notes)
    for cmd in (
        ["init", "--yes"],
        ["collection", "add", str(notes), "--name", "notes"],
        ["update"],
    ):
        subprocess.run([GNO, *cmd], check=True, capture_output=True)

    from gno_contracts.models.ls_input import LsInput
    from gno_contracts.models.search_input import SearchInput

    from gno.app import App
    from gno.paths import resolve_paths
    from gno.services.documents import ls
    from gno.services.search import search

    app = App(resolve_paths())
    print(f"{args.notes:,} notes; median of 7, in process")
    print("| case | `search rollout` (limit 10) | hits | `ls` (limit 100) | total |")
    print("|---|---|---|---|---|")
    for label, predicate in CASES:
        extra = {"filter": predicate} if predicate else {}
        s_time, found = timed(
            lambda e=extra: search(app, SearchInput(query="rollout", limit=10, **e))
        )
        l_time, listed = timed(lambda e=extra: ls(app, LsInput(scope="notes", limit=100, **e)))
        print(
            f"| {label} | {s_time * 1000:.1f} ms | {len(found.results)} | "
            f"{l_time * 1000:.1f} ms | {listed.meta.total:,} |"
        )


if __name__ == "__main__":
    main()
