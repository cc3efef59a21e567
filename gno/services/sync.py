"""Sync (``gno update``): bring the index in line with the collection folders.

The planner (``sync_plan.py``, no I/O) decides from the walk and the index what each
file needs; this module applies the plan. Change detection is stat-first: a file
whose (size, mtime_ns, inode) match the index is skipped without being read; only a
changed stat costs a read and a SHA-256, and only a changed hash costs a conversion.
Writes are applied in
batches, each one transaction, so Ctrl-C or a crash leaves every finished batch
committed and nothing half-written. Files that vanished are soft-deleted
(``active = 0``) only after a complete walk, and come back when restored.
"""

from __future__ import annotations

import hashlib
import os
import stat
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gno_contracts.models.sync_result import SyncResult
from gno_contracts.models.update_input import UpdateInput

from gno.app import App
from gno.config import Collection, load_config
from gno.core.content_types import RULES_META, ContentTypes, parse_content_types
from gno.core.globs import FileRules
from gno.core.identity import make_uri, normalize_collection_name
from gno.core.mime import SUPPORTED_EXTENSIONS, sniff_mime
from gno.core.typed_metadata import dumps
from gno.errors import Cancelled, NotFoundError
from gno.index_lock import index_guard
from gno.ingest.pipeline import Converted, Job, JobRunner
from gno.ingest.reading import FileTooLarge, NotRegularFile, read_regular, special_kind
from gno.ingest.walker import EXCLUDED_COUNT_MAX, WalkEntry, count_files, inside, walk
from gno.ports import INVALID_NAME, READ_ERROR, TOO_LARGE, UNSUPPORTED, Store
from gno.refactor_journal import recover_if_pending
from gno.rows import DocState, SourceFile
from gno.services.index_guard import CollectionChangedError, SyncGuard
from gno.services.sync_paths import check_paths
from gno.services.sync_plan import (
    ContentStep,
    Step,
    SyncPlan,
    content_step,
    plan_sync,
    rules_current,
)
from gno.services.sync_records import RecordSync, split_entries

MAX_FILE_BYTES = 100 * 1024 * 1024
BATCH_FILES = 200  # files per write transaction
BATCH_SECONDS = 1.0
WINDOW_FILES = 512  # changed files converted per window (bounds memory)
WINDOW_BYTES = 64 * 1024 * 1024
CHANGES_KEPT = 257  # per collection: enough to tell "up to 256 documents" from "more"
FILES_KEPT = 1000  # per collection: containers reported with their recordImport

# progress(collection, files_done, files_total)
Progress = Callable[[str, int, int], None]


@dataclass
class CollectionTally:
    collection: str
    processed: int = 0
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    errored: int = 0
    skipped: int = 0
    inactivated: int = 0
    errors: list[dict[str, str]] = field(default_factory=list)
    started: float = field(default_factory=time.perf_counter)
    # (relPath, "added" | "updated" | "removed") of the first CHANGES_KEPT documents this
    # sync changed; the resident server turns them into document-changed events.
    changes: list[tuple[str, str]] = field(default_factory=list)
    # fileSyncResult of each export container imported (with its recordImport), at most
    # FILES_KEPT: the record lane's report (services/record_import.py)
    files: list[dict[str, Any]] = field(default_factory=list)

    def changed(self, rel_path: str, kind: str) -> None:
        if len(self.changes) < CHANGES_KEPT:
            self.changes.append((rel_path, kind))

    def file(self, result: dict[str, Any]) -> None:
        if len(self.files) < FILES_KEPT:
            self.files.append(result)

    def as_dict(self) -> dict[str, Any]:
        return {
            "collection": self.collection,
            "filesProcessed": self.processed,
            "filesAdded": self.added,
            "filesUpdated": self.updated,
            "filesUnchanged": self.unchanged,
            "filesErrored": self.errored,
            "filesSkipped": self.skipped,
            "filesMarkedInactive": self.inactivated,
            "durationMs": round((time.perf_counter() - self.started) * 1000),
            "errors": self.errors,
            **({"files": self.files} if self.files else {}),
        }


def _ext(rel_path: str) -> str:
    name = rel_path.rsplit("/", 1)[-1]
    dot = name.rfind(".")
    return name[dot:].lower() if dot > 0 else ""


class CollectionSync:
    """Syncs one collection; ``run`` raises KeyboardInterrupt after rolling back the open batch."""

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
        self._pending: list[Callable[[], object]] = []  # store writes of the open batch
        self._last_flush = time.perf_counter()
        self._done = self._total = 0

    def _error(self, rel_path: str, code: str, message: str) -> None:
        self.tally.errored += 1
        self.tally.errors.append({"relPath": rel_path, "code": code, "message": message})

    def run_commands(self, root: Path, git_pull: bool, run_update_cmd: bool) -> None:
        commands = []
        if git_pull and (root / ".git").exists():
            commands.append(("GIT_PULL_FAILED", "git pull --ff-only"))
        if run_update_cmd and self.coll.update_cmd:
            commands.append(("UPDATE_CMD_FAILED", self.coll.update_cmd))
        for code, command in commands:
            done = subprocess.run(
                command, shell=True, cwd=root, capture_output=True, text=True, timeout=600
            )
            if done.returncode != 0:
                tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or [
                    f"exit {done.returncode}"
                ]
                self._error("", code, f"`{command}` failed: {tail[0]}")

    def run(self, git_pull: bool = False, run_update_cmd: bool = False) -> CollectionTally:
        root = Path(self.coll.path).expanduser()
        if not root.is_dir():
            # An unmounted or moved folder must not wipe the index: report, touch nothing.
            self._error("", "PATH_NOT_FOUND", f"Collection root is not a directory: {root}")
            return self.tally
        self.run_commands(root, git_pull, run_update_cmd)
        rules = FileRules.build(
            self.coll.pattern, self.coll.include, self.coll.exclude, SUPPORTED_EXTENSIONS
        )
        unreadable: list[tuple[str, str]] = []
        excluded: list[str] = []
        entries = list(walk(root, rules, unreadable, excluded))
        budget = EXCLUDED_COUNT_MAX
        for folder in excluded:  # files of excluded folders (build/ …) count as skipped
            counted = count_files(folder, budget)
            self.tally.skipped += counted
            budget -= counted
            if budget <= 0:
                break
        for rel_dir, reason in unreadable:
            # Like a missing root: report it and leave every document under it alone.
            self._error(rel_dir, READ_ERROR, f"Cannot read folder {rel_dir or root}: {reason}")
        states = self.store.doc_states(self.coll.name)
        files, containers = split_entries(entries)
        unproven = [rel for rel, _ in unreadable]
        plan = plan_sync(files, states, unreadable=unproven, rules=self.content_types)
        self._total = len(entries)
        self._apply_entries(files, states, plan)
        RecordSync(self).run(containers, complete=True, unreadable=unproven)
        self._flush()
        # Only a complete walk may soft-delete: an interrupted one never gets here, and
        # nothing under a folder the walk could not read counts as gone (the plan's rule).
        vanished = [(rel, states[rel].id) for rel in self._vanished if states[rel].active]
        gone = []
        for rel, doc_id in [*plan.gone, *vanished]:
            gone.append(doc_id)
            self.tally.changed(rel, "removed")
        with self.guard.commit(), self.store.write():
            if gone:
                self.store.inactivate(gone)
            self.store.mark_synced(self.coll.name)
        self.tally.inactivated += len(gone)
        return self.tally

    def run_paths(self, rel_paths: list[str]) -> CollectionTally:
        """Re-read only these files (checked by ``sync_paths.resolve_paths``); one that is gone leaves the index."""
        root = Path(self.coll.path).expanduser()
        if not root.is_dir():
            self._error("", "PATH_NOT_FOUND", f"Collection root is not a directory: {root}")
            return self.tally
        real_root = os.path.realpath(root)
        states = self.store.doc_states(self.coll.name)
        entries, gone = [], []
        records = RecordSync(self)
        for rel in rel_paths:
            path = os.path.join(real_root, rel)
            try:
                real = os.path.realpath(path)
                st = os.stat(real)
            except FileNotFoundError:
                if rel in records.containers:
                    records.remove(rel)
                state = states.get(rel)
                if state is not None and state.active:
                    gone.append(state.id)
                    self.tally.changed(rel, "removed")
                continue
            except OSError as exc:  # a link loop, a folder that became unreadable…
                self._error(rel, READ_ERROR, exc.strerror or type(exc).__name__)
                continue
            if not inside(real, real_root) or stat.S_ISDIR(st.st_mode):
                continue  # a link that now leaves the root, or a folder: not a file to index
            special = special_kind(st.st_mode)
            entries.append(WalkEntry(rel, path, st.st_size, st.st_mtime_ns, st.st_ino, special))
        self._total = len(entries)
        files, containers = split_entries(entries)
        self._apply_entries(
            files, states, plan_sync(files, states, complete=False, rules=self.content_types)
        )
        records.run(containers, complete=False, unreadable=[])
        self._flush()
        if gone:
            with self.guard.commit(), self.store.write():
                self.store.inactivate(gone)
        self.tally.inactivated += len(gone)
        return self.tally

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
            if not _storable(entry.rel_path):
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
                if state is None:
                    self.tally.added += 1
                else:
                    self.tally.updated += 1
                self.tally.changed(entry.rel_path, "added" if state is None else "updated")
                self._queue(self._saver(src, result))
            else:
                self._queue(self._failure(src, result.code, result.message))
            self._advance()

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

    def _failure(self, src: SourceFile, code: str, message: str) -> Callable[[], object]:
        self._error(src.rel_path, code, message)
        return lambda: self.store.save_failure(src, code, message)

    def _flush(self) -> None:
        if self._pending:
            try:
                with self.guard.commit(), self.store.write():
                    for apply in self._pending:
                        apply()
            finally:  # committed, or dropped whole (rolled back, or the collection changed)
                self._pending.clear()
        self._last_flush = time.perf_counter()

    def _apply_step(
        self, entry: WalkEntry, state: DocState | None, step: Step
    ) -> Callable[[], object] | Job | None:
        """What a file's step comes to: nothing, a store write, or a conversion job."""
        if step is Step.KEEP:
            self.tally.unchanged += 1
            return None
        if step is Step.REACTIVATE and state is not None:
            self.tally.updated += 1
            self.tally.changed(entry.rel_path, "added")  # back in the index
            return lambda: self.store.reactivate(state.id)
        if step is Step.SKIP:
            self.tally.skipped += 1
            return None
        ext = _ext(entry.rel_path)
        unread = self._source(entry, None, "application/octet-stream", ext)
        if entry.special:
            return self._failure(unread, UNSUPPORTED, f"Not a regular file ({entry.special})")
        if entry.size > MAX_FILE_BYTES:
            limit = MAX_FILE_BYTES // (1024 * 1024)
            return self._failure(unread, TOO_LARGE, f"File is larger than {limit} MiB")
        try:
            data = read_regular(entry.abs_path, MAX_FILE_BYTES)
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
                else:
                    self.tally.updated += 1
                    self.tally.changed(entry.rel_path, "added")

                def touch() -> None:
                    self.store.touch_document(state.id, entry.size, entry.mtime_ns, entry.inode)
                    if not state.active:
                        self.store.reactivate(state.id)

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
            self.coll.language_hint,
            content_types=self.content_types if self.content_types.rules else None,
        )


def _storable(rel: str) -> bool:
    try:
        rel.encode("utf-8")
    except UnicodeEncodeError:  # undecodable bytes come back from the OS as lone surrogates
        return False
    return True


def update(app: App, inp: UpdateInput, progress: Progress | None = None) -> SyncResult:
    return sync_collections(app, inp, progress)[0]


def sync_collections(
    app: App, inp: UpdateInput, progress: Progress | None = None
) -> tuple[SyncResult, list[CollectionTally]]:
    """`update`, and what it changed per collection (a server job publishes it as events)."""
    rel_paths = check_paths(app, inp)
    recover_if_pending(app.paths)  # a rename/move a crash cut short: old or new state first
    store = app.store(create=True)  # a config whose index was deleted gets a fresh one
    collections = app.config.collections
    if inp.collection:
        wanted = normalize_collection_name(inp.collection)
        collections = [c for c in collections if c.name == wanted]
        if not collections:
            raise NotFoundError(f"Collection not found: {inp.collection}")
    content_types = parse_content_types(app.config.raw.get("contentTypes"))
    started = time.perf_counter()
    tallies: list[CollectionTally] = []
    interrupted = False
    with index_guard(app.paths):  # ghosts of collections gone from the config leave search
        configured = load_config(app.paths.config_file).collections
        store.inactivate_collections_except([c.name for c in configured])
        # what graph reads and date filters need of the content-type rules (core/content_types)
        if store.get_meta(RULES_META) != (rules_meta := content_types.rules_meta()):
            store.set_meta(RULES_META, rules_meta)
    for collection in collections:
        sync = CollectionSync(
            store, collection, progress, SyncGuard(app.paths, collection), content_types
        )
        try:
            if rel_paths is None:
                tallies.append(sync.run(inp.gitPull, inp.runUpdateCmd))
            else:
                tallies.append(sync.run_paths(rel_paths))
        except CollectionChangedError as exc:
            sync._error("", "COLLECTION_CHANGED", str(exc))
            tallies.append(sync.tally)
        except (KeyboardInterrupt, Cancelled):  # Ctrl-C, or a server stopping its job
            tallies.append(sync.tally)
            interrupted = True
            break
    payload: dict[str, Any] = {
        "collections": [t.as_dict() for t in tallies],
        "totalDurationMs": round((time.perf_counter() - started) * 1000),
        "totalFilesProcessed": sum(t.processed for t in tallies),
        "totalFilesAdded": sum(t.added for t in tallies),
        "totalFilesUpdated": sum(t.updated for t in tallies),
        "totalFilesErrored": sum(t.errored for t in tallies),
        "totalFilesSkipped": sum(t.skipped for t in tallies),
    }
    if interrupted:
        payload["interrupted"] = True
    return SyncResult.model_validate(payload), tallies
