"""No-op `gno update` of two commits, alternating, at 1× and 10× (wall and CPU time).

    .venv/bin/python bench/noop_ab.py --base main --runs 9

Each commit is exported with `git archive` into a temp folder and run through `PYTHONPATH`
with this checkout's venv, so both use the same interpreter and libraries. One index per
corpus is built by this checkout's code (the schema must be one both commits read), then each
round runs the base's `gno update` and the checkout's, so both see the same load. Prints the
median wall time, and the median and minimum CPU time (user + system from `wait4`) of each,
with the load average.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import CORPUS, GNO, create_index, run_gno, workspace
from scale import scaled_corpus

REPO = Path(__file__).resolve().parent.parent


def export(rev: str, into: Path) -> Path:
    """The tree of ``rev`` in ``into`` (git archive | tar -x)."""
    into.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(REPO), "archive", rev], capture_output=True)
    if archive.returncode != 0:
        sys.exit(f"noop_ab: git archive {rev} failed: {archive.stderr.decode(errors='replace')}")
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return into


def no_op(env: dict[str, str], tree: Path) -> tuple[float, float]:
    env = {**env, "PYTHONPATH": f"{tree}{os.pathsep}{tree / 'generated'}"}
    start = time.perf_counter()
    # cwd outside the checkout, so `gno` and `gno_contracts` come from the exported tree
    proc = subprocess.Popen([GNO, "update"], env=env, stdout=subprocess.DEVNULL, cwd=tree)
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"noop_ab: gno update from {tree} failed")
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--base", default="main", help="the commit to compare with (main)")
    parser.add_argument("--head", default="HEAD", help="the commit measured against it (HEAD)")
    parser.add_argument("--runs", type=int, default=9, help="no-op runs of each per corpus")
    args = parser.parse_args()
    if not CORPUS.is_dir():
        print(f"noop_ab: corpus not found at {CORPUS}; skipping (set GNO_BENCH_CORPUS).")
        return
    with tempfile.TemporaryDirectory(prefix="gno-noop-ab-") as tmp:
        trees = {
            args.base: export(args.base, Path(tmp) / "base"),
            args.head: export(args.head, Path(tmp) / "head"),
        }
        for label, corpus in (("1×", CORPUS), ("10×", scaled_corpus())):
            with workspace(f"noop-ab-{len(label)}") as env:
                if corpus == CORPUS:
                    create_index(env)
                else:
                    run_gno(env, "init", "--yes")
                    run_gno(env, "collection", "add", str(corpus), "--name", "scale")
                    run_gno(env, "update")
                runs: dict[str, list[tuple[float, float]]] = {rev: [] for rev in trees}
                for tree in trees.values():
                    no_op(env, tree)  # warm-up: bytecode, page cache
                loads = []
                for _ in range(args.runs):
                    for rev, tree in trees.items():
                        runs[rev].append(no_op(env, tree))
                    loads.append(os.getloadavg()[0])
            for rev, got in runs.items():
                print(
                    f"{label:>3} {rev:<12} wall median {statistics.median(r[0] for r in got):.3f} s,"
                    f" CPU median {statistics.median(r[1] for r in got):.3f} s,"
                    f" CPU min {min(r[1] for r in got):.3f} s"
                )
            print(f"    load {min(loads):.1f}–{max(loads):.1f}, {args.runs} runs each, alternating")


if __name__ == "__main__":
    main()
