"""A named pipe swapped in where a note was: the watch that keeps a regression from
hanging the test run (tests/writes/test_write_reads.py, tests/services/test_refactor.py)."""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def unblocked(fifo: Path, after: float = 10.0) -> Iterator[list[bool]]:
    """Opens ``fifo`` for writing if the code under test still waits after ``after``
    seconds, so a regression fails the test instead of hanging it; yields whether it had to."""
    stop, had_to = threading.Event(), []

    def watch() -> None:
        if not stop.wait(after):
            had_to.append(True)
            with contextlib.suppress(OSError):  # ENXIO: nobody reads; not a pipe at all
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        yield had_to
    finally:
        stop.set()
        watcher.join()
