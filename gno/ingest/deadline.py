"""A converter's deadline (engine.md §2.2: 60 s), so one pathological file cannot hold a
sync forever. The parsers are pure Python, so a timer signal can stop them between two
bytecodes; signals reach the main thread only, which is where every conversion can be
made to run: the CLI converts inline on its main thread, and worker processes convert on
theirs. ``JobRunner`` sends a window holding an Office or PDF file to its workers when it
runs off the main thread (a server's sync job), so those get the deadline too; plain text
and Markdown convert in linear time and stay inline."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
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
    """Whether a conversion started here can be stopped by the deadline."""
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


@contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Raise ``Expired`` into the block once ``seconds`` have passed (where
    ``interruptible``; elsewhere the block runs unbounded)."""
    if not interruptible():
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
