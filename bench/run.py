"""Benchmark gno on the opentelemetry-docs corpus (method, queries and targets: performance.md).

    make bench                          # full pass, a few minutes
    .venv/bin/python bench/run.py --quick   # fewer repetitions, for a smoke test

Prints one table (gno, target, qmd, gno/qmd, PASS/MISS) and writes the same results to
bench/results/latest.json. qmd 2.8.3 (bench/peers.py installs it from npm into a cache folder) is
measured in the same run, on the same corpus and queries, by the same timer; without npm the
ratio rows say SKIP. Exits 0 with a message when the corpus is missing.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from peers import Qmd, find_qmd
from verdicts import verdict

# The shared folder sits beside the checkout (../shared); GNO_BENCH_CORPUS overrides it.
DEFAULT_CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "opentelemetry-docs"
CORPUS = Path(os.environ.get("GNO_BENCH_CORPUS", str(DEFAULT_CORPUS)))
RESULTS_DIR = Path(__file__).resolve().parent / "results"
PYTHON = sys.executable
GNO = str(Path(PYTHON).parent / "gno")  # the console script next to the venv python
COLLECTION = "otel"
MIB = 1024 * 1024

# performance.md §5, each run with limit 10.
QUERIES = [
    "tail sampling processor",
    "batch span processor export timeout",
    "OTLP exporter gRPC endpoint",
    "kubernetes resource detector",
    "W3C traceparent context propagation",
    "collector memory limiter",
    "exponential histogram buckets",
    "http server request duration",
    "java agent auto-instrumentation",
    "logs bridge API",
    "python flask instrumentation",
    "metric cardinality limit",
    "span links",
    "OTEL_EXPORTER_OTLP_ENDPOINT",
    "database client semantic conventions",
    "gen_ai token usage",
    "profiling signal",
    "operator helm chart",
    "muestreo de trazas",
    "サンプリング",
]

# What the interpreter and the CLI libraries cost before any gno code runs.
IMPORT_FLOORS = {
    "python -c pass": "pass",
    "import typer": "import typer",
    "import pydantic + BaseModel": "import pydantic; from pydantic import BaseModel",
}


@dataclass(frozen=True)
class Reps:
    """Counted runs per measurement; every measurement also gets 1 uncounted warm-up."""

    full_index: int
    noop: int
    per_query: int
    start: int


NORMAL = Reps(full_index=3, noop=3, per_query=5, start=10)
QUICK = Reps(full_index=1, noop=2, per_query=2, start=3)


# --- running and timing child processes -------------------------------------------------------


@dataclass(frozen=True)
class Run:
    seconds: float
    peak_rss: int  # bytes
    cpu: float = 0.0  # user + system seconds of the child and the children it waited for


def timed(argv: list[str], env: dict[str, str]) -> Run:
    """Run one child process; wall time spawn→exit with an external timer, and its peak RSS.

    os.wait4 returns the resource usage of exactly this child (the figure GNU `time -v`
    reports), so no wrapper process is timed or measured along with it.
    """
    with tempfile.TemporaryFile() as stderr:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=stderr)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)  # already reaped; tell Popen
        if proc.returncode != 0:
            stderr.seek(0)
            fail(argv, proc.returncode, stderr.read().decode(errors="replace"))
    cpu = usage.ru_utime + usage.ru_stime
    return Run(seconds, usage.ru_maxrss * 1024, cpu)  # ru_maxrss is in KiB on Linux


def repeat(argv: list[str], env: dict[str, str], n: int) -> list[Run]:
    timed(argv, env)  # warm-up, not counted
    return [timed(argv, env) for _ in range(n)]


def median_seconds(runs: list[Run]) -> float:
    return statistics.median(r.seconds for r in runs)


def run_gno(env: dict[str, str], *args: str) -> str:
    """An untimed gno command (set-up); stops the bench if it fails."""
    return run_untimed([GNO, *args], env)


def run_untimed(argv: list[str], env: dict[str, str]) -> str:
    done = subprocess.run(argv, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        fail(argv, done.returncode, done.stderr)
    return done.stdout


def fail(argv: list[str], code: int, stderr: str) -> None:
    sys.exit(f"bench: `{' '.join(argv)}` exited {code}:\n{stderr}")


@contextmanager
def workspace(phase: str) -> Iterator[dict[str, str]]:
    """A fresh temp dir for one phase; yields the child environment pointing gno at it.

    Bytecode is cached under the temp dir (PYTHONPYCACHEPREFIX) even when the caller set
    PYTHONDONTWRITEBYTECODE: an installed gno has .pyc files, and without them every run
    would recompile gno's modules. The warm-ups fill the cache; the source tree stays clean.
    """
    with tempfile.TemporaryDirectory(prefix=f"gno-bench-{phase}-") as tmp:
        root = Path(tmp)
        env = {
            **os.environ,
            "GNO_CONFIG_DIR": str(root / "config"),
            "GNO_DATA_DIR": str(root / "data"),
            "GNO_CACHE_DIR": str(root / "cache"),
            "PYTHONPYCACHEPREFIX": str(root / "pycache"),
        }
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        yield env


# --- the index -------------------------------------------------------------------------------


def create_index(env: dict[str, str]) -> int:
    """init + add the corpus + update; returns the number of files gno processed."""
    run_gno(env, "init", "--yes")
    run_gno(env, "collection", "add", str(CORPUS), "--name", COLLECTION)
    return json.loads(run_gno(env, "update", "--json"))["totalFilesProcessed"]


def index_files(env: dict[str, str]) -> list[Path]:
    return sorted(Path(env["GNO_DATA_DIR"]).glob("index-*.sqlite*"))  # DB, -wal, -shm


def empty_index(env: dict[str, str]) -> None:
    """Delete the DB files, keep the config. gno update refuses a missing DB
    ("GNO not initialized"), so `gno init` recreates it empty (untimed)."""
    for path in index_files(env):
        path.unlink()
    run_gno(env, "init", "--yes")


def indexed_markdown(root: Path) -> tuple[int, int]:
    """(files, bytes) of the .md files gno's defaults index: hidden entries and folders
    named `build` skipped."""
    files = size = 0
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(".") and d != "build"]
        for name in filenames:
            if name.endswith(".md") and not name.startswith("."):
                files += 1
                size += os.path.getsize(os.path.join(dirpath, name))
    return files, size


def bench_index(reps: Reps) -> dict:
    md_files, md_bytes = indexed_markdown(CORPUS)
    with workspace("index") as env:
        docs = create_index(env)  # the warm-up: also brings the corpus into the page cache
        full = []
        for _ in range(reps.full_index):
            empty_index(env)
            full.append(timed([GNO, "update"], env))
        index_bytes = sum(path.stat().st_size for path in index_files(env))
        noop = repeat([GNO, "update"], env, reps.noop)
    return {
        "docs_indexed": docs,
        "markdown_files": md_files,
        "markdown_bytes": md_bytes,
        "index_bytes": index_bytes,
        "index_ratio": index_bytes / md_bytes,
        "full_index_s": median_seconds(full),
        "full_index_runs_s": [r.seconds for r in full],
        "full_index_peak_rss_mib": max(r.peak_rss for r in full) / MIB,
        "noop_s": median_seconds(noop),
        "noop_runs_s": [r.seconds for r in noop],
        "noop_peak_rss_mib": max(r.peak_rss for r in noop) / MIB,
    }


# --- search ----------------------------------------------------------------------------------


def bench_search(reps: Reps) -> dict:
    with workspace("search") as env:
        create_index(env)
        cli = {}
        rss = 0
        for query in QUERIES:
            runs = repeat([GNO, "search", query, "-n", "10", "--files"], env, reps.per_query)
            cli[query] = median_seconds(runs)
            rss = max(rss, *(r.peak_rss for r in runs))
        status = repeat([GNO, "status"], env, reps.start)
        get = repeat([GNO, "get", f"{COLLECTION}/{get_target()}"], env, reps.start)
        worker = [PYTHON, __file__, "--in-process-worker", str(reps.per_query)]
        done = subprocess.run(worker, env=env, capture_output=True, text=True)
        if done.returncode != 0:
            fail(worker, done.returncode, done.stderr)
        in_process = json.loads(done.stdout)
        imports = import_profile([GNO, "search", QUERIES[0], "-n", "10", "--files"], env)
    ms = {q: statistics.median(samples) for q, samples in in_process["ms"].items()}
    return {
        "cli_median_s": statistics.median(cli.values()),
        "cli_min_s": min(cli.values()),
        "cli_max_s": max(cli.values()),
        "cli_peak_rss_mib": rss / MIB,
        "inproc_median_ms": statistics.median(ms.values()),
        "inproc_min_ms": min(ms.values()),
        "inproc_max_ms": max(ms.values()),
        "inproc_slowest_call_ms": max(max(s) for s in in_process["ms"].values()),
        "status_s": median_seconds(status),
        "get_s": median_seconds(get),
        "per_query": [
            {"query": q, "cli_s": cli[q], "inproc_ms": ms[q], "hits": in_process["hits"][q]}
            for q in QUERIES
        ],
        "import_ms": imports,
    }


def import_profile(argv: list[str], env: dict[str, str]) -> dict[str, float]:
    """Where a command's start goes: `python -X importtime` of one run (after the timed runs
    wrote the bytecode cache), as milliseconds of import work per top-level package (each
    module's own time, summed by the package it belongs to, so a library gno imports counts
    as that library), largest first."""
    done = subprocess.run(
        [PYTHON, "-X", "importtime", *argv], env=env, capture_output=True, text=True
    )
    per_package: dict[str, float] = {}
    for line in done.stderr.splitlines():
        fields = line.removeprefix("import time:").split("|")
        if len(fields) != 3 or not fields[0].strip().isdigit():
            continue  # the header, or anything else on stderr
        package = fields[2].strip().split(".")[0]
        per_package[package] = per_package.get(package, 0.0) + int(fields[0]) / 1000
    return dict(sorted(per_package.items(), key=lambda item: -item[1]))


def format_imports(imports: dict[str, float], top: int = 12) -> str:
    total = sum(imports.values())
    shown = ", ".join(f"{name} {ms:.1f}" for name, ms in list(imports.items())[:top])
    return f"`gno search` start, python -X importtime (ms of import work per package; {total:.0f} in all): {shown}"


def in_process_worker(n: int) -> None:
    """Child mode: search() on one warm App (the index named by the GNO_* env vars);
    prints {"hits": {query: n}, "ms": {query: [ms, ...]}, "cpu_ms": {query: [ms, ...]}} as
    JSON (``cpu_ms``: this process's CPU time per call, which other jobs on a shared machine
    do not inflate)."""
    from gno_contracts.models.search_input import SearchInput

    from gno.app import App
    from gno.paths import resolve_paths
    from gno.services.search import search

    app = App(resolve_paths())
    hits = {q: len(search(app, SearchInput(query=q, limit=10)).results) for q in QUERIES}  # warm-up
    samples: dict[str, list[float]] = {}
    cpu: dict[str, list[float]] = {}
    for query in QUERIES:
        inp = SearchInput(query=query, limit=10)
        samples[query], cpu[query] = [], []
        for _ in range(n):
            start, start_cpu = time.perf_counter(), time.process_time()
            search(app, inp)
            samples[query].append((time.perf_counter() - start) * 1000)
            cpu[query].append((time.process_time() - start_cpu) * 1000)
    app.close()
    json.dump({"hits": hits, "ms": samples, "cpu_ms": cpu}, sys.stdout)


def get_target() -> str:
    """The corpus file `get` fetches: the .md closest to 9.5 KB (performance.md §4), ties by path."""
    files = sorted(CORPUS.rglob("*.md"))
    best = min(files, key=lambda f: (abs(f.stat().st_size - 9500), str(f)))
    return best.relative_to(CORPUS).as_posix()


# --- the peer, measured by the same timer in the same run ------------------------------------


def bench_qmd(reps: Reps, qmd: Qmd) -> dict:
    """qmd's figures for every row that compares: full and no-op index, index size, search per
    query, `--help`, `status` and `get`. qmd indexes on `collection add` (the warm-up)."""
    with tempfile.TemporaryDirectory(prefix="gno-bench-qmd-") as tmp:
        home = Path(tmp)
        env = qmd.env(home)
        run_untimed(qmd.argv("collection", "add", str(CORPUS), "--name", COLLECTION), env)
        full = []
        for _ in range(reps.full_index):
            for path in qmd.index_files(home):
                path.unlink()
            full.append(timed(qmd.argv("update"), env))
        index_bytes = sum(path.stat().st_size for path in qmd.index_files(home))
        noop = repeat(qmd.argv("update"), env, reps.noop)
        cli = {
            q: median_seconds(repeat(qmd.argv("search", q, "-n", "10"), env, reps.per_query))
            for q in QUERIES
        }
        help_runs = repeat(qmd.argv("--help"), env, reps.start)
        status = repeat(qmd.argv("status"), env, reps.start)
        get = repeat(qmd.argv("get", f"{COLLECTION}/{get_target()}"), env, reps.start)
    return {
        "version": qmd.version,
        "full_index_s": median_seconds(full),
        "full_index_peak_rss_mib": max(r.peak_rss for r in full) / MIB,
        "noop_s": median_seconds(noop),
        "index_bytes": index_bytes,
        "cli_median_s": statistics.median(cli.values()),
        "cli_per_query_s": cli,
        "help_s": median_seconds(help_runs),
        "status_s": median_seconds(status),
        "get_s": median_seconds(get),
    }


# --- start-up --------------------------------------------------------------------------------


def bench_start(reps: Reps) -> dict:
    with workspace("start") as env:
        help_runs = repeat([GNO, "--help"], env, reps.start)
        floors = {
            label: median_seconds(repeat([PYTHON, "-c", code], env, reps.start))
            for label, code in IMPORT_FLOORS.items()
        }
    return {
        "help_s": median_seconds(help_runs),
        "help_peak_rss_mib": max(r.peak_rss for r in help_runs) / MIB,
        "import_floor_s": floors,
    }


# --- report ----------------------------------------------------------------------------------


@dataclass
class Row:
    metric: str
    gno: str  # formatted figure
    target: str = ""
    qmd: str = ""
    ratio: str = ""
    verdict: str = ""


def compare(
    metric: str,
    value: float,
    shown: str,
    qmd: float | None,
    limit: float | None = None,
    relative: bool = False,
    issue: int | None = 13,
) -> Row:
    """A row; `limit` is the target, in units or (`relative`) as a multiple of qmd's figure of
    the same run. A relative target without qmd is SKIP. `issue` names whose target it is
    (None: a standing target of performance.md) for `make bench`'s summary."""
    peer = "" if qmd is None else f"{qmd:.3g}"
    ratio = "" if qmd is None else f"{value / qmd:.2f}"
    if limit is None:
        return Row(metric, shown, "", peer, ratio, "")
    if relative:
        target = f"≤ {limit:g} × qmd"
        ok = None if qmd is None else value <= limit * qmd
        shown_all = shown if qmd is None else f"{shown} ({ratio} × qmd)"
    else:
        target = f"≤ {limit:g}"
        ok, shown_all = value <= limit, shown
    return Row(metric, shown, target, peer, ratio, verdict(issue, metric, shown_all, target, ok))


def build_rows(ix: dict, se: dict, st: dict, qmd: dict | None) -> list[Row]:
    def peer(key: str) -> float | None:
        return None if qmd is None else qmd[key]

    full, rss, noop = ix["full_index_s"], ix["full_index_peak_rss_mib"], ix["noop_s"]
    ratio, cli, ms, worst = (
        ix["index_ratio"],
        se["cli_median_s"],
        se["inproc_median_ms"],
        se["inproc_max_ms"],
    )
    qmd_ratio = None if qmd is None else qmd["index_bytes"] / ix["markdown_bytes"]
    cli_range = f"{cli:.3f} ({se['cli_min_s']:.3f}–{se['cli_max_s']:.3f})"
    ms_range = f"{ms:.2f} ({se['inproc_min_ms']:.2f}–{worst:.2f})"
    rows = [
        compare(
            "full index (empty → update), s",
            full,
            f"{full:.2f}",
            peer("full_index_s"),
            0.5,
            relative=True,
        ),
        compare(
            "peak RSS while indexing, MiB",
            rss,
            f"{rss:.0f}",
            peer("full_index_peak_rss_mib"),
            200,
            issue=None,
        ),
        compare("no-op re-index, s", noop, f"{noop:.3f}", peer("noop_s"), 0.5, relative=True),
        compare("index size, × indexed bytes", ratio, f"{ratio:.2f}", qmd_ratio, 2.5, issue=None),
        compare(
            "search, whole process, s", cli, cli_range, peer("cli_median_s"), 0.6, relative=True
        ),
        compare("in-process BM25, ms", ms, ms_range, None, 3, issue=None),
        compare("in-process BM25, slowest query, ms", worst, f"{worst:.2f}", None, 20, issue=None),
        compare(
            "CLI start `gno --help`, s", st["help_s"], f"{st['help_s']:.3f}", peer("help_s"), 0.15
        ),
        compare(
            "`gno status`, whole process, s",
            se["status_s"],
            f"{se['status_s']:.3f}",
            peer("status_s"),
            0.6,
            relative=True,
        ),
        compare(
            "`gno get` one 9.5 KB doc, s",
            se["get_s"],
            f"{se['get_s']:.3f}",
            peer("get_s"),
            0.6,
            relative=True,
        ),
    ]
    rows += [Row(f"floor: {label}, s", f"{s:.3f}") for label, s in st["import_floor_s"].items()]
    return rows


def format_table(rows: list[Row], header: Row | None = None) -> str:
    header = header or Row("metric", "gno", "target", "qmd", "gno/qmd", "")
    cells = [list(asdict(r).values()) for r in [header, *rows]]
    widths = [max(len(row[i]) for row in cells) for i in range(len(cells[0]))]
    lines = [
        "  ".join(
            c.ljust(w) if i == 0 else c.rjust(w)
            for i, (c, w) in enumerate(zip(row, widths, strict=True))
        )
        for row in cells
    ]
    lines.insert(1, "-" * len(lines[0]))
    return "\n".join(line.rstrip() for line in lines)


def format_queries(per_query: list[dict], qmd: dict | None) -> str:
    peer = {} if qmd is None else qmd["cli_per_query_s"]
    lines = [f"{'query':<40} {'CLI s':>7} {'qmd s':>7} {'in-proc ms':>10} {'hits':>4}"]
    for q in per_query:
        qmd_s = f"{peer[q['query']]:.3f}" if q["query"] in peer else "—"
        lines.append(
            f"{q['query']:<40} {q['cli_s']:>7.3f} {qmd_s:>7} {q['inproc_ms']:>10.2f} {q['hits']:>4}"
        )
    return "\n".join(lines)


def busy_cpu_seconds() -> float:
    """CPU time the whole machine has spent busy since boot (Linux /proc/stat)."""
    with open("/proc/stat", encoding="ascii") as f:
        ticks = [int(x) for x in f.readline().split()[1:9]]
    idle = ticks[3] + ticks[4]  # idle + iowait
    return (sum(ticks) - idle) / os.sysconf("SC_CLK_TCK")


def own_cpu_seconds() -> float:
    """CPU time of this process and its (reaped) children."""
    usages = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return sum(u.ru_utime + u.ru_stime for u in usages)


def machine() -> str:
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            model = next(
                line.split(":", 1)[1].strip() for line in f if line.startswith("model name")
            )
    except (OSError, StopIteration):
        pass
    return f"{os.cpu_count()} vCPU {model}, {platform.system()} {platform.release()}"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="fewer repetitions (smoke test)")
    parser.add_argument("--in-process-worker", type=int, metavar="N", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.in_process_worker:
        in_process_worker(args.in_process_worker)
        return
    if not CORPUS.is_dir():
        print(f"bench: corpus not found at {CORPUS}; skipping (set GNO_BENCH_CORPUS to its path).")
        return
    reps = QUICK if args.quick else NORMAL
    print(f"bench: {machine()}, Python {platform.python_version()}, {reps}")

    started, busy, own = time.perf_counter(), busy_cpu_seconds(), own_cpu_seconds()
    print("bench: index phase …", flush=True)
    ix = bench_index(reps)
    print("bench: search phase …", flush=True)
    se = bench_search(reps)
    print("bench: start-up phase …", flush=True)
    st = bench_start(reps)
    peer = find_qmd()
    if isinstance(peer, str):
        print(f"bench: qmd not measured ({peer}); rows relative to qmd say SKIP.", flush=True)
        qmd = None
    else:
        print(f"bench: qmd {peer.version} phase (same corpus, queries and timer) …", flush=True)
        qmd = bench_qmd(reps, peer)
    rows = build_rows(ix, se, st, qmd)
    elapsed = time.perf_counter() - started
    # Other processes' CPU during the pass, in cores: the pass must run on an idle machine.
    others = max(0.0, (busy_cpu_seconds() - busy) - (own_cpu_seconds() - own)) / elapsed

    print()
    print(format_table(rows))
    print()
    print(
        f"indexed: {ix['docs_indexed']} docs by gno; {ix['markdown_files']} .md files, "
        f"{ix['markdown_bytes']:,} B of Markdown; index files {ix['index_bytes']:,} B "
        f"→ {ix['index_ratio']:.2f}×"
    )
    if qmd is not None:
        print(f"qmd = qmd {qmd['version']} on Node 22, measured in this run (bench/peers.py).")
    print()
    print(format_imports(se["import_ms"]))
    print()
    print(format_queries(se["per_query"], qmd))
    print(f"\nbench: done in {elapsed:.0f} s; other processes used {others:.2f} cores on average")
    if others > 0.1:
        print("bench: warning: the machine was not idle; figures are inflated (performance.md §3).")

    RESULTS_DIR.mkdir(exist_ok=True)
    result = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": machine(),
        "python": platform.python_version(),
        "other_cpu_cores": others,
        "quick": args.quick,
        "reps": asdict(reps),
        "corpus": str(CORPUS),
        "index": ix,
        "search": se,
        "start": st,
        "qmd": qmd,
        "table": [asdict(r) for r in rows],
    }
    out = RESULTS_DIR / "latest.json"
    out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"bench: wrote {out}")


if __name__ == "__main__":
    main()
