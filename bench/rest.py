"""REST under load on the opentelemetry-docs corpus: `/api/search` from 50 concurrent clients.

    .venv/bin/python bench/rest.py [--clients 50] [--seconds 20]

Index the corpus (as bench/run.py), start `gno serve --port 0`, and time to ready: from
spawning the process to its first 200 on /api/health. Then `--clients` threads, each with
its own keep-alive httpx client on loopback, POST /api/search (the 20 queries of
performance.md, limit 10) back to back for `--seconds`: requests/s, p50/p99 latency as
each client sees it, errors (any non-200 or transport error).
Targets (issue 6): 0 errors, p99 ≤ 50 ms.
The load generator shares the machine's cores with the server: the figures are a floor.
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import GNO, QUERIES, create_index, workspace

URL_LINE = re.compile(r"gno serve: (http://127\.0\.0\.1:\d+)")


def start(env: dict[str, str]) -> tuple[subprocess.Popen[str], str, float]:
    began = time.perf_counter()
    proc = subprocess.Popen(  # no watcher: the corpus does not change during the bench
        [GNO, "serve", "--port", "0", "--no-watch"], env=env, stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    for line in proc.stdout:
        if match := URL_LINE.search(line):
            url = match.group(1)
            break
    else:
        raise SystemExit("gno serve did not start")
    while True:
        try:
            if httpx.get(f"{url}/api/health").status_code == 200:
                return proc, url, time.perf_counter() - began
        except httpx.TransportError:
            time.sleep(0.005)


def load(url: str, clients: int, seconds: float) -> tuple[list[float], int, float]:
    latencies: list[list[float]] = [[] for _ in range(clients)]
    errors = [0] * clients
    stop_at = time.perf_counter() + seconds
    barrier = threading.Barrier(clients)

    def client(i: int) -> None:
        with httpx.Client(base_url=url, timeout=30) as http:
            barrier.wait()
            n = i
            while time.perf_counter() < stop_at:
                body = {"query": QUERIES[n % len(QUERIES)], "limit": 10}
                n += 1
                t0 = time.perf_counter()
                try:
                    ok = http.post("/api/search", json=body).status_code == 200
                except httpx.TransportError:
                    ok = False
                latencies[i].append(time.perf_counter() - t0)
                errors[i] += not ok

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    began = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - began
    return [x for per in latencies for x in per], sum(errors), elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=20.0)
    args = parser.parse_args()
    with workspace("rest") as env:
        files = create_index(env)
        proc, url, ready = start(env)
        try:
            load(url, 4, 2.0)  # warm-up: reader connections, page cache
            times, errors, elapsed = load(url, args.clients, args.seconds)
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    times.sort()
    p50 = statistics.median(times) * 1000
    p99 = times[min(len(times) - 1, int(len(times) * 0.99))] * 1000
    print(f"corpus: {files} files; gno serve ready in {ready:.2f} s")
    print(
        f"/api/search, {args.clients} clients, {elapsed:.1f} s: {len(times)} requests, "
        f"{len(times) / elapsed:.0f} req/s, p50 {p50:.1f} ms, p99 {p99:.1f} ms, errors {errors}"
    )
    print(
        f"targets: 0 errors ({'ok' if errors == 0 else 'MISSED'}), p99 <= 50 ms "
        f"({'ok' if p99 <= 50 else 'MISSED'})"
    )


if __name__ == "__main__":
    main()
