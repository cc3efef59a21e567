"""The applier of a sync: each planned file's step carried out on the index.

``FileApplier`` turns the planner's step of each walked file (``sync_plan.py``) into
nothing, a store write or a conversion job: unchanged stat, nothing; changed stat, a read
and a SHA-256 (the same hash only refreshes the stat); changed bytes, a conversion in a
window of worker jobs (``ingest/pipeline.py``). Store writes are queued and committed in
batches of at most ``BATCH_FILES`` files (or ``BATCH_SECONDS``), each one transaction under
the sync's guard, so Ctrl-C or a crash leaves every finished batch committed and nothing
half-written. ``sync.CollectionSync`` walks a collection and hands the files here.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable
from dataclasses import dataclass

from gno.config import Collection
from gno.core.content_types import ContentTypes
from gno.core.identity import make_uri
from gno.core.mime import extension, sniff_mime, storable_name
from gno.core.typed_metadata import dumps
from gno.ingest.pipeline import Converted, Job, JobRunner
from gno.ingest.reading import FileTooLarge, NotRegularFile, read_regular
from gno.ingest.walker import WalkEntry
from gno.interrupts import check as check_interrupt
from gno.paths import expand_home
from gno.ports import INVALID_NAME, READ_ERROR, TOO_LARGE, UNSUPPORTED, Store
from gno.services.index_guard import SyncGuard
from gno.services.sync_plan import ContentStep, Step, SyncPlan, content_step, rules_current
from gno.services.sync_tally import AfterCommit, CollectionTally, Progress
from gno.sync_rows import DocState, SourceFile

MAX_FILE_BYTES = 100 * 1024 * 1024
BATCH_FILES = 200  # files per write transaction
BATCH_SECONDS = 1.0
WINDOW_FILES = 512  # changed files converted per window (bounds memory)
WINDOW_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True)
class Counted:
    """What a queued write reports once its batch committed: a document it added or
    updated (``changes`` kind), or one it brought back (an update reported as added)."""

    rel_path: str
    kind: str
    reactivated: bool = False


SKIPPED_WRITE = object()  # a write another writer made first: counted unchanged


class FileApplier:
    """Applies the planned steps of one collection's files, in batches."""

    def __init__(
        self,
        store: Store,
        collection: Collection,
        progress: Progress | None,
        guard: SyncGuard,
        content_types: ContentTypes | None = None,
    ) -> None:
        self.store, self.coll, self.guard = store, collection, guard
        self.content_types = content_types or ContentTypes()
        self.tally = CollectionTally(collection.name)
        self.progress = progress
        self._vanished: list[str] = []  # walked, then gone before it could be read
        self._root = os.path.realpath(expand_home(collection.path))
        self._pending: list[Callable[[], object]] = []  # store writes of the open batch
        self._last_flush = time.perf_counter()
        self._done = self._total = 0

    def _error(self, rel_path: str, code: str, message: str) -> None:
        self.tally.errored += 1
        self.tally.errors.append({"relPath": rel_path, "code": code, "message": message})

    def _apply_entries(
        self, entries: list[WalkEntry], states: dict[str, DocState], plan: SyncPlan
    ) -> None:
        """Convert and write these files; on any exception (Ctrl-C included) the workers stop."""
        runner = JobRunner()
        try:
            self._apply_all(entries, states, plan, runner)
        except BaseException:
            runner.close(cancel=True)
            raise
        runner.close()

    def _apply_all(
        self,
        entries: list[WalkEntry],
        states: dict[str, DocState],
        plan: SyncPlan,
        runner: JobRunner,
    ) -> None:
        """Apply every file's step; convert changed ones in windows; write in batches."""
        window: list[tuple[WalkEntry, DocState | None, Job]] = []
        window_bytes = 0
        for entry, (_, step) in zip(entries, plan.steps, strict=True):
            self.tally.processed += 1
            if not storable_name(entry.rel_path):
                # The index, URIs and JSON hold text: a name that is not UTF-8 cannot be
                # addressed, so it is reported (with its bytes escaped) and skipped.
                shown = os.fsencode(entry.rel_path).decode("utf-8", "backslashreplace")
                self._error(
                    shown, INVALID_NAME, "File name is not valid UTF-8; rename it to index it"
                )
                self._advance()
                continue
            state = states.get(entry.rel_path)
            planned = self._apply_step(entry, state, step)
            if isinstance(planned, Job):
                window.append((entry, state, planned))
                window_bytes += len(planned.data)
                if len(window) >= WINDOW_FILES or window_bytes >= WINDOW_BYTES:
                    self._convert(runner, window)
                    window, window_bytes = [], 0
                continue
            if planned is not None:
                self._queue(planned)
            self._advance()
        self._convert(runner, window)
        self._flush()

    def _advance(self) -> None:
        self._done += 1
        if self.progress:
            self.progress(self.coll.name, self._done, self._total)

    def _queue(self, write: Callable[[], object]) -> None:
        self._pending.append(write)
        if (
            len(self._pending) >= BATCH_FILES
            or time.perf_counter() - self._last_flush > BATCH_SECONDS
        ):
            self._flush()

    def _convert(
        self, runner: JobRunner, window: list[tuple[WalkEntry, DocState | None, Job]]
    ) -> None:
        results = runner.run([job for _, _, job in window])
        for (entry, state, job), result in zip(window, results, strict=True):
            src = self._source(entry, job.source_hash, job.mime, job.ext)
            if isinstance(result, Converted):
                kind = "added" if state is None else "updated"
                saver = self._saver(src, result)
                self._queue(
                    self._unless_indexed_since(state, src, saver, Counted(src.rel_path, kind))
                )
            else:
                failure = self._failure(src, result.code, result.message)
                self._queue(self._unless_indexed_since(state, src, failure))
            self._advance()

    def _unless_indexed_since(
        self,
        state: DocState | None,
        src: SourceFile,
        write: Callable[[], object],
        counted: Counted | None = None,
    ) -> Callable[[], object]:
        """``write``, run at its batch's commit only while the index still holds the row this
        sync planned from. A save or tag edit (``note_writer``) renames its file into place
        and indexes it inline, between this sync's batches: bytes this sync read before that
        are older, and saving them would put the old text back in the index (until the next
        sync) under the docid the writer had answered. Another sync (a server's beside a CLI
        ``gno update``) may have indexed the same file meanwhile: then this one changed
        nothing, and reports it ``SKIPPED_WRITE`` (unchanged), not a second add."""
        planned = None if state is None else (state.id, state.source_hash)

        def guarded() -> object:
            now = self.store.document_by_path(self.coll.name, src.rel_path)
            if (None if now is None else (now.id, now.source_hash)) != planned:
                # indexed by another writer meanwhile, from a later read; a failure was
                # counted an error when it was read (``_failure``), not counted again
                return None if counted is None else SKIPPED_WRITE
            write()
            return counted

        return guarded

    def _source(self, entry: WalkEntry, source_hash: str | None, mime: str, ext: str) -> SourceFile:
        uri = make_uri(self.coll.name, entry.rel_path)
        return SourceFile(
            self.coll.name,
            entry.rel_path,
            uri,
            source_hash,
            mime,
            ext,
            entry.size,
            entry.mtime_ns,
            entry.inode,
        )

    def _saver(self, src: SourceFile, result: Converted) -> Callable[[], object]:
        analysis = result.analysis
        rules_fp = self.content_types.doc_fingerprint(src.rel_path, analysis.frontmatter_type)

        def save() -> None:
            doc_id = self.store.save_document(
                src,
                analysis,
                fts_title=result.fts_title,
                fts_body=result.fts_body,
                converter_id=result.converter_id,
                converter_version=result.converter_version,
                language_hint=self.coll.language_hint,
            )
            self.store.set_doc_meta(
                doc_id, analysis.frontmatter_type, rules_fp, dumps(analysis.typed_metadata)
            )

        return save

    def _reactivation(self, doc_id: int, rel_path: str) -> Callable[[], object]:
        """Bring an inactive document back at commit, counted (an update, reported as
        added: back in the index) only when it is still inactive then: another sync may
        have brought it back meanwhile."""

        def reactivate() -> object:
            now = self.store.document_by_path(self.coll.name, rel_path)
            if now is None or now.id != doc_id or now.active:
                return SKIPPED_WRITE
            self.store.reactivate(doc_id)
            return Counted(rel_path, "added", reactivated=True)

        return reactivate

    def _failure(self, src: SourceFile, code: str, message: str) -> Callable[[], object]:
        self._error(src.rel_path, code, message)
        return lambda: self.store.save_failure(src, code, message)

    def _flush(self) -> None:
        if self._pending:
            check_interrupt()  # a Ctrl-C whose exception was dropped on the way still stops
            try:
                with self.guard.commit(), self.store.write():
                    outcomes = [apply() for apply in self._pending]
            finally:  # committed, or dropped whole (rolled back, or the collection changed)
                self._pending.clear()
            # Counted once committed, from what each write found at its commit: a write
            # another syncer made first is not this sync's change (it was reported twice).
            for outcome in outcomes:
                self._count(outcome)
        self._last_flush = time.perf_counter()

    def _count(self, outcome: object) -> None:
        if outcome is SKIPPED_WRITE:
            self.tally.unchanged += 1
        elif isinstance(outcome, Counted):
            if outcome.kind == "updated" or outcome.reactivated:
                self.tally.updated += 1
            else:
                self.tally.added += 1
            self.tally.changed(outcome.rel_path, outcome.kind)
        elif isinstance(outcome, AfterCommit):
            outcome.report()

    def _apply_step(
        self, entry: WalkEntry, state: DocState | None, step: Step
    ) -> Callable[[], object] | Job | None:
        """What a file's step comes to: nothing, a store write, or a conversion job."""
        if step is Step.KEEP:
            self.tally.unchanged += 1
            return None
        if step is Step.REACTIVATE and state is not None:
            return self._reactivation(state.id, entry.rel_path)
        if step is Step.SKIP:
            self.tally.skipped += 1
            return None
        ext = extension(entry.rel_path)
        unread = self._source(entry, None, "application/octet-stream", ext)
        if entry.special:
            return self._failure(unread, UNSUPPORTED, f"Not a regular file ({entry.special})")
        if entry.size > MAX_FILE_BYTES:
            limit = MAX_FILE_BYTES // (1024 * 1024)
            return self._failure(unread, TOO_LARGE, f"File is larger than {limit} MiB")
        try:
            data = read_regular(entry.abs_path, MAX_FILE_BYTES, walked=(self._root, entry.inode))
        except FileNotFoundError:  # deleted since the walk: treat it as absent
            self.tally.processed -= 1
            self._vanished.append(entry.rel_path)
            return None
        except NotRegularFile as exc:  # replaced by a pipe or device since the walk
            return self._failure(unread, UNSUPPORTED, str(exc))
        except FileTooLarge as exc:  # grew past the limit since the walk
            return self._failure(unread, TOO_LARGE, str(exc))
        except OSError as exc:
            return self._failure(unread, READ_ERROR, exc.strerror or str(exc))
        source_hash = hashlib.sha256(data).hexdigest()
        rules_ok = rules_current(entry.rel_path, state, self.content_types)
        content = content_step(source_hash, state, rules_ok)
        if state is not None and content is not ContentStep.CONVERT:
            if content is ContentStep.TOUCH:
                if state.active:
                    self.tally.unchanged += 1
                reactivate = None if state.active else self._reactivation(state.id, entry.rel_path)

                def touch() -> object:
                    self.store.touch_document(state.id, entry.size, entry.mtime_ns, entry.inode)
                    return None if reactivate is None else reactivate()

                return touch
            self.tally.skipped += 1  # the same bytes failed for good before
            return lambda: self.store.touch_document(
                state.id, entry.size, entry.mtime_ns, entry.inode
            )
        return Job(
            entry.rel_path,
            entry.abs_path,
            ext,
            sniff_mime(data[:512], ext),
            data,
            source_hash,
            content_types=self.content_types if self.content_types.rules else None,
        )
