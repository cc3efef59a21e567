"""Reading and safely rewriting client config files.

A read opens the file without blocking and takes only a regular file of at most
``MAX_CLIENT_CONFIG_BYTES`` (``gno.ingest.reading``): a named pipe or device left
where a client keeps its config must not hang ``gno mcp status`` nor fill memory.

A write keeps the previous file as ``<name>.bak``, goes through a temporary file
in the same folder and ``os.replace`` (a crash leaves the old file or the new one,
never half of one), follows a symlinked config to its real file (dotfile
managers), and keeps the file's permissions. The backup is written the same way,
so a ``.bak`` that is a symlink is replaced, never written through to its target.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from gno.errors import ClientConfigError, GnoError
from gno.file_replace import kept_mode, real_file, replace_file
from gno.ingest.reading import FileTooLarge, NotRegularFile, read_regular

# Claude Code's ~/.claude.json keeps per-project history and grows to megabytes.
MAX_CLIENT_CONFIG_BYTES = 64 * 1024 * 1024


def read_text(path: Path) -> str | None:
    """The file's text exactly as stored (line endings kept), None when it does not exist."""
    try:
        data = read_regular(str(path), MAX_CLIENT_CONFIG_BYTES)
    except FileNotFoundError:
        return None
    except (NotRegularFile, FileTooLarge) as exc:
        raise ClientConfigError(
            f"Cannot read {path}: {exc}; gno left it untouched", details={"path": str(path)}
        ) from None
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


def write_atomic(path: Path, text: str) -> Path | None:
    """Write ``text`` to ``path``; returns the backup of the previous file, if there was one."""
    backup: Path | None = None
    try:
        real = real_file(path)
        real.parent.mkdir(parents=True, exist_ok=True)
        mode = kept_mode(real)
        if mode is not None:
            backup = real.with_name(real.name + ".bak")
            with real.open("rb") as source:
                replace_file(backup, lambda out: shutil.copyfileobj(source, out), mode)
        replace_file(real, lambda out: out.write(text.encode("utf-8")), mode)
    except OSError as exc:
        raise GnoError(
            f"Cannot write {path}: {exc.strerror or exc}", details={"path": str(path)}
        ) from None
    return backup
