"""Results of the index commands (init, collection *, update, cleanup, embed, index) and
of status and peek, as terminal text; the exit rules of the interruptible ones."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from gno.render import Shown, View

if TYPE_CHECKING:  # renderers read attributes: no model module loads for them
    from gno_contracts.models.cleanup_result import CleanupResult
    from gno_contracts.models.clear_embeddings import ClearEmbeddings
    from gno_contracts.models.collection_change import CollectionChange
    from gno_contracts.models.collection_list import CollectionList
    from gno_contracts.models.embed_result import EmbedResult
    from gno_contracts.models.index_result import IndexResult
    from gno_contracts.models.init_result import InitResult
    from gno_contracts.models.peek import Peek
    from gno_contracts.models.status import Status
    from gno_contracts.models.sync_result import SyncResult

INTERRUPTED = 130
ERRORS_SHOWN = 10  # per collection; the JSON answer has them all


class _Entry(Protocol):  # a collection as collection-list, -change and init-result carry it
    name: str
    path: str
    pattern: str
    include: list[str]


def _collection_line(c: _Entry) -> str:
    extra = f" include={','.join(c.include)}" if c.include else ""
    return f"{c.name}: {c.path} (pattern {c.pattern}{extra})"


def initialized(result: InitResult, view: View) -> Shown:
    lines = [
        f"{'Initialized' if result.created else 'Already initialized'}: "
        f"config {result.configPath}, index {result.dbPath}"
    ]
    if result.collection:
        c = result.collection
        lines.append(f"Collection {c.name} -> {c.path}. Next: gno update")
    return Shown("\n".join(lines))


def collections(result: CollectionList, view: View) -> Shown:
    items = result.root
    prefix = "- " if view.fmt == "md" else ""
    if not items:
        return Shown("No collections. Add one: gno collection add <path>")
    return Shown("\n".join(prefix + _collection_line(c) for c in items))


def collection_added(result: CollectionChange, view: View) -> Shown:
    line = _collection_line(result.collection)
    return Shown(f"Added collection {line}\nNext: gno update")


def collection_removed(result: CollectionChange, view: View) -> Shown:
    return Shown(f"Removed collection {result.collection.name}. {result.note or ''}")


def collection_renamed(result: CollectionChange, view: View) -> Shown:
    return Shown(f"Renamed collection {result.previousName} -> {result.collection.name}")


def embeddings_cleared(result: ClearEmbeddings, view: View) -> Shown:
    kept = result.protectedSharedVectors
    return Shown(
        f"Cleared {result.deletedVectors} vectors of {result.collection} ({result.mode.value}); "
        f"{kept} shared with other collections kept"
    )


def synced(result: SyncResult, view: View) -> Shown:
    out, err = [], []
    for c in result.collections:
        out.append(
            f"{c.collection}: {c.filesProcessed} files, {c.filesAdded} added, "
            f"{c.filesUpdated} updated, {c.filesUnchanged} unchanged, {c.filesErrored} errors, "
            f"{c.filesMarkedInactive} removed ({c.durationMs} ms)"
        )
        err += [
            f"  {e.code}: {e.relPath or c.collection}: {e.message}\n"
            for e in c.errors[:ERRORS_SHOWN]
        ]
    if not result.collections:
        out.append("No collections configured. Add one: gno collection add <path> --name <name>")
    return Shown("\n".join(out), "".join(err))


def sync_interrupted(result: SyncResult) -> Shown:
    if not result.interrupted:
        return Shown()
    message = "Interrupted: finished files are saved; run `gno update` again to continue.\n"
    return Shown(err=message, code=INTERRUPTED)


def cleaned(result: CleanupResult, view: View) -> Shown:
    return Shown(
        f"Removed {result.deletedDocuments} inactive documents, {result.deletedContent} unused "
        f"mirrors, {result.deletedErrors} old error records."
    )


def embedded(result: EmbedResult, view: View) -> Shown:
    if result.pending is not None:
        return Shown(f"Dry run: {result.pending} chunks would be embedded with {result.model}")
    return Shown(
        f"Embedded {result.embedded} chunks with {result.model} ({result.errors} errors, "
        f"{result.duration:.1f} s)"
    )


def embed_interrupted(result: EmbedResult) -> Shown:
    if not result.interrupted:
        return Shown()
    message = "Interrupted: finished vectors are saved; run `gno embed` again to continue.\n"
    return Shown(err=message, code=INTERRUPTED)


def indexed(result: IndexResult, view: View) -> Shown:
    sync = result.syncResult
    lines = [
        f"Synced {sync.totalFilesProcessed} files ({sync.totalFilesAdded} added, "
        f"{sync.totalFilesUpdated} updated, {sync.totalFilesErrored} errors)"
    ]
    if e := result.embedResult:
        lines.append(f"Embedded {e.embedded} chunks with {e.model} ({e.errors} errors)")
    return Shown("\n".join(lines))


def index_interrupted(result: IndexResult) -> Shown:
    stopped = result.syncResult.interrupted or (
        result.embedResult and result.embedResult.interrupted
    )
    return Shown(code=INTERRUPTED if stopped else 0)


def status(result: Status, view: View) -> Shown:
    bullet = "- " if view.fmt == "md" else "  "
    lines = ["# gno status", ""] if view.fmt == "md" else []
    lines += [
        f"Index: {result.indexName}",
        f"Config: {result.configPath}",
        f"Database: {result.dbPath}",
        f"Health: {'OK' if result.healthy else 'DEGRADED'}",
        "",
        "Collections:",
    ]
    for c in result.collections:
        warn = "  (root missing)" if c.healthy is False else ""
        lines.append(
            f"{bullet}{c.name}: {c.documentCount} documents, {c.chunkCount} chunks — {c.path}{warn}"
        )
    if not result.collections:
        lines.append(f"{bullet}(none) — add one with: gno collection add <path> --name <name>")
    lines += [
        "",
        f"Documents: {result.totalDocuments}",
        f"Chunks: {result.totalChunks}",
        f"Embedding backlog: {result.embeddingBacklog}",
        f"Recent errors (24h): {result.recentErrors or 0}",
        f"Last updated: {result.lastUpdated or 'never'}",
    ]
    return Shown("\n".join(lines))


def peek(result: Peek, view: View) -> Shown:
    if not result.initialized or result.counts is None or result.backlog is None:
        return Shown("gno is not initialized here. Run: gno init")
    lines = [
        f"{result.counts.documents} documents in {result.counts.collections} collection(s); "
        f"embedding backlog {result.backlog.pending}; errors (24h) {result.backlog.failed}",
        f"serve: {result.serve.url if result.serve.running else 'not running'}",
        "Recent:",
    ]
    lines += [f"  {r.docid}  {r.uri}  {r.modifiedAt}" for r in result.recent]
    return Shown("\n".join(lines))
