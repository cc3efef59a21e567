"""PDF and OOXML (docx/pptx/xlsx) to Markdown through Microsoft markitdown.

markitdown pulls in pandas, numpy, magika and onnxruntime (~1.5 s to import),
so it is imported on the first ``convert`` call and never at module import:
a sync of Markdown-only collections must not pay for it.

Files are screened with cheap byte checks first. That keeps permanent error
codes (CORRUPT, PERMISSION) stable and independent of parser internals, and
stops markitdown from "rescuing" a broken .docx through a fallback converter.
"""

from __future__ import annotations

import io
import re
import threading
import zipfile
import zlib
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from gno.adapters.converters.pdf_refs import bound_reference_chains
from gno.core.mime import OOXML_MIMES, PDF_MIME
from gno.ports import (
    CONVERSION_FAILED,
    CORRUPT,
    PERMISSION,
    TOO_LARGE,
    Conversion,
    ConversionError,
    ConversionWarning,
)

CONVERTER_ID = "adapter/markitdown"

_KIND_MIMES: dict[str, str] = {".pdf": PDF_MIME, **OOXML_MIMES}
_MIME_KINDS: dict[str, str] = {mime: ext for ext, mime in _KIND_MIMES.items()}

_PDF_MAGIC = b"%PDF-"
# ISO 32000 puts `startxref` and the final `%%EOF` at the very end of the file.
_PDF_TRAILER_SCAN = 2 * 1024
# An incremental update may push the /Encrypt trailer key further back.
_PDF_ENCRYPT_SCAN = 64 * 1024
_PDF_ENCRYPT = re.compile(rb"/Encrypt(?![A-Za-z0-9])")
# Flate bombs: what every stream inflates to is counted before pdfminer sees the file.
_PDF_STREAM = re.compile(rb"(?<![A-Za-z])stream\r?\n")
_MAX_PDF_INFLATED = 256 * 1024 * 1024  # every stream together, images included
_MAX_PDF_STREAMS = 200_000
_PDF_WORK_SLACK = 64 * 1024 * 1024
_CHUNK = 1024 * 1024

# Office saves a password-protected OOXML file as an OLE compound file holding
# the streams EncryptionInfo and EncryptedPackage (names stored in UTF-16LE).
_OLE_MAGIC = bytes.fromhex("D0CF11E0A1B11AE1")
_OLE_ENCRYPTED_STREAM = "EncryptedPackage".encode("utf-16-le")

# A ZIP bomb: a few hundred KiB on disk that inflate to gigabytes of XML, which the
# parsers hold in memory (600 MiB of document.xml took > 5 GiB and minutes). The sizes the
# central directory declares bound what zipfile will inflate (it stops at a part's
# declared size), so checking them before parsing caps memory and time. XML is what gets
# parsed; other parts (media) are capped loosely, as photos barely compress.
_MAX_XML_BYTES = 64 * 1024 * 1024
_MAX_PACKAGE_BYTES = 256 * 1024 * 1024
_XML_SUFFIXES = (".xml", ".rels", ".vml")
# Deep nesting: markitdown reads a .docx through BeautifulSoup, whose lxml tree builder costs
# time quadratic in element depth (a 2.4 KiB .docx nesting 100,000 runs ran 88 s, past the
# 60 s deadline; TIMEOUT is retried, so every sync paid it again). libxml2 itself refuses
# documents deeper than 256 unless told otherwise (python-pptx fails there already), so a part
# nested deeper is refused first, by a streaming count that keeps nothing.
_MAX_XML_DEPTH = 256

_MAX_MESSAGE = 200
_PASSWORD = re.compile(r"password|encrypt", re.IGNORECASE)
# Exception class names (anywhere in the MRO) that mean "the bytes are malformed".
_MALFORMED_ERRORS = frozenset(
    {
        "BadZipFile",
        "PDFSyntaxError",
        "PSException",
        "XMLSyntaxError",
        "ParseError",
        "InvalidFileException",
        # A parser recursing past the stack on these bytes (an xref whose /Prev is itself,
        # elements nested a few hundred deep) fails the same way every time: permanent, as
        # the pipeline's own RecursionError is, not retried by every sync.
        "RecursionError",
    }
)
_MALFORMED_MESSAGE = re.compile(r"valid|corrupt|truncat|main document part", re.IGNORECASE)
_HEADING = re.compile(r"^# +(\S.*?)\s*$", re.MULTILINE)


def _markitdown_version() -> str:
    try:
        return version("markitdown")
    except PackageNotFoundError:  # an unusual install; the id still identifies us
        return "unknown"


class MarkitdownConverter:
    """Converter port for .pdf .docx .pptx .xlsx backed by markitdown."""

    id = CONVERTER_ID

    def __init__(self) -> None:
        self.version = _markitdown_version()
        self._engine: Any = None
        self._lock = threading.Lock()

    def can_handle(self, ext: str, mime: str) -> bool:
        return ext.lower() in _KIND_MIMES or mime in _MIME_KINDS

    def convert(self, path: Path, data: bytes, ext: str, mime: str) -> Conversion:
        kind = _kind_of(ext, mime)
        _require_markitdown(kind)
        if kind == ".pdf":
            _screen_pdf(data)
        else:
            _screen_ooxml(data)
        markdown = self._run_markitdown(data, kind)
        if not markdown.strip():
            # markitdown found no text layer/content; there is nothing to index.
            raise ConversionError(CORRUPT, "Empty conversion result")
        if kind == ".pdf":
            return self._conversion(
                markdown,
                _pdf_title(data),
                (ConversionWarning("LOSSY", "PDF layout is not preserved"),),
            )
        return self._conversion(markdown, _first_heading(markdown), ())

    def _conversion(
        self, markdown: str, title: str | None, warnings: tuple[ConversionWarning, ...]
    ) -> Conversion:
        return Conversion(
            markdown=markdown,
            title=title,
            converter_id=self.id,
            converter_version=self.version,
            warnings=warnings,
        )

    def _run_markitdown(self, data: bytes, kind: str) -> str:
        from markitdown import StreamInfo

        engine = self._markitdown()
        info = StreamInfo(extension=kind, mimetype=_KIND_MIMES[kind])
        try:
            result = engine.convert_stream(io.BytesIO(data), stream_info=info)
        except Exception as exc:  # any parser failure becomes an ingest error
            raise _error_from(exc, kind) from None
        return str(result.markdown)

    def _markitdown(self) -> Any:
        """The shared MarkItDown instance, built on first use."""
        with self._lock:
            if self._engine is None:
                self._engine = _build_markitdown()
            return self._engine


OFFICE_EXTRA_HINT = (
    "{kind} files need the office extra (markitdown): pip install 'gno[office]', "
    "then run gno update again"
)


def _require_markitdown(kind: str) -> None:
    """markitdown is the optional `office` extra (~300 MB with pandas, numpy and
    onnxruntime): without it, each such file is an ingest error naming the extra, not
    a failed sync. The code is retryable, so the next sync after installing it converts
    the file."""
    from importlib.util import find_spec  # finds it without importing it (~1.5 s)

    try:
        installed = find_spec("markitdown") is not None
    except ValueError:  # a module with no spec stands in for it: treat as missing
        installed = False
    if not installed:
        label = kind.lstrip(".").upper()
        raise ConversionError(CONVERSION_FAILED, OFFICE_EXTRA_HINT.format(kind=label))


def _build_markitdown() -> Any:
    from markitdown import MarkItDown
    from markitdown.converters import (
        DocxConverter,
        PdfConverter,
        PptxConverter,
        XlsxConverter,
    )

    bound_reference_chains()  # before any PDF is read: a reference loop never ends otherwise
    # Only the four formats we own: with the built-ins, a failing .docx is
    # retried by the ZIP and plain-text converters and "succeeds" as a file list.
    engine = MarkItDown(enable_builtins=False)
    for converter in (PdfConverter(), DocxConverter(), PptxConverter(), XlsxConverter()):
        engine.register_converter(converter)
    return engine


def _kind_of(ext: str, mime: str) -> str:
    """Which format to treat the bytes as: the extension decides, then the MIME."""
    ext = ext.lower()
    if ext in _KIND_MIMES:
        return ext
    if mime in _MIME_KINDS:
        return _MIME_KINDS[mime]
    raise ConversionError(CONVERSION_FAILED, f"markitdown adapter cannot convert {ext or mime}")


def _screen_pdf(data: bytes) -> None:
    if not data.startswith(_PDF_MAGIC):
        raise ConversionError(CORRUPT, "Not a PDF file (missing %PDF- header)")
    tail = data[-_PDF_TRAILER_SCAN:]
    startxref = tail.rfind(b"startxref")
    if startxref < 0 or tail.rfind(b"%%EOF") < startxref:
        raise ConversionError(CORRUPT, "Invalid or incomplete PDF structure")
    if _PDF_ENCRYPT.search(data[-_PDF_ENCRYPT_SCAN:]):
        raise ConversionError(PERMISSION, "PDF is encrypted")
    _screen_pdf_streams(data)


def _screen_pdf_streams(data: bytes) -> None:
    """A Flate bomb: a 1 MiB PDF whose content stream inflates to 1 GiB made pdfminer hold
    3 GiB. Inflate every stream here first, keeping nothing and stopping at the budget.

    One budget for all streams. pdfminer never inflates an image to extract text, but a
    stream's dictionary cannot prove it is an image: pdfminer reads a page's content (or
    a font, an object stream) whatever its dictionary says, so a content stream claiming
    ``/Subtype /Image`` was inflated by pdfminer under a larger image budget (1 GiB: 30 s,
    3 GiB). Telling them apart would take the object graph, i.e. parsing the PDF, which
    is what this screen runs before. The scan itself is bounded: at most so many
    streams, and the inflaters read a few times the file at most."""
    view = memoryview(data)
    budget = _MAX_PDF_INFLATED
    work = 4 * len(data) + _PDF_WORK_SLACK  # input bytes all inflaters may read
    for count, match in enumerate(_PDF_STREAM.finditer(data)):
        if count == _MAX_PDF_STREAMS:
            raise ConversionError(TOO_LARGE, "PDF has more than 200,000 streams")
        out, read = _inflated(view, match.end(), budget + 1)
        budget -= out
        work -= read
        if budget < 0:
            raise ConversionError(TOO_LARGE, "PDF streams inflate to more than 256 MiB")
        if work < 0:
            raise ConversionError(TOO_LARGE, "PDF streams are too large to inflate")


def _inflated(view: memoryview, start: int, limit: int) -> tuple[int, int]:
    """(bytes out, bytes read) of the zlib stream at ``start``, counting at most ``limit``
    out (0 out when it is not zlib data). Input goes in growing slices (no copies), so
    text that only looks like a stream costs a few bytes, not a megabyte."""
    inflater = zlib.decompressobj()
    total = read = 0
    pos, size = start, 64
    try:
        while not inflater.eof and pos < len(view) and total < limit:
            pending: bytes | memoryview = view[pos : pos + size]
            pos, read, size = pos + len(pending), read + len(pending), min(size * 2, _CHUNK)
            while pending and not inflater.eof and total < limit:  # 1 MiB out at a time
                total += len(inflater.decompress(pending, min(limit - total, _CHUNK)))
                pending = inflater.unconsumed_tail
    except zlib.error:  # not Flate (or broken): pdfminer fails on it as fast
        pass
    return total, read


def _screen_ooxml(data: bytes) -> None:
    if data.startswith(_OLE_MAGIC):
        if _OLE_ENCRYPTED_STREAM in data:
            raise ConversionError(PERMISSION, "Office file is password-protected")
        # Most likely a legacy binary .doc/.ppt/.xls given an OOXML extension.
        raise ConversionError(CORRUPT, "Not an OOXML file (legacy binary Office format)")
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            parts = archive.infolist()
    except (zipfile.BadZipFile, ValueError, OSError):
        raise ConversionError(CORRUPT, "Not a valid OOXML (ZIP) file") from None
    if "[Content_Types].xml" not in {part.filename for part in parts}:
        raise ConversionError(CORRUPT, "OOXML package has no [Content_Types].xml")
    xml = sum(p.file_size for p in parts if p.filename.lower().endswith(_XML_SUFFIXES))
    if xml > _MAX_XML_BYTES:
        raise ConversionError(TOO_LARGE, "Office file's XML expands to more than 64 MiB")
    if sum(p.file_size for p in parts) > _MAX_PACKAGE_BYTES:
        raise ConversionError(TOO_LARGE, "Office file expands to more than 256 MiB")
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        for part in parts:
            if part.filename.lower().endswith(_XML_SUFFIXES) and _too_deep(archive, part):
                raise ConversionError(
                    CORRUPT, f"Office file's XML nests deeper than {_MAX_XML_DEPTH} levels"
                )


class _Deep(Exception):
    pass


def _too_deep(archive: zipfile.ZipFile, part: zipfile.ZipInfo) -> bool:
    """Whether the part's elements nest deeper than ``_MAX_XML_DEPTH``. Read in 1 MiB pieces
    (the part's declared size, checked above, bounds what is inflated). Anything else wrong
    with the part (malformed XML, entities, an unreadable member) is the parsers' to report,
    as before."""
    from xml.parsers import expat

    parser = expat.ParserCreate()
    depth = 0

    def start(name: str, attributes: object) -> None:
        nonlocal depth
        depth += 1
        if depth > _MAX_XML_DEPTH:
            raise _Deep

    def end(name: str) -> None:
        nonlocal depth
        depth -= 1

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    try:
        with archive.open(part) as stream:
            while chunk := stream.read(_CHUNK):
                parser.Parse(chunk, False)
    except _Deep:
        return True
    except Exception:  # malformed XML, a broken or encrypted member: the parsers report it
        return False
    return False


def _error_from(exc: BaseException, kind: str) -> ConversionError:
    """Map a markitdown failure to an ingest error with a one-line message."""
    cause = _root_cause(exc)
    message = _short_message(cause, kind)
    if _PASSWORD.search(message) or _has_base(cause, "PDFEncryptionError"):
        return ConversionError(PERMISSION, message)
    if any(_has_base(cause, name) for name in _MALFORMED_ERRORS) or _MALFORMED_MESSAGE.search(
        message
    ):
        return ConversionError(CORRUPT, message)
    return ConversionError(CONVERSION_FAILED, message)


def _root_cause(exc: BaseException) -> BaseException:
    """The converter's own exception, not markitdown's multi-line summary of it."""
    for attempt in getattr(exc, "attempts", None) or ():
        exc_info = getattr(attempt, "exc_info", None)
        if exc_info and exc_info[1] is not None:
            return exc_info[1]
    return exc


def _has_base(exc: BaseException, name: str) -> bool:
    return any(cls.__name__ == name for cls in type(exc).__mro__)


def _short_message(exc: BaseException, kind: str) -> str:
    first_line = next((line.strip() for line in str(exc).splitlines() if line.strip()), "")
    text = f"{type(exc).__name__}: {first_line}" if first_line else type(exc).__name__
    if not text.isprintable() or len(text) > _MAX_MESSAGE:
        return f"Could not convert {kind} file to markdown ({type(exc).__name__})"
    return text


def _first_heading(markdown: str) -> str | None:
    match = _HEADING.search(markdown)
    return match.group(1) if match else None


def _pdf_title(data: bytes) -> str | None:
    """The document-info /Title: only the xref and trailer are parsed, not pages."""
    try:
        from pdfminer.pdfdocument import PDFDocument
        from pdfminer.pdfparser import PDFParser
        from pdfminer.pdftypes import resolve1
        from pdfminer.utils import decode_text

        bound_reference_chains()
        document = PDFDocument(PDFParser(io.BytesIO(data)))
        for info in document.info:
            raw = resolve1(info.get("Title"))
            title = decode_text(raw) if isinstance(raw, bytes) else raw
            if isinstance(title, str) and title.strip():
                return title.strip()
    except Exception:  # a title is a nicety; the text already converted
        return None
    return None
