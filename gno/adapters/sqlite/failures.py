"""What a failure of the index file itself means to the user: SQLite's errors for a full
disk, a read-only file or folder, damaged pages or an I/O error, as gno errors (the store
maps them at the adapter edge; a constraint or a bad statement stays a bug)."""

from __future__ import annotations

from pathlib import Path

import apsw

from gno.errors import DiskFullError, GnoError, IndexFileError


def disk_full(path: Path) -> DiskFullError:
    return DiskFullError(
        f"The disk holding the index is full ({path.parent}): nothing of the last batch was "
        "written; free some space and run the command again"
    )


def file_failure(path: Path, exc: BaseException) -> GnoError | None:
    """What a failure of the index file itself means to the user, else None."""
    if isinstance(exc, apsw.FullError):
        return disk_full(path)
    if isinstance(exc, apsw.ReadOnlyError | apsw.PermissionsError):
        return IndexFileError(
            f"The index {path} cannot be written (is the file or its folder read-only?): {exc}"
        )
    if isinstance(exc, apsw.CorruptError | apsw.NotADBError):
        return IndexFileError(
            f"The index {path} is damaged ({exc}): `gno doctor` says how to rebuild it"
        )
    if isinstance(exc, apsw.IOError | apsw.CantOpenError):
        return IndexFileError(f"Cannot read or write the index {path}: {exc}")
    return None
