"""All-or-nothing file changes of a rename/move apply, with a recovery journal.

An apply changes several files at once: the moved document appears at its new path
(with its own links recalculated) and vanishes from the old one, and every document
linking to it gets its new contents. Each file changes atomically (a rename), the set
changes all-or-nothing through a journal written before anything is touched:

1. ``preparing``: the journal (``{data}/refactor-journal/<id>.json``, written to a
   temporary file, fsynced and renamed) names every temporary and backup file it is
   about to make. New contents go to hidden temporary files beside their targets
   (fsynced); each original gets a hard link as its backup (a copy where links fail),
   which must still hold the bytes the plan read (``FileChanged``: an editor saved it).
2. ``committing``: the journal says so, then the new document is linked into place
   (``link`` fails when the target exists: exclusive create), every edited document is
   renamed over its original, and the old path is unlinked.
3. ``committed``: the journal says so; backups and temporaries are deleted, then the
   journal itself.

A failure in 1 or 2 rolls back in the process; a crash (kill -9, power) leaves the
journal, and :func:`recover_pending` — run under the write lease before every apply
and every sync — finishes it: ``preparing`` and ``committing`` go back to the old
state (each backup renamed over its path, the new document removed when it is ours; a
file someone wrote after the apply is never replaced),
``committed`` only cleans up. Every step of recovery can run twice. Hidden files
(``.gno-refactor-*``) are never indexed by a sync.

No step goes by path. The plan checked every path, but a folder on one may be swapped for
a symlink out of the root before the apply gets there, so each file step — temporary,
backup, link, rename, unlink, a folder made or removed — names its file relative to a
folder opened from its collection root without following a link and held for the whole
apply (``gno.held_folders``). A link on the way refuses the apply (rolled back); a folder
swapped after it was opened gets its files where it moved, inside the root. The journal
names each file by its root and its path below it, and recovery reaches them the same way:
a file it can no longer reach from the root (its folder gone, or a link now) is left alone.
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

from gno.errors import GnoError
from gno.held_folders import Folder, Folders, Place
from gno.refactor_journal_v1 import upgraded, usable

JOURNAL_DIR = "refactor-journal"
PREFIX = ".gno-refactor-"
# Test hook: a process started with this set pauses (sleeps) before each commit step,
# so a crash test can kill it mid-apply and prove where it was.
STEP_HOOK_ENV = "GNO_TEST_REFACTOR_STEP_DELAY"
WRITERS = 8  # temporary files written (and fsynced) at once
# Journals name each file by its collection root and its path below it (an older gno's
# journal named whole paths; ``refactor_journal_v1.upgraded`` reads it).
FORMAT = 2


class CommitFailed(Exception):
    """The files could not be changed; ``rolled_back`` says whether the old state is back."""

    def __init__(
        self, message: str, rolled_back: bool, journal_id: str, *, stale: bool = False
    ) -> None:
        super().__init__(message)
        self.rolled_back = rolled_back
        self.journal_id = journal_id
        self.stale = stale  # a file changed since the plan read it (``FileChanged``)


class FileChanged(Exception):
    """A file of the apply no longer holds the bytes the plan read: someone (an editor, a
    sync tool; they do not take the writer lease) wrote it meanwhile."""


@dataclass(frozen=True)
class Change:
    """One file of the apply: ``data`` goes to ``place``; ``create`` for the moved
    document's new path (must not exist), else an edit of an existing file."""

    place: Place
    data: bytes
    create: bool = False
    # SHA-256 of the bytes the plan read from an edited file: the apply goes ahead only
    # while the file still holds them, so a write made since is never renamed over.
    was: str | None = None


def _write_journal(path: Path, record: dict[str, Any]) -> None:
    folder = Folder(None, str(path.parent))  # gno's own data folder, not a collection's
    tmp = path.name + ".tmp"
    folder.unlink(tmp)
    folder.write_new(tmp, json.dumps(record, ensure_ascii=False).encode())
    folder.replace(tmp, path.name)
    folder.sync()


def _sha(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


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


def _spot(place: Place, **more: Any) -> dict[str, Any]:
    """A file as the journal records it: its root and its path below the root."""
    return {"root": str(place.root), "rel": place.rel, **more}


def _place(spot: dict[str, Any]) -> Place:
    return Place(Path(spot["root"]), spot["rel"])


def _record(
    journal_id: str, digest: str, changes: list[Change], remove: Place | None
) -> dict[str, Any]:
    """The journal of an apply about to start: every temporary and backup it will make,
    each beside its file (so in the same held folder)."""
    entries = []
    for n, change in enumerate(changes):
        stem = f"{PREFIX}{journal_id}-{n}"
        entries.append(
            _spot(
                change.place,
                temp=stem + ".tmp",
                backup=None if change.create else stem + ".bak",
                create=change.create,
                newHash=hashlib.sha256(change.data).hexdigest(),
            )
        )
    return {
        "format": FORMAT,
        "id": journal_id,
        "planDigest": digest,
        "phase": "preparing",
        "entries": entries,
        "remove": _spot(remove, backup=f"{PREFIX}{journal_id}-src.bak") if remove else None,
        "madeDirs": [],
    }


def commit(
    data_dir: Path,
    digest: str,
    changes: list[Change],
    remove: Place | None,
    on_step: Callable[[str], None] = _pause,
    *,
    remove_was: str | None = None,
) -> str:
    """Apply ``changes`` and unlink ``remove`` (while it holds the bytes of SHA-256
    ``remove_was``, when given) all-or-nothing; the journal id. Raises
    :class:`CommitFailed` after rolling back (or failing to)."""
    journal_id = secrets.token_hex(8)
    folder = journal_dir(data_dir)
    folder.mkdir(parents=True, exist_ok=True)
    journal = folder / f"{journal_id}.json"
    record = _record(journal_id, digest, changes, remove)
    with Folders() as held:
        try:
            # The folders a move creates are recorded before they exist, so a rollback
            # removes them.
            record["madeDirs"] = [
                _spot(Place(c.place.root, rel))
                for c in changes
                for rel in held.missing(c.place.root, c.place.folder)
            ]
        except (OSError, GnoError) as exc:  # a link on the way: refused, nothing made yet
            raise CommitFailed(str(exc), True, journal_id) from exc
        _write_journal(journal, record)
        try:
            on_step("prepare")
            _prepare(held, record, changes, remove)
            _check_unchanged(held, record, changes, remove_was)
            record["phase"] = "committing"
            _write_journal(journal, record)
            _switch(held, record, remove, on_step)
        except BaseException as exc:
            try:
                _roll_back(record, held)
                journal.unlink(missing_ok=True)
                rolled_back = True
            except OSError:
                rolled_back = False
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise
            stale = isinstance(exc, FileChanged)
            raise CommitFailed(str(exc), rolled_back, journal_id, stale=stale) from exc
        on_step("committed")
        record["phase"] = "committed"
        _write_journal(journal, record)
        on_step("cleanup")
        _clean(record, held)
    journal.unlink(missing_ok=True)
    return journal_id


def _prepare(
    held: Folders, record: dict[str, Any], changes: list[Change], remove: Place | None
) -> None:
    """The new contents in temporaries beside their files, a backup of every original.
    Each folder is opened here, once (a link on the way refuses the apply), and held."""
    folders = [held.get(c.place.root, c.place.folder, create=c.create) for c in changes]
    source = held.get(remove.root, remove.folder) if remove is not None else None
    # An edited file keeps its permission bits, the moved one those of its source: a
    # private (0600) note stays private.
    modes = [
        source.mode(remove.name) if c.create and source and remove else f.mode(c.place.name)
        for c, f in zip(changes, folders, strict=True)
    ]
    # fsync releases the GIL: several at once share the file system's journal commits.
    from concurrent.futures import ThreadPoolExecutor  # not on every sync's import path

    temps = [entry["temp"] for entry in record["entries"]]
    with ThreadPoolExecutor(max_workers=WRITERS) as pool:
        list(pool.map(Folder.write_new, folders, temps, [c.data for c in changes], modes))
    for change, folder, entry in zip(changes, folders, record["entries"], strict=True):
        if entry["backup"]:
            _backup(folder, change.place.name, entry["backup"])
    if source is not None and remove is not None:
        _backup(source, remove.name, record["remove"]["backup"])


def _check_unchanged(
    held: Folders, record: dict[str, Any], changes: list[Change], remove_was: str | None
) -> None:
    """Every edited file, and the moved one, still holds what the plan read. Its backup is
    a hard link to the file as it is now, so reading the backup reads the file; a file
    replaced since the plan read it refuses the apply (``FileChanged``: rolled back)."""
    pairs = [
        (change.place, entry["backup"], change.was)
        for change, entry in zip(changes, record["entries"], strict=True)
        if entry["backup"] and change.was is not None
    ]
    if record.get("remove") and remove_was is not None:
        pairs.append((_place(record["remove"]), record["remove"]["backup"], remove_was))
    for place, backup, was in pairs:
        folder = held.get(place.root, place.folder)
        if _sha(folder.read(backup)) != was:
            raise FileChanged(f"{place.rel} changed since the plan read it")


def _switch(
    held: Folders, record: dict[str, Any], remove: Place | None, on_step: Callable[[str], None]
) -> None:
    """Every file to its new state, each by one link or rename in its held folder."""
    touched: list[Folder] = []
    for entry in record["entries"]:
        on_step("commit")
        place = _place(entry)
        folder = held.get(place.root, place.folder)
        if entry["create"]:
            folder.link(entry["temp"], place.name)  # exclusive: the target appeared → fails
            folder.unlink(entry["temp"])
        else:
            folder.replace(entry["temp"], place.name)
        touched.append(folder)
    if remove is not None:
        on_step("commit")
        source = held.get(remove.root, remove.folder)
        source.unlink(remove.name, missing_ok=False)
        touched.append(source)
    for folder in dict.fromkeys(touched):
        folder.sync()


def _backup(folder: Folder, name: str, backup: str) -> None:
    try:
        folder.link(name, backup)
    except OSError:  # rare: a file system without hard links
        data = folder.read(name)
        if data is None:
            raise
        folder.write_new(backup, data, folder.mode(name))


def _roll_back(record: dict[str, Any], held: Folders) -> None:
    """Back to the old state; safe to run again after a crash in the middle of it. A file
    whose folder can no longer be reached from the root (gone, or a link now) is left, and
    so is one a person changed after the apply wrote it (a crash, then an edit, then the
    recovery): it is newer than the backup, which goes (``_restore``)."""
    source_back = _source_restorable(record, held)
    for entry in record["entries"]:
        place = _place(entry)
        folder = held.reach(place.root, place.folder)
        if folder is None:
            continue
        if entry["create"]:
            # The new document: ours only if it holds what we wrote (a file someone made
            # there after a crash is left alone); and kept while the old path cannot get
            # the note back (someone made a file there), so the note is never lost.
            ours = _sha(folder.read(place.name)) == entry["newHash"]
            if record["phase"] != "preparing" and ours and source_back:
                folder.unlink(place.name)
        elif entry["backup"]:
            _restore(folder, entry["backup"], place.name, entry["newHash"])
        folder.unlink(entry["temp"])
    if record.get("remove"):
        place = _place(record["remove"])
        folder = held.reach(place.root, place.folder)
        if folder is not None:
            _restore(folder, record["remove"]["backup"], place.name, None)
    for spot in sorted(record.get("madeDirs", []), key=lambda s: len(s["rel"]), reverse=True):
        made = _place(spot)
        parent = held.reach(made.root, made.folder)
        with contextlib.suppress(OSError):  # not empty: something else lives there now
            if parent is not None:
                parent.rmdir(made.name)


def _source_restorable(record: dict[str, Any], held: Folders) -> bool:
    """The moved note can go back to its old path: its backup is there and the path is
    free or still the original (not a file someone made there since the apply)."""
    remove = record.get("remove")
    if not remove:
        return True
    place = _place(remove)
    folder = held.reach(place.root, place.folder)
    if folder is None:
        return False
    return folder.lstat(remove["backup"]) is not None and _still_original(
        folder, remove["backup"], place.name
    )


def _still_original(folder: Folder, backup: str, name: str) -> bool:
    """``name`` is gone or still the file ``backup`` keeps: the same file (a hard-link
    backup) or the same bytes (a copy, where the file system has no hard links)."""
    kept, now = folder.lstat(backup), folder.lstat(name)
    if now is None or (kept is not None and os.path.samestat(kept, now)):
        return True
    return _sha(folder.read(name)) == _sha(folder.read(backup)) is not None


def _restore(folder: Folder, backup: str, name: str, ours: str | None) -> None:
    """Put the backup back at ``name`` when ``name`` holds what the apply left there: the
    original itself (nothing renamed over it yet: only the backup link goes, since
    rename(2) between two links of one file does nothing), nothing, or the bytes the apply
    wrote (SHA-256 ``ours``). Anything else was written by someone after the apply — their
    file is newer than the backup and stays; the backup goes."""
    kept = folder.lstat(backup)
    if kept is None:
        return
    now = folder.lstat(name)
    if now is not None and os.path.samestat(kept, now):
        folder.unlink(backup)
    elif (
        now is None
        or _still_original(folder, backup, name)
        or (ours is not None and _sha(folder.read(name)) == ours)
    ):
        folder.replace(backup, name)
    else:
        folder.unlink(backup)


def _clean(record: dict[str, Any], held: Folders) -> None:
    """Drop the temporaries and backups (unlinks run in parallel: the last link of a backup
    frees its inode, a journaled metadata write each)."""
    names = [(e, e["temp"]) for e in record["entries"]]
    names += [(e, e["backup"]) for e in record["entries"] if e["backup"]]
    if record.get("remove"):
        names.append((record["remove"], record["remove"]["backup"]))
    found: list[tuple[Folder, str]] = []
    for spot, name in names:
        place = _place(spot)
        folder = held.reach(place.root, place.folder)
        if folder is not None:
            found.append((folder, name))
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=WRITERS) as pool:
        list(pool.map(lambda held_name: held_name[0].unlink(held_name[1]), found))


def recover(journal: Path) -> str:
    """Finish one journal a crash left: ``rolled_back``, ``committed``, or ``set_aside``
    (renamed ``<id>.json.unreadable``, no file touched) when it is not one this gno reads."""
    try:
        record = json.loads(journal.read_text())
    except (OSError, ValueError):
        journal.unlink(missing_ok=True)  # torn before its first rename: nothing was touched
        return "rolled_back"
    try:
        record = upgraded(record, FORMAT)
    except (KeyError, TypeError, AttributeError):
        record = None
    if not usable(record):
        journal.replace(journal.with_name(journal.name + ".unreadable"))
        return "set_aside"
    with Folders() as held:
        if record.get("phase") == "committed":
            _clean(record, held)
            outcome = "committed"
        else:
            _roll_back(record, held)
            outcome = "rolled_back"
    journal.unlink(missing_ok=True)
    return outcome


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
