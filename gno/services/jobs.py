"""Background jobs: long write operations started by a server surface (MCP, REST).

A job tool checks what it can at once (the collection exists, the model is on
disk, the new collection is valid) and answers with a receipt; the work then
runs on a thread with its own ``App``, so its SQLite connection is never shared
with the connection that serves reads. One job runs at a time per process (a
second start is ``JOB_CONFLICT``); finished jobs are kept for an hour, at most
100. Ids mean nothing to another process or after a restart. Model downloads
(``pull``) run in a lane of their own: they touch no index, so a download never
waits behind a sync or blocks one, but two downloads never run at once.

Each job's thread has a ``CancelToken`` bound (``services/cancel.py``): at shutdown
the running jobs are asked to stop at their next checkpoint (a sync after its
last committed batch, a download dropping its partial file) and then given the
drain deadline.

Only REST syncs wait in line (``submit``): a sync for a collection that already
has one waiting joins it, so any number of requests cause at most one more pass
per collection; at ``max_waiting`` different waiting syncs a new one is
``QUEUE_FULL``. Waiting jobs live in memory: a server that stops drops them.
"""

from __future__ import annotations

import sys
import threading
import time
import traceback
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from gno_contracts.models.collection_add_input import CollectionAddInput
from gno_contracts.models.embed_input import EmbedInput
from gno_contracts.models.index_input import IndexInput
from gno_contracts.models.job_active import JobActive
from gno_contracts.models.job_active_input import JobActiveInput
from gno_contracts.models.job_list_input import JobListInput
from gno_contracts.models.job_status_input import JobStatusInput
from gno_contracts.models.mcp_job_list import McpJobList
from gno_contracts.models.mcp_job_status import McpJobStatus
from gno_contracts.models.sync_result import SyncResult
from gno_contracts.models.update_input import UpdateInput

from gno.app import App
from gno.errors import JobConflictError, NotFoundError, QueueFullError
from gno.services.cancel import CancelToken, bound, checkpoint

KEEP_SECONDS = 3600
KEEP_MAX = 100
MAX_WAITING = 64
INDEX_LANE = "index"  # syncs, embeds, collection adds: one at a time

Work = Callable[[App], dict[str, Any]]  # runs the job on its own App; returns typedResult


@dataclass
class Job:
    id: str
    type: str  # add | sync | embed | index | pull
    started_at: datetime  # creation time while queued, then the start
    status: str = "running"  # queued | running | completed | failed
    completed_at: datetime | None = None
    typed_result: dict[str, Any] | None = None
    error: str | None = None
    done: threading.Event = field(default_factory=threading.Event)
    created_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    key: str | None = None  # what a waiting job is joined by (REST sync: the collection)
    plan: Any = None  # a waiting job's input, widened by joins; ``work_of(plan)`` runs it
    work_of: Callable[[Any], Work] | None = None
    lane: str = INDEX_LANE  # one running job per lane
    cancel: CancelToken = field(default_factory=CancelToken)
    origin: str = "sync"  # "watcher" when only the file watcher asked for this sync
    tallies: list[Any] = field(default_factory=list)  # what its syncs changed (sync.py)

    def to_status(self, instance_id: str) -> dict[str, Any]:
        out: dict[str, Any] = {
            "jobId": self.id,
            "type": self.type,
            # MCP's schema has no "queued": a waiting job is as good as running to a poller
            "status": "running" if self.status == "queued" else self.status,
            "startedAt": _iso(self.started_at),
            "serverInstanceId": instance_id,
        }
        if self.completed_at:
            out["completedAt"] = _iso(self.completed_at)
        if self.typed_result:
            out["typedResult"] = self.typed_result
            value = self.typed_result["value"]
            legacy = value if self.typed_result["kind"] == "sync" else value.get("sync")
            if legacy is not None:
                out["result"] = legacy
        if self.error:
            out["error"] = self.error
        return out

    def to_rest(self) -> dict[str, Any]:
        """GNO's REST job shape: epoch-ms creation time, the raw result, the sync scope."""
        out: dict[str, Any] = {
            "id": self.id,
            "type": self.type,
            "status": self.status,
            "createdAt": int(self.created_at.timestamp() * 1000),
        }
        if self.typed_result:
            out["result"] = self.typed_result["value"]
        if self.error:
            out["error"] = self.error
        if self.type == "sync" and isinstance(self.plan, UpdateInput):
            paths = self.plan.paths
            out["scope"] = {"collection": self.plan.collection, "paths": paths}
        return out


def _iso(moment: datetime) -> str:
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


class JobManager:
    """The jobs of one process. Thread-safe; workers are daemon threads."""

    def __init__(self, make_app: Callable[[], App], max_waiting: int = MAX_WAITING) -> None:
        self._make_app = make_app
        self._jobs: dict[str, Job] = {}
        self._waiting: list[Job] = []  # FIFO
        self._lock = threading.Lock()
        self._closed = False
        self.max_waiting = max_waiting
        self.instance_id = str(uuid.uuid4())
        self.downloads: Any = None  # the model download state (services/downloads.py)
        self._listeners: list[Callable[[Job], None]] = []

    def on_finish(self, listener: Callable[[Job], None]) -> None:
        """Call ``listener(job)`` on the job's thread after each job ends (the resident
        runtime publishes document events and re-reads collection roots there)."""
        self._listeners.append(listener)

    def waiting_keys(self) -> list[str]:
        with self._lock:
            return [j.key for j in self._waiting if j.key is not None]

    def _running(self, lane: str = INDEX_LANE) -> Job | None:
        return next(
            (j for j in self._jobs.values() if j.status == "running" and j.lane == lane), None
        )

    def _launch(self, job: Job, work: Work) -> None:
        threading.Thread(
            target=self._run, args=(job, work), name=f"gno-job-{job.type}", daemon=True
        ).start()

    def submit(
        self,
        kind: str,
        key: str,
        plan: Any,
        merge: Callable[[Any, Any], Any],
        work_of: Callable[[Any], Work],
        origin: str = "sync",
    ) -> tuple[Job, bool]:
        """Start now when idle, else wait in line. A waiting job with the same ``key``
        absorbs this request (``merge(old_plan, new_plan)``). Returns (job, started now)."""
        with self._lock:
            self._check_open()
            self._forget_old()
            if self._running() is None and not self._waiting:
                job = Job(
                    str(uuid.uuid4()), kind, datetime.now(UTC), key=key, plan=plan, origin=origin
                )
                self._jobs[job.id] = job
                self._launch(job, work_of(plan))
                return job, True
            if joined := next((j for j in self._waiting if j.key == key), None):
                joined.plan = merge(joined.plan, plan)
                if joined.origin != origin:
                    joined.origin = "sync"
                return joined, False
            if len(self._waiting) >= self.max_waiting:
                raise QueueFullError(
                    f"{len(self._waiting)} syncs are already waiting. "
                    "Retry after the running job finishes."
                )
            job = Job(
                str(uuid.uuid4()),
                kind,
                datetime.now(UTC),
                status="queued",
                key=key,
                plan=plan,
                work_of=work_of,
                origin=origin,
            )
            self._jobs[job.id] = job
            self._waiting.append(job)
            return job, False

    def _start_next(self) -> None:
        """After a job ends: the oldest waiting job starts (under the lock)."""
        if self._closed or not self._waiting or self._running() is not None:
            return
        job = self._waiting.pop(0)
        job.status = "running"
        job.started_at = datetime.now(UTC)
        assert job.work_of is not None
        self._launch(job, job.work_of(job.plan))

    def _check_open(self) -> None:
        if self._closed:
            from gno.errors import UnavailableError

            raise UnavailableError("The server is shutting down; no new jobs start.")

    def close(self, timeout: float) -> bool:
        """Shutdown: no new jobs, waiting ones are dropped, running ones are asked to stop
        at their next checkpoint and get ``timeout`` seconds in all to finish. True when
        nothing is left running."""
        with self._lock:
            self._closed = True
            for job in self._waiting:
                job.status = "failed"
                job.error = "The server stopped before this job started."
                job.completed_at = datetime.now(UTC)
                job.done.set()
            self._waiting.clear()
            running = [j for j in self._jobs.values() if j.status == "running"]
            for job in running:
                job.cancel.cancel("the server is shutting down")
        deadline = time.monotonic() + timeout
        return all(job.done.wait(max(0.0, deadline - time.monotonic())) for job in running)

    def start(self, kind: str, work: Work, lane: str = INDEX_LANE) -> Job:
        with self._lock:
            self._check_open()
            self._forget_old()
            if running := self._running(lane):
                raise JobConflictError(
                    f"A {running.type} job is already running: {running.id}. "
                    "Poll gno_job_status and retry when it finishes.",
                    details={"activeJobId": running.id},
                )
            job = Job(str(uuid.uuid4()), kind, datetime.now(UTC), lane=lane)
            self._jobs[job.id] = job
            self._launch(job, work)
        return job

    def _run(self, job: Job, work: Work) -> None:
        app = self._make_app()
        app.change_log = job.tallies
        result, error = None, None
        try:
            with bound(job.cancel):
                result = work(app)
        except Exception as exc:  # a failed job reports why; the server goes on
            error = getattr(exc, "message", None) or str(exc) or type(exc).__name__
        finally:
            app.close()
            with self._lock:  # ending one job and starting the next is one step
                job.typed_result, job.error = result, error
                job.status = "failed" if error is not None or result is None else "completed"
                job.completed_at = datetime.now(UTC)
                job.done.set()
                if job.lane == INDEX_LANE:
                    self._start_next()
            for listener in list(self._listeners):
                try:
                    listener(job)
                except Exception:  # a listener's bug never stops the job queue
                    traceback.print_exc(file=sys.stderr)

    def get(self, job_id: str) -> Job:
        with self._lock:
            job = self._jobs.get(job_id)
        if job is None:
            raise NotFoundError(f"Job not found: {job_id}")
        return job

    def all(self) -> list[Job]:
        with self._lock:
            self._forget_old()
            return list(self._jobs.values())

    def _forget_old(self) -> None:
        cutoff = time.time() - KEEP_SECONDS
        finished = sorted(
            (j for j in self._jobs.values() if j.completed_at),
            key=lambda j: j.completed_at or j.started_at,
        )
        for old in finished:
            if (old.completed_at and old.completed_at.timestamp() < cutoff) or len(
                self._jobs
            ) > KEEP_MAX:
                del self._jobs[old.id]


# ---- job tools: check now, answer a receipt, work in the background ----


def _collections(app: App, name: str | None) -> list[str]:
    if name is None:
        return [c.name for c in app.config.collections]
    collection = app.config.find(name)
    if collection is None:
        raise NotFoundError(f"Collection not found: {name}")
    return [collection.name]


def _stop_point(*_: Any) -> None:
    """A progress callback that only lets a shutdown stop the job between files."""
    checkpoint()


def _sync_work(inp: UpdateInput) -> Work:
    from gno.services import handler

    def work(app: App) -> dict[str, Any]:
        result = handler("update")(app, inp, progress=_stop_point)
        return {"kind": "sync", "value": result.model_dump(mode="json", exclude_none=True)}

    return work


def start_update(app: App, inp: UpdateInput) -> dict[str, Any]:
    from gno.services.sync import check_paths

    collections = _collections(app, inp.collection)
    if (paths := check_paths(app, inp)) is not None:
        inp = inp.model_copy(update={"paths": paths})
    job = app.jobs.start("sync", _sync_work(inp))
    return {
        "jobId": job.id,
        "collections": collections,
        "status": "started",
        "options": {"gitPull": bool(inp.gitPull), "runUpdateCmd": bool(inp.runUpdateCmd)},
    }


def _require_embed_model(app: App) -> str:
    """The embedding model's URI, failing now (not in the job) when it is not on disk: a
    tool call never starts a download (`gno models pull` does)."""
    from dataclasses import replace

    from gno.models.availability import download_policy, local_model_file
    from gno.models.catalog import parse_model_uri

    uri = app.embed_model_uri()
    model = parse_model_uri(uri)
    if model.scheme != "http":
        cached_only = replace(download_policy(), allow_auto_download=False)
        local_model_file("embed", model, app.paths.models_dir, cached_only)
    return uri


def start_embed(app: App, inp: EmbedInput) -> dict[str, Any]:
    from gno.services import handler

    _collections(app, inp.collection)
    uri = _require_embed_model(app)

    def work(job_app: App) -> dict[str, Any]:
        result = handler("embed")(job_app, inp, progress=_stop_point)
        return {"kind": "embed", "value": {"embedded": result.embedded, "errors": result.errors}}

    job = app.jobs.start("embed", work)
    return {"jobId": job.id, "status": "started", "model": uri}


def start_index(app: App, inp: IndexInput) -> dict[str, Any]:
    from gno.services import handler

    collections = _collections(app, inp.collection)
    inp = inp.model_copy(update={"runUpdateCmd": False})  # never run shell commands from a tool

    def work(job_app: App) -> dict[str, Any]:
        result = handler("index")(job_app, inp, progress=_stop_point)
        embed = result.embedResult
        return {
            "kind": "index",
            "value": {
                "sync": result.syncResult.model_dump(mode="json", exclude_none=True),
                "embed": {
                    "embedded": embed.embedded if embed else 0,
                    "errors": embed.errors if embed else 0,
                },
            },
        }

    job = app.jobs.start("index", work)
    return {
        "jobId": job.id,
        "status": "started",
        "collections": collections,
        "phases": ["sync", "embed"],
        "options": {"gitPull": bool(inp.gitPull), "runUpdateCmd": False},
    }


def start_add_collection(app: App, inp: CollectionAddInput) -> dict[str, Any]:
    from gno.services import handler

    added = handler("collection_add")(app, inp)
    name = added.collection.name
    job = app.jobs.start("add", _sync_work(UpdateInput(collection=name)))
    return {"jobId": job.id, "collection": name, "status": "started"}


STARTERS: dict[str, Callable[[App, Any], dict[str, Any]]] = {
    "update": start_update,
    "embed": start_embed,
    "index": start_index,
    "add_collection": start_add_collection,
}


def add_collection(app: App, inp: CollectionAddInput) -> SyncResult:
    """The whole job in the foreground: add the collection, then sync it."""
    from gno.services import handler

    added = handler("collection_add")(app, inp)
    synced: SyncResult = handler("update")(app, UpdateInput(collection=added.collection.name))
    return synced


# ---- job queries ----


def job_status(app: App, inp: JobStatusInput) -> McpJobStatus:
    job = app.jobs.get(inp.jobId)
    if job.lane != INDEX_LANE:  # model downloads are REST-only (GET /api/models/status)
        raise NotFoundError(f"Job not found: {inp.jobId}")
    return McpJobStatus.model_validate(job.to_status(app.jobs.instance_id))


def job_list(app: App, inp: JobListInput) -> McpJobList:
    jobs = [j for j in app.jobs.all() if j.lane == INDEX_LANE]
    active = [j for j in jobs if j.status == "running"]
    recent = sorted(
        (j for j in jobs if j.completed_at),
        key=lambda j: j.completed_at or j.started_at,
        reverse=True,
    )[: inp.limit or 10]
    return McpJobList.model_validate(
        {
            "active": [
                {"jobId": j.id, "type": j.type, "startedAt": _iso(j.started_at)} for j in active
            ],
            "recent": [
                {
                    "jobId": j.id,
                    "type": j.type,
                    "status": j.status,
                    "completedAt": _iso(j.completed_at or j.started_at),
                }
                for j in recent
            ],
        }
    )


def _widen(waiting: UpdateInput, incoming: UpdateInput) -> UpdateInput:
    """A sync joining a waiting one: listed files add up (past the limit, or with a
    whole-collection request, the pass covers the whole collection); gitPull sticks."""
    from gno.services.sync import MAX_SYNC_PATHS

    paths = None
    if waiting.paths is not None and incoming.paths is not None:
        paths = list(dict.fromkeys([*waiting.paths, *incoming.paths]))
        if len(paths) > MAX_SYNC_PATHS:
            paths = None
    return waiting.model_copy(
        update={"paths": paths, "gitPull": bool(waiting.gitPull or incoming.gitPull)}
    )


def submit_sync(app: App, inp: UpdateInput, origin: str = "sync") -> Job:
    """REST (or file watcher) sync: checked now (collection, paths), then started, queued
    or joined."""
    from gno.services.sync import check_paths

    _collections(app, inp.collection)
    inp = inp.model_copy(update={"runUpdateCmd": False, "paths": check_paths(app, inp)})
    if inp.collection:
        inp = inp.model_copy(update={"collection": inp.collection.lower()})
    job, _ = app.jobs.submit("sync", inp.collection or "*", inp, _widen, _sync_work, origin)
    return job


def job_active(app: App, inp: JobActiveInput) -> JobActive:
    running = next(
        (j for j in app.jobs.all() if j.status == "running" and j.lane == INDEX_LANE), None
    )
    summary = None
    if running is not None:
        view = running.to_rest()
        summary = {k: view[k] for k in ("id", "type", "status", "createdAt")}
    return JobActive.model_validate({"activeJob": summary})
