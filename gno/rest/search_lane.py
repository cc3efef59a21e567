"""REST's BM25 searches run a few at a time, first come first served.

A search is mostly Python (snippets, result items) around short SQLite calls, so
searches on worker threads mostly take turns at the GIL: past one per core, more
threads in flight only add switching (measured on 2 cores, 50 clients: ~1.5 ms more
CPU per search and twice the p99 with 4 at once than with 2). Searches beyond
``width`` wait here, on the event loop and in arrival order, instead of as threads
in the reader pool; they count as the pool's queued requests, and past its
``max_queued`` a new one is refused with 429 RATE_LIMITED as the pool would.
Other reads (query, vsearch: model calls, longer) keep the pool as before.

With search processes (``search_processes``: `gno serve` starts one per core), a
search that gets its turn goes to one of them and the lane is as wide as the searches
they take at once (``DEPTH`` each). They are started by the first search; until they
are up, or when one cannot answer, a search runs on a thread here.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TypeVar

import anyio
import anyio.to_thread
from pydantic import BaseModel

from gno.errors import ReadersBusyError, UnavailableError
from gno.resident.readers import ReaderPool
from gno.rest.search_processes import DEPTH as processes_depth
from gno.rest.search_processes import Dumped, SearchProcesses

T = TypeVar("T")


class SearchLane:
    def __init__(
        self,
        pool: ReaderPool,
        width: int | None = None,
        processes: SearchProcesses | None = None,
    ) -> None:
        self.pool = pool
        self.processes = processes
        default = (
            processes.count * processes_depth if processes else min(pool.size, os.cpu_count() or 1)
        )
        self.width = width or max(1, default)
        self.waiting = 0
        self._limiter: anyio.CapacityLimiter | None = None  # made on the event loop

    async def run(
        self, work: Callable[[], T], remote: tuple[str, str | None, BaseModel] | None = None
    ) -> T | Dumped:
        """``work`` once the lane has room: in a search process when ``remote`` (operation
        id, view, input) says what to send it and one is idle, else on a worker thread."""
        if self._limiter is None:
            self._limiter = anyio.CapacityLimiter(self.width)
        limiter = self._limiter
        # The pool's queue counts both lane waiters and searches waiting there for a reader.
        if limiter.available_tokens == 0 and self.pool.queued >= self.pool.max_queued:
            raise ReadersBusyError("The server is busy; retry shortly.")
        self.waiting += 1
        self.pool.note_waiting(1)
        try:
            await limiter.acquire()
        finally:
            self.waiting -= 1
            self.pool.note_waiting(-1)
        try:
            if self.processes is not None and remote is not None:
                self.processes.start()  # on the first search: a server never searched starts none
                if self.pool.draining:  # as the pool refuses a read that waited until now
                    raise UnavailableError("The server is shutting down; retry when it is back.")
                answer = await self.processes.call(*remote)
                if answer is not None:
                    return answer
            return await anyio.to_thread.run_sync(work)
        finally:
            limiter.release()
