"""Reading and safely rewriting client config files.

A read opens the file without blocking and takes only a regular file of at most
``MAX_CLIENT_CONFIG_BYTES`` (``gno.ingest.reading``): a named pipe or device left
where a client keeps its config must not hang ``gno mcp status`` nor fill memory.

A write keeps the previous file as ``<name>.bak``, goes through a temporary file
in the same folder and ``os.replace`` (a crash leaves the old file or the new one,
never half of one), follows a symlinked config to its real file (dotfile
managers), and keeps the file's permissions. The backup is written the same way,
so a ``.bak`` that is a symlink is replaced, never written through to its target.

The client owns the file and does not wait for gno: Claude Code rewrites ~/.claude.json
while it runs. So the rename goes ahead only while the file still holds the text gno
read and edited (or is still missing); a save the client made meanwhile is ``CONFLICT``
and stays as the client wrote it. A file its owner made read-only is refused before
anything is written (``check_writable``): a rename in its folder would replace it all
the same, since the mode guards only writes into the file.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from gno.errors import ClientConfigError, ConflictError, GnoError
from gno.file_replace import kept_mode, read_only, real_file, replace_file
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


def check_writable(path: Path) -> None:
    """``ClientConfigError`` when the existing file (through its links) is read-only
    (``gno.file_replace.read_only``)."""
    if read_only(path):
        raise ClientConfigError(
            f"{path} is read-only; gno left it untouched (make it writable to let gno edit it)",
            details={"path": str(path)},
        )


def write_atomic(path: Path, text: str, replacing: str | None) -> Path | None:
    """Write ``text`` to ``path`` in place of ``replacing`` (the text read and edited; None:
    there was no file); returns the backup of the previous file, if there was one."""
    check_writable(path)
    backup: Path | None = None
    try:
        real = real_file(path)
        real.parent.mkdir(parents=True, exist_ok=True)

        def unchanged() -> None:
            if _text_now(real) != replacing:  # the rename would drop the client's save
                raise ConflictError(
                    f"{path} changed while gno was editing it (its client saved it); gno left "
                    "it as the client wrote it: run the command again",
                    details={"path": str(path)},
                )

        unchanged()  # before the backup, which would hold the client's save otherwise
        mode = kept_mode(real)
        if mode is not None:
            backup = real.with_name(real.name + ".bak")
            with real.open("rb") as source:
                replace_file(backup, lambda out: shutil.copyfileobj(source, out), mode)
        fill = text.encode("utf-8")
        replace_file(real, lambda out: out.write(fill), mode, before_rename=unchanged)
    except OSError as exc:
        raise GnoError(
            f"Cannot write {path}: {exc.strerror or exc}", details={"path": str(path)}
        ) from None
    return backup


_UNREADABLE = object()  # equal to no text read: a file no longer readable has changed


def _text_now(real: Path) -> object:
    """What the file holds now, as ``read_text`` reads it (None: missing)."""
    try:
        return read_text(real)
    except GnoError:
        return _UNREADABLE
