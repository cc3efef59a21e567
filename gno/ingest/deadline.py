"""A conversion's deadline (engine.md §2.2: 60 s), so one pathological file cannot hold a
sync forever. The parsers and the analysis are pure Python, so they can be stopped
between two bytecodes: on the main thread (the CLI, worker processes) by a timer signal;
on any other thread (a server's sync job converts Markdown, text and record documents
inline on its own thread) by ``Expired`` raised into that thread by one watchdog thread
(``PyThreadState_SetAsyncExc``, CPython's way of interrupting another thread), as signals
reach the main thread only. Neither stops a single long call into C; the converters'
byte screens and caps bound those. ``JobRunner`` still sends a window holding an Office
or PDF file to worker processes off the main thread: their parsers also load C parts."""

from __future__ import annotations

import ctypes
import heapq
import itertools
import os
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import FrameType

CONVERT_SECONDS = 60.0
MAX_CONVERT_SECONDS = 86_400.0  # a day: "no deadline" in practice, and a timer can hold it


class Expired(BaseException):
    """Raised into the conversion when its time is up. A BaseException, so a parser's own
    ``except Exception`` cannot swallow it and carry on."""


def convert_seconds() -> float:
    """The deadline in seconds: ``GNO_CONVERT_TIMEOUT_MS`` (for tests and slow machines)
    when it is a positive whole number of milliseconds, at most a day; anything else
    (unset, empty, 0, negative, ``1.5``, ``60s``) is the default 60 s. A zero once meant
    1 ms, which timed out every PDF, and a huge value made ``setitimer`` overflow."""
    digits = os.environ.get("GNO_CONVERT_TIMEOUT_MS", "").strip().lstrip("0")
    if not (digits.isascii() and digits.isdigit()):  # no sign, point, exponent, nor "²"
        return CONVERT_SECONDS
    if len(digits) > 9:  # over 11 days (and int() refuses thousands of digits)
        return MAX_CONVERT_SECONDS
    return min(int(digits) / 1000, MAX_CONVERT_SECONDS)


def interruptible() -> bool:
    """Whether a conversion started here is stopped by a timer signal (the main thread);
    elsewhere the watchdog stops it."""
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


@contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Raise ``Expired`` into the block once ``seconds`` have passed, on any thread."""
    if not interruptible():
        with _WATCHDOG.watch(seconds):
            yield
        return

    def expired(signum: int, frame: FrameType | None) -> None:
        raise Expired

    previous = signal.signal(signal.SIGALRM, expired)
    pending, _ = signal.setitimer(signal.ITIMER_REAL, seconds)
    started = time.monotonic()
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if pending:  # someone else's timer was running: it goes on where it was
            left = pending - (time.monotonic() - started)
            signal.setitimer(signal.ITIMER_REAL, max(left, 0.001))


# ---------------------------------------------------------------- other threads


@dataclass(order=True)
class _Watch:
    due: float
    order: int
    thread: int = field(compare=False)
    active: bool = field(default=True, compare=False)
    fired: bool = field(default=False, compare=False)


def _raise_in(thread: int, exc: type[BaseException] | None) -> None:
    """``exc`` raised in ``thread`` at its next bytecode (None, passed as NULL: a pending one
    withdrawn)."""
    pending = ctypes.py_object(exc) if exc is not None else None
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread), pending)


class _Watchdog:
    """One daemon thread that raises ``Expired`` into each watched thread whose time is up.
    Firing and retiring take the same lock, so ``Expired`` is never raised into a thread
    that has left its block: one still pending when the block ends is withdrawn."""

    def __init__(self) -> None:
        self._due: list[_Watch] = []
        self._wake = threading.Condition()
        self._thread: threading.Thread | None = None
        self._order = itertools.count()

    @contextmanager
    def watch(self, seconds: float) -> Iterator[None]:
        entry = _Watch(time.monotonic() + seconds, next(self._order), threading.get_ident())
        with self._wake:
            self._drop_retired()  # they retire about in order: the heap stays small
            heapq.heappush(self._due, entry)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="gno-deadline", daemon=True)
                self._thread.start()
            if self._due[0] is entry:  # else the watchdog already wakes up before it is due
                self._wake.notify()
        try:
            yield
        finally:
            try:
                self._retire(entry)
            except Expired:  # it arrived while the block was ending: still past the deadline
                self._retire(entry)
                raise

    def _retire(self, entry: _Watch) -> None:
        with self._wake:
            entry.active = False
            if entry.fired:
                _raise_in(entry.thread, None)

    def _drop_retired(self) -> None:
        while self._due and not self._due[0].active:
            heapq.heappop(self._due)

    def _run(self) -> None:
        with self._wake:
            while True:
                self._drop_retired()
                if not self._due:
                    self._wake.wait()
                    continue
                left = self._due[0].due - time.monotonic()
                if left > 0:
                    self._wake.wait(left)
                    continue
                entry = heapq.heappop(self._due)
                entry.fired = True
                _raise_in(entry.thread, Expired)


_WATCHDOG = _Watchdog()
