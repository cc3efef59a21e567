"""REST under load on the opentelemetry-docs corpus: `/api/search` from 50 concurrent clients.

    .venv/bin/python bench/rest.py [--clients 50] [--seconds 20] [--generator auto|wrk|python]
                                   [--home DIR]

Index the corpus (as bench/run.py), start `gno serve --port 0`, and time to ready: from
spawning the process to its first 200 on /api/health (median of 3 starts after one uncounted). Then two closed-loop runs of
`--seconds` each (`--home DIR` keeps the gno home in DIR, indexed once): `--clients` keep-alive connections POST /api/search (the 20 queries of
performance.md, limit 10) back to back.

- unique bodies: every body differs (an `intent` with a counter; BM25 search only echoes it),
  so the result cache never answers: what the engine itself sustains;
- repeated bodies: the 20 bodies again and again, each sent once just before the run, so
  every answer is a result-cache hit.

The load generator is wrk (C; a Lua script writes the bodies; `--latency`) when it is on
PATH, else threads with httpx clients, which need about as much CPU per request as the server
and share its cores: then the figures are a floor. Reported per run: requests/s, p50/p99
latency as the clients see it, errors (non-2xx answers, socket errors, timeouts) and the
server's CPU time per request (from /proc, Linux only).
Targets: 0 errors; cache hits p99 ≤ 50 ms (issue 6); cache misses ≥ 500 req/s and p99
≤ 120 ms (issue 13 item 5). `--search-processes N` sets GNO_SEARCH_PROCESSES for the
server (0: searches on threads in the server process, as before).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import GNO, QUERIES, create_index, workspace
from verdicts import verdict

URL_LINE = re.compile(r"gno serve: (http://127\.0\.0\.1:\d+)")
TIMEOUT_SECONDS = 30
WRK_THREADS = 2  # one per core of the reference machine
# Issue 13 item 5 for unique bodies: >= 3x the 164 req/s measured when it was filed, and
# at least 500 req/s; p99 <= 120 ms.
MISS_RATE = 500
MISS_P99_MS = 120


@dataclass
class Run:
    label: str
    requests: int
    seconds: float
    p50_ms: float
    p99_ms: float
    errors: int
    server_cpu: float | None  # seconds of CPU the server used during the run
    owner_cpu: float | None = None  # of which the server process itself (the rest: children)

    def line(self) -> str:
        cpu = (
            f", server CPU {self.server_cpu / self.requests * 1000:.2f} ms/request"
            + (
                f" (server process {self.owner_cpu / self.requests * 1000:.2f}, search "
                f"processes {(self.server_cpu - self.owner_cpu) / self.requests * 1000:.2f})"
                if self.owner_cpu is not None
                else ""
            )
            if self.server_cpu is not None and self.requests
            else ""
        )
        return (
            f"{self.label}: {self.requests} requests in {self.seconds:.1f} s, "
            f"{self.requests / self.seconds:.0f} req/s, p50 {self.p50_ms:.1f} ms, "
            f"p99 {self.p99_ms:.1f} ms, errors {self.errors}{cpu}"
        )


def body(i: int, unique: bool) -> dict[str, object]:
    payload: dict[str, object] = {"query": QUERIES[i % len(QUERIES)], "limit": 10}
    if unique:
        payload["intent"] = f"bench {i}"
    return payload


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


def ready_server(env: dict[str, str]) -> tuple[subprocess.Popen[str], str, float]:
    """One uncounted start (it writes the bytecode cache, as an install would have), then
    the median of three; the last server stays up for the load."""
    times = []
    for attempt in range(4):
        proc, url, seconds = start(env)
        if attempt:
            times.append(seconds)
        if attempt < 3:
            proc.terminate()
            proc.wait(timeout=30)
    return proc, url, statistics.median(times)


def _stat(pid: int | str) -> list[str] | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None


OWNER_CPU: dict[int, float] = {}  # the server process alone, for the split in the output


def cpu_seconds(pid: int) -> float | None:
    """utime + stime of the server and its child processes (its search processes; Linux
    /proc), None elsewhere. The server's own share is kept in OWNER_CPU[pid]."""
    fields = _stat(pid)
    if fields is None:
        return None
    ticks = own = int(fields[11]) + int(fields[12])
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (child := _stat(entry.name)) and child[1] == str(pid):
            ticks += int(child[11]) + int(child[12])
    OWNER_CPU[pid] = own / os.sysconf("SC_CLK_TCK")
    return ticks / os.sysconf("SC_CLK_TCK")


# --- wrk -------------------------------------------------------------------------------------

LUA = """
local queries = {%(queries)s}
local unique = %(unique)s
local threads = 0
setup = function(thread)
  thread:set("id", threads)
  threads = threads + 1
end
local n = 0
request = function()
  n = n + 1
  local body = '{"query":' .. queries[(n %% #queries) + 1] .. ',"limit":10'
  if unique then
    body = body .. ',"intent":"bench ' .. id .. ' ' .. n .. '"'
  end
  return wrk.format("POST", "/api/search", {["Content-Type"] = "application/json"}, body .. "}")
end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("GNO-WRK %%d %%d %%d %%d %%d\\n", summary.requests, summary.duration,
    e.connect + e.read + e.write + e.status + e.timeout,
    latency:percentile(50), latency:percentile(99)))
end
"""


def wrk_script(directory: Path, unique: bool) -> Path:
    queries = ", ".join(f"[=[{json.dumps(q)}]=]" for q in QUERIES)  # JSON string literals
    path = directory / ("unique.lua" if unique else "repeated.lua")
    path.write_text(LUA % {"queries": queries, "unique": "true" if unique else "false"})
    return path


def wrk_run(url: str, clients: int, seconds: float, unique: bool, label: str, pid: int) -> Run:
    with tempfile.TemporaryDirectory(prefix="gno-bench-wrk-") as tmp:
        script = wrk_script(Path(tmp), unique)
        argv = ["wrk", f"-t{min(WRK_THREADS, clients)}", f"-c{clients}", f"-d{seconds:g}s"]
        argv += [f"--timeout={TIMEOUT_SECONDS}s", "--latency", "-s", str(script), url]
        cpu0 = cpu_seconds(pid)
        own0 = OWNER_CPU.get(pid)
        done = subprocess.run(argv, capture_output=True, text=True, check=True)
        cpu1 = cpu_seconds(pid)
        own1 = OWNER_CPU.get(pid)
    match = re.search(r"GNO-WRK (\d+) (\d+) (\d+) (\d+) (\d+)", done.stdout)
    if not match:
        raise SystemExit(f"bench: unexpected wrk output:\n{done.stdout}{done.stderr}")
    requests, micros, errors, p50, p99 = map(int, match.groups())
    cpu = cpu1 - cpu0 if cpu0 is not None and cpu1 is not None else None
    own = own1 - own0 if own0 is not None and own1 is not None else None
    return Run(label, requests, micros / 1e6, p50 / 1000, p99 / 1000, errors, cpu, own)


def wrk_version() -> str:
    done = subprocess.run(["wrk", "-v"], capture_output=True, text=True)
    found = re.search(r"wrk (\S+)", done.stdout + done.stderr)
    return found.group(1) if found else "?"


# --- Python fallback -------------------------------------------------------------------------


def python_run(url: str, clients: int, seconds: float, unique: bool, label: str, pid: int) -> Run:
    latencies: list[list[float]] = [[] for _ in range(clients)]
    errors = [0] * clients
    stop_at = time.perf_counter() + seconds
    barrier = threading.Barrier(clients)

    def client(i: int) -> None:
        with httpx.Client(base_url=url, timeout=TIMEOUT_SECONDS) as http:
            barrier.wait()
            n = (i + 1) * 1_000_000  # a counter per client: unique bodies never repeat
            while time.perf_counter() < stop_at:
                payload = body(n, unique)
                n += 1
                t0 = time.perf_counter()
                try:
                    ok = http.post("/api/search", json=payload).status_code == 200
                except httpx.TransportError:
                    ok = False
                latencies[i].append(time.perf_counter() - t0)
                errors[i] += not ok

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    cpu0 = cpu_seconds(pid)
    began = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - began
    cpu1 = cpu_seconds(pid)
    times = sorted(x for per in latencies for x in per)
    p50 = statistics.median(times) * 1000
    p99 = times[min(len(times) - 1, int(len(times) * 0.99))] * 1000
    cpu = cpu1 - cpu0 if cpu0 is not None and cpu1 is not None else None
    return Run(label, len(times), elapsed, p50, p99, sum(errors), cpu)


def settle(url: str) -> None:
    """Wait until the server has finished the requests of the previous run (a client that
    stops does not stop the searches it already sent), so runs do not overlap."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        status = httpx.get(f"{url}/api/resident/status", timeout=TIMEOUT_SECONDS).json()
        if status["transport"]["activeRequests"] <= 1:  # this request
            return
        time.sleep(0.05)
    raise SystemExit("bench: the server stayed busy after the load stopped")


def search_processes_ready(pid: int, count: int) -> None:
    """Wait until the server's ``count`` search processes (started by its first search)
    sleep and their CPU time stands still: imports done, waiting for work."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        kids = [
            e.name
            for e in Path("/proc").iterdir()
            if e.name.isdigit() and (st := _stat(e.name)) and st[1] == str(pid)
        ]
        if len(kids) >= count:
            before = [_stat(k) for k in kids]
            time.sleep(0.5)
            after = [_stat(k) for k in kids]
            if all(
                a and b and a[0] == "S" and a[11:13] == b[11:13]
                for a, b in zip(after, before, strict=True)
            ):
                return
        time.sleep(0.1)
    raise SystemExit("bench: the search processes did not start")


def check_answers(url: str) -> None:
    """Every body the runs send is answered 200 with results (the load counts statuses only)."""
    with httpx.Client(base_url=url, timeout=TIMEOUT_SECONDS) as http:
        for i in range(len(QUERIES)):
            for unique in (False, True):
                answer = http.post("/api/search", json=body(i, unique))
                if answer.status_code != 200 or not answer.json()["results"]:
                    raise SystemExit(f"bench: {body(i, unique)} -> {answer.status_code}")


@contextmanager
def home(directory: Path | None) -> Iterator[dict[str, str]]:
    if directory is None:
        with workspace("rest") as env:
            yield env
        return
    root = directory.resolve()
    yield {
        **os.environ,
        "GNO_CONFIG_DIR": str(root / "config"),
        "GNO_DATA_DIR": str(root / "data"),
        "GNO_CACHE_DIR": str(root / "cache"),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--generator", choices=("auto", "wrk", "python"), default="auto")
    parser.add_argument("--home", type=Path, help="keep the gno home here (indexed once)")
    parser.add_argument(
        "--search-processes",
        type=int,
        help="GNO_SEARCH_PROCESSES for the server (default: its own, one per core)",
    )
    args = parser.parse_args()
    use_wrk = args.generator == "wrk" or (args.generator == "auto" and shutil.which("wrk"))
    if use_wrk:
        generator = f"wrk {wrk_version()} ({min(WRK_THREADS, args.clients)} threads)"
        run = wrk_run
    else:
        generator = "Python threads with httpx" + (
            "" if args.generator == "python" else " (no wrk on PATH)"
        )
        run = python_run
    with home(args.home) as env:
        files = create_index(env) if not (Path(env["GNO_DATA_DIR"])).exists() else None
        if args.search_processes is not None:
            env = {**env, "GNO_SEARCH_PROCESSES": str(args.search_processes)}
        processes = args.search_processes
        if processes is None:
            from gno.launch import search_processes

            processes = search_processes()
        load_before = os.getloadavg()[0]
        proc, url, ready = ready_server(env)
        try:
            check_answers(url)
            if sys.platform.startswith("linux"):
                search_processes_ready(proc.pid, processes)
            run(url, 4, 2.0, False, "warm-up", proc.pid)  # reader connections, page cache
            runs = []
            for unique in (True, False):
                settle(url)
                check_answers(url)  # the hits run starts with the 20 answers cached
                label = "unique bodies (cache misses)" if unique else "repeated bodies (cache hits)"
                runs.append(run(url, args.clients, args.seconds, unique, label, proc.pid))
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    corpus = f"{files} files" if files is not None else f"the index in {args.home}"
    print(f"corpus: {corpus}; gno serve ready in {ready:.2f} s; load average {load_before:.2f}")
    print(f"load generator: {generator}, {args.clients} connections, {args.seconds:g} s per run")
    chosen = "default" if args.search_processes is None else "--search-processes"
    print(f"search processes: {processes} ({chosen}); load average now {os.getloadavg()[0]:.2f}")
    for r in runs:
        print(r.line())
        errors = verdict(None, f"REST {r.label}: errors", str(r.errors), "0", r.errors == 0)
        verdicts = [f"0 errors ({errors})"]
        if r is runs[0]:  # issue 13 item 5: unique bodies, 50 connections
            rate = r.requests / r.seconds
            word = verdict(
                13,
                "REST unique searches, req/s",
                f"{rate:.0f}",
                f">= {MISS_RATE}",
                rate >= MISS_RATE,
            )
            verdicts.append(f">= {MISS_RATE} req/s ({word})")
            word = verdict(
                13,
                "REST unique searches, p99 ms",
                f"{r.p99_ms:.1f}",
                f"<= {MISS_P99_MS}",
                r.p99_ms <= MISS_P99_MS,
            )
            verdicts.append(f"p99 <= {MISS_P99_MS} ms ({word})")
        else:  # issue 6
            word = verdict(6, f"REST {r.label}: p99 ms", f"{r.p99_ms:.1f}", "<= 50", r.p99_ms <= 50)
            verdicts.append(f"p99 <= 50 ms ({word})")
        print("  targets: " + ", ".join(verdicts))


if __name__ == "__main__":
    main()
