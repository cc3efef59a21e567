"""A conversion's deadline (engine.md §2.2: 60 s), so one pathological file cannot hold a
sync forever. The parsers and the analysis are pure Python, so they can be stopped
between two bytecodes: on the main thread (the CLI, worker processes) by a timer signal;
on any other thread (a server's sync job converts Markdown, text and record documents
inline on its own thread) by ``Expired`` raised into that thread by one watchdog thread
(``PyThreadState_SetAsyncExc``, CPython's way of interrupting another thread), as signals
reach the main thread only. Neither stops a single long call into C; the converters'
byte screens and caps bound those. ``JobRunner`` still sends a window holding an Office
or PDF file to worker processes off the main thread: their parsers also load C parts.

``Expired`` comes again every ``GRACE_SECONDS`` after the deadline until the block ends:
a library that swallows it, or whose cleanup redoes the slow work (pdfplumber's
``close()`` walked a PDF's reference loop again), cannot hold the sync either. It is
never raised once the block has ended, nor into this module's own cleanup."""

from __future__ import annotations

import ctypes
import heapq
import itertools
import os
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from types import FrameType, TracebackType

CONVERT_SECONDS = 60.0
MAX_CONVERT_SECONDS = 86_400.0  # a day: "no deadline" in practice, and a timer can hold it
GRACE_SECONDS = 1.0  # past the deadline, Expired again this often until the block ends


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


def deadline(seconds: float) -> AbstractContextManager[None]:
    """Raise ``Expired`` into the block once ``seconds`` have passed, and again every
    ``GRACE_SECONDS`` until it ends, on any thread."""
    return _Alarm(seconds) if interruptible() else _WATCHDOG.watch(seconds)


class _Alarm:
    """The main thread's deadline: a repeating ``SIGALRM`` timer whose handler raises only
    while the block runs. A signal is handled between two bytecodes of whatever frame is
    running, the first of ``__exit__`` included (before any ``try`` there could catch it),
    so the handler knows this object's ``__enter__`` and ``__exit__`` frames and does not
    raise in them: the timer is always disarmed and the previous handler and timer (nested
    deadlines, someone else's timer) restored. A firing there is remembered and raised once
    the cleanup is done, as the block did not end within its deadline."""

    def __init__(self, seconds: float) -> None:
        self._seconds = seconds
        self._inside = False
        self._late = False

    def _expired(self, signum: int, frame: FrameType | None) -> None:
        own = frame is not None and frame.f_code in _OWN_CODE and frame.f_locals.get("self") is self
        if self._inside and not own:
            raise Expired
        self._late = True

    def __enter__(self) -> None:
        self._previous = signal.signal(signal.SIGALRM, self._expired)
        self._started = time.monotonic()
        self._pending = signal.setitimer(signal.ITIMER_REAL, self._seconds, GRACE_SECONDS)
        # A firing before this line (a deadline shorter than the lines above) is raised by
        # the next one, GRACE_SECONDS later.
        self._inside = True

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._inside = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, self._previous)
        pending, interval = self._pending
        if pending:  # someone else's timer was running: it goes on where it was
            left = pending - (time.monotonic() - self._started)
            signal.setitimer(signal.ITIMER_REAL, max(left, 0.001), interval)
        if self._late and kind is None:
            raise Expired


_OWN_CODE = (_Alarm.__enter__.__code__, _Alarm.__exit__.__code__)


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
    """One daemon thread that raises ``Expired`` into each watched thread whose time is up,
    and again every ``GRACE_SECONDS`` while it stays in its block. ``Expired`` is never
    raised into a thread that has left its block: the block's end first marks its watch
    retired (no firing starts after that; no bytecode before it where CPython raises a
    pending exception), then takes the lock, waiting out a firing in progress, and
    withdraws one still pending. It takes the bare lock in a ``with`` statement: CPython
    raises a pending exception only at a call, a function's start or a loop, never between
    acquiring a lock there and entering the block that releases it
    (``threading.Condition.__enter__`` is a Python call, and an ``Expired`` fired while
    the thread waited for it could leave it locked for good). An ``Expired`` arriving at
    the start of ``contextlib``'s ``__exit__``, before the generator resumes, escapes its
    ``finally``; the watch then retires when the context manager is released."""

    def __init__(self) -> None:
        self._due: list[_Watch] = []
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._thread: threading.Thread | None = None
        self._order = itertools.count()

    @contextmanager
    def watch(self, seconds: float) -> Iterator[None]:
        entry = _Watch(time.monotonic() + seconds, next(self._order), threading.get_ident())
        try:  # an outer deadline's Expired may come at any call from here on
            with self._lock:
                self._drop_retired()  # they retire about in order: the heap stays small
                heapq.heappush(self._due, entry)
                if self._thread is None:
                    self._thread = threading.Thread(
                        target=self._run, name="gno-deadline", daemon=True
                    )
                    self._thread.start()
                if self._due[0] is entry:  # else the watchdog already wakes up before it is due
                    self._wake.notify()
            yield
        finally:
            entry.active = False
            # An Expired arriving from here on was fired before the line above: it goes up
            # (the block did not end within its deadline) and no other follows.
            with self._lock:
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
                if not entry.active:  # its block ended since the line above
                    continue
                entry.fired = True
                _raise_in(entry.thread, Expired)
                entry.due = time.monotonic() + GRACE_SECONDS
                heapq.heappush(self._due, entry)


_WATCHDOG = _Watchdog()
