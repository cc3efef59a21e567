"""Ports of ingestion: what a converter (``adapters/converters``) promises, and the error
codes recorded per file.

Invariants each converter must keep are in the docstrings; ``gno.ports`` re-exports these
names for the services.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, runtime_checkable

# Ingest error codes recorded per file (``ingest_errors.code``). The first four
# are permanent for unchanged bytes: a file failing with them is not retried
# until its bytes change.
CORRUPT = "CORRUPT"
PERMISSION = "PERMISSION"
TOO_LARGE = "TOO_LARGE"
UNSUPPORTED = "UNSUPPORTED"
CONVERSION_FAILED = "CONVERSION_FAILED"
NOT_FOUND = "NOT_FOUND"
READ_ERROR = "READ_ERROR"
INVALID_NAME = "INVALID_NAME"  # a file name that is not UTF-8: reported, never stored
TIMEOUT = "TIMEOUT"  # the converter ran past its deadline (retried: it may be the machine)
PERMANENT_CODES = frozenset({CORRUPT, PERMISSION, TOO_LARGE, UNSUPPORTED})


@dataclass(frozen=True)
class ConversionWarning:
    """Something a converter could not carry over exactly."""

    code: str  # LOSSY | TRUNCATED | PARTIAL | UNSUPPORTED_FEATURE | LOW_CONFIDENCE
    message: str


@dataclass(frozen=True)
class Conversion:
    """What a converter produced. ``markdown`` is raw: the mirror canonicalizes it."""

    markdown: str
    title: str | None
    converter_id: str
    converter_version: str
    warnings: tuple[ConversionWarning, ...] = field(default=())


class ConversionError(Exception):
    """A file could not be converted. ``code`` is one of the ingest codes above."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@runtime_checkable
class Converter(Protocol):
    """Turns one source file into Markdown.

    Invariants: ``convert`` never raises anything but ``ConversionError`` for a
    bad file (corrupt, encrypted, unsupported); it does not write anywhere; it
    is deterministic for the same bytes.
    """

    id: str
    version: str

    def can_handle(self, ext: str, mime: str) -> bool: ...

    def convert(self, path: Path, data: bytes, ext: str, mime: str) -> Conversion: ...
