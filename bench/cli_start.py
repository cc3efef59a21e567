"""CLI start-up figures: whole `gno` processes against qmd's, measured in the same run.

    .venv/bin/python bench/cli_start.py               # builds a corpus index (~15 s), 15 runs each
    .venv/bin/python bench/cli_start.py --runs 30     # more runs on a busy machine
    .venv/bin/python bench/cli_start.py --use-env     # the index GNO_CONFIG_DIR/GNO_DATA_DIR name
    .venv/bin/python bench/cli_start.py --compare OTHER/bin/gno   # another checkout's gno too

Targets (issue 13 item 2): `gno search`, `gno get` and `gno status` ≤ 0.6 × qmd's equivalents,
`gno --help` ≤ 0.15 s; the graph-family commands against GNO's whole-process times
(performance.md §9). The machine is shared, so each command's runs are interleaved with the
peer's (one gno run, one qmd run, …) and the table gives the minimum and the median wall time
and the median CPU time (user + system of exactly that child, from ``wait4``): CPU is what
other processes' load stretches least, the minimum is the closest to an idle machine.

Prints the table with the load average before and after, and writes bench/results/cli_start.json.
Exits 0 with a message when the corpus is missing; without qmd the ratio rows say SKIP.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from peers import Qmd, find_qmd
from verdicts import verdict as record

ROOT = Path(__file__).resolve().parents[1]
CORPUS = Path(
    os.environ.get("GNO_BENCH_CORPUS", ROOT.parent / "shared" / "corpora" / "opentelemetry-docs")
)
RESULTS = ROOT / "bench" / "results" / "cli_start.json"
GNO = str(Path(sys.executable).with_name("gno"))
HUB = "gno://otel/website/en/docs/concepts/sampling/index.md"
QUERIES = ["registry", "tail sampling processor", "OTLP exporter gRPC endpoint"]

# (label, gno argv, qmd argv or None, target: ("qmd", ratio) | ("abs", seconds) | ("GNO", s))
Case = tuple[str, list[str], list[str] | None, tuple[str, float] | None]


def cases(get_target: str) -> list[Case]:
    out: list[Case] = [
        (f"search {q!r}", ["search", q, "-n", "10", "--files"], ["search", q, "-n", "10"],
         ("qmd", 0.6))
        for q in QUERIES
    ]  # fmt: skip
    out += [
        ("get (9.5 KB doc)", ["get", f"otel/{get_target}"], ["get", f"otel/{get_target}"],
         ("qmd", 0.6)),
        ("status", ["status"], ["status"], ("qmd", 0.6)),
        ("--help", ["--help"], ["--help"], ("abs", 0.15)),
        ("search --help", ["search", "--help"], None, None),
        ("links", ["links", HUB, "--json"], None, ("GNO", 0.08)),
        ("backlinks", ["backlinks", HUB, "--json"], None, ("GNO", 0.08)),
        ("graph --json", ["graph", "--json"], None, ("GNO", 0.12)),
        ("graph query", ["graph", "query", HUB, "--json"], None, ("GNO", 0.12)),
        ("tags --json", ["tags", "--json"], None, ("GNO", 0.10)),
        ("changes --json", ["changes", "--json"], None, ("GNO", 0.10)),
    ]  # fmt: skip
    return out


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds spawn → reaped, CPU seconds of exactly that child)."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    proc.returncode = code
    err = proc.stderr.read() if proc.stderr else b""
    if proc.stderr:
        proc.stderr.close()
    if code != 0:
        raise SystemExit(f"`{' '.join(argv)}` exited {code}: {err.decode(errors='replace')[:400]}")
    return wall, usage.ru_utime + usage.ru_stime


def summary(samples: list[tuple[float, float]]) -> dict[str, float]:
    walls = [w for w, _ in samples]
    return {
        "min_s": min(walls),
        "median_s": statistics.median(walls),
        "cpu_median_s": statistics.median(c for _, c in samples),
    }


def get_target() -> str:
    """The corpus file `get` fetches: the .md closest to 9.5 KB (performance.md §4)."""
    files = sorted(CORPUS.rglob("*.md"))
    best = min(files, key=lambda f: (abs(f.stat().st_size - 9500), str(f)))
    return best.relative_to(CORPUS).as_posix()


def gno_env(base: Path | None) -> dict[str, str]:
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    if base is not None:
        for name, sub in (("GNO_CONFIG_DIR", "config"), ("GNO_DATA_DIR", "data")):
            env[name] = str(base / sub)
        env["GNO_CACHE_DIR"] = str(base / "cache")
        # An installed gno has bytecode; this sandbox's PYTHONDONTWRITEBYTECODE would make
        # every run recompile the editable sources (bench/README.md, Method).
        env["PYTHONPYCACHEPREFIX"] = str(base / "pycache")
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def measure(
    runs: int,
    env: dict[str, str],
    qmd: Qmd | None,
    qmd_env: dict[str, str] | None,
    other: str | None = None,
) -> list[dict]:
    rows = []
    for label, argv, peer_argv, target in cases(get_target()):
        ours: list[tuple[float, float]] = []
        theirs: list[tuple[float, float]] = []
        before: list[tuple[float, float]] = []
        peer = qmd is not None and qmd_env is not None and peer_argv is not None
        for rep in range(runs + 1):  # the first round is a warm-up: bytecode, page cache
            sample = timed([GNO, *argv], env)
            if rep:
                ours.append(sample)
            if other is not None:
                sample = timed([other, *argv], env)
                if rep:
                    before.append(sample)
            if peer:
                assert qmd is not None and qmd_env is not None and peer_argv is not None
                sample = timed(qmd.argv(*peer_argv), qmd_env)
                if rep:
                    theirs.append(sample)
        rows.append(
            {
                "case": label,
                "argv": argv,
                "gno": summary(ours),
                "qmd": summary(theirs) if theirs else None,
                "other": summary(before) if before else None,
                "target": target,
            }
        )
        print(f"  {label}: {rows[-1]['gno']['min_s']:.3f} s min", file=sys.stderr, flush=True)
    return rows


def verdict(row: dict) -> tuple[str, str, str]:
    """(target text, ratio text, PASS/MISS/SKIP) on the medians (min when both have one)."""
    target = row["target"]
    value = row["gno"]["median_s"]
    if target is None:
        return "", "", ""
    kind, limit = target
    if kind == "abs":
        return f"≤ {limit:g} s", "", "PASS" if value <= limit else "MISS"
    if kind == "GNO":
        return f"GNO {limit:g} s", f"{value / limit:.2f}", "beats" if value < limit else "slower"
    if row["qmd"] is None:
        return f"≤ {limit:g} × qmd", "", "SKIP"
    ratio = value / row["qmd"]["median_s"]
    return f"≤ {limit:g} × qmd", f"{ratio:.2f}", "PASS" if ratio <= limit else "MISS"


def record_all(rows: list[dict]) -> None:
    """Each row's verdict for `make bench`'s summary: issue 13's start-up targets, and GNO's
    published times (issue 20's graph commands)."""
    for row in rows:
        target, ratio, word = verdict(row)
        if word:
            issue = 20 if row["target"][0] == "GNO" else 13
            ok = None if word == "SKIP" else word in ("PASS", "beats")
            shown = f"{row['gno']['median_s']:.3f}" + (f" ({ratio} ×)" if ratio else "")
            record(issue, f"whole process: {row['case']}, s", shown, target, ok)


def table(rows: list[dict]) -> str:
    other = any(row["other"] for row in rows)
    head = f"{'command':<30} {'min':>6} {'median':>7} {'CPU':>6} {'qmd med':>8} {'qmd CPU':>8}"
    head += f" {'cmp med':>8} {'cmp CPU':>8}" if other else ""
    lines = [head + f"  {'target':<14} {'ratio':>5}  verdict", "-" * (118 if other else 100)]
    for row in rows:
        g, q, o = row["gno"], row["qmd"], row["other"]
        target, ratio, word = verdict(row)
        peer = f"{q['median_s']:>8.3f} {q['cpu_median_s']:>8.3f}" if q else f"{'':>8} {'':>8}"
        if other:
            peer += f" {o['median_s']:>8.3f} {o['cpu_median_s']:>8.3f}" if o else f"{'':>18}"
        lines.append(
            f"{row['case'][:30]:<30} {g['min_s']:>6.3f} {g['median_s']:>7.3f}"
            f" {g['cpu_median_s']:>6.3f} {peer}  {target:<14} {ratio:>5}  {word}"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=15, help="runs per command (default 15)")
    parser.add_argument("--use-env", action="store_true", help="the index the GNO_* env names")
    parser.add_argument("--no-qmd", action="store_true", help="gno only")
    parser.add_argument("--compare", metavar="GNO", help="another gno script, measured alike")
    args = parser.parse_args()
    if not CORPUS.is_dir():
        print(f"bench/cli_start.py: corpus {CORPUS} missing; nothing measured")
        return
    peer = None if args.no_qmd else find_qmd()
    if isinstance(peer, str):
        print(f"qmd not measured ({peer}); ratio rows say SKIP")
        peer = None
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="gno-bench-start-") as tmp:
        base = Path(tmp)
        env = gno_env(None if args.use_env else base / "gno")
        if args.use_env:
            env["PYTHONPYCACHEPREFIX"] = str(base / "pycache")
            env.pop("PYTHONDONTWRITEBYTECODE", None)
        else:
            print("building the gno index …", file=sys.stderr, flush=True)
            subprocess.run([GNO, "init", str(CORPUS), "--name", "otel"], env=env, check=True,
                           capture_output=True)  # fmt: skip
            subprocess.run([GNO, "update"], env=env, check=True, capture_output=True)
        qmd_env = None
        if peer is not None:
            print("building the qmd index …", file=sys.stderr, flush=True)
            qmd_env = peer.env(base / "qmd")
            add = peer.argv("collection", "add", str(CORPUS), "--name", "otel")
            subprocess.run(add, env=qmd_env, check=True, capture_output=True)
        rows = measure(args.runs, env, peer, qmd_env, args.compare)
    load_after = os.getloadavg()
    print(table(rows))
    record_all(rows)
    print(
        f"\n{args.runs} runs each, interleaved (gno, --compare, qmd); load average before "
        f"{load_before[0]:.2f}, after {load_after[0]:.2f} (2 cores: above ~1 the figures lean high)"
    )
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(
        json.dumps({"load": [load_before, load_after], "runs": args.runs, "rows": rows}, indent=2)
        + "\n"
    )


if __name__ == "__main__":
    main()
