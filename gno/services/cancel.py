"""Cooperative cancellation: long work stops at its next checkpoint once nobody wants it.

A surface binds a ``CancelToken`` to the thread that runs the work (``bound``);
services call ``checkpoint()`` between stages (BM25, expansion, vector queries,
graph, rerank; every file of a sync). Without a bound token a checkpoint costs a
context-variable read and does nothing, so the CLI and MCP pay nothing. A stage
already running (one model call) finishes first: only the next one is skipped.

Who cancels: `gno serve` when the HTTP client of a query went away (no late
answer is sent), and the job manager when the server shuts down (a sync stops
after its last committed batch; a model download drops its partial file).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from gno.errors import Cancelled


class CancelToken:
    def __init__(self) -> None:
        self._event = threading.Event()
        self.reason = "cancelled"

    def cancel(self, reason: str = "cancelled") -> None:
        self.reason = reason
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()


_current: ContextVar[CancelToken | None] = ContextVar("gno_cancel_token", default=None)


@contextmanager
def bound(token: CancelToken) -> Iterator[CancelToken]:
    """Checkpoints in this thread (and contexts copied from it) obey ``token``."""
    reset = _current.set(token)
    try:
        yield token
    finally:
        _current.reset(reset)


def checkpoint() -> None:
    """Raise ``Cancelled`` when the bound token was cancelled."""
    token = _current.get()
    if token is not None and token.cancelled:
        raise Cancelled(f"Stopped: {token.reason}")


LOCK_POLL_SECONDS = 0.05


@contextmanager
def holding(lock: threading.Lock) -> Iterator[None]:
    """``with lock:`` that gives up when the bound token is cancelled: work waiting for a
    shared model (held by another request) stops waiting once nobody wants its answer,
    and never starts the call it waited for."""
    token = _current.get()
    if token is None:
        with lock:
            yield
        return
    while not lock.acquire(timeout=LOCK_POLL_SECONDS):
        checkpoint()
    try:
        checkpoint()
        yield
    finally:
        lock.release()
