"""The one error tree of gno.

Every failure a user can see is a ``GnoError``. Each class carries the three
surface mappings, so no surface guesses: the CLI exit code, the REST status and
the wire ``code`` (REST envelope and MCP ``structuredContent.error``). The CLI
``error@1.0`` envelope only knows ``VALIDATION`` and ``RUNTIME``: it derives
that from the exit code.

    GnoError (RUNTIME, 500, exit 2)
    ├── ValidationError (VALIDATION, 400, exit 1)
    │   ├── InvalidPathError (INVALID_PATH)
    │   ├── PathNotFoundError (PATH_NOT_FOUND)
    │   └── ConfigError (VALIDATION: malformed index.yml)
    ├── NotFoundError (NOT_FOUND, 404, exit 1)
    │   └── DocumentNotFoundError (NOT_FOUND, 404, exit 2: `gno get` mirrors GNO)
    ├── DuplicateError (DUPLICATE, 409, exit 1)
    ├── ConflictError (CONFLICT, 409, exit 2)
    ├── ClientConfigError (RUNTIME, 500, exit 2: another program's config file gno cannot edit)
    ├── LockedError (LOCKED, 409, exit 2: another writer holds the index)
    ├── NotInitializedError (RUNTIME, 500, exit 2)
    ├── UnavailableError (UNAVAILABLE, 503, exit 2)
    ├── DiskFullError (DISK_FULL, 507, exit 2: SQLite could not grow the index)
    └── InterruptedByUser (INTERRUPTED, 499, exit 130)
"""

from __future__ import annotations

from typing import Any, ClassVar


class GnoError(Exception):
    code: ClassVar[str] = "RUNTIME"
    http_status: ClassVar[int] = 500
    exit_code: ClassVar[int] = 2

    def __init__(self, message: str, *, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.details = details

    @property
    def cli_code(self) -> str:
        return "VALIDATION" if self.exit_code == 1 else "RUNTIME"


class ValidationError(GnoError):
    code = "VALIDATION"
    http_status = 400
    exit_code = 1


class InvalidPathError(ValidationError):
    code = "INVALID_PATH"


class PathNotFoundError(ValidationError):
    code = "PATH_NOT_FOUND"


class ConfigError(ValidationError):
    code = "VALIDATION"


class NotFoundError(GnoError):
    code = "NOT_FOUND"
    http_status = 404
    exit_code = 1


class DocumentNotFoundError(NotFoundError):
    exit_code = 2


class DuplicateError(GnoError):
    code = "DUPLICATE"
    http_status = 409
    exit_code = 1


class ConflictError(GnoError):
    code = "CONFLICT"
    http_status = 409


class ClientConfigError(GnoError):
    """A client's config file (Claude Desktop, Cursor, …) is malformed or not what
    gno expects; the file is left untouched and its path is in ``details``."""


class LockedError(GnoError):
    code = "LOCKED"
    http_status = 409


class NotInitializedError(GnoError):
    code = "RUNTIME"


class UnavailableError(GnoError):
    code = "UNAVAILABLE"
    http_status = 503


class DiskFullError(GnoError):
    """The disk (or the index's size limit) is full: the open transaction was rolled back,
    every earlier batch is kept, and the same command can be run again once space is freed."""

    code = "DISK_FULL"
    http_status = 507


class InterruptedByUser(GnoError):
    code = "INTERRUPTED"
    http_status = 499
    exit_code = 130
