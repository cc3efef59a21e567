"""Which files a sync of listed paths may touch: ``paths`` of an update, checked before any
work starts (inside the collection, not through a link that leaves it nor a folder link,
not a folder, a file the collection's rules index)."""

from __future__ import annotations

import os

from gno_contracts.models.update_input import UpdateInput

from gno.app import App
from gno.config import Collection
from gno.core.globs import FileRules
from gno.core.mime import SUPPORTED_EXTENSIONS
from gno.errors import InvalidPathError, NotFoundError, ValidationError
from gno.ingest.reading import inside
from gno.paths import expand_home

MAX_SYNC_PATHS = 256


def check_file_name(path: str) -> None:
    """NUL bytes and unpaired surrogates cannot name a file (os calls would raise)."""
    try:
        os.fsencode(path)
    except UnicodeError:
        raise InvalidPathError("Path is not a valid file name") from None
    if "\x00" in path:
        raise InvalidPathError("Path contains a NUL character")


def _through_folder_link(root: str, rel: str) -> bool:
    folder = root
    for part in rel.split("/")[:-1]:
        folder = os.path.join(folder, part)
        if os.path.islink(folder):
            return True
        if not os.path.isdir(folder):
            return False  # the rest does not exist yet: it cannot be a link
    return False


def resolve_paths(collection: Collection, paths: list[str]) -> list[str]:
    """The listed files as collection-relative paths, each one a file the collection indexes
    (or one that no longer exists). Anything else is refused before any work starts."""
    root = os.path.abspath(expand_home(collection.path))
    real_root = os.path.realpath(root)
    rules = FileRules.build(
        collection.pattern, collection.include, collection.exclude, SUPPORTED_EXTENSIONS
    )
    resolved: list[str] = []
    for given in paths:
        check_file_name(given)
        candidate = os.path.normpath(os.path.join(root, expand_home(given)))
        if not inside(candidate, root) or candidate == root:
            raise InvalidPathError(f"Path is outside collection {collection.name}: {given}")
        rel = os.path.relpath(candidate, root).replace(os.sep, "/")
        if _through_folder_link(root, rel):
            # A full sync never follows a folder link: the file would be indexed under
            # this path now and dropped (found again under its real path) by the next walk.
            raise InvalidPathError(
                f"Path goes through a folder symlink, which a sync never follows: {given}"
            )
        if os.path.lexists(candidate):
            real = os.path.realpath(candidate)
            if not inside(real, real_root):
                raise InvalidPathError(
                    f"Path leaves collection {collection.name} through a link: {given}"
                )
            if os.path.isdir(real):
                raise InvalidPathError(f"Path is a directory, not a file: {given}")
        if any(part.startswith(".") for part in rel.split("/")) or not rules.accepts(rel):
            raise InvalidPathError(
                f"Collection {collection.name} does not index this file (pattern, include "
                f"or exclude rules): {given}"
            )
        if rel not in resolved:
            resolved.append(rel)
    return resolved


def check_paths(app: App, inp: UpdateInput) -> list[str] | None:
    """Validate ``paths`` of an update: only with one collection, never with gitPull."""
    if inp.paths is None:
        return None
    if not inp.collection:
        raise ValidationError("paths needs collection")
    if inp.gitPull:
        raise ValidationError("paths cannot be combined with gitPull")
    if not inp.paths or len(inp.paths) > MAX_SYNC_PATHS:
        raise ValidationError(f"paths must list 1 to {MAX_SYNC_PATHS} files")
    collection = app.config.find(inp.collection)
    if collection is None:
        raise NotFoundError(f"Collection not found: {inp.collection}")
    return resolve_paths(collection, inp.paths)
