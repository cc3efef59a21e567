"""MCP over stdio on the opentelemetry-docs corpus: `initialize` latency and `gno_search` round trips.

    .venv/bin/python bench/mcp_stdio.py [--reps 5]

`initialize`: wall time from spawning `gno mcp` to its initialize reply, read off the raw pipe
(what a client waits for before it can list tools). Round trips: `gno_search` (limit 10) for the
20 queries of performance.md on one warm session, timed two ways:
- raw pipe: JSON-RPC lines written to the server's stdin, the reply line read back (server work,
  SDK server framing and the pipe; the figure comparable to qmd's and GNO's);
- SDK client: the official Python client's `call_tool`, which also validates every result
  against the tool's output schema with jsonschema on the client side.
Targets (issue 4): median ≤ 5 ms, max ≤ 25 ms; qmd 12 ms, GNO 388 ms; initialize < 0.5 s.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import CORPUS, GNO, QUERIES, create_index, workspace
from verdicts import verdict

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "1"},
    },
}


def spawn(env: dict[str, str]) -> subprocess.Popen[str]:
    """`gno mcp` with pipes for stdin and stdout (stderr discarded)."""
    return subprocess.Popen(
        [GNO, "mcp"],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )


def initialize_seconds(env: dict[str, str]) -> tuple[float, float]:
    """Spawn → `initialize` reply, and spawn → the reply to the `tools/list` sent right
    after it (what a client waits for before its first tool call)."""
    start = time.perf_counter()
    proc = spawn(env)
    assert proc.stdin and proc.stdout
    proc.stdin.write(json.dumps(INITIALIZE) + "\n")
    proc.stdin.flush()
    reply = json.loads(proc.stdout.readline())
    elapsed = time.perf_counter() - start
    assert reply["result"]["serverInfo"]["name"] == "gno", reply
    proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
    proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}) + "\n")
    proc.stdin.flush()
    listed = json.loads(proc.stdout.readline())
    tools = time.perf_counter() - start
    assert listed["result"]["tools"], listed
    proc.stdin.close()
    proc.wait(timeout=30)
    return elapsed, tools


def raw_round_trips(env: dict[str, str], reps: int) -> list[float]:
    proc = spawn(env)
    assert proc.stdin and proc.stdout

    def ask(message: dict) -> dict:
        proc.stdin.write(json.dumps(message) + "\n")
        proc.stdin.flush()
        return json.loads(proc.stdout.readline()) if "id" in message else {}

    ask(INITIALIZE)
    ask({"jsonrpc": "2.0", "method": "notifications/initialized"})
    samples, next_id = [], 2
    for rep in range(reps + 1):  # the first pass warms up
        for query in QUERIES:
            call = {"jsonrpc": "2.0", "id": next_id, "method": "tools/call",
                    "params": {"name": "gno_search", "arguments": {"query": query, "limit": 10}}}  # fmt: skip
            next_id += 1
            start = time.perf_counter()
            reply = ask(call)
            elapsed = (time.perf_counter() - start) * 1000
            assert not reply["result"].get("isError"), reply
            if rep:
                samples.append(elapsed)
    proc.stdin.close()
    proc.wait(timeout=30)
    return samples


async def round_trips(env: dict[str, str], reps: int, mode: str) -> dict[str, list[float]]:
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(command=GNO, args=["mcp"], env=env)
    samples: dict[str, list[float]] = {q: [] for q in QUERIES}
    async with Client(params, mode=mode) as client:
        for query in QUERIES:  # warm-up: first calls load modules and fill caches
            result = await client.call_tool("gno_search", {"query": query, "limit": 10})
            assert not result.is_error, result.content[0].text
        for _ in range(reps):
            for query in QUERIES:
                start = time.perf_counter()
                await client.call_tool("gno_search", {"query": query, "limit": 10})
                samples[query].append((time.perf_counter() - start) * 1000)
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument(
        "--init-only", action="store_true", help="only the start figures (no round trips)"
    )
    args = parser.parse_args()
    if not CORPUS.is_dir():
        print(f"corpus not found at {CORPUS}; nothing to measure")
        return
    with workspace("mcp") as env:
        files = create_index(env)
        initialize_seconds(env)  # uncounted: writes the bytecode cache
        starts = [initialize_seconds(env) for _ in range(args.reps * 2)]
        inits, lists = [i for i, _ in starts], [t for _, t in starts]
        print(f"corpus: {files} files; {args.reps} reps x {len(QUERIES)} queries per era")
        init = statistics.median(inits)
        word = verdict(13, "MCP spawn -> initialize reply, s", f"{init:.3f}", "< 0.5", init < 0.5)
        print(
            f"initialize (spawn -> reply): median {init:.3f} s, "
            f"min {min(inits):.3f} s, max {max(inits):.3f} s  (target < 0.5 s) {word}; "
            f"load average {os.getloadavg()[0]:.2f}"
        )
        print(
            f"first tools/list (spawn -> reply, sent after initialize): median "
            f"{statistics.median(lists):.3f} s, min {min(lists):.3f} s  (the MCP SDK's import)"
        )
        if args.init_only:
            return
        raw = raw_round_trips(env, args.reps)
        median, worst = statistics.median(raw), max(raw)
        words = (
            verdict(
                4, "MCP gno_search round trip median, ms", f"{median:.2f}", "<= 5", median <= 5
            ),
            verdict(4, "MCP gno_search round trip max, ms", f"{worst:.2f}", "<= 25", worst <= 25),
        )
        print(
            f"gno_search round trip (raw pipe): median {median:.2f} ms, max {worst:.2f} ms  "
            f"(target median <= 5 ms, max <= 25 ms: {'/'.join(words)}; qmd 12 ms, GNO 388 ms)"
        )
        for mode in ("legacy", "auto"):
            samples = anyio.run(round_trips, env, args.reps, mode)
            all_ms = [ms for runs in samples.values() for ms in runs]
            medians = [statistics.median(runs) for runs in samples.values()]
            print(
                f"gno_search round trip (SDK client, {mode}): median {statistics.median(all_ms):.2f} ms, "
                f"median of per-query medians {statistics.median(medians):.2f} ms, "
                f"max {max(all_ms):.2f} ms"
            )


if __name__ == "__main__":
    main()
