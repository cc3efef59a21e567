"""gno at 10× the corpus: does indexing grow linearly and does search stay flat?

    .venv/bin/python bench/scale.py            # 1× and 10× in the same run (~5 min on 2 vCPU)
    .venv/bin/python bench/scale.py --quick    # fewer repetitions

The 10× corpus is the opentelemetry-docs corpus copied ten times under `copy-0` … `copy-9`, each
copy with a few words changed per file (so no two copies share content hashes and the index
cannot deduplicate them): about 22,800 documents and 210 MB. It is made once in the bench cache
(`GNO_BENCH_CACHE`, default `$XDG_CACHE_HOME/gno-bench`) and reused.

Targets (issue 13 §7): full index time and index size at 10× at most 10.5 × the 1× figures, no-op
re-index ≤ 1.5 s, in-process search median ≤ 2 × the 1× median, peak RSS ≤ 300 MiB. Each time is
also reported as CPU time (user + system, from the same runs), which other jobs on a shared
machine do not inflate.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from peers import cache_root
from run import (
    CORPUS,
    GNO,
    MIB,
    PYTHON,
    Row,
    empty_index,
    fail,
    format_table,
    index_files,
    median_seconds,
    repeat,
    run_gno,
    timed,
    workspace,
)
from verdicts import verdict

COPIES = 10
# Words swapped per copy: common enough that most files change, rare enough to leave the
# queries' terms alone. Copy k replaces each with "<word>k" (e.g. "example3").
SWAPPED = ("example", "following", "using")
SCALE_VERSION = 1  # bump when the recipe changes, so a stale cache is rebuilt


def scaled_corpus() -> Path:
    """The 10× corpus in the cache, made on first use (marker file written last)."""
    root = cache_root() / f"scale-{COPIES}x-v{SCALE_VERSION}"
    marker = root / ".complete"
    if marker.exists():
        return root
    if root.exists():
        shutil.rmtree(root)
    for k in range(COPIES):
        for source in CORPUS.rglob("*"):
            if not source.is_file() or source.is_symlink():
                continue
            target = root / f"copy-{k}" / source.relative_to(CORPUS)
            target.parent.mkdir(parents=True, exist_ok=True)
            if source.suffix == ".md":
                text = source.read_text(encoding="utf-8", errors="surrogateescape")
                for word in SWAPPED:
                    text = text.replace(f" {word} ", f" {word}{k} ")
                target.write_text(text, encoding="utf-8", errors="surrogateescape")
            else:
                shutil.copyfile(source, target)
    marker.touch()
    return root


def measure(corpus: Path, phase: str, full_reps: int, noop_reps: int, per_query: int) -> dict:
    with workspace(phase) as env:
        run_gno(env, "init", "--yes")
        run_gno(env, "collection", "add", str(corpus), "--name", "scale")
        docs = json.loads(run_gno(env, "update", "--json"))["totalFilesProcessed"]
        full = []
        for _ in range(full_reps):
            empty_index(env)
            full.append(timed([GNO, "update"], env))
        index_bytes = sum(path.stat().st_size for path in index_files(env))
        noop = repeat([GNO, "update"], env, noop_reps)
        worker = [PYTHON, str(Path(__file__).with_name("run.py")), "--in-process-worker"]
        done = subprocess.run([*worker, str(per_query)], env=env, capture_output=True, text=True)
        if done.returncode != 0:
            fail(worker, done.returncode, done.stderr)
        answer = json.loads(done.stdout)
        samples = [ms for runs in answer["ms"].values() for ms in runs]
        cpu = [ms for runs in answer["cpu_ms"].values() for ms in runs]
        # each query's fastest call: the CPU it needs when no other job evicts its caches
        cpu_floor = [min(runs) for runs in answer["cpu_ms"].values()]
    samples.sort()
    return {
        "docs": docs,
        "full_index_s": median_seconds(full),
        "full_index_cpu_s": statistics.median(r.cpu for r in full),
        "peak_rss_mib": max(r.peak_rss for r in [*full, *noop]) / MIB,
        "noop_s": median_seconds(noop),
        "noop_cpu_s": statistics.median(r.cpu for r in noop),
        "index_bytes": index_bytes,
        "search_median_ms": statistics.median(samples),
        "search_p99_ms": samples[min(len(samples) - 1, round(0.99 * (len(samples) - 1)))],
        "search_cpu_median_ms": statistics.median(cpu),
        "search_cpu_floor_ms": statistics.median(cpu_floor),
    }


def rows(one: dict, ten: dict) -> list[Row]:
    def mark(ok: bool) -> str:
        return "PASS" if ok else "MISS"

    grow_time = ten["full_index_s"] / one["full_index_s"]
    grow_size = ten["index_bytes"] / one["index_bytes"]
    grow_search = ten["search_median_ms"] / one["search_median_ms"]
    return [
        Row(
            "documents", f"{ten['docs']}", "", f"{one['docs']}", f"{ten['docs'] / one['docs']:.2f}"
        ),
        Row(
            "full index, s",
            f"{ten['full_index_s']:.2f}",
            "≤ 10.5 × 1×",
            f"{one['full_index_s']:.2f}",
            f"{grow_time:.2f}",
            mark(grow_time <= 10.5),
        ),
        Row(
            "index size, MiB",
            f"{ten['index_bytes'] / MIB:.1f}",
            "≤ 10.5 × 1×",
            f"{one['index_bytes'] / MIB:.1f}",
            f"{grow_size:.2f}",
            mark(grow_size <= 10.5),
        ),
        Row(
            "no-op re-index, s",
            f"{ten['noop_s']:.3f}",
            "≤ 1.5",
            f"{one['noop_s']:.3f}",
            f"{ten['noop_s'] / one['noop_s']:.2f}",
            mark(ten["noop_s"] <= 1.5),
        ),
        Row(
            "in-process search median, ms",
            f"{ten['search_median_ms']:.2f}",
            "≤ 2 × 1×",
            f"{one['search_median_ms']:.2f}",
            f"{grow_search:.2f}",
            mark(grow_search <= 2),
        ),
        Row(
            "in-process search p99, ms",
            f"{ten['search_p99_ms']:.2f}",
            "",
            f"{one['search_p99_ms']:.2f}",
            f"{ten['search_p99_ms'] / one['search_p99_ms']:.2f}",
        ),
        # CPU time (user + system) of the same runs: on a machine other jobs keep busy, a
        # longer burst is preempted more often, so wall time grows faster than the work.
        Row(
            "full index CPU, s",
            f"{ten['full_index_cpu_s']:.2f}",
            "≤ 10.5 × 1×",
            f"{one['full_index_cpu_s']:.2f}",
            f"{ten['full_index_cpu_s'] / one['full_index_cpu_s']:.2f}",
            mark(ten["full_index_cpu_s"] / one["full_index_cpu_s"] <= 10.5),
        ),
        Row(
            "no-op re-index CPU, s",
            f"{ten['noop_cpu_s']:.3f}",
            "≤ 1.5",
            f"{one['noop_cpu_s']:.3f}",
            f"{ten['noop_cpu_s'] / one['noop_cpu_s']:.2f}",
            mark(ten["noop_cpu_s"] <= 1.5),
        ),
        Row(
            "in-process search CPU median, ms",
            f"{ten['search_cpu_median_ms']:.2f}",
            "≤ 2 × 1×",
            f"{one['search_cpu_median_ms']:.2f}",
            f"{ten['search_cpu_median_ms'] / one['search_cpu_median_ms']:.2f}",
            mark(ten["search_cpu_median_ms"] / one["search_cpu_median_ms"] <= 2),
        ),
        # On a loaded machine CPU time grows too (caches, shared cores), unevenly between
        # the 1× and 10× passes; each query's fastest call is much steadier.
        Row(
            "search CPU, median of per-query min, ms",
            f"{ten['search_cpu_floor_ms']:.2f}",
            "≤ 2 × 1×",
            f"{one['search_cpu_floor_ms']:.2f}",
            f"{ten['search_cpu_floor_ms'] / one['search_cpu_floor_ms']:.2f}",
            mark(ten["search_cpu_floor_ms"] / one["search_cpu_floor_ms"] <= 2),
        ),
        Row(
            "peak RSS (update), MiB",
            f"{ten['peak_rss_mib']:.0f}",
            "≤ 300",
            f"{one['peak_rss_mib']:.0f}",
            f"{ten['peak_rss_mib'] / one['peak_rss_mib']:.2f}",
            mark(ten["peak_rss_mib"] <= 300),
        ),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="one run per figure")
    args = parser.parse_args()
    if not CORPUS.is_dir():
        print(f"scale: corpus not found at {CORPUS}; skipping (set GNO_BENCH_CORPUS).")
        return
    full_reps, noop_reps, per_query = (1, 2, 2) if args.quick else (2, 3, 5)
    print("scale: making the 10× corpus (cached after the first run) …", flush=True)
    big = scaled_corpus()
    print("scale: 1× …", flush=True)
    one = measure(CORPUS, "scale1", full_reps, noop_reps, per_query)
    print("scale: 10× …", flush=True)
    ten = measure(big, "scale10", full_reps, noop_reps, per_query)
    print()
    table = rows(one, ten)
    print(format_table(table, Row("metric", "10×", "target", "1×", "10×/1×", "")))
    for row in table:
        if row.verdict:
            shown = f"{row.gno} ({row.ratio} × 1×)" if "1×" in row.target else row.gno
            verdict(13, f"10× scale: {row.metric}", shown, row.target, row.verdict == "PASS")
    out = Path(__file__).resolve().parent / "results" / "scale.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps({"one": one, "ten": ten}, indent=2) + "\n", encoding="utf-8")
    print(f"scale: wrote {out}")


if __name__ == "__main__":
    main()
