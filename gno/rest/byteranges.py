"""One HTTP byte range (RFC 9110 §14) for /api/doc-asset: ``bytes=a-b``, ``a-``, ``-n``.

GNO serves one range per request: several ranges are refused (416) rather than
answered as ``multipart/byteranges``. A header that is not a syntactically valid
``bytes`` range is ignored, as RFC 9110 allows, so the whole file is sent.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

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


def parse_range(header: str | None, size: int) -> ByteRange | None:
    """The range to send for a ``Range`` header and a file of ``size`` bytes; None means
    the whole file. Raises ``Unsatisfiable`` for a 416."""
    if header is None:
        return None
    unit, sep, specs = header.partition("=")
    if not sep or unit.strip().lower() != "bytes":
        return None  # another unit or no unit at all: ignored
    parts = specs.split(",")
    matches = [_SPEC.match(part) for part in parts]
    if not all(matches) or any(m.groups() == ("", "") for m in matches if m):
        return None  # not a valid range set: ignored
    if len(parts) > 1:
        raise Unsatisfiable("only one byte range per request")
    first, last = matches[0].groups()  # type: ignore[union-attr]
    if not first:  # suffix: the last n bytes
        suffix = int(last)
        if suffix == 0 or size == 0:
            raise Unsatisfiable("empty suffix range")
        return ByteRange(max(0, size - suffix), size - 1)
    start = int(first)
    if last and int(last) < start:
        return None  # last before first: an invalid spec, ignored
    if start >= size:
        raise Unsatisfiable("range starts past the end of the file")
    end = min(int(last), size - 1) if last else size - 1
    return ByteRange(start, end)
