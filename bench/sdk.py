"""Python SDK figures on the opentelemetry-docs corpus (targets: spec/sdk.md).

    .venv/bin/python bench/sdk.py

1. cold start: a fresh interpreter running ``import gno; Gno().search(...)`` on the corpus
   index, timed inside the interpreter (import to first answer; target 0.25 s) and as the
   whole process; median of 7 after one uncounted run (bytecode cache);
2. remote round trip: ``Gno(url=…).search(...)`` against a `gno serve` on loopback,
   median of 300 calls after 20 uncounted (target 5 ms): the 5 queries repeated (the
   server's result cache answers after the first round), then every search distinct.

Prints the figures and writes bench/results/sdk.json. Exits 0 with a message when the
corpus is missing.
"""

from __future__ import annotations

import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from verdicts import verdict

ROOT = Path(__file__).resolve().parents[1]
CORPUS = Path(
    os.environ.get("GNO_BENCH_CORPUS", ROOT.parent / "shared" / "corpora" / "opentelemetry-docs")
)
RESULTS = ROOT / "bench" / "results" / "sdk.json"
GNO = str(Path(sys.executable).with_name("gno"))
URL_LINE = re.compile(r"(http://127\.0\.0\.1:\d+)")
QUERIES = ["tail sampling", "span attributes", "exporter retry", "metric views", "log body"]
COLD = (
    "import time; t = time.perf_counter(); c = time.process_time(); import gno; "
    "client = gno.Gno(); hits = client.search(query='tail sampling processor'); "
    "print(time.perf_counter() - t, len(hits.results), time.process_time() - c)"
)


def env_for(base: Path) -> dict[str, str]:
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    for name, sub in (("GNO_CONFIG_DIR", "config"), ("GNO_DATA_DIR", "data")):
        env[name] = str(base / sub)
    env["GNO_CACHE_DIR"] = str(base / "cache")
    # Bytecode as an installed package has it (bench/README.md, Method): without it every
    # cold start would compile gno's sources again under this sandbox's
    # PYTHONDONTWRITEBYTECODE. The uncounted first run fills the cache.
    env["PYTHONPYCACHEPREFIX"] = str(base / "pycache")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def cold_start(env: dict[str, str]) -> tuple[float, float, float]:
    """(wall in the interpreter, whole process, CPU in the interpreter): medians of 7. CPU is
    what a busy machine stretches least."""
    inside, whole, cpu = [], [], []
    for attempt in range(8):
        began = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-c", COLD], env=env, capture_output=True, text=True, check=True
        )
        elapsed = time.perf_counter() - began
        seconds, count, busy = done.stdout.split()
        assert int(count) > 0, "the cold search found nothing"
        if attempt:
            inside.append(float(seconds))
            whole.append(elapsed)
            cpu.append(float(busy))
    return statistics.median(inside), statistics.median(whole), statistics.median(cpu)


def remote_round_trip(env: dict[str, str]) -> tuple[float, float]:
    """Medians of the 5 queries repeated (answers from the server's result cache after
    the first round) and of searches that never repeat (a distinct ``intent`` each)."""
    from gno import Gno

    proc = subprocess.Popen(
        [GNO, "serve", "--port", "0", "--no-watch"], env=env, stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None
        url = next(m.group(1) for line in proc.stdout if (m := URL_LINE.search(line)))
        with Gno(url=url) as client:
            for _ in range(100):
                try:
                    client.health()
                    break
                except Exception:
                    time.sleep(0.05)
            times: dict[bool, list[float]] = {False: [], True: []}
            for unique in (False, True):
                for i in range(320):
                    intent = f"bench {i}" if unique else None  # only echoed by BM25 search
                    began = time.perf_counter()
                    client.search(query=QUERIES[i % len(QUERIES)], limit=10, intent=intent)
                    if i >= 20:
                        times[unique].append(time.perf_counter() - began)
        return statistics.median(times[False]), statistics.median(times[True])
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def main() -> None:
    if not CORPUS.is_dir():
        print(f"bench/sdk.py: corpus {CORPUS} missing; nothing measured")
        return
    with tempfile.TemporaryDirectory() as tmp:
        env = env_for(Path(tmp))
        subprocess.run([GNO, "init", str(CORPUS), "--name", "otel"], env=env, check=True)
        subprocess.run([GNO, "update"], env=env, check=True, capture_output=True)
        inside, whole, cpu = cold_start(env)
        remote, uncached = remote_round_trip(env)
    figures = {
        "cold_start_s": round(inside, 4),
        "cold_start_process_s": round(whole, 4),
        "cold_start_cpu_s": round(cpu, 4),
        "remote_search_median_ms": round(remote * 1000, 3),
        "remote_search_uncached_median_ms": round(uncached * 1000, 3),
        "load_average": round(os.getloadavg()[0], 2),
    }
    rows = [
        ("import gno + Gno() + first search (in the interpreter)", f"{inside:.3f} s", 0.25, inside),
        ("same, CPU time in the interpreter", f"{cpu:.3f} s", None, cpu),
        ("same, whole process (interpreter start included)", f"{whole:.3f} s", None, whole),
        ("remote search round trip, median", f"{remote * 1000:.2f} ms", 0.005, remote),
        ("same, every search distinct (no cache)", f"{uncached * 1000:.2f} ms", None, uncached),
    ]
    for label, shown, target, value in rows:
        limit = (
            ""
            if target is None
            else f"≤ {target * 1000:g} ms"
            if target < 0.1
            else f"≤ {target:g} s"
        )
        word = "" if target is None else verdict(16, label, shown, limit, value <= target)
        print(f"{label:58} {shown:>10}  {word}")
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
