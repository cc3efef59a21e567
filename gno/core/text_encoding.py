"""The encoding of a text file, as its first bytes say (pure): what the native converters
decode (gno/adapters/converters/native.py) and what an edit writes back
(gno/services/tag_writes.py, doc_writes.py).

Windows tools write UTF-16 with a byte order mark (PowerShell's ``>``, Notepad's "Unicode"),
whose ASCII holds a NUL in every other byte. Behind such a mark (UTF-16 or UTF-32, either
byte order) the file is that encoding; anything else is UTF-8, its undecodable bytes kept as
they are by the writers and replaced by the converters.
"""

from __future__ import annotations

import codecs
from collections.abc import Callable

# UTF-32's marks come first: UTF-16 LE's is the start of UTF-32 LE's.
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


def unicode_mark(data: bytes) -> tuple[bytes, str] | None:
    """(mark, codec) when ``data`` starts with a UTF-16 or UTF-32 byte order mark."""
    return next(((bom, codec) for bom, codec in _BOMS if data.startswith(bom)), None)


def decode_for_edit(data: bytes) -> tuple[str, Callable[[str], bytes]]:
    """A note file's text for an edit, and how to encode the edited text so that every byte
    the edit does not touch stays as it was: the same encoding and mark, undecodable bytes
    (UTF-8) or lone surrogates (UTF-16) round-tripped."""
    marked = unicode_mark(data)
    if marked is None:
        return data.decode("utf-8", "surrogateescape"), _utf8
    bom, codec = marked

    def encode(text: str) -> bytes:
        return bom + text.encode(codec, "surrogatepass")

    return data[len(bom) :].decode(codec, "surrogatepass"), encode


def encode_like(data: bytes, text: str) -> bytes:
    """New ``text`` for a file now holding ``data``, in its encoding: behind the same UTF-16 or
    UTF-32 mark (a leading U+FEFF of ``text`` is that mark, written once), else UTF-8. The old
    bytes are not decoded: only their mark is read."""
    marked = unicode_mark(data)
    if marked is None:
        return text.encode("utf-8")
    bom, codec = marked
    return bom + text.removeprefix("\ufeff").encode(codec, "surrogatepass")


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")
