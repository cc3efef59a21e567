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
    │   ├── ConfigError (VALIDATION: malformed index.yml)
    │   ├── FrontmatterError (VALIDATION: frontmatter too deep to parse or too large to edit)
    │   └── HasReferencesError (HAS_REFERENCES: contexts still name the collection)
    ├── ForbiddenError (FORBIDDEN, 403, exit 1: a doc asset outside its collection)
    ├── NotFoundError (NOT_FOUND, 404, exit 1)
    │   └── DocumentNotFoundError (NOT_FOUND, 404, exit 2: `gno get` mirrors GNO)
    ├── FileMissingError (FILE_NOT_FOUND, 404, exit 1: a doc asset that is not there)
    ├── DuplicateError (DUPLICATE, 409, exit 1)
    ├── ConflictError (CONFLICT, 409, exit 2)
    │   ├── JobConflictError (JOB_CONFLICT: a job of that lane is running)
    │   ├── StalePlanError (STALE_PLAN: a refactor plan no longer matches the files)
    │   └── ClientConfigError (CONFLICT: another program's config file gno cannot edit)
    ├── LockedError (LOCKED, 409, exit 2: another writer holds the index)
    ├── OwnerLockedError (LOCKED, 409, exit 2: another server owns the data directory)
    ├── NotInitializedError (UNAVAILABLE, 503, exit 2: no index.yml, or no index file yet)
    ├── NewerIndexError (RUNTIME, 500, exit 2: an index a newer gno wrote; never migrated down)
    ├── IndexFileError (RUNTIME, 500, exit 2: the index file is read-only, damaged or unreadable)
    ├── GatewayConfigError (RUNTIME, 500, exit 2: a listener that may not start as configured)
    ├── PortUnavailableError (RUNTIME, 500, exit 2: the address cannot be bound)
    ├── ProcessError (RUNTIME, 500, exit 2: a detached start or a stop that failed)
    ├── QueueFullError (QUEUE_FULL, 429, exit 2: too many syncs already wait)
    ├── ReadersBusyError (RATE_LIMITED, 429, exit 2: every reader busy, the queue full)
    ├── UnavailableError (UNAVAILABLE, 503, exit 2)
    │   ├── ModelUnavailableError (MODEL_UNAVAILABLE: not on disk, may not be fetched)
    │   └── ModelDownloadError (MODEL_DOWNLOAD_FAILED: a download was tried and failed)
    ├── DiskFullError (DISK_FULL, 507, exit 2: SQLite could not grow the index)
    ├── SectionUnresolvableError (SECTION_UNRESOLVABLE, 422, exit 1: no such section here)
    ├── ServerUnreachableError (UNAVAILABLE, 503, exit 2: the SDK found no server at the URL)
    ├── InvalidServerAnswerError (RUNTIME, 500, exit 2: the SDK's server answered what no gno sends)
    ├── ContextError (runtime_error, 500, exit 2: Context Capsule errors, GNO's lowercase codes)
    │   ├── ContextInputError (invalid_input, 400, exit 1)
    │   ├── InvalidGoalError (invalid_goal, 400, exit 1)
    │   ├── InvalidBudgetError (invalid_budget, 400, exit 1)
    │   ├── InvalidFilterError (invalid_filter, 400, exit 1: unknown collection, bad tag or date)
    │   ├── InvalidUriError (invalid_uri, 400, exit 1)
    │   ├── IdentityMismatchError (identity_mismatch, 400, exit 1: forged capsuleId, another index)
    │   ├── NoEvidenceError (no_evidence, 404, exit 1)
    │   ├── ChunkCoordinateMismatchError (chunk_coordinate_mismatch, 409, exit 2)
    │   ├── IndexChangedDuringCompileError (index_changed_during_compile, 409, exit 2)
    │   └── IndexChangedDuringVerifyError (index_changed_during_verify, 409, exit 2)
    ├── InterruptedByUser (INTERRUPTED, 499, exit 130)
    ├── Cancelled (CANCELLED, 499, exit 130: stopped at a checkpoint; never sent to anyone)
    │   (retrieval traces, spec/traces.md)
    ├── NotFoundError …
    │   ├── TraceNotFoundError (NOT_FOUND, 404, exit 1: no such trace in this index; id never echoed)
    │   └── ExportNotFoundError (NOT_FOUND, 404, exit 1: no such trace export)
    ├── ConflictError …
    │   └── TraceFullError (CONFLICT, 409, exit 2: the trace holds maxRecordsPerTrace records)
    │   (lane writes:)
    ├── ReadOnlyError (READ_ONLY, 409, exit 1: a document or collection gno may not write, a read-only SDK client)
    ├── CaptureSyncFailedError (CAPTURE_SYNC_FAILED, 500, exit 2: written, not indexed)
    ├── ConflictError …
    │   └── MemorySupersedeConflictError (MEMORY_SUPERSEDE_CONFLICT: changed or already superseded)
    └── ValidationError …
        ├── MemoryFencedReplayError (MEMORY_FENCED_REPLAY: the text replays a recalled span)
        └── MemoryFencedDerivedError (MEMORY_FENCED_DERIVED: derivedFrom names a gno:// URI)
    (collection egress, spec/egress.md)
    ├── EgressDeniedError (EGRESS_DENIED, 403, exit 2: a collection's egress policy refuses this caller)
    └── EgressPolicyChangedError (EGRESS_POLICY_CHANGED, 409, exit 2: policy changed mid-request)
"""

from __future__ import annotations

from typing import Any, ClassVar


def error_body(code: str, message: str, details: Any = None) -> dict[str, Any]:
    """The error envelope every surface answers (`error@1.0` on the CLI's stderr, REST
    bodies): ``{"error": {"code", "message", "details"?}}``."""
    body: dict[str, Any] = {"code": code, "message": message}
    if details:
        body["details"] = details
    return {"error": body}


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


class FrontmatterError(ValidationError, ValueError):
    """Frontmatter gno refuses to parse (``gno.core.frontmatter``: nested deeper than
    ``MAX_FRONTMATTER_DEPTH``) or to rewrite (``gno.core.frontmatter_edit``: a block past
    ``MAX_EDIT_FRONTMATTER_CHARS``). A sync makes it the file's ingest error; a write that
    starts from the file on disk (a tag edit, a capture opening it, a memory supersede)
    answers ``VALIDATION`` with nothing written."""


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


class ClientConfigError(ConflictError):
    """A client's config file (Claude Desktop, Cursor, …) is malformed or not what
    gno expects; the file is left untouched and its path is in ``details``. A conflict
    with the file on disk (409 on REST, exit 2 on the CLI), not an internal error (500)."""


class LockedError(GnoError):
    code = "LOCKED"
    http_status = 409


class NewerIndexError(GnoError):
    """The index's schema is newer than this gno knows: it is refused before anything is
    written, since an older gno would write rows the newer schema does not expect."""

    code = "RUNTIME"


class IndexFileError(GnoError):
    """SQLite could not read or write the index file itself (a read-only file or folder,
    damaged pages, an I/O error): the open transaction was rolled back. Also a lock file
    of the data folder that cannot be opened (a read-only folder): nothing was done."""

    code = "RUNTIME"


class UnavailableError(GnoError):
    code = "UNAVAILABLE"
    http_status = 503


class NotInitializedError(GnoError):
    """No index.yml, or no index file at the index path (never made, or deleted under a
    running server): a state the message names the fix for (``gno init``, ``gno update``),
    not a fault of the server, so REST answers 503 ``UNAVAILABLE`` as for a missing model.
    Not an ``UnavailableError``: code that degrades on a missing model must not swallow it."""

    code = "UNAVAILABLE"
    http_status = 503
    # Defined after UnavailableError: the SDK maps a wire code to the first class with it.


class DiskFullError(GnoError):
    """The disk (or the index's size limit) is full: the open transaction was rolled back,
    every earlier batch is kept, and the same command can be run again once space is freed."""

    code = "DISK_FULL"
    http_status = 507


class InterruptedByUser(GnoError):
    code = "INTERRUPTED"
    http_status = 499
    exit_code = 130


class HasReferencesError(ValidationError):
    code = "HAS_REFERENCES"


class ForbiddenError(GnoError):
    code = "FORBIDDEN"
    http_status = 403
    exit_code = 1


class FileMissingError(GnoError):
    code = "FILE_NOT_FOUND"
    http_status = 404
    exit_code = 1


class JobConflictError(ConflictError):
    code = "JOB_CONFLICT"


class OwnerLockedError(GnoError):
    code = "LOCKED"
    http_status = 409


class GatewayConfigError(GnoError):
    """A listener that may not start as configured (exit 2)."""


class PortUnavailableError(GnoError):
    code = "RUNTIME"


class ProcessError(GnoError):
    """A detached start or a stop that failed (exit 2)."""


class QueueFullError(GnoError):
    code = "QUEUE_FULL"
    http_status = 429


class ReadersBusyError(GnoError):
    code = "RATE_LIMITED"
    http_status = 429


class ModelUnavailableError(UnavailableError):
    code = "MODEL_UNAVAILABLE"


class ModelDownloadError(UnavailableError):
    """A download was tried and failed (hub error, network, or a file that is not a valid GGUF)."""

    code = "MODEL_DOWNLOAD_FAILED"


class Cancelled(GnoError):
    """The work was cancelled at a checkpoint; its caller no longer waits for it."""

    code = "CANCELLED"
    http_status = 499  # client closed request: never actually sent to anyone
    exit_code = 130


class SectionUnresolvableError(GnoError):
    """A section target cannot be made or read here: no heading at that anchor or line,
    or a target made for another document."""

    code = "SECTION_UNRESOLVABLE"
    http_status = 422
    exit_code = 1


# ===== errors added by lane graph (keep them below this line) =====


# ===== errors added by lane writes (keep them below this line) =====


class ReadOnlyError(GnoError):
    """A write gno refuses: a converted document, a ``readOnly`` collection, or a write
    through an SDK client opened read-only (the default)."""

    code = "READ_ONLY"
    http_status = 409
    exit_code = 1


class CaptureSyncFailedError(GnoError):
    """The file was written but could not be indexed; ``details`` names it."""

    code = "CAPTURE_SYNC_FAILED"


class MemorySupersedeConflictError(ConflictError):
    code = "MEMORY_SUPERSEDE_CONFLICT"


class MemoryFencedReplayError(ValidationError):
    code = "MEMORY_FENCED_REPLAY"


class MemoryFencedDerivedError(ValidationError):
    code = "MEMORY_FENCED_DERIVED"


# ===== errors added by lane refactor (keep them below this line) =====


class StalePlanError(ConflictError):
    """A rename/move apply whose plan no longer matches the files (or cannot be applied):
    REST answers 409 with the apply result in ``details``."""

    code = "STALE_PLAN"


# ===== errors added by lane context (keep them below this line) =====
class ContextError(GnoError):
    """A Context Capsule failure: GNO spells these codes in lowercase (surfaces.md §3.4
    gno_context), on REST and MCP alike; the message is the code's fixed catalog text."""

    code = "runtime_error"


class ContextInputError(ContextError):
    code = "invalid_input"
    http_status = 400
    exit_code = 1


class InvalidGoalError(ContextInputError):
    code = "invalid_goal"


class InvalidBudgetError(ContextInputError):
    code = "invalid_budget"


class InvalidFilterError(ContextInputError):
    code = "invalid_filter"


class InvalidUriError(ContextInputError):
    code = "invalid_uri"


class IdentityMismatchError(ContextInputError):
    code = "identity_mismatch"


class NoEvidenceError(ContextError):
    code = "no_evidence"
    http_status = 404
    exit_code = 1


class ChunkCoordinateMismatchError(ContextError):
    code = "chunk_coordinate_mismatch"
    http_status = 409


class IndexChangedDuringCompileError(ContextError):
    code = "index_changed_during_compile"
    http_status = 409


class IndexChangedDuringVerifyError(ContextError):
    code = "index_changed_during_verify"
    http_status = 409


# ===== errors added by lane setup (keep them below this line) =====


class ServerUnreachableError(UnavailableError):
    """The SDK's remote transport could not connect to (or hear back from) the server in
    time; the message names the URL."""

    code = "UNAVAILABLE"


# ===== errors added by lane records (keep them below this line) =====


# ===== errors added by lane egress (keep them below this line) =====


class EgressDeniedError(GnoError):
    """A collection's egress policy refuses content to this caller's zone (spec/egress.md).
    ``details`` carries the reason and the content-free audit receipt, never content."""

    code = "EGRESS_DENIED"
    http_status = 403
    exit_code = 2


class EgressPolicyChangedError(GnoError):
    """A policy of the request's collections changed while it ran: nothing is sent; the
    caller retries and is judged by the new policy."""

    code = "EGRESS_POLICY_CHANGED"
    http_status = 409
    exit_code = 2


# ===== errors added by lane traces (keep them below this line) =====


class TraceNotFoundError(NotFoundError):
    """A retrieval trace id this index does not hold (never existed, expired, deleted, or
    of another index). The message never echoes the id (spec/traces.md)."""

    def __init__(self, message: str = "Retrieval trace not found") -> None:
        super().__init__(message)


class ExportNotFoundError(NotFoundError):
    """A trace export id this index does not hold."""

    def __init__(self, message: str = "Retrieval trace export not found") -> None:
        super().__init__(message)


class TraceFullError(ConflictError):
    """A trace already holds ``retention.maxRecordsPerTrace`` records."""

    def __init__(self, message: str = "Retrieval trace record limit reached") -> None:
        super().__init__(message)


# ===== errors added by lane remote (keep them below this line) =====


class InvalidServerAnswerError(GnoError):
    """The SDK's remote transport got an answer no gno server sends: too large, compressed
    though none was asked for, not JSON, or not the operation's output model. The server
    (or whatever answers at its URL) is broken or hostile; the message names the URL.
    Raised on the client only, so it keeps the base class's mappings."""
