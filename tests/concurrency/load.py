"""Mixed concurrent requests against a real `gno serve` (search, query, get, status,
sync) while files change and, optionally, the collection is renamed by another
process. Every answer is checked: no 5xx, no transport error, no duplicate result,
no result outside the configured collections."""

from __future__ import annotations

import random
import threading
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from tests.crash import harness as h

ACCEPTED = {200, 202, 404, 409, 429}  # 404: a document renamed or removed meanwhile


@dataclass
class LoadLog:
    tried: int = 0
    statuses: Counter[int] = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def record(self, status: int, failure: str | None = None) -> None:
        with self._lock:
            self.tried += 1
            self.statuses[status] += 1
            if failure:
                self.failures.append(failure)


def _check_hits(body: dict, collections: set[str]) -> str | None:
    uris = [r["uri"] for r in body.get("results", [])]
    if len(uris) != len(set(uris)):
        return f"duplicate results: {sorted(k for k, n in Counter(uris).items() if n > 1)}"
    outside = {u.split("/")[2] for u in uris} - collections
    return f"results of unconfigured collections {outside}" if outside else None


def run_load(
    url: str,
    root: Path,
    requests: int,
    collections: set[str],
    rng: random.Random,
    *,
    midway: Callable[[], None] | None = None,
    concurrency: int = 24,
) -> LoadLog:
    """``requests`` mixed requests from ``concurrency`` threads; ``midway`` runs once
    half of them were sent (a collection change); files under ``root`` change meanwhile."""
    log = LoadLog()
    uris = h.active_uris()
    terms = [f"term{i}" for i in range(200)] + ["body", "text body", "note"]
    seeds = [rng.randrange(2**32) for _ in range(requests)]
    half = threading.Event()

    def one(index: int) -> None:
        pick = random.Random(seeds[index])
        if index == requests // 2:
            half.set()
        kind = pick.choice(["search", "search", "query", "get", "status", "sync", "write"])
        try:
            with httpx.Client(base_url=url, timeout=h.DEADLINE) as http:
                if kind == "search":
                    answer = http.post(
                        "/api/search", json={"query": pick.choice(terms), "limit": 20}
                    )
                elif kind == "query":
                    answer = http.post(
                        "/api/query",
                        json={"query": pick.choice(terms), "noExpand": True, "noRerank": True},
                    )
                elif kind == "get":
                    answer = http.get("/api/doc", params={"uri": pick.choice(uris)})
                elif kind == "status":
                    answer = http.get("/api/status")
                elif kind == "sync":
                    answer = http.post("/api/sync", json={})
                else:  # a file saved in the collection folder: the watcher syncs it
                    name = f"live{pick.randrange(40):02d}.md"
                    (root / name).write_text(f"# Live\n\nlive body {pick.random()}\n")
                    log.record(200)
                    return
        except httpx.HTTPError as exc:
            log.record(0, f"{kind}: {type(exc).__name__} {exc}")
            return
        failure = None
        if answer.status_code not in ACCEPTED:
            failure = f"{kind}: HTTP {answer.status_code} {answer.text[:200]}"
        elif kind in ("search", "query") and answer.status_code == 200:
            failure = _check_hits(answer.json(), collections)
        log.record(answer.status_code, failure)

    with ThreadPoolExecutor(concurrency) as pool:
        futures = [pool.submit(one, i) for i in range(requests)]
        if midway is not None:
            half.wait(h.DEADLINE)
            midway()
        for future in futures:
            future.result()
    return log
