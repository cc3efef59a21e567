"""The resident runtime: lifecycle state, readers, jobs and background work (file
watcher, document events) of one serving process (`gno serve`, `gno daemon`).

Ordered shutdown: ``stop_background`` (no new syncs from the watcher, every event
stream ends) → the host stops serving requests → ``drain`` (waiting jobs dropped,
the running one given a deadline, readers and the store closed).
"""

from __future__ import annotations

import sys
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gno.app import App
from gno.resident.capacity import DEFAULT_MAX_CONCURRENT, DEFAULT_MAX_QUEUED, Capacity
from gno.resident.events import KEEPALIVE_SECONDS, EventBus, job_events
from gno.resident.readers import ReaderPool

ADMISSION = ("accepting", "draining", "closed")


@dataclass
class Limits:
    readers: int = 4  # parallel SQLite readers
    max_queued_reads: int = 256  # requests waiting for a reader before 429 RATE_LIMITED
    max_waiting_syncs: int = 64  # distinct syncs waiting before 429 QUEUE_FULL
    job_drain_seconds: float = 10.0  # shutdown: how long a running job may finish
    events_keepalive_seconds: float = KEEPALIVE_SECONDS  # SSE comment interval
    # index.yml gateway.limits: requests running at once, and waiting, before 429
    max_concurrent_requests: int = DEFAULT_MAX_CONCURRENT
    max_queued_requests: int = DEFAULT_MAX_QUEUED


class Resident:
    """Owns the process-wide parts of `gno serve`; ``snapshot`` is resident-status@1.0."""

    def __init__(self, owner: App, limits: Limits, mode: str = "serve") -> None:
        self.owner, self.limits = owner, limits
        owner.mode, owner.server = mode, self  # handlers read status through ServerState
        owner.jobs.max_waiting = limits.max_waiting_syncs
        self.readers = ReaderPool(owner, limits.readers, limits.max_queued_reads)
        self.started = time.monotonic()
        self.port: int | None = None
        self.max_sessions = 0  # index.yml's gateway.limits.maxSessions (0: not set)
        self.admission = "accepting"
        self.shutdown_state = "none"
        self.active_requests = 0
        # The requests that run handlers (gno/rest/security.py says which): running, waiting.
        self.capacity = Capacity(limits.max_concurrent_requests, limits.max_queued_requests)
        # The open `/mcp` sessions, counted by the MCP surface once it is built.
        self._mcp_sessions: Callable[[], int] = lambda: 0
        self._lock = threading.Lock()
        # Writes on the owner App run one at a time: REST write routes and the watcher.
        self.write_lock = threading.Lock()
        self.events = EventBus(limits.events_keepalive_seconds)
        self.watcher: Any = None  # gno.resident.watcher.Watcher while watching
        self.embedder: Any = None  # gno.resident.embed_scheduler.EmbedScheduler (daemon)
        self.watching = False  # False: never started, or `--no-watch`
        self._background = "idle"  # idle | running | stopped
        self._watcher_jobs: set[str] = set()
        owner.jobs.on_finish(self._job_finished)

    # ---- background work: the file watcher and the event stream

    def start_background(self, *, watch: bool = True, embed_delay: float | None = None) -> None:
        """Start the file watcher (unless ``watch`` is False) and, given ``embed_delay``,
        the embed scheduler. Idempotent; the host's lifespan (`gno serve`, `gno daemon`)
        calls it once it serves requests."""
        with self._lock:
            if self._background != "idle":
                return
            self._background = "running"
        if embed_delay is not None:
            from gno.resident.embed_scheduler import EmbedScheduler

            self.embedder = EmbedScheduler(self, embed_delay)
            self.embedder.start()
            self.embedder.schedule()  # chunks may already wait from an earlier run
        if watch:
            from gno.resident.watcher import Watcher

            self.watcher = Watcher(self.owner.paths, self._watch_submit)
            self.watching = True
            self.watcher.start()

    def stop_background(self, wait: bool = True) -> None:
        """Shutdown, step one: the watcher submits nothing more and every event stream
        ends (so the host's graceful shutdown is not held up by open SSE clients).
        ``wait=False`` only signals (safe from a signal handler); ``drain`` waits."""
        self._background = "stopped"  # one assignment: no lock, callable from anywhere
        self.events.close()
        if self.embedder is not None:
            self.embedder.stop(wait=wait)
        if self.watcher is not None:
            self.watcher.stop(wait=wait)

    def collections_changed(self) -> None:
        """A collection was added, removed or edited: the watcher re-reads roots now."""
        if self.watcher is not None:
            self.watcher.poke()

    def _watch_submit(self, collection: str, paths: list[str] | None) -> bool:
        """The watcher's way in: a sync of these files (or the whole collection) through
        the same queue as `POST /api/sync`. False when it could not be queued."""
        from gno_contracts.models.update_input import UpdateInput

        from gno.errors import GnoError, InvalidPathError, NotFoundError
        from gno.services.jobs import submit_sync

        if self._background != "running":
            return True  # shutting down: nothing more to sync
        owner = self.owner
        try:
            with self.write_lock:
                owner.reload_config()
                try:
                    job = submit_sync(
                        owner, UpdateInput(collection=collection, paths=paths), "watcher"
                    )
                except InvalidPathError:  # a path changed kind meanwhile: look at all of it
                    job = submit_sync(owner, UpdateInput(collection=collection), "watcher")
        except NotFoundError:
            return True  # the collection was removed meanwhile
        except GnoError:  # queue full, or closing: the watcher retries with a full pass
            return False
        with self._lock:
            self._watcher_jobs.add(job.id)
        return True

    def _capsule_events(self, job: Any, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Watched Capsules citing a document this job changed, re-verified (own reader)."""
        from gno.services.context_watch import capsule_reverified_events

        changed = {e["uri"] for e in events if e.get("type") == "document-changed"}
        if not changed:
            return []
        app = self.owner.derive()
        try:
            return capsule_reverified_events(app, changed, job.id)
        finally:
            app.close()

    def _job_finished(self, job: Any) -> None:
        """On the job's thread: publish what it changed, note watcher syncs, and let the
        watcher re-read roots (an add or remove job changed the collections)."""
        from gno.rows import now_iso

        at = now_iso()
        with self._lock:
            by_watcher = job.id in self._watcher_jobs
            self._watcher_jobs.discard(job.id)
        if self.watcher is not None and by_watcher:
            # Before the events: a client that got one reads a status that shows this sync.
            self.watcher.last_sync_at = at
        try:
            events = job_events(job, self.owner.paths.index_name, at)
            self.events.publish(events)
            self.events.publish(self._capsule_events(job, events))
        except Exception:
            traceback.print_exc(file=sys.stderr)
        if self.embedder is not None and job.type in ("sync", "add") and job.status == "completed":
            self.embedder.schedule()
        if self.watcher is not None:
            self.watcher.poke()

    def background_status(self) -> dict[str, Any]:
        """status@1.0 ``background.watcher`` and ``background.events`` (embedding is
        built by the status service from jobs and the index)."""
        jobs = self.owner.jobs
        running = [j for j in jobs.all() if j.status == "running" and j.type in ("sync", "add")]
        expected: list[str] = []
        if self.watcher is not None:
            watcher = self.watcher.state()
            expected = watcher["expectedCollections"]
        else:
            watcher = {
                "expectedCollections": [],
                "activeCollections": [],
                "failedCollections": [],
                "lastEventAt": None,
                "lastSyncAt": None,
            }

        def names(keys: list[str | None]) -> list[str]:
            out: list[str] = []
            for key in keys:
                for name in expected if key == "*" else [key] if key else []:
                    if name not in out:
                        out.append(name)
            return out

        syncing = names([j.key if j.type == "sync" else None for j in running])
        queued = names(list(jobs.waiting_keys()))
        return {
            "watcher": {
                "expectedCollections": watcher["expectedCollections"],
                "activeCollections": watcher["activeCollections"],
                "failedCollections": watcher["failedCollections"],
                "queuedCollections": queued,
                "syncingCollections": syncing,
                "lastEventAt": watcher["lastEventAt"],
                "lastSyncAt": watcher["lastSyncAt"],
            },
            "events": {
                "connectedClients": self.events.connected_clients,
                "retryMs": self.events.retry_ms,
            },
            "nextEmbedAt": self.embedder.next_run_at if self.embedder is not None else None,
        }

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
        self.stop_background()
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

    def count_mcp_sessions_with(self, count: Callable[[], int]) -> None:
        self._mcp_sessions = count

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
                "activeSessions": self._mcp_sessions(),
                "queuedRequests": self.capacity.queued,
                "maxConcurrentRequests": self.capacity.max_active,
                "maxQueuedRequests": self.capacity.max_queued,
                "maxSessions": self.max_sessions,
            },
            "readers": self.readers.counters(),
            "models": {
                "activeLeases": 0,
                "leaseAcquisitions": 0,
                "leaseReleases": 0,
                "loadedModels": self.owner.models.loaded(),
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
