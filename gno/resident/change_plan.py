"""Which syncs a batch of file-system events calls for: pure, no I/O of its own.

The watcher hands over one debounced batch of ``(kind, absolute path)`` events per
collection root; the answer is, per collection, the relative paths to re-read or
``None`` for a whole-collection pass. The rules are the walker's: hidden entries,
files the collection's pattern/include/exclude rules leave out and gno's own files
never cause a sync. A folder that appears (created or moved in) has no events for
the files inside it, and a deleted folder is seen as one deleted path, so either
costs a whole-collection pass — which is stat-first, so unchanged files are not read.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from gno.core.globs import FileRules

ADDED, MODIFIED, DELETED = "added", "modified", "deleted"
MAX_PATHS = 256  # a listed sync takes at most this many files (services/sync.py)

Plan = dict[str, set[str] | None]  # collection -> relative paths, or None = whole collection


@dataclass(frozen=True)
class WatchScope:
    collection: str
    root: str  # absolute, symlinks resolved: the path the watcher reports under
    rules: FileRules


def _inside(path: str, prefix: str) -> bool:
    return path == prefix or path.startswith(prefix.rstrip(os.sep) + os.sep)


def _may_be_folder(rel: str) -> bool:
    """A deleted path without an extension may have been a folder (its files went with it)."""
    name = rel.rsplit("/", 1)[-1]
    return name.rfind(".") <= 0


def _folder_excluded(rules: FileRules, rel: str) -> bool:
    parts = rel.split("/")
    return any(
        rules.dir_excluded("/".join(parts[: i + 1]), part) for i, part in enumerate(parts)
    ) or rules.excluded(rel)


def classify(
    scope: WatchScope,
    kind: str,
    path: str,
    ignored: Iterable[str] = (),
    is_dir: Callable[[str], bool] = os.path.isdir,
) -> str | None:
    """What one event means for this collection: ``"file"`` (re-read ``rel``),
    ``"whole"`` (a folder came or went) or None (nothing to do)."""
    path = os.path.normpath(path)
    if path == scope.root or not _inside(path, scope.root):
        return None  # the root itself: the watcher's supervisor handles a vanished root
    if any(_inside(path, prefix) for prefix in ignored):
        return None  # gno's own config, index and cache files
    rel = os.path.relpath(path, scope.root).replace(os.sep, "/")
    if any(part.startswith(".") for part in rel.split("/")):
        return None
    if scope.rules.accepts(rel):
        return "file"
    if kind == ADDED and is_dir(path):
        return None if _folder_excluded(scope.rules, rel) else "whole"
    if kind == DELETED and _may_be_folder(rel) and not _folder_excluded(scope.rules, rel):
        return "whole"
    return None


def plan_changes(
    scope: WatchScope,
    changes: Iterable[tuple[str, str]],
    ignored: Iterable[str] = (),
    is_dir: Callable[[str], bool] = os.path.isdir,
) -> Plan:
    """One batch of ``(kind, path)`` events → ``{collection: paths | None}`` (empty when
    nothing relevant changed). Past ``MAX_PATHS`` files the pass covers the collection."""
    ignored = tuple(ignored)
    paths: set[str] = set()
    for kind, path in changes:
        verdict = classify(scope, kind, path, ignored, is_dir)
        if verdict == "whole":
            return {scope.collection: None}
        if verdict == "file":
            paths.add(os.path.relpath(os.path.normpath(path), scope.root).replace(os.sep, "/"))
    if not paths:
        return {}
    return {scope.collection: paths if len(paths) <= MAX_PATHS else None}
