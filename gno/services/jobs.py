"""Job operations: start a background job and answer its receipt; report jobs.

A job tool checks what it can at once (the collection exists, the model is on disk, the
new collection is valid) and answers with a receipt (the generated model of the
registry's ``receipt``); the work then runs in the job runtime (``job_runtime.py``) on an
App of its own. Statuses are the generated models too: ``mcp-job-status`` for MCP,
``api-job`` for REST, ``job-active``.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from gno_contracts.models.api_job import ApiJob
from gno_contracts.models.collection_add_input import CollectionAddInput
from gno_contracts.models.embed_input import EmbedInput
from gno_contracts.models.index_input import IndexInput
from gno_contracts.models.job_active import ApiJobSummary, JobActive
from gno_contracts.models.job_active_input import JobActiveInput
from gno_contracts.models.job_list_input import JobListInput
from gno_contracts.models.job_status_input import JobStatusInput
from gno_contracts.models.mcp_add_collection_result import McpAddCollectionResult
from gno_contracts.models.mcp_embed_result import McpEmbedResult
from gno_contracts.models.mcp_index_result import McpIndexResult
from gno_contracts.models.mcp_job_list import ActiveItem, McpJobList, RecentItem
from gno_contracts.models.mcp_job_status import (
    EmbedCounts,
    EmbedTyped,
    IndexTyped,
    McpJobStatus,
    SyncTyped,
    Value,
)
from gno_contracts.models.mcp_sync_result import McpSyncResult
from gno_contracts.models.sync_result import SyncResult
from gno_contracts.models.update_input import UpdateInput
from pydantic import BaseModel

from gno.app import App
from gno.errors import NotFoundError, ValidationError
from gno.services.cancel import checkpoint
from gno.services.job_runtime import INDEX_LANE, Job, JobResult

Work = Callable[[App], JobResult]


def _collections(app: App, name: str | None) -> list[str]:
    if name is None:
        return [c.name for c in app.config.collections]
    collection = app.config.find(name)
    if collection is None:
        raise NotFoundError(f"Collection not found: {name}")
    return [collection.name]


def _stop_point(*_: object) -> None:
    """A progress callback that only lets a shutdown stop the job between files."""
    checkpoint()


def _sync_work(inp: UpdateInput) -> Work:
    from gno.services.sync import sync_collections

    def work(app: App) -> JobResult:
        result, changes = sync_collections(app, inp, progress=_stop_point)
        return JobResult("sync", result, changes)

    return work


# A collection's updateCmd is a shell command: only the CLI, run by the user, runs it.
# Tools and REST (whoever can reach them) may neither run one nor store one.
RUN_UPDATE_CMD_REFUSED = (
    "runUpdateCmd: only the CLI (`gno update`, run by the user) runs a collection's updateCmd; "
    "MCP and REST never run shell commands"
)
UPDATE_CMD_REFUSED = (
    "updateCmd: set it with the CLI (`gno collection add --update`); "
    "MCP and REST never store shell commands"
)


def refuse_shell_commands(inp: Any) -> None:
    """``ValidationError`` when a tool or REST input asks to run or store an updateCmd."""
    if getattr(inp, "runUpdateCmd", None):
        raise ValidationError(RUN_UPDATE_CMD_REFUSED)
    if getattr(inp, "updateCmd", None) is not None:
        raise ValidationError(UPDATE_CMD_REFUSED)


def start_update(app: App, inp: UpdateInput) -> McpSyncResult:
    from gno.services.sync_paths import check_paths

    refuse_shell_commands(inp)
    collections = _collections(app, inp.collection)
    if (paths := check_paths(app, inp)) is not None:
        inp = inp.model_copy(update={"paths": paths})
    job = app.jobs.start("sync", _sync_work(inp))
    return McpSyncResult.model_validate(
        {
            "jobId": job.id,
            "collections": collections,
            "status": "started",
            "options": {"gitPull": bool(inp.gitPull), "runUpdateCmd": bool(inp.runUpdateCmd)},
        }
    )


def _require_embed_model(app: App, collection: str | None = None) -> str:
    """The embedding model's URI (the collection's own when it has one), failing now (not
    in the job) when a model the embedding will use is not on disk: a tool call never
    starts a download (`gno models pull` does)."""
    from dataclasses import replace

    from gno.core.identity import normalize_collection_name
    from gno.models.availability import download_policy, local_model_file
    from gno.models.catalog import parse_model_uri
    from gno.services.embed_models import groups_for

    groups = groups_for(app, [normalize_collection_name(collection)] if collection else None)
    for group in groups:
        model = parse_model_uri(group.uri)
        if model.scheme != "http":
            cached_only = replace(download_policy(), allow_auto_download=False)
            local_model_file("embed", model, app.paths.models_dir, cached_only)
    return groups[0].uri if len(groups) == 1 else app.embed_model_uri()


def start_embed(app: App, inp: EmbedInput) -> McpEmbedResult:
    from gno.services.embed import embed

    _collections(app, inp.collection)
    uri = _require_embed_model(app, inp.collection)

    def work(job_app: App) -> JobResult:
        result = embed(job_app, inp, progress=_stop_point)
        return JobResult("embed", EmbedCounts(embedded=result.embedded, errors=result.errors))

    job = app.jobs.start("embed", work)
    return McpEmbedResult(jobId=job.id, status="started", model=uri)


def start_index(app: App, inp: IndexInput) -> McpIndexResult:
    from gno.services.embed import index_collections

    refuse_shell_commands(inp)
    collections = _collections(app, inp.collection)

    def work(job_app: App) -> JobResult:
        result, changes = index_collections(job_app, inp, progress=_stop_point)
        embedded = result.embedResult
        value = Value(
            sync=result.syncResult.model_dump(mode="json", exclude_none=True),
            embed=EmbedCounts(
                embedded=embedded.embedded if embedded else 0,
                errors=embedded.errors if embedded else 0,
            ),
        )
        return JobResult("index", value, changes)

    job = app.jobs.start("index", work)
    return McpIndexResult.model_validate(
        {
            "jobId": job.id,
            "status": "started",
            "collections": collections,
            "phases": ["sync", "embed"],
            "options": {"gitPull": bool(inp.gitPull), "runUpdateCmd": False},
        }
    )


def start_add_collection(app: App, inp: CollectionAddInput) -> McpAddCollectionResult:
    from gno.services.collections import collection_add

    refuse_shell_commands(inp)
    # The lane first: refused with JOB_CONFLICT, the collection must not have been added.
    with app.jobs.reserve("add") as launch:
        name = collection_add(app, inp).collection.name
        job = launch(_sync_work(UpdateInput(collection=name)))
    return McpAddCollectionResult(jobId=job.id, collection=name, status="started")


def add_collection(app: App, inp: CollectionAddInput) -> SyncResult:
    """The whole job in the foreground: add the collection, then sync it."""
    from gno.services.collections import collection_add
    from gno.services.sync import update

    added = collection_add(app, inp)
    return update(app, UpdateInput(collection=added.collection.name))


# ---- job queries ----


def _iso(moment: datetime) -> str:
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _dumped(result: JobResult) -> Any:
    return result.value.model_dump(mode="json", exclude_none=True)


def mcp_status(job: Job, instance_id: str) -> McpJobStatus:
    """mcp-job-status@1.0 of a job (MCP's schema has no "queued": a waiting job is as good
    as running to a poller)."""
    out: dict[str, Any] = {
        "jobId": job.id,
        "type": job.type,
        "status": "running" if job.status == "queued" else job.status,
        "startedAt": _iso(job.started_at),
        "serverInstanceId": instance_id,
    }
    if job.completed_at:
        out["completedAt"] = _iso(job.completed_at)
    if job.result is not None:
        value = _dumped(job.result)
        kinds: dict[str, type[BaseModel]] = {
            "sync": SyncTyped,
            "embed": EmbedTyped,
            "index": IndexTyped,
        }
        typed = kinds[job.result.kind]
        out["typedResult"] = typed.model_validate({"kind": job.result.kind, "value": value})
        legacy = value if job.result.kind == "sync" else value.get("sync")
        if legacy is not None:
            out["result"] = legacy
    if job.error:
        out["error"] = job.error
    return McpJobStatus.model_validate(out)


def api_job(job: Job) -> ApiJob:
    """api-job@1.0: GNO's REST job shape (epoch-ms creation time, the raw result, the
    sync scope)."""
    out: dict[str, Any] = {
        "id": job.id,
        "type": job.type,
        "status": job.status,
        "createdAt": int(job.created_at.timestamp() * 1000),
    }
    if job.result is not None:
        out["result"] = _dumped(job.result)
    if job.error:
        out["error"] = job.error
    if job.type == "sync" and isinstance(job.plan, UpdateInput):
        out["scope"] = {"collection": job.plan.collection, "paths": job.plan.paths}
    return ApiJob.model_validate(out)


def job_status(app: App, inp: JobStatusInput) -> McpJobStatus:
    job = app.jobs.get(inp.jobId)
    if job.lane != INDEX_LANE:  # model downloads are REST-only (GET /api/models/status)
        raise NotFoundError(f"Job not found: {inp.jobId}")
    return mcp_status(job, app.jobs.instance_id)


def job_list(app: App, inp: JobListInput) -> McpJobList:
    jobs = [j for j in app.jobs.all() if j.lane == INDEX_LANE]
    active = [j for j in jobs if j.status == "running"]
    recent = sorted(
        (j for j in jobs if j.completed_at),
        key=lambda j: j.completed_at or j.started_at,
        reverse=True,
    )[: inp.limit or 10]
    return McpJobList(
        active=[
            ActiveItem.model_validate(
                {"jobId": j.id, "type": j.type, "startedAt": _iso(j.started_at)}
            )
            for j in active
        ],
        recent=[
            RecentItem.model_validate(
                {
                    "jobId": j.id,
                    "type": j.type,
                    "status": j.status,
                    "completedAt": _iso(j.completed_at or j.started_at),
                }
            )
            for j in recent
        ],
    )


def _widen(waiting: UpdateInput, incoming: UpdateInput) -> UpdateInput:
    """A sync joining a waiting one: listed files add up (past the limit, or with a
    whole-collection request, the pass covers the whole collection); gitPull sticks."""
    from gno.services.sync_paths import MAX_SYNC_PATHS

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
    from gno.services.sync_paths import check_paths

    refuse_shell_commands(inp)
    _collections(app, inp.collection)
    inp = inp.model_copy(update={"paths": check_paths(app, inp)})
    if inp.collection:
        inp = inp.model_copy(update={"collection": inp.collection.lower()})
    job, _ = app.jobs.submit("sync", inp.collection or "*", inp, _widen, _sync_work, origin)
    return job


def job_active(app: App, inp: JobActiveInput) -> JobActive:
    running = next(
        (j for j in app.jobs.all() if j.status == "running" and j.lane == INDEX_LANE), None
    )
    if running is None:
        return JobActive(activeJob=None)
    summary = ApiJobSummary.model_validate(
        {
            "id": running.id,
            "type": running.type,
            "status": running.status,
            "createdAt": int(running.created_at.timestamp() * 1000),
        }
    )
    return JobActive(activeJob=summary)
