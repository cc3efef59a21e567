"""One HTTP byte range (RFC 9110 §14) for /api/doc-asset: ``bytes=a-b``, ``a-``, ``-n``.

GNO serves one range per request: several ranges are refused (416) rather than
answered as ``multipart/byteranges``. A header that is not a syntactically valid
``bytes`` range is ignored, as RFC 9110 allows, so the whole file is sent.

The static files (``/assets``, ``/docs/assets``) are Starlette's, which answer such a
header with a plain-text 400 (even another unit, which RFC 9110 says to ignore):
``IgnoreInvalidRange`` drops it before them, so every file route ignores it alike.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from typing import Any

_SPEC = re.compile(r"^\s*(\d*)\s*-\s*(\d*)\s*$")


class Unsatisfiable(Exception):
    """416: the range starts past the end, asks for 0 bytes, or there are several."""


@dataclass(frozen=True)
class ByteRange:
    start: int
    end: int  # inclusive

    @property
    def length(self) -> int:
        return self.end - self.start + 1

    def content_range(self, size: int) -> str:
        return f"bytes {self.start}-{self.end}/{size}"


def _specs(header: str) -> list[tuple[str, str]] | None:
    """The (first, last) digit strings of a syntactically valid ``bytes`` range set, else
    None: another unit or none, an empty or non-numeric spec, a last before its first."""
    unit, sep, specs = header.partition("=")
    if not sep or unit.strip().lower() != "bytes":
        return None
    found: list[tuple[str, str]] = []
    for part in specs.split(","):
        match = _SPEC.match(part)
        if match is None or match.groups() == ("", ""):
            return None
        first, last = match.groups()
        if first and last and int(last) < int(first):
            return None
        found.append((first, last))
    return found


def parse_range(header: str | None, size: int) -> ByteRange | None:
    """The range to send for a ``Range`` header and a file of ``size`` bytes; None means
    the whole file. Raises ``Unsatisfiable`` for a 416."""
    if header is None:
        return None
    specs = _specs(header)
    if specs is None:
        return None  # not a valid bytes range set: ignored
    if len(specs) > 1:
        raise Unsatisfiable("only one byte range per request")
    first, last = specs[0]
    if not first:  # suffix: the last n bytes
        suffix = int(last)
        if suffix == 0 or size == 0:
            raise Unsatisfiable("empty suffix range")
        return ByteRange(max(0, size - suffix), size - 1)
    start = int(first)
    if start >= size:
        raise Unsatisfiable("range starts past the end of the file")
    end = min(int(last), size - 1) if last else size - 1
    return ByteRange(start, end)


Scope = MutableMapping[str, Any]
ASGI = Callable[[Scope, Any, Any], Awaitable[None]]


class IgnoreInvalidRange:
    """An ASGI wrapper for a static-file app: a ``Range`` header that is not a valid bytes
    range set is removed, so the whole file is sent (200) instead of a plain-text 400."""

    def __init__(self, app: ASGI) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            headers = scope.get("headers", [])
            ranges = [value for name, value in headers if name == b"range"]
            if ranges and (len(ranges) > 1 or _specs(ranges[0].decode("latin-1")) is None):
                scope = dict(scope, headers=[(n, v) for n, v in headers if n != b"range"])
        await self.app(scope, receive, send)
