"""`make bench`'s index and start-up figures of several commits, in one run, alternating.

    .venv/bin/python bench/tree_ab.py --rev bb1bf8f --rev c052366 --reps 3

Each ``--rev`` is exported with `git archive` (bench/noop_ab.py) and run through `PYTHONPATH`
with this checkout's venv, beside this checkout itself (``HEAD`` in the table: the working
tree). Every repetition runs each tree in turn, the order rotated, so all see the same load:
a full index of the corpus into a fresh data directory (`gno init`, then `gno update`), the
index's size, two no-op `gno update`s, four `gno search` processes and `gno --help`. Wall
time and CPU time (user + system from `wait4`: the `gno` process and its conversion
workers) per figure; the table shows medians and each tree's ratio to the first ``--rev``.
CPU time is the figure to read on a shared machine: its load stretches wall time.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from noop_ab import REPO, export
from run import CORPUS

QUERIES = (
    "tail sampling processor",
    "OTLP exporter gRPC endpoint",
    "span links",
    "logs bridge API",
)


def _env(tree: Path, home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GNO_")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # each tree compiles once, then reads its cache
    env.update(
        PYTHONPATH=f"{tree}{os.pathsep}{tree / 'generated'}",
        PYTHONPYCACHEPREFIX=str(home.parent / f"pycache-{tree.name}"),
        GNO_CONFIG_DIR=str(home / "config"),
        GNO_DATA_DIR=str(home / "data"),
        GNO_CACHE_DIR=str(home / "cache"),
        HF_HUB_OFFLINE="1",
        NO_COLOR="1",
    )
    return env


def _gno(env: dict[str, str], *args: str) -> tuple[float, float]:
    """(wall s, CPU s) of one `python -m gno` process and the workers it waited for."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    # `-m` puts the working directory first on sys.path: run from the data home, never a tree
    cwd = Path(env["GNO_DATA_DIR"]).parent
    cwd.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "gno", *args]
    done = subprocess.run(command, env=env, cwd=cwd, capture_output=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"tree_ab: gno {' '.join(args)} failed: {done.stderr.decode()[-600:]}")
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall, cpu


def _round(env: dict[str, str], home: Path, add: dict[str, list[float]]) -> None:
    _gno(env, "init", str(CORPUS), "--name", "otel")
    wall, cpu = _gno(env, "update")
    add["full index wall s"].append(wall)
    add["full index CPU s"].append(cpu)
    files = (home / "data").glob("index-*.sqlite*")
    add["index size MB"].append(sum(p.stat().st_size for p in files) / 1e6)
    runs = [("no-op re-index", ("update",))] * 2
    runs += [("search process", ("search", q, "-n", "10", "--json")) for q in QUERIES]
    runs += [("--help", ("--help",))]
    for name, args in runs:
        wall, cpu = _gno(env, *args)
        add[f"{name} wall s"].append(wall)
        add[f"{name} CPU s"].append(cpu)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rev", action="append", required=True, help="a commit to compare")
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args()
    if not CORPUS.is_dir():
        print(f"corpus not found: {CORPUS} (set GNO_BENCH_CORPUS)")
        return 0
    work = Path(tempfile.mkdtemp(prefix="gno-tree-ab-"))
    try:
        trees = {rev: export(rev, work / f"tree-{i}") for i, rev in enumerate(args.rev)}
        trees["HEAD"] = REPO
        names = list(trees)
        figures: dict[str, dict[str, list[float]]] = {}
        for rev, tree in trees.items():  # warm-up: each tree compiles its modules once
            home = work / f"warm-{names.index(rev)}"
            _gno(_env(tree, home), "init", str(CORPUS), "--name", "otel")
            _gno(_env(tree, home), "update")
            shutil.rmtree(home)
            figures[rev] = {}
        loads = [os.getloadavg()[0]]
        for rep in range(args.reps):
            for rev in names[rep % len(names) :] + names[: rep % len(names)]:
                home = work / f"home-{names.index(rev)}-{rep}"
                add: dict[str, list[float]] = figures[rev]
                for key in ("full index", "no-op re-index", "search process", "--help"):
                    add.setdefault(f"{key} wall s", [])
                    add.setdefault(f"{key} CPU s", [])
                add.setdefault("index size MB", [])
                _round(_env(trees[rev], home), home, add)
                shutil.rmtree(home)
            loads.append(os.getloadavg()[0])
        base = names[0]
        head = f"{'figure (median)':<24}" + "".join(f"{n[:10]:>12}" for n in names)
        print(head + "".join(f"{n[:7] + '/' + base[:7]:>17}" for n in names[1:]))
        for figure in figures[base]:
            medians = [statistics.median(figures[n][figure]) for n in names]
            ratios = "".join(f"{m / medians[0]:>17.2f}" for m in medians[1:])
            print(f"{figure:<24}" + "".join(f"{m:>12.3f}" for m in medians) + ratios)
        print(f"{args.reps} repetitions, load average {min(loads):.1f}-{max(loads):.1f}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
