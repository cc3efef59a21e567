"""A pool of reader Apps: parallel reads, one SQLite connection each.

A single connection would serialize every request behind one lock. Each pooled
App has its own connection but shares the owner's job manager, runtime and
models: a model is loaded once per process and its calls are serialized
(llama.cpp contexts are not thread-safe), while BM25 and KNN queries run in
parallel (SQLite releases the GIL).
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from gno.app import App
from gno.errors import ReadersBusyError, UnavailableError
from gno.ports import Embedder, Reranker


class _LockedEmbedder:
    def __init__(self, inner: Embedder, lock: threading.Lock) -> None:
        self._inner, self._lock = inner, lock
        self.model_id, self.dimensions = inner.model_id, inner.dimensions
        self.max_tokens = inner.max_tokens

    def embed_batch(self, texts: list[str]) -> list[list[float]]:
        with self._lock:
            return self._inner.embed_batch(texts)


class _LockedReranker:
    def __init__(self, inner: Reranker, lock: threading.Lock) -> None:
        self._inner, self._lock = inner, lock
        self.model_id = inner.model_id

    def rerank(self, query: str, documents: list[str]) -> list[float]:
        with self._lock:
            return self._inner.rerank(query, documents)


class ReaderApp(App):
    """An App with its own store connection; everything else comes from the owner."""

    def __init__(self, owner: App, model_lock: threading.Lock) -> None:
        super().__init__(owner.paths)
        self._owner, self._model_lock = owner, model_lock
        self.mode, self.runtime = owner.mode, owner.runtime
        self.__dict__["jobs"] = owner.jobs  # one job manager per process
        self._seen_stamp: str | None = None

    def embedder(self) -> Embedder:
        with self._model_lock:
            inner = self._owner.embedder()
            self.embed_uri = self._owner.embed_uri
        return _LockedEmbedder(inner, self._model_lock)

    def reranker(self) -> Reranker | None:
        with self._model_lock:
            inner = self._owner.reranker()
        return None if inner is None else _LockedReranker(inner, self._model_lock)

    def refresh_config(self) -> None:
        # Another reader may already have mirrored an index.yml edit into the index, which
        # would hide the change from this App's cached config: compare the file itself.
        try:
            st = self.paths.config_file.stat()
            stamp = f"{st.st_mtime_ns}:{st.st_size}:{st.st_ino}"
        except FileNotFoundError:
            stamp = None
        if stamp != self._seen_stamp:
            self.__dict__.pop("config", None)
            self._seen_stamp = stamp
        super().refresh_config()


class ReaderPool:
    """``size`` reader Apps; at most ``max_queued`` requests wait for one (then 429).
    Once the server drains, a request that gets a reader only now (it waited in the
    queue) is refused with 503 instead of starting work."""

    def __init__(self, owner: App, size: int, max_queued: int) -> None:
        self.size, self.max_queued = size, max_queued
        self.model_lock = threading.Lock()  # one model call at a time, process-wide
        self._owner = owner
        self._idle: queue.LifoQueue[ReaderApp] = queue.LifoQueue()
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

    def _take(self) -> ReaderApp:
        try:
            return self._idle.get_nowait()
        except queue.Empty:
            pass
        with self._lock:  # grow lazily: an idle server keeps one connection
            grow = self._created < self.size
            if grow:
                self._created += 1
        if grow:
            return ReaderApp(self._owner, self.model_lock)
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
