"""The steps every note write shares: the writable collection, the target inside its
root, the file written all at once, the inline sync that makes it searchable, and
receipts of writes sent with a requestId.

Order of locks: ``write_lease`` (GNO's ``.mcp-write.lock``: every writer of every
surface and process, GNO's too, takes turns) → the index guard a sync takes per batch
→ SQLite's write lock.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from gno_contracts.models.update_input import UpdateInput

from gno.app import App
from gno.config import Collection
from gno.core.identity import make_uri
from gno.core.note_files import MAX_SUFFIX, suffixed
from gno.core.tags import validate_tag
from gno.core.write_paths import check_rel_path
from gno.errors import (
    CaptureSyncFailedError,
    ConflictError,
    DuplicateError,
    GnoError,
    NotFoundError,
    PathNotFoundError,
    ReadOnlyError,
    ValidationError,
)
from gno.file_writes import make_parents, resolve_inside, write_atomic
from gno.paths import expand_home
from gno.rows import DocRow
from gno.services.sync_paths import resolve_paths

MAX_TAGS = 64


@dataclass(frozen=True)
class Target:
    collection: Collection
    root: Path  # the root as configured (expanded, absolute)
    rel: str  # normalized POSIX path relative to the root
    path: Path  # absolute, inside the real root


def now_stamp() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def writable_collection(app: App, name: str) -> Collection:
    collection = app.config.find(name)
    if collection is None:
        raise NotFoundError(f"Collection not found: {name}")
    if collection.read_only:
        raise ReadOnlyError(f"Collection {collection.name} is read-only")
    root = Path(os.path.abspath(expand_home(collection.path)))
    if not root.is_dir():
        raise PathNotFoundError(f"Collection root is not a folder: {collection.name}")
    return collection


def root_of(collection: Collection) -> Path:
    return Path(os.path.abspath(expand_home(collection.path)))


def target(collection: Collection, rel: str) -> Target:
    """``rel`` checked (path rules, then the disk: no link leading out), and indexable by
    the collection (a note its rules would skip could never be found)."""
    rel = check_rel_path(rel)
    root = root_of(collection)
    path = resolve_inside(root, rel)
    resolve_paths(collection, [rel])
    return Target(collection, root, rel, path)


def plain(items: Sequence[Any] | None) -> list[str]:
    """List items of a generated model (constrained strings are RootModels) as str."""
    return [str(getattr(item, "root", item)) for item in items or []]


def tags_of(raw: Sequence[Any] | None) -> list[str]:
    tags: list[str] = []
    for tag in plain(raw):
        normalized = validate_tag(tag)
        if normalized not in tags:
            tags.append(normalized)
    if len(tags) > MAX_TAGS:
        raise ValidationError(f"At most {MAX_TAGS} tags")
    return tags


def occupied(app: App, t: Target) -> bool:
    """A file on disk, or an active document the index still has, holds this path."""
    if on_disk(t):
        return True
    doc = app.store().document_by_path(t.collection.name, t.rel)
    return doc is not None and doc.active


def on_disk(t: Target) -> bool:
    """Something (a file, a folder, a link) is at the target's path on disk."""
    return os.path.lexists(t.path)


def free_suffix(app: App, t: Target) -> Target:
    for n in range(2, MAX_SUFFIX + 1):
        candidate = target(t.collection, suffixed(t.rel, n))
        if not occupied(app, candidate):
            return candidate
    raise DuplicateError(f"No free name for {t.rel!r} (tried -2 to -{MAX_SUFFIX})")


@contextlib.contextmanager
def disk_errors(rel: str) -> Iterator[None]:
    """An ``OSError`` of a write (permissions, a full disk, …) as the
    documented RUNTIME error naming the path, never an internal error."""
    try:
        yield
    except OSError as exc:
        raise GnoError(f"Cannot write {rel!r}: {exc.strerror or type(exc).__name__}") from None


def write_file(t: Target, text: str, *, replace: bool = False) -> None:
    """The note on disk at once; without ``replace`` a file that appeared meanwhile wins."""
    with disk_errors(t.rel):
        make_parents(t.root, t.path)
        write_atomic(t.path, text.encode("utf-8"), exclusive=not replace, root=t.root)


def sync_now(app: App, t: Target) -> DocRow:
    """Index the file now (the path-limited sync of ``POST /api/sync``); the document row,
    or ``CAPTURE_SYNC_FAILED`` naming the written file."""
    from gno.services.sync import sync_collections

    result, _ = sync_collections(app, UpdateInput(collection=t.collection.name, paths=[t.rel]))
    doc = app.store().document_by_path(t.collection.name, t.rel)
    if doc is not None and doc.active and not doc.error_code:
        return doc
    problems = [e.message for c in result.collections for e in c.errors]
    uri = make_uri(t.collection.name, t.rel, app.paths.index_name)
    raise CaptureSyncFailedError(
        f"CAPTURE_SYNC_FAILED: {uri} was written but could not be indexed"
        + (f" ({problems[0]})" if problems else "")
        + "; run gno update",
        details={"uri": uri, "relPath": t.rel, "absPath": str(t.path)},
    )


def uri_of(app: App, collection: str, rel: str) -> str:
    return make_uri(collection, rel, app.paths.index_name)


def replayed(app: App, request_id: str | None, operation: str) -> dict[str, Any] | None:
    """The receipt an earlier ``operation`` with this requestId answered. An id an earlier
    write of another kind used is ``CONFLICT``: its receipt is not this write's answer,
    and the write is not made (the caller meant a retry, or reused an id by mistake)."""
    if not request_id:
        return None
    found = app.store().request_receipt(request_id)
    if found is None:
        return None
    if found[0] != operation:
        raise ConflictError(
            f"requestId {request_id!r} was used by an earlier {found[0]} write; "
            "send a new requestId for this one"
        )
    receipt: dict[str, Any] = json.loads(found[1])
    return receipt


def remember_request(app: App, request_id: str | None, operation: str, receipt: Any) -> None:
    if request_id:
        body = receipt if isinstance(receipt, str) else json.dumps(receipt, ensure_ascii=False)
        app.store().save_request_receipt(request_id, operation, body)
