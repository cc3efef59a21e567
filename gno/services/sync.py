"""Sync (``gno update``): bring the index in line with the collection folders.

The planner (``sync_plan.py``, no I/O) decides from the walk and the index what each
file needs; this module walks each collection, plans, and has the applier
(``sync_apply.py``) carry out the plan. Change detection is stat-first: a file
whose (size, mtime_ns, inode) match the index is skipped without being read; only a
changed stat costs a read and a SHA-256, and only a changed hash costs a conversion.
Writes are applied in
batches, each one transaction, so Ctrl-C or a crash leaves every finished batch
committed and nothing half-written. Files that vanished are soft-deleted
(``active = 0``) only after a complete walk, and only documents active before it began (a
capture indexed meanwhile is not the walk's to judge); they come back when restored.
"""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path
from typing import Any

from gno_contracts.models.sync_result import SyncResult
from gno_contracts.models.update_input import UpdateInput

from gno.app import App
from gno.config import load_config
from gno.core.content_types import parse_content_types
from gno.core.globs import FileRules
from gno.core.identity import normalize_collection_name
from gno.core.mime import SUPPORTED_EXTENSIONS
from gno.core.rules_meta import RULES_META
from gno.errors import Cancelled, NotFoundError
from gno.file_writes import remove_stale_temps
from gno.index_lock import index_guard
from gno.ingest.reading import inside, special_kind
from gno.ingest.roots import is_system_root
from gno.ingest.walker import EXCLUDED_COUNT_MAX, WalkEntry, count_files, walk
from gno.paths import expand_home
from gno.ports import READ_ERROR
from gno.refactor_journal import recover_if_pending
from gno.services.index_guard import CollectionChangedError, SyncGuard
from gno.services.sync_apply import FileApplier
from gno.services.sync_paths import check_paths
from gno.services.sync_plan import plan_sync
from gno.services.sync_records import RecordSync, split_entries
from gno.services.sync_tally import CollectionTally, Progress


class CollectionSync(FileApplier):
    """Syncs one collection: walks it (or the listed paths), plans, and applies the plan;
    ``run`` raises KeyboardInterrupt after rolling back the open batch."""

    def run_commands(self, root: Path, git_pull: bool, run_update_cmd: bool) -> None:
        commands = []
        if git_pull and (root / ".git").exists():
            commands.append(("GIT_PULL_FAILED", "git pull --ff-only"))
        if run_update_cmd and self.coll.update_cmd:
            commands.append(("UPDATE_CMD_FAILED", self.coll.update_cmd))
        for code, command in commands:
            import subprocess  # only a collection with git pull or an update command needs it

            done = subprocess.run(
                command, shell=True, cwd=root, capture_output=True, text=True, timeout=600
            )
            if done.returncode != 0:
                tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or [
                    f"exit {done.returncode}"
                ]
                self._error("", code, f"`{command}` failed: {tail[0]}")

    def _usable(self, root: Path) -> bool:
        """A root to sync, else reported: an unmounted or moved folder must not wipe the
        index, and one that became (a link to) a system root is never read."""
        if not root.is_dir():
            self._error("", "PATH_NOT_FOUND", f"Collection root is not a directory: {root}")
            return False
        if is_system_root(str(root)):
            self._error(
                "",
                "INVALID_PATH",
                f"Refusing to index {root}: it is (or links to) a system or home root",
            )
            return False
        return True

    def run(self, git_pull: bool = False, run_update_cmd: bool = False) -> CollectionTally:
        root = Path(expand_home(self.coll.path))
        if not self._usable(root):
            return self.tally
        self.run_commands(root, git_pull, run_update_cmd)
        rules = FileRules.build(
            self.coll.pattern, self.coll.include, self.coll.exclude, SUPPORTED_EXTENSIONS
        )
        unreadable: list[tuple[str, str]] = []
        excluded: list[str] = []
        # A write cut short by a crash leaves its hidden temporary file; gno writes only to
        # collections not marked readOnly, so only those are swept.
        temps: list[str] | None = None if self.coll.read_only else []
        # Only a document active before the walk began can be found gone by it: one that a
        # capture (or a server's write) indexed meanwhile may have a file the walk passed
        # before it existed (it was soft-deleted, its file on disk).
        known = self.store.active_ids(self.coll.name)
        entries = list(walk(root, rules, unreadable, excluded, temps))
        if temps:
            remove_stale_temps(root, temps)
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
        # A new file that vanished has no row: there is nothing to remove (was a KeyError).
        vanished = [
            (rel, state.id)
            for rel in self._vanished
            if (state := states.get(rel)) is not None and state.active
        ]
        gone = [
            (rel, doc_id)
            for rel, doc_id in [*plan.gone, *vanished]
            if doc_id in known  # else written since the walk began: the next walk decides
        ]
        with self.guard.commit(), self.store.write():
            gone = self._inactivate(gone)
            self.store.mark_synced(self.coll.name)
        self._removed(gone)
        return self.tally

    def _inactivate(self, gone: list[tuple[str, int]]) -> list[tuple[str, int]]:
        """Soft-delete these (path, id) documents, inside the commit; the ones it did: a
        document another sync (a server's beside a CLI update) removed first is not this
        sync's change, and reporting it too reported the removal twice."""
        if not gone:
            return gone
        active = self.store.active_ids(self.coll.name)
        gone = [(rel, doc_id) for rel, doc_id in gone if doc_id in active]
        if gone:
            self.store.inactivate([doc_id for _, doc_id in gone])
        return gone

    def _removed(self, gone: list[tuple[str, int]]) -> None:
        for rel, _ in gone:
            self.tally.changed(rel, "removed")
        self.tally.inactivated += len(gone)

    def run_paths(self, rel_paths: list[str]) -> CollectionTally:
        """Re-read only these files (checked by ``sync_paths.resolve_paths``); one that is gone leaves the index."""
        root = Path(expand_home(self.coll.path))
        if not self._usable(root):
            return self.tally
        real_root = os.path.realpath(root)
        states = self.store.doc_states(self.coll.name)
        entries: list[WalkEntry] = []
        gone: list[tuple[str, int]] = []
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
                    gone.append((rel, state.id))
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
                gone = self._inactivate(gone)
        self._removed(gone)
        return self.tally


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
        finally:
            store.sync_finished()
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
