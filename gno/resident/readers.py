"""A pool of reader Apps: parallel reads, one SQLite connection each.

A single connection would serialize every request behind one lock. Each pooled
App (``App.derive``) has its own connection but shares the owner's job manager,
server state and models (``gno/app_models.py``): a model is loaded once per
process and its calls are serialized (llama.cpp contexts are not thread-safe),
while BM25 and KNN queries run in parallel (SQLite releases the GIL).
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from gno.app import App
from gno.errors import ReadersBusyError, UnavailableError


class ReaderPool:
    """``size`` reader Apps; at most ``max_queued`` requests wait for one (then 429).
    Once the server drains, a request that gets a reader only now (it waited in the
    queue) is refused with 503 instead of starting work."""

    def __init__(self, owner: App, size: int, max_queued: int) -> None:
        self.size, self.max_queued = size, max_queued
        self._owner = owner
        self._idle: queue.LifoQueue[App] = queue.LifoQueue()
        self._created = 0
        self._lock = threading.Lock()
        self.active = self.queued = 0
        self.draining = False  # set by the runtime (from a signal handler: no lock)

    @contextmanager
    def reader(self) -> Iterator[App]:
        with self._lock:
            if self.active >= self.size and self.queued >= self.max_queued:
                raise ReadersBusyError("The server is busy; retry shortly.")
            self.queued += 1
        try:
            app = self._take()
        finally:
            with self._lock:
                self.queued -= 1
        if self.draining:
            self._idle.put(app)
            raise UnavailableError("The server is shutting down; retry when it is back.")
        with self._lock:
            self.active += 1
        try:
            app.refresh_config()
            yield app
        finally:
            with self._lock:
                self.active -= 1
            self._idle.put(app)

    def note_waiting(self, delta: int) -> None:
        """Requests that wait for a reader outside the pool (REST's search lane) count
        as queued here too."""
        with self._lock:
            self.queued += delta

    def _take(self) -> App:
        try:
            return self._idle.get_nowait()
        except queue.Empty:
            pass
        with self._lock:  # grow lazily: an idle server keeps one connection
            grow = self._created < self.size
            if grow:
                self._created += 1
        if grow:
            return self._owner.derive()
        return self._idle.get()

    def close(self) -> None:
        while True:
            try:
                self._idle.get_nowait().close()
            except queue.Empty:
                return

    def counters(self) -> dict[str, Any]:
        return {
            "active": self.active,
            "queued": self.queued,
            "limit": self.size,
            "maxQueued": self.max_queued,
        }
