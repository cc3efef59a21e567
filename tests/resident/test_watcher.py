"""The file watcher on real folders: what it submits, what it ignores, and how it
follows index.yml and folders that go missing (the submit hook records, nothing is
synced here; the server tests cover the whole path)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from gno.config import Collection, Config, save_config
from gno.paths import resolve_paths
from gno.resident.watcher import Watcher

DEADLINE = 30.0


class Recorder:
    """The watcher's submit hook: keeps every (collection, paths) it is handed."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, list[str] | None]] = []
        self._lock = threading.Lock()

    def __call__(self, collection: str, paths: list[str] | None) -> bool:
        with self._lock:
            self.calls.append((collection, paths))
        return True

    def seen(self) -> list[tuple[str, list[str] | None]]:
        with self._lock:
            return list(self.calls)


def wait_for(check: Callable[[], bool], what: str, poke: Callable[[], None] | None = None) -> None:
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        if check():
            return
        if poke is not None:
            poke()
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def write_config(*collections: Collection) -> None:
    save_config(resolve_paths().config_file, Config(collections=list(collections)))


@pytest.fixture
def started(tmp_path: Path) -> Iterator[Callable[..., tuple[Watcher, Recorder]]]:
    made: list[Watcher] = []

    def start() -> tuple[Watcher, Recorder]:
        recorder = Recorder()
        watcher = Watcher(resolve_paths(), recorder, recheck_seconds=0.2)
        watcher.start()
        made.append(watcher)
        return watcher, recorder

    yield start
    for watcher in made:
        watcher.stop()


def test_changed_files_are_submitted_and_excluded_ones_are_not(
    tmp_path: Path, started: Callable[..., tuple[Watcher, Recorder]]
) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    write_config(Collection("notes", str(notes), pattern="**/*.md"))
    watcher, recorder = started()
    wait_for(lambda: watcher.state()["activeCollections"] == ["notes"], "the root to be watched")
    (notes / "skip.txt").write_text("outside the pattern\n")
    (notes / "node_modules").mkdir()
    (notes / "node_modules" / "dep.md").write_text("excluded folder\n")
    (notes / ".draft.md").write_text("hidden\n")
    (notes / "keep.md").write_text("# Keep\n")  # the sentinel: written last
    wait_for(
        lambda: any(paths and "keep.md" in paths for _, paths in recorder.seen()),
        "keep.md to be submitted",
    )
    for collection, paths in recorder.seen():
        assert collection == "notes" and paths is not None
        assert set(paths) <= {"keep.md"}, paths  # nothing excluded ever made it in
    state = watcher.state()
    assert state["lastEventAt"] is not None and state["failedCollections"] == []


def test_a_missing_root_is_reported_without_its_path_and_retried(
    tmp_path: Path, started: Callable[..., tuple[Watcher, Recorder]]
) -> None:
    later = tmp_path / "later"
    write_config(Collection("later", str(later)))
    watcher, recorder = started()
    state = watcher.state()
    assert state["expectedCollections"] == ["later"] and state["activeCollections"] == []
    [failed] = state["failedCollections"]
    assert failed["collection"] == "later" and str(tmp_path) not in failed["reason"]
    later.mkdir()
    # it is watched once the folder exists, and owed one whole pass for what it missed
    wait_for(lambda: watcher.state()["activeCollections"] == ["later"], "the retry")
    wait_for(lambda: ("later", None) in recorder.seen(), "the catch-up sync")
    assert watcher.state()["failedCollections"] == []


def test_collections_added_to_and_removed_from_the_config_are_followed(
    tmp_path: Path, started: Callable[..., tuple[Watcher, Recorder]]
) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    write_config(Collection("first", str(first)))
    watcher, recorder = started()
    write_config(Collection("first", str(first)), Collection("second", str(second)))
    watcher.poke()
    wait_for(lambda: watcher.state()["activeCollections"] == ["first", "second"], "second")
    # added after start: one catch-up pass (recorded just after the collection is active)
    wait_for(lambda: ("second", None) in recorder.seen(), "the catch-up pass of second")
    assert ("first", None) not in recorder.seen()  # watched from the start: none
    (second / "new.md").write_text("# New\n")
    wait_for(lambda: ("second", ["new.md"]) in recorder.seen(), "new.md in second")
    write_config(Collection("second", str(second)))
    watcher.poke()
    wait_for(lambda: watcher.state()["expectedCollections"] == ["second"], "first removed")
    assert watcher.state()["activeCollections"] == ["second"]


def test_a_collection_added_under_a_removed_ones_name_gets_its_catch_up_pass(
    tmp_path: Path, started: Callable[..., tuple[Watcher, Recorder]]
) -> None:
    first, other = tmp_path / "first", tmp_path / "other"
    first.mkdir()
    other.mkdir()
    write_config(Collection("notes", str(first)))
    watcher, recorder = started()
    write_config()
    watcher.poke()
    wait_for(lambda: watcher.state()["expectedCollections"] == [], "notes removed")
    write_config(Collection("notes", str(other)))  # another folder, the same name
    watcher.poke()
    wait_for(lambda: watcher.state()["activeCollections"] == ["notes"], "the new notes")
    wait_for(lambda: ("notes", None) in recorder.seen(), "the new collection's catch-up sync")


def test_a_root_moved_away_stops_being_watched_and_comes_back(
    tmp_path: Path, started: Callable[..., tuple[Watcher, Recorder]]
) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    write_config(Collection("notes", str(notes)))
    watcher, recorder = started()
    notes.rename(tmp_path / "away")
    wait_for(lambda: watcher.state()["failedCollections"] != [], "the root to be missed")
    assert watcher.state()["activeCollections"] == []
    (tmp_path / "away").rename(notes)
    wait_for(lambda: watcher.state()["activeCollections"] == ["notes"], "the root to return")
    wait_for(lambda: ("notes", None) in recorder.seen(), "the catch-up sync")


def test_a_watched_root_gets_a_whole_pass_every_rescan_interval(tmp_path: Path) -> None:
    """Events can be lost while the watcher runs (a kernel queue overflow, a folder that
    reports none): a periodic whole pass bounds how long the index stays stale."""
    notes = tmp_path / "notes"
    notes.mkdir()
    write_config(Collection("notes", str(notes), pattern="**/*.md"))
    hourly, periodic = Recorder(), Recorder()
    watchers = [
        Watcher(resolve_paths(), hourly, recheck_seconds=0.1),  # the default interval
        Watcher(resolve_paths(), periodic, recheck_seconds=0.1, rescan_seconds=0.3),
    ]
    for watcher in watchers:
        watcher.start()
    try:
        for watcher in watchers:
            wait_for(lambda w=watcher: w.state()["activeCollections"] == ["notes"], "the watch")
        # No file changes at all: only the interval can submit a pass.
        wait_for(lambda: periodic.seen().count(("notes", None)) >= 2, "two periodic passes")
        assert hourly.seen() == []  # an hour is not up: no pass, and nothing changed
    finally:
        for watcher in watchers:
            watcher.stop()
