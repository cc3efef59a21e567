"""Walk a collection root: files only, hidden entries skipped, directory symlinks
never followed, file symlinks kept only when they resolve inside the root.

A folder that cannot be listed (permissions, I/O error) is reported in
``unreadable`` with its reason: the walk is then incomplete *for that folder*, and the
sync must leave every document under it as it is. Entries that are not regular files
(named pipes, sockets, devices) are yielded with ``special`` set, so the sync can report
them without ever opening one; a symlink to one is dropped like any link that leaves
the root or loops.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from operator import attrgetter
from pathlib import Path
from typing import NamedTuple

from gno.core.globs import FileRules
from gno.file_writes import TEMP_PREFIX
from gno.ingest.reading import inside, special_kind


class WalkEntry(NamedTuple):  # a tuple: one per walked file, built faster than a dataclass
    rel_path: str  # POSIX separators
    abs_path: str
    size: int
    mtime_ns: int
    inode: int
    special: str | None = None  # "named pipe", "socket", … when not a regular file


_NAME = attrgetter("name")


# How many files of excluded folders (build/, node_modules/ …) a walk counts at most: they
# are reported as skipped, and a huge excluded tree must not make every sync slow.
EXCLUDED_COUNT_MAX = 100_000


def count_files(abs_dir: str, limit: int) -> int:
    """Regular files (hidden ones aside) under ``abs_dir``, at most ``limit``; links are
    not followed and a folder that cannot be listed counts nothing."""
    found, stack = 0, [abs_dir]
    while stack and found < limit:
        try:
            with os.scandir(stack.pop()) as listing:
                for entry in listing:
                    if entry.name.startswith("."):
                        continue
                    if entry.is_dir(follow_symlinks=False):
                        stack.append(entry.path)
                    elif entry.is_file(follow_symlinks=False):
                        found += 1
        except OSError:
            continue
    return min(found, limit)


def walk(
    root: Path,
    rules: FileRules,
    unreadable: list[tuple[str, str]] | None = None,
    excluded: list[str] | None = None,
    temps: list[str] | None = None,
) -> Iterator[WalkEntry]:
    """Yield the files of ``root`` the rules accept; ``unreadable`` collects
    ``(rel_dir, reason)`` for each folder that could not be listed ("" is the root);
    ``excluded`` the absolute paths of the folders the rules exclude (not entered);
    ``temps`` the absolute paths of hidden entries named like a write's temporary file
    (``.gno-tmp-*``; the sync removes stale ones: ``file_writes.remove_stale_temps``)."""
    real_root = os.path.realpath(root)
    stack = [("", real_root)]
    while stack:
        rel_dir, abs_dir = stack.pop()
        try:
            with os.scandir(abs_dir) as listing:
                entries = sorted(listing, key=_NAME)
        except FileNotFoundError:
            continue  # removed while walking: its files are gone too
        except OSError as exc:
            if unreadable is not None:
                unreadable.append((rel_dir, exc.strerror or type(exc).__name__))
            continue
        subdirs = []
        for entry in entries:
            name = entry.name
            if name.startswith("."):
                # from the listing already made: finding a crash's leftovers costs no I/O
                if temps is not None and name.startswith(TEMP_PREFIX):
                    temps.append(entry.path)
                continue
            rel = f"{rel_dir}/{name}" if rel_dir else name
            try:
                if entry.is_dir(follow_symlinks=False):
                    if not rules.dir_excluded(rel, name):
                        subdirs.append((rel, entry.path))
                    elif excluded is not None:
                        excluded.append(entry.path)
                    continue
                if not rules.accepts(rel):
                    continue
                if entry.is_symlink():
                    # realpath stops at a loop; the target must be a regular file in the root
                    target = os.path.realpath(entry.path)
                    if not inside(target, real_root) or target == real_root:
                        continue
                    st = os.stat(target)
                    if not stat.S_ISREG(st.st_mode):
                        continue
                else:
                    st = entry.stat(follow_symlinks=False)
            except OSError:
                continue  # vanished, looping or unreadable link while walking: treated as absent
            special = None if stat.S_ISREG(st.st_mode) else special_kind(st.st_mode)
            yield WalkEntry(rel, entry.path, st.st_size, st.st_mtime_ns, st.st_ino, special)
        stack.extend(reversed(subdirs))
