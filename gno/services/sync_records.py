"""The record lane of a sync (engine.md §2.7, spec/records.md).

Each export container a walk finds is imported here instead of being converted whole:
stat-first (an unchanged container costs one stat), then a streamed SHA-256 (same bytes:
refresh the stat), then its adapter's records, each checked against the caps, turned into
Markdown and, when its content hash changed, converted and saved as a virtual document
``.gno/records/<dir>/<recordKey>.md`` with its provenance. A complete snapshot
inactivates the container's records it no longer holds; a partial one (a malformed row,
a cap, the deadline) removes nothing and is reported as the container's ingest error.
Every record write is checked, and counted, at its commit (services/record_commits.py).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from gno.core.identity import make_uri
from gno.core.mime import extension, storable_name
from gno.core.records import (
    DEADLINE_SECONDS,
    Malformed,
    Record,
    container_dir,
)
from gno.ingest.pipeline import Converted, Job, JobRunner
from gno.ingest.reading import FileTooLarge, NotRegularFile
from gno.ingest.record_lane import (
    RECORD_EXTENSIONS,
    Adapter,
    ContainerError,
    NotAContainer,
    adapter_for,
    hash_container,
    read_container,
)
from gno.ports import CORRUPT, READ_ERROR, TOO_LARGE, UNSUPPORTED
from gno.rows import INGEST_VERSION
from gno.services.record_commits import RecordCommits
from gno.services.record_docs import container_fingerprint, dated_and_typed
from gno.services.record_import import Import, Reactivate, plan_record
from gno.services.record_import_report import file_result
from gno.services.sync_tally import AfterCommit
from gno.sync_rows import ContainerState, SourceFile

if TYPE_CHECKING:
    from gno.config import Collection
    from gno.core.content_types import ContentTypes
    from gno.ingest.walker import WalkEntry
    from gno.ports import Store


class Tally(Protocol):
    processed: int
    added: int
    updated: int
    unchanged: int
    skipped: int
    inactivated: int

    def changed(self, rel_path: str, kind: str) -> None: ...

    def file(self, result: dict[str, Any]) -> None: ...


class CollectionSync(Protocol):
    """What the record lane uses of ``services.sync.CollectionSync`` (its owner)."""

    store: Store
    coll: Collection
    content_types: ContentTypes
    _root: str  # the collection root's real path

    @property
    def tally(self) -> Tally: ...

    def _advance(self) -> None: ...

    def _queue(self, write: Callable[[], object]) -> None: ...

    def _error(self, rel_path: str, code: str, message: str) -> None: ...


WINDOW_RECORDS = 512  # records converted per window (bounds memory)
TIMEOUT = "TIMEOUT"


class RecordSync:
    """The record lane of one ``CollectionSync`` (whose tally, queue and guard it uses)."""

    def __init__(self, owner: CollectionSync) -> None:
        self.owner = owner
        self.store = owner.store
        self.coll = owner.coll
        self.containers = self.store.record_containers(self.coll.name)
        self.commits = RecordCommits(self.store, self.coll.name, lambda: owner.tally)
        self.runner = JobRunner()

    def run(self, entries: list[WalkEntry], *, complete: bool, unreadable: list[str]) -> None:
        try:
            for entry in entries:
                self.owner.tally.processed += 1
                self._container(entry)
                self.owner._advance()
            if complete:
                walked = {e.rel_path for e in entries}
                for rel in list(self.containers):
                    if rel not in walked and not any(
                        not d or rel.startswith(d + "/") for d in unreadable
                    ):
                        self.remove(rel)
        except BaseException:
            self.runner.close(cancel=True)
            raise
        self.runner.close()

    def remove(self, rel: str) -> None:
        """A container that is gone: its records leave search, its state row goes."""
        states = self.store.record_states(self.coll.name, container_dir(rel))
        gone = [(p, s.id) for p, s in states.items() if s.active]
        collection = self.coll.name
        self.containers.pop(rel, None)

        def drop() -> None:
            self.store.drop_container(collection, rel)

        self.owner._queue(self.commits.inactivate(None, rel, gone, then=drop))

    def _state(self, entry: WalkEntry, adapter: Adapter, **changes: Any) -> ContainerState:
        values: dict[str, Any] = {
            "size": entry.size,
            "mtime_ns": entry.mtime_ns,
            "inode": entry.inode,
            "source_hash": None,
            "fingerprint": self._fingerprint(entry.rel_path, adapter),
            "ingest_version": INGEST_VERSION,
            "complete": False,
            "records": 0,
            "error_code": None,
        }
        values.update(changes)
        return ContainerState(**values)

    def _save(self, rel: str, state: ContainerState, message: str | None = None) -> None:
        collection = self.coll.name
        self.containers[rel] = state
        self.owner._queue(lambda: self.store.save_container(collection, rel, state, message))

    def _error(
        self, entry: WalkEntry, adapter: Adapter, code: str, message: str, **kw: Any
    ) -> None:
        self.owner._error(entry.rel_path, code, message)
        collection, rel = self.coll.name, entry.rel_path
        self.owner._queue(lambda: self.store.record_error(collection, rel, code, message))
        self._save(rel, self._state(entry, adapter, error_code=code, **kw), message)

    def _unread(self, entry: WalkEntry, adapter: Adapter, code: str, message: str) -> None:
        """A container that could not be read at all (too large, not a regular file,
        unreadable): its ingest error, and its ``files[]`` entry saying nothing was read."""
        self._error(entry, adapter, code, message)
        imp = Import(entry, adapter, RECORD_EXTENSIONS[extension(entry.rel_path)])
        imp.stop = (code, message)
        result = file_result(imp, code, message, is_new=entry.rel_path not in self.containers)
        result["recordImport"]["sourceBytesRead"] = 0
        self.owner.tally.file(result)

    def _walked(self, entry: WalkEntry) -> tuple[str, int]:
        """What ``reading.open_regular`` checks: a folder swapped for a link out of the
        root since the walk makes the container count as gone, as a document would."""
        return (self.owner._root, entry.inode)

    def _fingerprint(self, rel: str, adapter: Adapter) -> str:
        return container_fingerprint(adapter.fingerprint, self.owner.content_types, rel)

    def _container(self, entry: WalkEntry) -> None:
        ext = extension(entry.rel_path)
        adapter = adapter_for(ext)
        old = self.containers.get(entry.rel_path)
        same_setup = (
            old is not None
            and old.fingerprint == self._fingerprint(entry.rel_path, adapter)
            and old.ingest_version == INGEST_VERSION
        )
        if (
            same_setup
            and old is not None
            and (old.size, old.mtime_ns, old.inode) == (entry.size, entry.mtime_ns, entry.inode)
            and self._records_present(entry.rel_path, old)
        ):
            if old.error_code:
                self.owner.tally.skipped += 1
            else:
                self.owner.tally.unchanged += 1
            return
        if entry.special:
            self._unread(entry, adapter, UNSUPPORTED, f"Not a regular file ({entry.special})")
            return
        try:
            source_hash = hash_container(entry.abs_path, self._walked(entry))
        except FileNotFoundError:
            self.owner.tally.processed -= 1
            return
        except (NotRegularFile, FileTooLarge) as exc:
            code = TOO_LARGE if isinstance(exc, FileTooLarge) else UNSUPPORTED
            self._unread(entry, adapter, code, str(exc))
            return
        except OSError as exc:
            self._unread(entry, adapter, READ_ERROR, exc.strerror or str(exc))
            return
        if (
            same_setup
            and old is not None
            and old.source_hash == source_hash
            and self._records_present(entry.rel_path, old)
        ):
            self.owner.tally.unchanged += 1
            self._save(
                entry.rel_path,
                ContainerState(
                    entry.size,
                    entry.mtime_ns,
                    entry.inode,
                    source_hash,
                    old.fingerprint,
                    old.ingest_version,
                    old.complete,
                    old.records,
                    old.error_code,
                ),
            )
            return
        self._import(entry, adapter, source_hash, is_new=old is None)

    def _records_present(self, rel: str, old: ContainerState) -> bool:
        """An import that left records still has them active (none were cleaned away), and
        did not run out of time (a deadline is retried: the records it saved are kept
        without conversion, so each sync gets further)."""
        if old.error_code == TIMEOUT:
            return False
        if not old.records:
            return True
        return self.store.has_active_records(self.coll.name, container_dir(rel))

    def _import(
        self, entry: WalkEntry, adapter: Adapter, source_hash: str, *, is_new: bool
    ) -> None:
        imp = Import(entry, adapter, RECORD_EXTENSIONS[extension(entry.rel_path)])
        imp.setup = self._fingerprint(entry.rel_path, adapter).encode()
        imp.states = self.store.record_states(self.coll.name, container_dir(entry.rel_path))
        stem = entry.rel_path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
        window: list[tuple[Job, dict[str, Any]]] = []
        try:
            walked = self._walked(entry)
            for item in read_container(entry.abs_path, extension(entry.rel_path), stem, walked):
                if isinstance(item, Malformed):
                    imp.fail(item.locator, item.reason)
                else:
                    job = self._record(imp, item)
                    if job is not None:
                        window.append(job)
                        if len(window) >= WINDOW_RECORDS:
                            self._convert(imp, window)
                            window = []
                if imp.stop is None and time.monotonic() - imp.started > DEADLINE_SECONDS:
                    imp.stop = (TIMEOUT, f"Import stopped after {DEADLINE_SECONDS:.0f} s")
                if imp.stop is not None:
                    break
        except NotAContainer as exc:
            old = self.containers.get(entry.rel_path)
            if old is not None and old.records and old.error_code != "NOT_A_CONTAINER":
                # It held records: a broken export (cut short...), not some other file.
                reason = f"No longer a readable chat export ({exc}); its records are kept"
                self._error(
                    entry, adapter, CORRUPT, reason[:2000], source_hash=source_hash,
                    records=old.records,
                )  # fmt: skip
                imp.stop = (CORRUPT, reason)
                self._report(imp, CORRUPT, reason, is_new=False)
                return
            # A .json that is no chat export: not indexed, not an error (spec/records.md).
            self.owner.tally.skipped += 1
            self._save(
                entry.rel_path,
                self._state(
                    entry,
                    adapter,
                    source_hash=source_hash,
                    complete=True,
                    error_code="NOT_A_CONTAINER",
                ),
                str(exc),
            )
            return
        except ContainerError as exc:
            self._error(entry, adapter, exc.code, exc.message, source_hash=source_hash)
            imp.stop = (exc.code, exc.message)
            self._report(imp, exc.code, exc.message, is_new=is_new)
            return
        except (OSError, RecursionError, MemoryError, UnicodeError, ValueError) as exc:
            imp.stop = (CORRUPT, f"Unreadable container ({type(exc).__name__}: {str(exc)[:200]})")
        self._convert(imp, window)
        self._finish(imp, source_hash, is_new)

    def _record(self, imp: Import, record: Record) -> tuple[Job, dict[str, Any]] | None:
        planned = plan_record(imp, record)
        if isinstance(planned, Reactivate):
            self.owner._queue(self.commits.reactivate(imp, planned.rel_path, planned.state.id))
            return None
        return planned

    def _convert(self, imp: Import, window: list[tuple[Job, dict[str, Any]]]) -> None:
        if not window:
            return
        results = self.runner.run([job for job, _ in window])
        for (job, info), result in zip(window, results, strict=True):
            if not isinstance(result, Converted):
                imp.fail(info["sourceLocator"], result.message)
                continue
            src = SourceFile(
                self.coll.name,
                job.rel_path,
                make_uri(self.coll.name, job.rel_path),
                job.source_hash,
                imp.mime,
                extension(imp.entry.rel_path),
                len(job.data),
                imp.entry.mtime_ns,
                None,
            )
            result = dated_and_typed(result, info, imp.entry.rel_path, self.owner.content_types)
            save = self._saver(src, result, imp.entry.rel_path, info)
            planned = imp.states.get(job.rel_path)
            self.owner._queue(self.commits.save(imp, job.rel_path, planned, job.source_hash, save))

    def _saver(
        self, src: SourceFile, result: Converted, container: str, info: dict[str, Any]
    ) -> Callable[[], object]:
        def save() -> None:
            doc_id = self.store.save_document(
                src,
                result.analysis,
                fts_title=result.fts_title,
                fts_body=result.fts_body,
                converter_id=result.converter_id,
                converter_version=result.converter_version,
                language_hint=self.coll.language_hint,
            )
            self.store.save_record(doc_id, container, info)

        return save

    def _finish(self, imp: Import, source_hash: str, is_new: bool) -> None:
        entry, tally = imp.entry, self.owner.tally
        if imp.complete:
            gone = [(p, s.id) for p, s in imp.states.items() if s.active and p not in imp.seen]
            if gone:
                self.owner._queue(self.commits.inactivate(imp, entry.rel_path, gone))
        message = None
        code = None
        if not imp.complete:
            code = imp.stop[0] if imp.stop else CORRUPT
            reasons = ([imp.stop[1]] if imp.stop else []) + imp.failures[:3]
            message = (
                f"Partial import ({imp.records} records, {imp.failed} malformed; nothing "
                f"removed): " + "; ".join(reasons)
            )[:2000]
            self.owner._error(entry.rel_path, code, message)
            collection, rel = self.coll.name, entry.rel_path
            details = [*([imp.stop[1]] if imp.stop else []), *imp.failures]
            failure_code = code

            def report() -> None:
                for detail in details:
                    self.store.record_error(collection, rel, failure_code, detail)

            self.owner._queue(report)
        state = self._state(
            entry,
            imp.adapter,
            source_hash=source_hash,
            complete=imp.complete,
            records=imp.records,
            error_code=code,
        )
        if code is None:  # counted at the commit: another sync may have imported it first

            def settled(status: str) -> None:
                setattr(tally, status, getattr(tally, status) + 1)
                tally.file(file_result(imp, None, None, is_new=is_new, status=status))

            planned = self.containers.get(entry.rel_path)
            self.owner._queue(self.commits.settle(entry.rel_path, planned, state, settled))
        else:
            self._report(imp, code, message, is_new=is_new)
        self._save(entry.rel_path, state, message)

    def _report(self, imp: Import, code: str, message: str | None, *, is_new: bool) -> None:
        """The container's ``files[]`` entry, made once the writes queued before it were
        committed and counted (its records' counts are what their commits did)."""
        tally = self.owner.tally

        def result() -> None:
            tally.file(file_result(imp, code, message, is_new=is_new))

        self.owner._queue(lambda: AfterCommit(result))


def split_entries(entries: list[WalkEntry]) -> tuple[list[WalkEntry], list[WalkEntry]]:
    """(plain files, record containers) of a walk. A container whose name is not UTF-8
    goes with the files, which report it as ``INVALID_NAME``: its records' paths are made
    from its name, and encoding that raised UnicodeEncodeError — the whole sync failed."""
    files: list[WalkEntry] = []
    containers: list[WalkEntry] = []
    for entry in entries:
        kind = extension(entry.rel_path) in RECORD_EXTENSIONS and storable_name(entry.rel_path)
        (containers if kind else files).append(entry)
    return files, containers
