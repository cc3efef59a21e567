"""Where one REST `/api/search` request spends its time, in process (no socket, no load).

    .venv/bin/python bench/rest_profile.py [--requests 2000] [--home DIR] [--profile]

Index the corpus (as bench/run.py; `--home DIR` keeps the gno home in DIR and indexes it
only once), build the `gno serve` application (``create_app``, without /mcp) and call it as
raw ASGI — the gate middleware, FastAPI routing, JSON Schema validation, input models, the
worker-thread hop, the handler, the dump — `--requests` times over the 20 queries (limit 10),
one request at a time, each body distinct (a different `intent`, which BM25 search only
echoes) so the result cache never answers; then the same with the 20 bodies repeated (cache
hits) and `GET /api/health`. Then time each stage alone on the same index and print median
and min (the min is steadier when other processes share the cores; over 20 different
queries it is the cheapest one's). What the full request costs beyond the stages is the
framework (request and response objects, routing, middleware) and running the handler on a
worker thread rather than inline as the stages do. The uvicorn protocol layer and contention
under concurrency are not in here: bench/rest.py measures them (server CPU per request).
`--profile` adds cProfile's top functions of the full-request loop (event-loop thread only).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import os
import pstats
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import QUERIES, create_index, workspace

SEARCH_INPUT = "gno://schemas/api-search-input@1.0"


def timing(times: list[float]) -> tuple[float, float]:
    """(median, min) in ms: the median is what a request costs here and now; the min is
    steadier when other processes share the cores."""
    return statistics.median(times) * 1000, min(times) * 1000


def median_ms(fn: Callable[[int], Any], n: int) -> tuple[float, float]:
    for i in range(40):  # warm-up: statement cache, page cache
        fn(i)
    times = []
    for i in range(n):
        began = time.perf_counter()
        fn(i)
        times.append(time.perf_counter() - began)
    return timing(times)


def asgi_caller(
    api: Any, method: str = "POST", path: str = "/api/search"
) -> Callable[[bytes], Any]:
    """One request through the whole application, as uvicorn would call it."""

    async def call(body: bytes) -> None:
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": method,
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "query_string": b"",
            "root_path": "",
            "headers": [
                (b"host", b"127.0.0.1:3000"),
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ],
            "client": ("127.0.0.1", 50000),
            "server": ("127.0.0.1", 3000),
        }
        messages = [{"type": "http.request", "body": body, "more_body": False}]
        status: list[int] = []

        async def receive() -> dict[str, Any]:
            if messages:
                return messages.pop()
            await asyncio.Event().wait()  # the client never disconnects
            raise AssertionError

        async def send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                status.append(message["status"])

        await api(scope, receive, send)
        assert status == [200], status

    return call


def request_body(kind: str, i: int) -> bytes:
    """``unique``: every body differs (``intent`` is only echoed by BM25 search), so the
    result cache never answers; ``repeated``: the 20 queries again and again."""
    body: dict[str, Any] = {"query": QUERIES[i % len(QUERIES)], "limit": 10}
    if kind == "unique":
        body["intent"] = f"bench {i}"
    return json.dumps(body).encode()


def full_requests(api: Any, n: int, kind: str, profile: bool = False) -> tuple[float, float]:
    health = kind == "health"
    call = asgi_caller(api, "GET", "/api/health") if health else asgi_caller(api)
    bodies = [b"" if health else request_body(kind, i) for i in range(n + 2 * len(QUERIES))]

    async def loop() -> tuple[float, float]:
        for body in bodies[n:]:  # warm-up (bodies no timed request repeats)
            await call(body)
        profiler = cProfile.Profile() if profile else None
        times = []
        if profiler:
            profiler.enable()
        for body in bodies[:n]:
            began = time.perf_counter()
            await call(body)
            times.append(time.perf_counter() - began)
        if profiler:
            profiler.disable()
            pstats.Stats(profiler).sort_stats("tottime").print_stats(25)
        return timing(times)

    return asyncio.run(loop())


def thread_hop_ms(n: int) -> tuple[float, float]:
    import anyio.to_thread

    async def loop() -> tuple[float, float]:
        times = []
        for _ in range(n):
            began = time.perf_counter()
            await anyio.to_thread.run_sync(lambda: None)
            times.append(time.perf_counter() - began)
        return timing(times)

    return asyncio.run(loop())


def stages(n: int) -> list[tuple[str, tuple[float, float]]]:
    from gno_contracts.models.api_search_input import ApiSearchInput
    from gno_contracts.models.search_input import SearchInput

    from gno.app import App
    from gno.core.fts import parse_query
    from gno.paths import resolve_paths
    from gno.resident.readers import ReaderPool
    from gno.rest import bodies
    from gno.services import input_check
    from gno.services.filters import build_filters
    from gno.services.results import ResultBuilder
    from gno.services.search import candidates, search

    owner = App(resolve_paths())
    pool = ReaderPool(owner, 1, 0)
    args = [{"query": q, "limit": 10} for q in QUERIES]
    raw = [json.dumps(a).encode() for a in args]
    k = len(QUERIES)

    def to_input(a: dict[str, Any]) -> SearchInput:
        return SearchInput.model_validate(bodies.search(ApiSearchInput.model_validate(a), True))

    inputs = [to_input(a) for a in args]
    with pool.reader() as app:
        store = app.store()
        queries = [parse_query(q) for q in QUERIES]
        filters = [build_filters(store, inp) for inp in inputs]
        hits = [
            candidates(store, q.match_all(), f, 10)[0]
            for q, f in zip(queries, filters, strict=True)
        ]
        builder = ResultBuilder(store, app.paths.index_name, True)
        scored = [[(doc, 1.0) for doc, _ in h] for h in hits]
        outputs = [search(app, inp) for inp in inputs]
        items = [builder.search_results(s, q.terms) for s, q in zip(scored, queries, strict=True)]
        output_model = type(outputs[0])
        meta = {"query": "q", "mode": "bm25", "totalResults": 10}
        found = [
            ("handler search(): all of it", lambda i: search(app, inputs[i % k])),
            (
                "  FTS5 MATCH … ORDER BY bm25 LIMIT",
                lambda i: store.fts_candidates(queries[i % k].match_all(), 10),
            ),
            ("  documents by id", lambda i: store.documents_by_ids([d.id for d, _ in hits[i % k]])),
            (
                "  result items (mirrors, snippets, uris)",
                lambda i: builder.search_results(scored[i % k], queries[i % k].terms),
            ),
            (
                "  SearchResults model",
                lambda i: output_model.model_validate({"results": items[i % k], "meta": meta}),
            ),
        ]
        found = [(name, median_ms(fn, n)) for name, fn in found]
    found += [
        ("json.loads of the body", median_ms(lambda i: json.loads(raw[i % k]), n)),
        (
            "JSON Schema validation",
            median_ms(lambda i: input_check.schema_problem(SEARCH_INPUT, args[i % k]), n),
        ),
        ("input models (REST body → SearchInput)", median_ms(lambda i: to_input(args[i % k]), n)),
        (
            "output dump (model_dump_json)",
            median_ms(lambda i: outputs[i % k].model_dump_json(exclude_unset=True), n),
        ),
        ("reader borrow (pool + index.yml stat)", _borrow_ms(pool, n)),
        ("worker-thread hop (anyio.to_thread)", thread_hop_ms(n)),
    ]
    pool.close()
    owner.close()
    return found


def _borrow_ms(pool: Any, n: int) -> tuple[float, float]:
    def borrow(_: int) -> None:
        with pool.reader():
            pass

    return median_ms(borrow, n)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--home", type=Path, help="keep the gno home here (indexed once)")
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    if args.home:
        home = args.home.resolve()
        env = {
            **os.environ,
            "GNO_CONFIG_DIR": str(home / "config"),
            "GNO_DATA_DIR": str(home / "data"),
            "GNO_CACHE_DIR": str(home / "cache"),
        }
        if not (home / "data").exists():
            create_index(env)
        report(env, args)
        return
    with workspace("rest-profile") as env:
        create_index(env)
        report(env, args)


def report(env: dict[str, str], args: argparse.Namespace) -> None:
    os.environ.update({k: v for k, v in env.items() if k.startswith("GNO_")})
    from gno.app import App
    from gno.paths import resolve_paths
    from gno.rest.app import ServeOptions, create_app

    api = create_app(App(resolve_paths()), options=ServeOptions(mcp=None, drain_on_shutdown=False))
    try:
        full = full_requests(api, args.requests, "unique", args.profile)
        hits = full_requests(api, args.requests, "repeated")
        health = full_requests(api, args.requests, "health")
    finally:
        api.state.runtime.drain()
    parts = stages(args.requests)
    print(f"POST /api/search in process, {args.requests} requests; ms per request: median (min)")
    rows = [
        ("full request through the ASGI app", full),
        ("the same, answered by the result cache", hits),
        ("GET /api/health the same way (fixed cost)", health),
        *parts,
    ]
    outside = [t for name, t in parts if not name.startswith("  ")]
    rest = tuple(full[i] - sum(t[i] for t in outside) for i in (0, 1))
    rows.append(("rest: framework, handler on a worker thread", rest))
    for name, (median, least) in rows:
        print(f"{name:48s} {median:7.3f} ({least:.3f})")


if __name__ == "__main__":
    main()
