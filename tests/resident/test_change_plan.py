"""Which syncs a batch of file events calls for: the walker's rules, gno's own files,
folders, and the 256-file limit (pure: directories are told, not looked up)."""

from __future__ import annotations

from gno.core.globs import DEFAULT_EXCLUDES, FileRules
from gno.core.mime import SUPPORTED_EXTENSIONS
from gno.resident.change_plan import ADDED, DELETED, MAX_PATHS, MODIFIED, WatchScope, plan_changes

ROOT = "/srv/notes"


def scope(pattern: str = "**/*", include: tuple[str, ...] = (), exclude=DEFAULT_EXCLUDES):
    rules = FileRules.build(pattern, include, exclude, SUPPORTED_EXTENSIONS)
    return WatchScope("notes", ROOT, rules)


def no_dirs(_: str) -> bool:
    return False


def test_changed_files_become_relative_paths_of_one_sync() -> None:
    changes = [
        (MODIFIED, f"{ROOT}/a.md"),
        (ADDED, f"{ROOT}/sub/b.md"),
        (DELETED, f"{ROOT}/old.txt"),
        (MODIFIED, f"{ROOT}/a.md"),  # repeated within the batch: once
    ]
    assert plan_changes(scope(), changes, is_dir=no_dirs) == {
        "notes": {"a.md", "sub/b.md", "old.txt"}
    }


def test_files_the_collection_does_not_index_cause_nothing() -> None:
    only_md = scope(pattern="**/*.md")
    changes = [
        (MODIFIED, f"{ROOT}/notes.txt"),  # outside the pattern
        (MODIFIED, f"{ROOT}/image.png"),  # not a supported extension
        (ADDED, f"{ROOT}/.hidden.md"),  # hidden file
        (ADDED, f"{ROOT}/.obsidian/workspace.md"),  # hidden folder
        (MODIFIED, f"{ROOT}/node_modules/pkg/readme.md"),  # excluded folder
        (MODIFIED, f"{ROOT}/a.md~"),  # editor backup
        (MODIFIED, "/elsewhere/a.md"),  # not under the root
        (MODIFIED, ROOT),  # the root itself: the supervisor's business
    ]
    assert plan_changes(only_md, changes, is_dir=no_dirs) == {}
    assert plan_changes(scope(include=(".md",)), [(MODIFIED, f"{ROOT}/x.py")], is_dir=no_dirs) == {}


def test_gnos_own_files_are_ignored_even_inside_a_root() -> None:
    ignored = (f"{ROOT}/gno-data", f"{ROOT}/index.yml")
    changes = [
        (MODIFIED, f"{ROOT}/gno-data/index-default.sqlite-wal"),
        (ADDED, f"{ROOT}/gno-data/notes.md"),
        (MODIFIED, f"{ROOT}/index.yml"),
    ]
    assert plan_changes(scope(), changes, ignored, is_dir=no_dirs) == {}


def test_a_folder_that_appears_or_may_have_gone_means_the_whole_collection() -> None:
    def is_dir(path: str) -> bool:
        return path.endswith(("/moved-in", "/node_modules"))

    assert plan_changes(scope(), [(ADDED, f"{ROOT}/moved-in")], is_dir=is_dir) == {"notes": None}
    # a deleted path without an extension may have been a folder with files in it
    assert plan_changes(scope(), [(DELETED, f"{ROOT}/archive")], is_dir=no_dirs) == {"notes": None}
    # ... but not an excluded or hidden one, and a modified folder is only its metadata
    assert plan_changes(scope(), [(ADDED, f"{ROOT}/node_modules")], is_dir=is_dir) == {}
    assert plan_changes(scope(), [(DELETED, f"{ROOT}/.cache")], is_dir=no_dirs) == {}
    assert plan_changes(scope(), [(MODIFIED, f"{ROOT}/moved-in")], is_dir=is_dir) == {}


def test_more_files_than_a_listed_sync_takes_become_a_whole_collection_pass() -> None:
    many = [(ADDED, f"{ROOT}/n{i}.md") for i in range(MAX_PATHS)]
    assert len(plan_changes(scope(), many, is_dir=no_dirs)["notes"] or ()) == MAX_PATHS
    more = [*many, (ADDED, f"{ROOT}/one-more.md")]
    assert plan_changes(scope(), more, is_dir=no_dirs) == {"notes": None}
