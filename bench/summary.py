"""The last table of `make bench`: every target the bench scripts checked, by issue.

Reads bench/results/verdicts.jsonl (written by `verdicts.verdict`); when a figure was
recorded more than once, the newest line counts. Exits 0 whatever the verdicts: targets are
reported, never enforced by a failing exit.
"""

from __future__ import annotations

import json
import os
import sys

from verdicts import LOG


def main() -> None:
    if not LOG.is_file():
        print("bench: no targets were recorded (bench/results/verdicts.jsonl is missing)")
        return
    newest: dict[tuple[int | None, str], dict] = {}
    for text in LOG.read_text(encoding="utf-8").splitlines():
        line = json.loads(text)
        newest[(line["issue"], line["figure"])] = line
    lines = sorted(newest.values(), key=lambda line: line["issue"] or 0)
    width = max(len(line["figure"]) for line in lines)
    value_width = max(len(line["value"]) for line in lines)
    target_width = max(len(line["target"]) for line in lines)
    print(f"\nEvery target of this bench run (load average now {os.getloadavg()[0]:.2f})")
    issue: object = "none yet"
    for line in lines:
        if line["issue"] != issue:
            issue = line["issue"]
            print("\nstanding targets (performance.md)" if issue is None else f"\nissue {issue}")
        print(
            f"  {line['figure']:<{width}}  {line['value']:>{value_width}}  "
            f"{line['target']:<{target_width}}  {line['verdict']:<4}  ({line['script']})"
        )
    counts = {
        word: sum(line["verdict"] == word for line in lines) for word in ("PASS", "MISS", "SKIP")
    }
    print("\n" + ", ".join(f"{n} {word}" for word, n in counts.items()))


if __name__ == "__main__":
    sys.exit(main())
