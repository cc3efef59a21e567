"""Model downloads started by a server (POST /api/models/pull) and their progress.

A pull is a background job (type ``pull``, its own lane in the job manager: it never
waits behind a sync) that runs the same per-role pull as ``gno models pull``. What a
poller sees is GNO's download state, ``models-status@1.0``: which role is being
fetched, the bytes of its file, the roles downloaded, the roles that failed and why.
The state describes the last pull of this process; a new pull resets it, and a
second pull while one runs is ``CONFLICT``. Files land in the cache only complete and
validated (``gno/models/pull.py``), so a failed or cancelled pull leaves nothing.
"""

from __future__ import annotations

import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from gno_contracts.models.api_models_pull_receipt import ApiModelsPullReceipt
from gno_contracts.models.models_pull_input import ModelRole, ModelsPullInput
from gno_contracts.models.models_status import ModelsStatus
from gno_contracts.models.models_status_input import ModelsStatusInput
from pydantic import BaseModel

from gno.app import App
from gno.errors import GnoError
from gno.services.cancel import checkpoint
from gno.services.job_runtime import JobManager, JobResult

PULL_LANE = "models"
STARTED_MESSAGE = "Download started; poll /api/models/status for progress."
_CREATE_LOCK = threading.Lock()


@dataclass
class DownloadState:
    """GNO's download state; every field is read and written under ``lock``."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    active: bool = False
    current_type: str | None = None
    progress: dict[str, Any] | None = None
    completed: list[str] = field(default_factory=list)
    failed: list[dict[str, str]] = field(default_factory=list)
    started_at: int | None = None  # epoch ms
    job_id: str | None = None

    def snapshot(self) -> dict[str, Any]:
        with self.lock:
            return {
                "active": self.active,
                "currentType": self.current_type,
                "progress": dict(self.progress) if self.progress else None,
                "completed": list(self.completed),
                "failed": [dict(f) for f in self.failed],
                "startedAt": self.started_at,
            }

    def report(self, done: int, total: int | None) -> None:
        percent = round(min(100.0, done * 100 / total), 1) if total else 0.0
        with self.lock:
            self.progress = {
                "downloadedBytes": max(0, done),
                "totalBytes": max(0, total or 0),
                "percent": percent,
            }


# The download state of each process's job manager (every App of a server shares it).
_STATES: weakref.WeakKeyDictionary[JobManager[App], DownloadState] = weakref.WeakKeyDictionary()


def state_of(app: App) -> DownloadState:
    """The process-wide state (kept per job manager, which every reader shares)."""
    with _CREATE_LOCK:
        return _STATES.setdefault(app.jobs, DownloadState())


def downloading(app: App) -> bool:
    """A POST /api/models/pull of this server is running (never, outside a server)."""
    if app.server is None:
        return False
    with _CREATE_LOCK:
        state = _STATES.get(app.jobs)
    return state is not None and bool(state.snapshot()["active"])


def models_status(app: App, inp: ModelsStatusInput) -> ModelsStatus:
    return ModelsStatus.model_validate(state_of(app).snapshot())


def start_pull(app: App, inp: ModelsPullInput) -> ApiModelsPullReceipt:
    """Check what can fail at once (offline mode, a pull already running), then start the
    pull job and answer GNO's receipt."""
    from gno.errors import JobConflictError
    from gno.services.models import check_pull_allowed

    check_pull_allowed()
    roles = [r.value for r in inp.roles] if inp.roles else None
    state = state_of(app)
    with state.lock:
        if state.active:
            raise JobConflictError(
                "A model download is already in progress; poll /api/models/status.",
                details={"activeJobId": state.job_id},
            )
        state.active, state.current_type, state.progress = True, None, None
        state.completed, state.failed = [], []
        state.started_at = int(time.time() * 1000)
        try:
            job = app.jobs.start("pull", _pull_work(app, state, roles, bool(inp.force)), PULL_LANE)
        except GnoError:
            state.active = False
            raise
        state.job_id = job.id
    return ApiModelsPullReceipt(started=True, message=STARTED_MESSAGE, jobId=job.id)


class PullJobValue(BaseModel):
    """A finished pull job's result as GET /api/jobs/{jobId} reports it (api-job@1.0
    ``result`` for ``pull``: ``{results: [{role, uri, status, size?, reason?}]}``)."""

    results: list[dict[str, Any]]


def _pull_work(
    owner: App, state: DownloadState, roles: list[str] | None, force: bool
) -> Callable[[App], JobResult]:
    from gno.models.catalog import ROLES

    def work(app: App) -> JobResult:
        results: list[dict[str, Any]] = []
        try:
            for role in roles or list(ROLES):
                checkpoint()  # a server shutting down starts no further download
                with state.lock:
                    state.current_type, state.progress = role, None
                again = force and all(r["uri"] != _role_uri(app, role) for r in results)
                entry = _pull_role(app, role, again, state)
                results.append(entry)
                with state.lock:
                    if entry["status"] == "downloaded":
                        state.completed.append(role)
                    elif entry["status"] == "failed":
                        state.failed.append({"type": role, "error": entry["reason"]})
        finally:
            with state.lock:
                state.active, state.current_type, state.progress = False, None, None
            owner.models.forget_missing()  # a role without a model may have one now
        failed = [r for r in results if r["status"] == "failed"]
        if failed:
            listed = "; ".join(f"{r['role']}: {r['reason']}" for r in failed)
            raise GnoError(f"{len(failed)} of {len(results)} model download(s) failed. {listed}")
        return JobResult("pull", PullJobValue(results=results))

    return work


def _role_uri(app: App, role: str) -> str:
    try:
        return app.model_uri(role)
    except GnoError:
        return ""


def _pull_role(app: App, role: str, force: bool, state: DownloadState) -> dict[str, Any]:
    """One role through the CLI's pull; its result entry without host paths."""
    from gno.services.models import models_pull

    def progress(label: str, done: int, total: int | None) -> None:
        state.report(done, total)
        if total is None or done < total:  # the final report comes after the rename
            checkpoint()  # a server shutting down drops the partial file

    try:
        pulled = models_pull(
            app, ModelsPullInput(roles=[ModelRole(role)], force=force), progress=progress
        )
        entry = pulled.results[0].model_dump(mode="json", exclude_none=True)
    except GnoError as exc:
        details = (exc.details or {}).get("results") or [{}]
        entry = {"role": role, "uri": _role_uri(app, role)} | details[0]
        entry |= {"status": "failed", "reason": details[0].get("reason") or exc.message}
    keep = ("role", "uri", "status", "size", "reason")
    return {k: entry[k] for k in keep if entry.get(k) is not None}
