"""Reading and safely rewriting client config files.

A write keeps the previous file as ``<name>.bak``, goes through a temporary file
in the same folder and ``os.replace`` (a crash leaves the old file or the new one,
never half of one), follows a symlinked config to its real file (dotfile
managers), and keeps the file's permissions.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import tempfile
from pathlib import Path

from gno.errors import ClientConfigError, GnoError


def read_text(path: Path) -> str | None:
    """The file's text exactly as stored (line endings kept), None when it does not exist."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise GnoError(
            f"Cannot read {path}: {exc.strerror or exc}", details={"path": str(path)}
        ) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ClientConfigError(
            f"{path} is not UTF-8 text; gno left it untouched", details={"path": str(path)}
        ) from None


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_atomic(path: Path, text: str) -> Path | None:
    """Write ``text`` to ``path``; returns the backup of the previous file, if there was one."""
    real = path.resolve() if path.is_symlink() else path
    backup: Path | None = None
    try:
        real.parent.mkdir(parents=True, exist_ok=True)
        if real.exists():
            backup = real.with_name(real.name + ".bak")
            shutil.copyfile(real, backup)  # not copy2: it would copy *into* a folder
            shutil.copystat(real, backup)
            mode = stat.S_IMODE(real.stat().st_mode)
        else:
            mode = 0o666 & ~_umask()
        fd, tmp = tempfile.mkstemp(dir=real.parent, prefix=f".{real.name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(text.encode("utf-8"))
                handle.flush()
                os.fsync(handle.fileno())
            os.chmod(tmp, mode)
            os.replace(tmp, real)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
    except OSError as exc:
        raise GnoError(
            f"Cannot write {path}: {exc.strerror or exc}", details={"path": str(path)}
        ) from None
    return backup
