"""Sync as a planner and an applier (``services/sync_plan.py``, ``services/sync.py``),
property-tested on real files and a real index: after a sync, planning again gives an
empty plan; a sync interrupted anywhere, followed by a new one, converges to the same."""

from __future__ import annotations

import itertools
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from gno_contracts.models.collection_add_input import CollectionAddInput
from gno_contracts.models.init_input import InitInput
from gno_contracts.models.update_input import UpdateInput
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gno.services.sync_apply as apply_module
from gno.app import App
from gno.core.globs import FileRules
from gno.core.mime import SUPPORTED_EXTENSIONS
from gno.ingest.walker import walk
from gno.paths import resolve_paths
from gno.rows import INGEST_VERSION
from gno.services.collections import collection_add, init
from gno.services.sync import update
from gno.services.sync_plan import Step, SyncPlan, plan_sync, stat_step
from gno.sync_rows import DocState

NAMES = ["a.md", "b.md", "c.txt", "notes/d.md", "notes/e.md", "notes/deep/f.md", "g.md"]
TEXT = st.text(alphabet="abcdefgh xyz\n#", min_size=1, max_size=60)
TREES = st.dictionaries(st.sampled_from(NAMES), TEXT, max_size=len(NAMES))
SETTINGS = settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
_counter = itertools.count()


@contextmanager
def fresh_index() -> Iterator[tuple[App, Path]]:
    """A new config, data dir and collection folder per example (the fixtures' environment
    is per test, not per example)."""
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        saved = {k: os.environ.get(k) for k in ("GNO_CONFIG_DIR", "GNO_DATA_DIR", "GNO_CACHE_DIR")}
        for key, sub in (("GNO_CONFIG_DIR", "c"), ("GNO_DATA_DIR", "d"), ("GNO_CACHE_DIR", "k")):
            os.environ[key] = str(base / sub)
        root = base / "notes"
        root.mkdir()
        app = App(resolve_paths())
        try:
            init(app, InitInput())
            collection_add(app, CollectionAddInput(path=str(root), name="notes"))
            yield app, root
        finally:
            app.close()
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value


def write(root: Path, tree: dict[str, str]) -> None:
    for path in root.rglob("*"):
        if path.is_file() and path.relative_to(root).as_posix() not in tree:
            path.unlink()
    for rel, text in tree.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            target.write_text(text, encoding="utf-8")


def replan(app: App, root: Path) -> SyncPlan:
    collection = app.config.find("notes")
    assert collection is not None
    rules = FileRules.build(
        collection.pattern, collection.include, collection.exclude, SUPPORTED_EXTENSIONS
    )
    return plan_sync(list(walk(root, rules)), app.store().doc_states("notes"))


def indexed(app: App) -> set[str]:
    return {d.rel_path for d in app.store().active_paths("notes")}


@SETTINGS
@given(history=st.lists(TREES, min_size=1, max_size=3))
def test_after_a_sync_the_plan_is_empty(history: list[dict[str, str]]) -> None:
    with fresh_index() as (app, root):
        for tree in history:
            write(root, tree)
            before = replan(app, root)
            result = update(app, UpdateInput())
            assert not result.interrupted
            after = replan(app, root)
            assert after.empty, after
            assert indexed(app) == set(tree)
            if before.empty:  # nothing to do was planned: nothing was done
                assert result.totalFilesAdded == result.totalFilesUpdated == 0


class Stop(KeyboardInterrupt):
    pass


@SETTINGS
@given(first=TREES, second=TREES, stop_after=st.integers(min_value=0, max_value=len(NAMES)))
def test_an_interrupted_sync_then_a_new_plan_converges(
    first: dict[str, str], second: dict[str, str], stop_after: int, monkeypatch_batch: None
) -> None:
    with fresh_index() as (app, root):
        write(root, first)
        update(app, UpdateInput())
        write(root, second)

        def interrupt(collection: str, done: int, total: int) -> None:
            if done > stop_after:
                raise Stop

        stopped = update(app, UpdateInput(), progress=interrupt)
        stopped_midway = bool(stopped.interrupted)
        assert stopped_midway == (len(second) > stop_after)  # each file counts once
        assert indexed(app) <= set(first) | set(second)  # never anything else
        update(app, UpdateInput())
        assert replan(app, root).empty
        assert indexed(app) == set(second)


@pytest.fixture
def monkeypatch_batch(monkeypatch: pytest.MonkeyPatch) -> None:
    """Batches of two files, so an interrupted sync has committed some and not others."""
    monkeypatch.setattr(apply_module, "BATCH_FILES", 2)


class _Entry:
    def __init__(self, rel_path: str, size: int, mtime_ns: int, inode: int) -> None:
        self.rel_path, self.size, self.mtime_ns, self.inode = rel_path, size, mtime_ns, inode


STATES = st.builds(
    DocState,
    id=st.integers(1, 50),
    size=st.integers(0, 3),
    mtime_ns=st.integers(0, 3),
    inode=st.one_of(st.none(), st.integers(0, 3)),
    source_hash=st.one_of(st.none(), st.just("h")),
    mirror_hash=st.one_of(st.none(), st.just("m")),
    active=st.booleans(),
    ingest_version=st.sampled_from([INGEST_VERSION, INGEST_VERSION - 1]),
    error_code=st.sampled_from([None, "CORRUPT", "TOO_LARGE", "READ_ERROR"]),
)


@settings(max_examples=300, deadline=None)
@given(
    walked=st.dictionaries(
        st.sampled_from(NAMES), st.tuples(*[st.integers(0, 3)] * 3), max_size=len(NAMES)
    ),
    states=st.dictionaries(st.sampled_from(NAMES), STATES, max_size=len(NAMES)),
    complete=st.booleans(),
)
def test_the_plan_is_a_function_of_the_walk_and_the_index(
    walked: dict[str, tuple[int, int, int]], states: dict[str, DocState], complete: bool
) -> None:
    entries = [_Entry(rel, *stat) for rel, stat in walked.items()]
    plan = plan_sync(entries, states, complete=complete)
    assert [rel for rel, _ in plan.steps] == list(walked)
    for entry, (_, step) in zip(entries, plan.steps, strict=True):
        state = states.get(entry.rel_path)
        assert step == stat_step(entry, state)
        if state is None or (entry.size, entry.mtime_ns, entry.inode) != (
            state.size,
            state.mtime_ns,
            state.inode,
        ):
            assert step is Step.READ  # a new or changed stat is always read
    expected_gone = {r for r, s in states.items() if s.active and r not in walked}
    assert {rel for rel, _ in plan.gone} == (expected_gone if complete else set())
