"""Walk a collection root: files only, hidden entries skipped, directory symlinks
never followed, file symlinks kept only when they resolve inside the root."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from gno.core.globs import FileRules


@dataclass(frozen=True, slots=True)
class WalkEntry:
    rel_path: str  # POSIX separators
    abs_path: str
    size: int
    mtime_ns: int
    inode: int


def walk(root: Path, rules: FileRules) -> Iterator[WalkEntry]:
    real_root = os.path.realpath(root)
    stack = [("", real_root)]
    while stack:
        rel_dir, abs_dir = stack.pop()
        try:
            entries = sorted(os.scandir(abs_dir), key=lambda e: e.name)
        except (PermissionError, FileNotFoundError, NotADirectoryError):
            continue
        subdirs = []
        for entry in entries:
            name = entry.name
            if name.startswith("."):
                continue
            rel = f"{rel_dir}/{name}" if rel_dir else name
            try:
                if entry.is_dir(follow_symlinks=False):
                    if not rules.dir_excluded(rel, name):
                        subdirs.append((rel, entry.path))
                    continue
                if not rules.accepts(rel):
                    continue
                if entry.is_symlink():
                    target = os.path.realpath(entry.path)
                    if not target.startswith(real_root + os.sep) or not os.path.isfile(target):
                        continue
                    st = os.stat(target)
                elif entry.is_file(follow_symlinks=False):
                    st = entry.stat(follow_symlinks=False)
                else:
                    continue
            except OSError:
                continue  # vanished or unreadable while walking: treated as absent
            yield WalkEntry(rel, entry.path, st.st_size, st.st_mtime_ns, st.st_ino)
        stack.extend(reversed(subdirs))
