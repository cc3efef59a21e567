"""Full index and no-op re-index, gno against qmd, interleaved in one run (issue 13 item 3).

    .venv/bin/python bench/index_peers.py            # 3 full + 5 no-op runs each
    .venv/bin/python bench/index_peers.py --reps 2   # fewer

`bench/run.py` times gno's index phase and then qmd's, minutes apart; on a machine other jobs
share, the load differs between the two and so does the ratio. Here each repetition runs gno
and then qmd back to back (full index: delete the index files, re-create gno's with
`gno init`, time `update`; no-op: `update` again), so both see the same load, and each figure
is given twice: wall time and CPU time (user + system of the child, from `wait4`), which other
jobs inflate much less. The load average is printed with every repetition. Targets: gno ≤ 0.5
× qmd for both, medians of the repetitions.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from peers import Qmd, find_qmd
from run import (
    COLLECTION,
    CORPUS,
    GNO,
    Row,
    Run,
    create_index,
    empty_index,
    format_table,
    repeat,
    run_untimed,
    timed,
    workspace,
)


def load() -> float:
    return os.getloadavg()[0]


def ratio_row(name: str, gno: list[Run], qmd: list[Run], cpu: bool) -> Row:
    pick = (lambda r: r.cpu) if cpu else (lambda r: r.seconds)
    ours, theirs = statistics.median(map(pick, gno)), statistics.median(map(pick, qmd))
    ratio = ours / theirs
    return Row(
        name,
        f"{ours:.3f}",
        "≤ 0.5 × qmd",
        f"{theirs:.3f}",
        f"{ratio:.2f}",
        "PASS" if ratio <= 0.5 else "MISS",
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--reps", type=int, default=3, help="full-index runs (no-op: reps + 2)")
    args = parser.parse_args()
    if not CORPUS.is_dir():
        print(f"index_peers: corpus not found at {CORPUS}; skipping (set GNO_BENCH_CORPUS).")
        return
    qmd = find_qmd()
    if not isinstance(qmd, Qmd):
        print(f"index_peers: qmd not measured ({qmd}); skipping.")
        return
    loads = [load()]
    with workspace("index-peers") as env, tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        qenv = qmd.env(home)
        create_index(env)  # warm-ups: build each index once, corpus into the page cache
        run_untimed(qmd.argv("collection", "add", str(CORPUS), "--name", COLLECTION), qenv)
        full: dict[str, list[Run]] = {"gno": [], "qmd": []}
        noop: dict[str, list[Run]] = {"gno": [], "qmd": []}
        for rep in range(args.reps):
            empty_index(env)
            full["gno"].append(timed([GNO, "update"], env))
            for path in qmd.index_files(home):
                path.unlink()
            full["qmd"].append(timed(qmd.argv("update"), qenv))
            loads.append(load())
            print(
                f"full index {rep + 1}: gno {full['gno'][-1].seconds:.2f} s "
                f"(CPU {full['gno'][-1].cpu:.2f}), qmd {full['qmd'][-1].seconds:.2f} s "
                f"(CPU {full['qmd'][-1].cpu:.2f}), load {loads[-1]:.1f}",
                flush=True,
            )
        for rep in range(args.reps + 2):
            noop["gno"].extend(repeat([GNO, "update"], env, 1))
            noop["qmd"].extend(repeat(qmd.argv("update"), qenv, 1))
            loads.append(load())
            print(
                f"no-op {rep + 1}: gno {noop['gno'][-1].seconds:.3f} s "
                f"(CPU {noop['gno'][-1].cpu:.3f}), qmd {noop['qmd'][-1].seconds:.3f} s "
                f"(CPU {noop['qmd'][-1].cpu:.3f}), load {loads[-1]:.1f}",
                flush=True,
            )
    rows = [
        ratio_row("full index, s", full["gno"], full["qmd"], cpu=False),
        ratio_row("full index CPU, s", full["gno"], full["qmd"], cpu=True),
        ratio_row("no-op re-index, s", noop["gno"], noop["qmd"], cpu=False),
        ratio_row("no-op re-index CPU, s", noop["gno"], noop["qmd"], cpu=True),
    ]
    print()
    print(format_table(rows, Row("metric", "gno", "target", f"qmd {qmd.version}", "gno/qmd", "")))
    print(f"\nload average (1 min) during the run: {min(loads):.1f}–{max(loads):.1f}")


if __name__ == "__main__":
    main()
