"""Every App of a server process shares one ``Models``: the readers of the pool load a
model once, and a role found without a model is found by all of them after a pull."""

from __future__ import annotations

from pathlib import Path

import pytest

from gno.resident.readers import ReaderPool
from tests.tiny_gguf import write_tiny_llama

pytest.importorskip("llama_cpp")


def test_readers_share_the_generator_and_see_a_pulled_model(
    make_app, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    owner, _ = make_app({"a.md": "# A\n\nalpha\n"})
    model = tmp_path / "expand.gguf"
    monkeypatch.setenv("GNO_EXPAND_MODEL", f"file:{model}")
    pool = ReaderPool(owner, size=2, max_queued=2)
    try:
        with pool.reader() as first, pool.reader() as second:
            assert first is not second and first.models is second.models is owner.models
            assert first.generator("expand") is None  # not on disk yet
            assert "expand" in second.unavailable

            write_tiny_llama(model)  # what `gno models pull` leaves in the cache
            assert second.generator("expand") is None  # the answer is cached...
            owner.models.forget_missing()  # ...until a pull finishes (services/downloads)

            loaded = first.generator("expand")
            assert loaded is not None and second.generator("expand") is loaded
            assert owner.generator("expand") is loaded and "expand" not in first.unavailable
            assert owner.models.loaded() == 1  # one copy for the whole process
        with pool.reader() as again:
            assert again.generator("expand") is loaded
    finally:
        pool.close()


def test_a_job_runs_on_an_app_sharing_the_process_models(make_app) -> None:
    owner, _ = make_app({"a.md": "# A\n\nalpha\n"})
    job_app = owner.derive()
    try:
        assert job_app.models is owner.models and job_app.jobs is owner.jobs
        assert job_app.store() is not owner.store()  # a connection of its own
    finally:
        job_app.close()
