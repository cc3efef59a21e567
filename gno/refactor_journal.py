"""All-or-nothing file changes of a rename/move apply, with a recovery journal.

An apply changes several files at once: the moved document appears at its new path
(with its own links recalculated) and vanishes from the old one, and every document
linking to it gets its new contents. Each file changes atomically (a rename), the set
changes all-or-nothing through a journal written before anything is touched:

1. ``preparing``: the journal (``{data}/refactor-journal/<id>.json``, written to a
   temporary file, fsynced and renamed) names every temporary and backup file it is
   about to make. New contents go to hidden temporary files beside their targets
   (fsynced); each original gets a hard link as its backup (a copy where links fail).
2. ``committing``: the journal says so, then the new document is linked into place
   (``link`` fails when the target exists: exclusive create), every edited document is
   renamed over its original, and the old path is unlinked.
3. ``committed``: the journal says so; backups and temporaries are deleted, then the
   journal itself.

A failure in 1 or 2 rolls back in the process; a crash (kill -9, power) leaves the
journal, and :func:`recover_pending` — run under the write lease before every apply
and every sync — finishes it: ``preparing`` and ``committing`` go back to the old
state (each backup renamed over its path, the new document removed when it is ours),
``committed`` only cleans up. Every step of recovery can run twice. Hidden files
(``.gno-refactor-*``) are never indexed by a sync.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gno.file_writes import fsync_dir, kept_mode

JOURNAL_DIR = "refactor-journal"
PREFIX = ".gno-refactor-"
# Test hook: a process started with this set pauses (sleeps) before each commit step,
# so a crash test can kill it mid-apply and prove where it was.
STEP_HOOK_ENV = "GNO_TEST_REFACTOR_STEP_DELAY"
WRITERS = 8  # temporary files written (and fsynced) at once


class CommitFailed(Exception):
    """The files could not be changed; ``rolled_back`` says whether the old state is back."""

    def __init__(self, message: str, rolled_back: bool, journal_id: str) -> None:
        super().__init__(message)
        self.rolled_back = rolled_back
        self.journal_id = journal_id


@dataclass(frozen=True)
class Change:
    """One file of the apply: ``data`` goes to ``path``; ``create`` for the moved
    document's new path (must not exist), else an edit of an existing file."""

    path: Path
    data: bytes
    create: bool = False


def _write_file(path: Path, data: bytes, mode: int | None = None) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
    try:
        if mode is not None:
            os.fchmod(fd, mode)  # the permission bits of the file it replaces or moves
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_journal(path: Path, record: dict[str, Any]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.unlink(missing_ok=True)
    _write_file(tmp, json.dumps(record, ensure_ascii=False).encode())
    os.replace(tmp, path)
    fsync_dir(path.parent)


def _sha(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def _pause(step: str) -> None:
    delay = os.environ.get(STEP_HOOK_ENV)
    if delay:
        import sys
        import time

        print(f"refactor-step {step}", file=sys.stderr, flush=True)
        time.sleep(float(delay))


def journal_dir(data_dir: Path) -> Path:
    return data_dir / JOURNAL_DIR


def pending(data_dir: Path) -> list[Path]:
    """Journals a crashed apply left behind (cheap: one directory listing)."""
    folder = journal_dir(data_dir)
    try:
        return sorted(p for p in folder.iterdir() if p.suffix == ".json")
    except OSError:
        return []


def commit(
    data_dir: Path,
    digest: str,
    changes: list[Change],
    remove: Path | None,
    on_step: Callable[[str], None] = _pause,
) -> str:
    """Apply ``changes`` and unlink ``remove`` all-or-nothing; the journal id. Raises
    :class:`CommitFailed` after rolling back (or failing to)."""
    journal_id = secrets.token_hex(8)
    folder = journal_dir(data_dir)
    folder.mkdir(parents=True, exist_ok=True)
    journal = folder / f"{journal_id}.json"
    entries: list[dict[str, Any]] = []
    made_dirs: list[str] = []
    for n, change in enumerate(changes):
        stem = f"{PREFIX}{journal_id}-{n}"
        entries.append(
            {
                "path": str(change.path),
                "temp": str(change.path.with_name(stem + ".tmp")),
                "backup": None if change.create else str(change.path.with_name(stem + ".bak")),
                "create": change.create,
                "newHash": hashlib.sha256(change.data).hexdigest(),
            }
        )
    removed_backup = None
    if remove is not None:
        removed_backup = str(remove.with_name(f"{PREFIX}{journal_id}-src.bak"))
    record: dict[str, Any] = {
        "id": journal_id,
        "planDigest": digest,
        "phase": "preparing",
        "entries": entries,
        "remove": str(remove) if remove else None,
        "removeBackup": removed_backup,
        "madeDirs": made_dirs,
    }
    # The folders a move creates are recorded before they exist, so a rollback removes them.
    for change in changes:
        missing: list[Path] = []
        parent = change.path.parent
        while not parent.exists():
            missing.append(parent)
            parent = parent.parent
        made_dirs.extend(str(p) for p in missing)
    _write_journal(journal, record)
    try:
        on_step("prepare")
        for change in changes:
            change.path.parent.mkdir(parents=True, exist_ok=True)
        # fsync releases the GIL: several at once share the file system's journal commits.
        from concurrent.futures import ThreadPoolExecutor  # not on every sync's import path

        # An edited file keeps its permission bits, the moved one those of its source: a
        # private (0600) note stays private.
        modes = [kept_mode(remove if c.create and remove else c.path) for c in changes]
        with ThreadPoolExecutor(max_workers=WRITERS) as pool:
            temps = [Path(e["temp"]) for e in entries]
            list(pool.map(_write_file, temps, [c.data for c in changes], modes))
        for change, entry in zip(changes, entries, strict=True):
            if entry["backup"]:
                _backup(change.path, Path(entry["backup"]))
        if remove is not None and removed_backup:
            _backup(remove, Path(removed_backup))
        record["phase"] = "committing"
        _write_journal(journal, record)
        for entry in entries:
            on_step("commit")
            temp, path = Path(entry["temp"]), Path(entry["path"])
            if entry["create"]:
                os.link(temp, path)  # exclusive: FileExistsError when the target appeared
                temp.unlink()
            else:
                os.replace(temp, path)
        if remove is not None:
            on_step("commit")
            remove.unlink()
        for folder_path in {Path(e["path"]).parent for e in entries}:
            fsync_dir(folder_path)
        if remove is not None:
            fsync_dir(remove.parent)
    except BaseException as exc:
        try:
            _roll_back(record)
            journal.unlink(missing_ok=True)
            rolled_back = True
        except OSError:
            rolled_back = False
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        raise CommitFailed(str(exc), rolled_back, journal_id) from exc
    on_step("committed")
    record["phase"] = "committed"
    _write_journal(journal, record)
    on_step("cleanup")
    _clean(record)
    journal.unlink(missing_ok=True)
    return journal_id


def _backup(path: Path, backup: Path) -> None:
    try:
        os.link(path, backup)
    except OSError:
        import shutil  # rare: a file system without hard links

        shutil.copy2(path, backup)
        fd = os.open(backup, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _roll_back(record: dict[str, Any]) -> None:
    """Back to the old state; safe to run again after a crash in the middle of it."""
    for entry in record["entries"]:
        path = Path(entry["path"])
        if entry["create"]:
            # The new document: ours only if it holds what we wrote (a file someone made
            # there after a crash is left alone).
            if _sha(path) == entry["newHash"] and record["phase"] != "preparing":
                path.unlink(missing_ok=True)
        elif entry["backup"]:
            _restore(Path(entry["backup"]), path)
        Path(entry["temp"]).unlink(missing_ok=True)
    if record.get("removeBackup"):
        _restore(Path(record["removeBackup"]), Path(record["remove"]))
    for made in sorted(record.get("madeDirs", []), key=len, reverse=True):
        with contextlib.suppress(OSError):  # not empty: something else lives there now
            os.rmdir(made)


def _restore(backup: Path, path: Path) -> None:
    """Put the backup back at ``path``. Still the same file (nothing was renamed over it
    yet): only drop the backup link, since rename(2) between two links of one file does
    nothing and would leave the backup behind."""
    if not os.path.lexists(backup):
        return
    if os.path.lexists(path) and os.path.samefile(backup, path):
        backup.unlink()
    else:
        os.replace(backup, path)


def _clean(record: dict[str, Any]) -> None:
    """Drop the temporaries and backups (unlinks run in parallel: the last link of a backup
    frees its inode, a journaled metadata write each)."""
    paths = [Path(e["temp"]) for e in record["entries"]]
    paths += [Path(e["backup"]) for e in record["entries"] if e["backup"]]
    if record.get("removeBackup"):
        paths.append(Path(record["removeBackup"]))
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=WRITERS) as pool:
        list(pool.map(lambda p: p.unlink(missing_ok=True), paths))


def recover(journal: Path) -> str:
    """Finish one journal a crash left: ``rolled_back`` or ``committed``."""
    try:
        record = json.loads(journal.read_text())
    except (OSError, ValueError):
        journal.unlink(missing_ok=True)  # torn before its first rename: nothing was touched
        return "rolled_back"
    if record.get("phase") == "committed":
        _clean(record)
        journal.unlink(missing_ok=True)
        return "committed"
    _roll_back(record)
    journal.unlink(missing_ok=True)
    return "rolled_back"


def recover_pending(data_dir: Path) -> list[str]:
    """Recover every journal left behind (the caller holds the write lease)."""
    for stray in journal_dir(data_dir).glob("*.json.tmp"):
        stray.unlink(missing_ok=True)
    return [recover(j) for j in pending(data_dir)]


def recover_if_pending(paths: Any) -> list[str]:
    """Before a write or a sync: finish a crashed apply under the writer lease (a live
    apply in another process holds the lease, so its journal is never touched here)."""
    if not pending(paths.data_dir):
        return []
    from gno.index_lock import write_lease

    with write_lease(paths):
        return recover_pending(paths.data_dir)
