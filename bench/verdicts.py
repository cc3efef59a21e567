"""Every target a bench script checks, kept so `make bench` can end with one table of all.

A script calls `verdict(...)` where it decides PASS or MISS: it gets back the word to print,
and one line is appended to bench/results/verdicts.jsonl. `make bench` empties that file
first and ends with `bench/summary.py`, which prints the lines grouped by issue. A script run
alone appends too; `summary.py` shows the newest line per (issue, figure).
"""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime
from pathlib import Path

LOG = Path(__file__).resolve().parent / "results" / "verdicts.jsonl"


def verdict(issue: int | None, figure: str, shown: str, target: str, ok: bool | None) -> str:
    """Record one target's outcome. `issue` None is a standing target of performance.md;
    `ok` None means it could not be measured here (SKIP)."""
    word = "SKIP" if ok is None else ("PASS" if ok else "MISS")
    line = {
        "issue": issue,
        "figure": figure,
        "value": shown,
        "target": target,
        "verdict": word,
        "script": Path(sys.argv[0]).name,
        "at": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    LOG.parent.mkdir(exist_ok=True)
    with LOG.open("a", encoding="utf-8") as out:
        out.write(json.dumps(line, ensure_ascii=False) + "\n")
    return word
