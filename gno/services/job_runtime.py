"""The job runtime: long write operations on a thread of their own, in lanes.

It knows nothing of wire shapes or of what a job does: a job is ``work(context) ->
JobResult`` run on a fresh context (a new ``App``: its SQLite connection is never shared
with the one that serves reads), and ``JobResult.value`` is the generated model of its
result. ``services/jobs.py`` starts jobs and answers receipts and statuses.

One job runs at a time per lane (a second start is ``JOB_CONFLICT``); finished jobs are
kept for an hour, at most 100. Ids mean nothing to another process or after a restart.
Model downloads (``pull``) run in a lane of their own: they touch no index, so a download
never waits behind a sync or blocks one, but two downloads never run at once.

Each job's thread runs under the call that started it (``services/call.py``: same caller,
request id and trace) with the job's own ``CancelToken`` bound: at shutdown the
running jobs are asked to stop at their next checkpoint (a sync after its last committed
batch, a download dropping its partial file) and then given the drain deadline.

Only REST syncs wait in line (``submit``): a sync for a collection that already has one
waiting joins it, so any number of requests cause at most one more pass per collection;
at ``max_waiting`` different waiting syncs a new one is ``QUEUE_FULL``. Waiting jobs live
in memory: a server that stops drops them.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time
import traceback
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Generic, Protocol, TypeVar, cast

from pydantic import BaseModel

from gno.errors import JobConflictError, NotFoundError, QueueFullError, UnavailableError
from gno.services.call import Call, bind, current_call
from gno.services.cancel import CancelToken

KEEP_SECONDS = 3600
KEEP_MAX = 100
MAX_WAITING = 64
INDEX_LANE = "index"  # syncs, embeds, collection adds: one at a time


class Changes(Protocol):
    """What one sync of one collection changed (``services/sync.CollectionTally``): the
    resident server turns it into document-changed events."""

    collection: str
    added: int
    updated: int
    inactivated: int
    changes: list[tuple[str, str]]


@dataclass(frozen=True)
class JobResult:
    """What a finished job produced: ``kind`` (sync, embed, index, pull), ``value`` (the
    generated model of its result) and what its syncs changed."""

    kind: str
    value: BaseModel
    changes: Sequence[Changes] = ()


C = TypeVar("C")  # the context a job runs on (an App)
P = TypeVar("P", bound=BaseModel)  # a waiting job's input, widened by joins


@dataclass
class Job:
    id: str
    type: str  # add | sync | embed | index | pull
    started_at: datetime  # creation time while queued, then the start
    status: str = "running"  # queued | running | completed | failed
    completed_at: datetime | None = None
    result: JobResult | None = None
    error: str | None = None
    done: threading.Event = field(default_factory=threading.Event)
    created_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    key: str | None = None  # what a waiting job is joined by (REST sync: the collection)
    plan: BaseModel | None = None  # a queued sync's input, widened by joins
    lane: str = INDEX_LANE  # one running job per lane
    cancel: CancelToken = field(default_factory=CancelToken)
    origin: str = "sync"  # "watcher" when only the file watcher asked for this sync
    call: Call = field(default_factory=current_call)  # the call that started it

    @property
    def changes(self) -> Sequence[Changes]:
        return self.result.changes if self.result is not None else ()


class JobManager(Generic[C]):
    """The jobs of one process. Thread-safe; workers are daemon threads; each job runs
    on a context made by ``make_context`` and closed by ``close_context`` afterwards."""

    def __init__(
        self,
        make_context: Callable[[], C],
        close_context: Callable[[C], None],
        max_waiting: int = MAX_WAITING,
    ) -> None:
        self._make_context, self._close_context = make_context, close_context
        self._jobs: dict[str, Job] = {}
        # FIFO of waiting jobs, each with how to build its work from its (widened) plan
        self._waiting: list[tuple[Job, Callable[[], Callable[[C], JobResult]]]] = []
        self._lock = threading.Lock()
        self._closed = False
        self.max_waiting = max_waiting
        self.instance_id = str(uuid.uuid4())
        self._listeners: list[Callable[[Job], None]] = []

    def on_finish(self, listener: Callable[[Job], None]) -> None:
        """Call ``listener(job)`` on the job's thread after each job ends (the resident
        runtime publishes document events and re-reads collection roots there)."""
        self._listeners.append(listener)

    def waiting_keys(self) -> list[str]:
        with self._lock:
            return [j.key for j, _ in self._waiting if j.key is not None]

    def _running(self, lane: str = INDEX_LANE) -> Job | None:
        return next(
            (j for j in self._jobs.values() if j.status == "running" and j.lane == lane), None
        )

    def _launch(self, job: Job, work: Callable[[C], JobResult]) -> None:
        threading.Thread(
            target=self._run, args=(job, work), name=f"gno-job-{job.type}", daemon=True
        ).start()

    def submit(
        self,
        kind: str,
        key: str,
        plan: P,
        merge: Callable[[P, P], P],
        work_of: Callable[[P], Callable[[C], JobResult]],
        origin: str = "sync",
    ) -> tuple[Job, bool]:
        """Start now when idle, else wait in line. A waiting job with the same ``key``
        absorbs this request (``merge(old_plan, new_plan)``); a waiting job's work is
        built from its plan when it starts. Returns (job, started now)."""
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
            if joined := next((j for j, _ in self._waiting if j.key == key), None):
                joined.plan = merge(cast(P, joined.plan), plan)
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
                origin=origin,
            )
            self._jobs[job.id] = job
            self._waiting.append((job, lambda: work_of(cast(P, job.plan))))
            return job, False

    def _start_next(self) -> None:
        """After a job ends: the oldest waiting job starts (under the lock)."""
        if self._closed or not self._waiting or self._running() is not None:
            return
        job, work_of_plan = self._waiting.pop(0)
        job.status = "running"
        job.started_at = datetime.now(UTC)
        self._launch(job, work_of_plan())

    def _check_open(self) -> None:
        if self._closed:
            raise UnavailableError("The server is shutting down; no new jobs start.")

    def close(self, timeout: float) -> bool:
        """Shutdown: no new jobs, waiting ones are dropped, running ones are asked to stop
        at their next checkpoint and get ``timeout`` seconds in all to finish. True when
        nothing is left running."""
        with self._lock:
            self._closed = True
            for job, _ in self._waiting:
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

    def start(self, kind: str, work: Callable[[C], JobResult], lane: str = INDEX_LANE) -> Job:
        with self.reserve(kind, lane) as launch:
            return launch(work)

    @contextlib.contextmanager
    def reserve(
        self, kind: str, lane: str = INDEX_LANE
    ) -> Iterator[Callable[[Callable[[C], JobResult]], Job]]:
        """Take the lane for a job whose work is known only after a step that must not
        happen when the job cannot run (a collection add writes index.yml, then syncs):
        ``JOB_CONFLICT`` first, then the step, then ``launch(work)``. A block that ends
        without launching (the step failed) leaves no job behind and frees the lane.
        While reserved the job shows as running: other starts conflict, syncs wait."""
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
        launched = False

        def launch(work: Callable[[C], JobResult]) -> Job:
            nonlocal launched
            launched = True
            self._launch(job, work)
            return job

        try:
            yield launch
        finally:
            if not launched:
                with self._lock:
                    self._jobs.pop(job.id, None)
                    job.done.set()  # a shutdown waiting on it need not wait
                    if lane == INDEX_LANE:
                        self._start_next()  # syncs that queued behind the reservation

    def _run(self, job: Job, work: Callable[[C], JobResult]) -> None:
        context = self._make_context()
        result: JobResult | None = None
        error: str | None = None
        try:
            with bind(job.call.for_job(job.cancel)):
                result = work(context)
        except Exception as exc:  # a failed job reports why; the server goes on
            error = getattr(exc, "message", None) or str(exc) or type(exc).__name__
        finally:
            self._close_context(context)
            with self._lock:  # ending one job and starting the next is one step
                job.result, job.error = result, error
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
