"""A collection add over REST or MCP (`POST /api/collections`, `gno_add_collection`) is a
write to index.yml followed by a sync job. While another job runs it is refused with
`JOB_CONFLICT`, and a refused add must have changed nothing: before, index.yml already
held the collection, so the caller got 409 CONFLICT and then DUPLICATE on retry. An add
that fails its own checks leaves the job lane free."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from gno_contracts.models.collection_add_input import CollectionAddInput
from gno_contracts.models.update_input import UpdateInput

from gno.app import App
from gno.config import load_config
from gno.errors import DuplicateError, JobConflictError
from gno.services.job_runtime import JobResult
from gno.services.jobs import start_add_collection, submit_sync

DEADLINE = 30.0


def configured(app: App) -> list[str]:
    return [c.name for c in load_config(app.paths.config_file).collections]


def test_add_refused_by_a_running_job_adds_nothing(make_app, tmp_path: Path) -> None:
    app, _ = make_app({"a.md": "# A\n"})
    other = tmp_path / "other"
    other.mkdir()
    (other / "b.md").write_text("# B\n")
    release = threading.Event()

    def busy(_: object) -> JobResult:
        assert release.wait(DEADLINE)
        raise RuntimeError("held only to keep the lane busy")

    running = app.jobs.start("sync", busy)
    try:
        with pytest.raises(JobConflictError):
            start_add_collection(app, CollectionAddInput(path=str(other), name="other"))
        assert configured(app) == ["notes"]
    finally:
        release.set()
        assert running.done.wait(DEADLINE)
    # Once the lane is free the same request succeeds (it was not a duplicate).
    receipt = start_add_collection(app, CollectionAddInput(path=str(other), name="other"))
    assert configured(app) == ["notes", "other"]
    job = app.jobs.get(receipt.jobId)
    assert job.done.wait(DEADLINE) and job.status == "completed", job.error


def test_a_failed_add_frees_the_lane_for_waiting_syncs(make_app) -> None:
    app, root = make_app({"a.md": "# A\n"})
    with pytest.raises(DuplicateError):
        start_add_collection(app, CollectionAddInput(path=str(root), name="notes"))
    # No job was left behind holding the lane: a sync starts at once.
    job = submit_sync(app, UpdateInput(collection="notes"))
    assert job.done.wait(DEADLINE) and job.status == "completed", job.error
    assert [j.type for j in app.jobs.all()] == ["sync"]


def test_syncs_queued_behind_a_reservation_start_when_it_is_dropped(make_app) -> None:
    app, _ = make_app({"a.md": "# A\n"})
    with pytest.raises(DuplicateError), app.jobs.reserve("add"):
        waiting = submit_sync(app, UpdateInput(collection="notes"))
        assert waiting.status == "queued"  # the reserved lane counts as busy
        raise DuplicateError("the add's own check failed")
    assert waiting.done.wait(DEADLINE) and waiting.status == "completed", waiting.error
