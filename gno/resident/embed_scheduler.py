"""The daemon's embed scheduler: what syncs changed gets embedded once they settle.

A finished sync (the initial one, the watcher's, a REST or MCP one) asks for a run
``delay`` seconds later; more syncs in the meantime do not push it back, so a
busy folder still gets embedded while it keeps changing. A run is an ordinary
embed job (the same as `POST /api/embed`: one job at a time, stopped at
shutdown) and starts only when chunks wait for vectors and the embedding model
is already on disk: the scheduler never downloads a model. A run that finds
another job busy tries again after the next delay.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import Any

from gno.errors import ConflictError, GnoError, ReadersBusyError

DELAY_SECONDS = 10.0


class EmbedScheduler:
    def __init__(self, runtime: Any, delay: float = DELAY_SECONDS) -> None:
        self._runtime, self._delay = runtime, delay
        self._wake = threading.Condition()
        self._due: float | None = None  # time.monotonic() of the next run
        self.next_run_at: int | None = None  # the same moment in epoch ms (status)
        self._stopped = False
        self._last_skip = ""  # logged once, not after every sync
        self._thread = threading.Thread(target=self._loop, name="gno-embed-scheduler", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self, wait: bool = True) -> None:
        with self._wake:
            self._stopped = True
            self._wake.notify()
        if wait and self._thread.is_alive():
            self._thread.join(timeout=5)

    def schedule(self) -> None:
        """A run ``delay`` from now, unless one is already due sooner."""
        with self._wake:
            if self._stopped or self._due is not None:
                return
            self._due = time.monotonic() + self._delay
            self.next_run_at = int((time.time() + self._delay) * 1000)
            self._wake.notify()

    def _loop(self) -> None:
        while True:
            with self._wake:
                while not self._stopped and (self._due is None or self._due > time.monotonic()):
                    timeout = None if self._due is None else self._due - time.monotonic()
                    self._wake.wait(timeout)
                if self._stopped:
                    return
                self._due = self.next_run_at = None
            if self._run() == "busy":
                self.schedule()

    def _run(self) -> str:
        from gno_contracts.models.embed_input import EmbedInput

        from gno.services.jobs import start_embed
        from gno.services.status_blocks import pending_documents

        runtime = self._runtime
        try:
            with runtime.readers.reader() as app:
                if pending_documents(app) == 0:
                    return "idle"
            with runtime.write_lock:
                start_embed(runtime.owner, EmbedInput())
            return "started"
        except (ConflictError, ReadersBusyError):
            return "busy"  # another job runs, or every reader is taken
        except GnoError as exc:
            # No model on disk, or the server is closing: nothing to do until the next sync.
            if exc.message != self._last_skip:
                print(f"embed scheduler: {exc.message}", file=sys.stderr)
                self._last_skip = exc.message
            return "skipped"
