"""The resident runtime: lifecycle state, readers and jobs of one serving process."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any

from gno.app import App
from gno.resident.readers import ReaderPool

ADMISSION = ("accepting", "draining", "closed")


@dataclass
class Limits:
    readers: int = 4  # parallel SQLite readers
    max_queued_reads: int = 256  # requests waiting for a reader before 429 RATE_LIMITED
    max_waiting_syncs: int = 64  # distinct syncs waiting before 429 QUEUE_FULL
    job_drain_seconds: float = 10.0  # shutdown: how long a running job may finish


class Resident:
    """Owns the process-wide parts of `gno serve`; ``snapshot`` is resident-status@1.0."""

    def __init__(self, owner: App, limits: Limits, mode: str = "serve") -> None:
        self.owner, self.limits = owner, limits
        owner.mode, owner.runtime = mode, self
        owner.jobs.max_waiting = limits.max_waiting_syncs
        self.readers = ReaderPool(owner, limits.readers, limits.max_queued_reads)
        self.started = time.monotonic()
        self.port: int | None = None
        self.admission = "accepting"
        self.shutdown_state = "none"
        self.active_requests = 0
        self.mcp_sessions = 0
        self._lock = threading.Lock()

    def enter_request(self) -> bool:
        """Count a request in; False once the server stopped accepting."""
        with self._lock:
            if self.admission != "accepting":
                return False
            self.active_requests += 1
            return True

    def leave_request(self) -> None:
        with self._lock:
            self.active_requests -= 1

    def begin_drain(self) -> None:
        """Shutdown has begun (SIGINT/SIGTERM): refuse new requests and queued reads with
        503. Runs in the signal handler, on the event loop's thread: plain assignments
        only, no lock that thread might already hold."""
        self.admission = "draining"
        self.shutdown_state = "graceful"
        self.readers.draining = True

    def drain(self) -> None:
        """Ordered shutdown, step one: refuse new work, drop waiting jobs, let the running
        job finish (bounded), then close every connection."""
        with self._lock:
            self.admission = "draining"
            self.shutdown_state = "graceful"
        self.readers.draining = True
        finished = self.owner.jobs.close(self.limits.job_drain_seconds)
        if not finished:
            self.shutdown_state = "deadline"
        self.readers.close()
        self.owner.close()
        self.admission = "closed"

    def snapshot(self) -> dict[str, Any]:
        jobs = self.owner.jobs.all()
        return {
            "schemaVersion": "1.0",
            "mode": self.owner.mode,
            "resident": True,
            "uptimeSeconds": int(time.monotonic() - self.started),
            "listenerPort": self.port,
            "admission": {"state": self.admission, "activeRequests": self.active_requests},
            "shutdown": {"state": self.shutdown_state},
            "transport": {
                "activeRequests": self.active_requests,
                "activeSessions": self.mcp_sessions,
                "queuedRequests": self.readers.queued,
                "maxConcurrentRequests": self.limits.readers,
                "maxQueuedRequests": self.limits.max_queued_reads,
                "maxSessions": 0,
            },
            "readers": self.readers.counters(),
            "models": {
                "activeLeases": 0,
                "leaseAcquisitions": 0,
                "leaseReleases": 0,
                "loadedModels": int(self.owner._embedder is not None)
                + int(bool(self.owner._reranker)),
                "loadAttempts": 0,
                "loadSuccesses": 0,
                "loadFailures": 0,
                "inflightLoads": 0,
            },
            "jobs": {
                "active": sum(j.status in ("running", "queued") for j in jobs),
                "recent": sum(j.completed_at is not None for j in jobs),
                "failed": sum(j.status == "failed" for j in jobs),
            },
            "generations": {"content": 0, "index": 0},
        }
