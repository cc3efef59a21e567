"""MIME detection for source files (engine.md §2.2).

Magic bytes win over the extension for PDF; a ZIP container is only called
OOXML when the extension says which kind. Everything else maps by extension.
"""

from __future__ import annotations

PDF_MIME = "application/pdf"
DOCX_MIME = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
PPTX_MIME = "application/vnd.openxmlformats-officedocument.presentationml.presentation"
XLSX_MIME = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
ZIP_MIME = "application/zip"
FALLBACK_MIME = "application/octet-stream"


def extension(rel: str) -> str:
    """The lowercased extension of a relative path's file name ("" without one)."""
    name = rel.rsplit("/", 1)[-1]
    dot = name.rfind(".")
    return name[dot:].lower() if dot > 0 else ""


def storable_name(rel: str) -> bool:
    """Whether the index can hold this path: the OS hands back a name that is not UTF-8
    with its bytes as lone surrogates, which no URI, JSON or SQLite text holds."""
    try:
        rel.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


# Only the first bytes are looked at, as the walker reads no more to sniff.
SNIFF_BYTES = 512

_PDF_MAGIC = b"%PDF-"
_ZIP_MAGIC = b"PK\x03\x04"

OOXML_MIMES: dict[str, str] = {".docx": DOCX_MIME, ".pptx": PPTX_MIME, ".xlsx": XLSX_MIME}

# Code files are text/plain, as in the reference engine: the value is exposed
# as `sourceMime` by the API, so it is kept identical rather than "richer".
_EXTENSION_MIMES: dict[str, str] = {
    ".md": "text/markdown",
    ".txt": "text/plain",
    ".ts": "text/plain",
    ".tsx": "text/plain",
    ".js": "text/plain",
    ".jsx": "text/plain",
    ".py": "text/plain",
    ".go": "text/plain",
    ".rs": "text/plain",
    ".swift": "text/plain",
    ".c": "text/plain",
    ".pdf": PDF_MIME,
    **OOXML_MIMES,
}

# Export containers, split into records by the record lane (spec/records.md).
RECORD_MIMES: dict[str, str] = {
    ".mbox": "application/mbox",
    ".eml": "message/rfc822",
    ".ics": "text/calendar",
    ".jsonl": "application/jsonl",
    ".json": "application/json",
    ".vtt": "text/vtt",
    ".srt": "application/x-subrip",
}

SUPPORTED_EXTENSIONS: frozenset[str] = frozenset(_EXTENSION_MIMES) | frozenset(RECORD_MIMES)


def sniff_mime(head: bytes, ext: str) -> str:
    """MIME type of a file from its first bytes and its extension (with dot)."""
    head = head[:SNIFF_BYTES]
    ext = ext.lower()
    if head.startswith(_PDF_MAGIC):
        return PDF_MIME
    if head.startswith(_ZIP_MAGIC):
        # A bare ZIP is not guessed further: OOXML needs the extension to say so.
        return OOXML_MIMES.get(ext, ZIP_MIME)
    return _EXTENSION_MIMES.get(ext) or RECORD_MIMES.get(ext, FALLBACK_MIME)
