"""Compiled project context as a file: GNO's SDK file helpers compile, check and refresh,
over the registry operations ``context_compiled_preview`` and ``context_compiled_check``,
so they work alike on a local and a remote ``Gno`` client (spec/context.md).

    from gno import Gno
    from gno.sdk.compiled_files import check_file, compile_file, refresh_file

    with Gno() as gno:
        compile_file(gno, capsule, "AGENTS.context.md", budget_tokens=4000)
        check_file(gno, capsule, "AGENTS.context.md").status   # current | stale | ...

The file is written through a temporary file beside it and renamed (``write_atomic``), so a
reader sees the old document or the new one. ``refresh_file`` rewrites a ``stale`` document
(evidence that changed is left out); hand edits (``modified``) and other files
(``foreign``) are never overwritten unless ``force=True``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from gno_contracts.models.context_compiled_check import ContextCompiledCheck
from gno_contracts.models.context_compiled_preview import ContextCompiledPreview

from gno.errors import InvalidPathError, PathNotFoundError, ValidationError
from gno.file_writes import write_atomic

MAX_FILE_BYTES = 16 * 1024 * 1024  # a compiled document is at most 4,000,000 bytes


def compile_file(
    gno: Any,
    capsule: dict[str, Any],
    path: str | Path,
    *,
    budget_tokens: int,
    budget_bytes: int | None = None,
) -> ContextCompiledPreview:
    """Compile ``capsule`` under the budget and write the document to ``path``."""
    args: dict[str, Any] = {"capsule": capsule, "budgetTokens": budget_tokens}
    if budget_bytes is not None:
        args["budgetBytes"] = budget_bytes
    preview: ContextCompiledPreview = gno.context_compiled_preview(**args)
    write_atomic(Path(path), preview.markdown.encode("utf-8"))
    return preview


def read_file(path: str | Path) -> str:
    """A kept document: a regular file of at most 16 MiB of UTF-8, opened without blocking
    and checked on that descriptor (no named pipe swapped in after a stat is waited on). A
    file that is missing or no file is the path's problem (PATH_NOT_FOUND, INVALID_PATH);
    one too large or not UTF-8 is its content's (VALIDATION)."""
    from gno.ingest.reading import FileTooLarge, NotRegularFile, read_regular

    target = Path(path)
    try:
        raw = read_regular(os.fspath(target), MAX_FILE_BYTES)
    except FileNotFoundError:
        raise PathNotFoundError(f"No compiled context at {target}") from None
    except NotRegularFile:
        raise InvalidPathError(f"{target} is not a regular file") from None
    except FileTooLarge:
        raise ValidationError(f"{target} is over {MAX_FILE_BYTES} bytes") from None
    except OSError as exc:
        raise InvalidPathError(f"Cannot read {target}: {exc.strerror or exc}") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ValidationError(f"{target} is not UTF-8 text") from None


def check_file(gno: Any, capsule: dict[str, Any], path: str | Path) -> ContextCompiledCheck:
    """Whether the document at ``path`` is still what ``capsule`` compiles to."""
    checked: ContextCompiledCheck = gno.context_compiled_check(
        capsule=capsule, markdown=read_file(path)
    )
    return checked


def refresh_file(
    gno: Any,
    capsule: dict[str, Any],
    path: str | Path,
    *,
    force: bool = False,
    budget_tokens: int | None = None,
    budget_bytes: int | None = None,
) -> tuple[ContextCompiledCheck, ContextCompiledPreview | None]:
    """Check the document and compile it again when it is ``stale`` (evidence that changed
    is then left out; ``recovery: rebuild_capsule`` still says a new Capsule would hold the
    new text), or, with ``force``, when it was edited or is foreign. The budget is the one
    given, else the header's. Returns the check and the new preview, or None when nothing
    was written."""
    checked = check_file(gno, capsule, path)
    status = checked.status.value
    writable = status == "stale" or (force and status in ("modified", "foreign"))
    header = checked.header
    tokens = budget_tokens if budget_tokens is not None else header and header.budgetTokens
    if not writable or not tokens:
        return checked, None
    if budget_bytes is None and budget_tokens is None and header is not None:
        budget_bytes = header.budgetBytes
    preview = compile_file(gno, capsule, path, budget_tokens=tokens, budget_bytes=budget_bytes)
    return checked, preview
