"""MarkitdownConverter and sniff_mime against real files built at test time."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import time
import zipfile
import zlib
from importlib.metadata import version
from pathlib import Path

import pytest

from gno.adapters.converters.office import MarkitdownConverter
from gno.core.mime import SUPPORTED_EXTENSIONS, sniff_mime
from gno.ports import CORRUPT, PERMISSION, TOO_LARGE, ConversionError, Converter

REPO_ROOT = Path(__file__).resolve().parents[2]

DOCX_MIME = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
PPTX_MIME = "application/vnd.openxmlformats-officedocument.presentationml.presentation"
XLSX_MIME = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


# --- file builders -----------------------------------------------------------

W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
REL_NS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"


def _zip(parts: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in parts.items():
            archive.writestr(name, text)
    return buffer.getvalue()


def _paragraph(text: str, style: str | None = None) -> str:
    props = f'<w:pPr><w:pStyle w:val="{style}"/></w:pPr>' if style else ""
    return f"<w:p>{props}<w:r><w:t>{text}</w:t></w:r></w:p>"


def make_docx(heading: str, paragraphs: list[str]) -> bytes:
    """Minimal WordprocessingML package; styles.xml names Heading1 'heading 1'."""
    body = _paragraph(heading, "Heading1") + "".join(_paragraph(p) for p in paragraphs)
    return _zip(
        {
            "[Content_Types].xml": (
                '<?xml version="1.0" encoding="UTF-8"?>'
                '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
                '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
                '<Default Extension="xml" ContentType="application/xml"/>'
                '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>'
                '<Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/>'
                "</Types>"
            ),
            "_rels/.rels": (
                '<?xml version="1.0" encoding="UTF-8"?>'
                '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
                f'<Relationship Id="rId1" Type="{REL_NS}/officeDocument" Target="word/document.xml"/>'
                "</Relationships>"
            ),
            "word/_rels/document.xml.rels": (
                '<?xml version="1.0" encoding="UTF-8"?>'
                '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
                f'<Relationship Id="rId1" Type="{REL_NS}/styles" Target="styles.xml"/>'
                "</Relationships>"
            ),
            "word/styles.xml": (
                f'<?xml version="1.0" encoding="UTF-8"?><w:styles xmlns:w="{W_NS}">'
                '<w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/></w:style>'
                "</w:styles>"
            ),
            "word/document.xml": (
                f'<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="{W_NS}">'
                f"<w:body>{body}</w:body></w:document>"
            ),
        }
    )


def make_pptx(title: str, body: str) -> bytes:
    from pptx import Presentation

    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[1])  # "Title and Content"
    slide.shapes.title.text = title
    slide.placeholders[1].text = body
    buffer = io.BytesIO()
    deck.save(buffer)
    return buffer.getvalue()


def make_xlsx(rows: list[list[object]]) -> bytes:
    from openpyxl import Workbook

    workbook = Workbook()
    sheet = workbook.active
    sheet.title = "Inventory"
    for row in rows:
        sheet.append(row)
    buffer = io.BytesIO()
    workbook.save(buffer)
    return buffer.getvalue()


def make_pdf(
    text: str,
    *,
    title: str | None = None,
    encrypt: bool = False,
    padding_mib: int = 0,
    image_mib: int = 0,
    content_claims_image: bool = False,
) -> bytes:
    """A one-page PDF with one Helvetica text line and a correct xref table; the content
    stream Flate-compressed with ``padding_mib`` MiB of spaces after the text (its
    dictionary saying it is an image, if ``content_claims_image``: pdfminer reads it as
    the page's content all the same), and an image of ``image_mib`` MiB of black pixels
    (Flate) drawn on the page."""
    stream = f"BT /F1 18 Tf 72 720 Td ({text}) Tj ET".encode("latin-1")
    if image_mib:
        stream = b"q 100 0 0 100 0 0 cm /Im1 Do Q " + stream
    filters = b""
    if padding_mib:
        stream = zlib.compress(stream + b" " * (padding_mib * 1024 * 1024))
        filters = b" /Filter /FlateDecode"
    if content_claims_image:
        filters += b" /Type /XObject /Subtype /Image /Width 1024 /Height 1024"
    pixels = zlib.compress(bytes(image_mib * 1024 * 1024))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
        b"/Resources << /Font << /F1 4 0 R >>%s >> /Contents 5 0 R >>"
        % (b" /XObject << /Im1 7 0 R >>" if image_mib else b""),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Length %d%s >>\nstream\n%s\nendstream" % (len(stream), filters, stream),
        b"<< /Title (%s) >>" % (title or "").encode("latin-1"),
        b"<< /Type /XObject /Subtype /Image /Width 1024 /Height %d /ColorSpace /DeviceGray "
        b"/BitsPerComponent 8 /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream"
        % (image_mib * 1024, len(pixels), pixels),
    ]
    trailer_extra = b" /Info 6 0 R" if title else b""
    if encrypt:
        objects[6] = b"<< /Filter /Standard /V 1 /R 2 /O <00> /U <00> /P -4 >>"
        trailer_extra += b" /Encrypt 7 0 R /ID [<01> <01>]"
    if not (image_mib or encrypt):
        objects.pop()

    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref_at = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root 1 0 R%s >>\n" % (len(objects) + 1, trailer_extra)
    out += b"startxref\n%d\n%%%%EOF\n" % xref_at
    return bytes(out)


def make_ole(*stream_names: str) -> bytes:
    """Bytes with the OLE compound-file magic and the given directory names."""
    header = bytes.fromhex("D0CF11E0A1B11AE1") + bytes(504)
    names = b"".join(name.encode("utf-16-le") + bytes(2) for name in stream_names)
    return header + names + bytes(512)


# --- converter ----------------------------------------------------------------


@pytest.fixture(scope="module")
def converter() -> MarkitdownConverter:
    return MarkitdownConverter()


def convert(converter: MarkitdownConverter, tmp_path: Path, name: str, data: bytes):
    path = tmp_path / name
    path.write_bytes(data)
    ext = path.suffix
    return converter.convert(path, data, ext, sniff_mime(data[:512], ext))


def test_converter_identity(converter: MarkitdownConverter) -> None:
    assert isinstance(converter, Converter)
    assert converter.id == "adapter/markitdown"
    assert converter.version == version("markitdown")
    for ext in (".pdf", ".docx", ".pptx", ".xlsx"):
        assert converter.can_handle(ext, "application/octet-stream")
    assert converter.can_handle(".bin", "application/pdf")
    assert not converter.can_handle(".md", "text/markdown")
    assert not converter.can_handle(".zip", "application/zip")


def test_docx_text_and_heading_title(converter, tmp_path) -> None:
    data = make_docx("Project Falcon", ["First paragraph about kestrels.", "Second one."])
    result = convert(converter, tmp_path, "falcon.docx", data)
    assert "# Project Falcon" in result.markdown
    assert "First paragraph about kestrels." in result.markdown
    assert "Second one." in result.markdown
    assert result.title == "Project Falcon"
    assert result.converter_id == "adapter/markitdown"
    assert result.warnings == ()


def test_pptx_title_and_body(converter, tmp_path) -> None:
    data = make_pptx("Roadmap 2031", "Ship the orbital index")
    result = convert(converter, tmp_path, "deck.pptx", data)
    assert "Roadmap 2031" in result.markdown
    assert "Ship the orbital index" in result.markdown
    assert result.title == "Roadmap 2031"


def test_xlsx_cells(converter, tmp_path) -> None:
    data = make_xlsx([["Item", "Qty"], ["wombat feed", 12], ["quokka hats", 7]])
    result = convert(converter, tmp_path, "stock.xlsx", data)
    for cell in ("Item", "Qty", "wombat feed", "12", "quokka hats", "7", "Inventory"):
        assert cell in result.markdown
    assert "|" in result.markdown  # sheets come back as Markdown tables
    assert result.title is None  # sheets are `##` headings, never `#`


def test_pdf_text_title_and_lossy_warning(converter, tmp_path) -> None:
    data = make_pdf("Hello from a handmade PDF", title="Annual Numbers")
    result = convert(converter, tmp_path, "report.pdf", data)
    assert "Hello from a handmade PDF" in result.markdown
    assert result.title == "Annual Numbers"
    assert [w.code for w in result.warnings] == ["LOSSY"]


def test_pdf_without_info_has_no_title(converter, tmp_path) -> None:
    result = convert(converter, tmp_path, "plain.pdf", make_pdf("No metadata here"))
    assert "No metadata here" in result.markdown
    assert result.title is None


def test_conversion_is_deterministic(converter, tmp_path) -> None:
    data = make_docx("Same", ["bytes in, same markdown out"])
    first = convert(converter, tmp_path, "a.docx", data)
    second = convert(converter, tmp_path, "b.docx", data)
    assert first == second
    assert converter._markitdown() is converter._markitdown()  # one engine, reused


def _truncated_pdf() -> bytes:
    whole = make_pdf("cut here")
    return whole[: len(whole) // 2]


@pytest.mark.parametrize(
    ("name", "data", "code"),
    [
        pytest.param("half.pdf", _truncated_pdf(), CORRUPT, id="truncated-pdf"),
        # Every object intact, only the tail lost: pdfminer would still read it.
        pytest.param(
            "tail.pdf", make_pdf("no tail").rsplit(b"startxref", 1)[0], CORRUPT, id="no-eof"
        ),
        pytest.param("fake.pdf", b"not a pdf\nstartxref\n0\n%%EOF\n", CORRUPT, id="no-pdf-magic"),
        pytest.param(
            "locked.pdf", make_pdf("secret", encrypt=True), PERMISSION, id="encrypted-pdf"
        ),
        pytest.param("noise.docx", os.urandom(2048), CORRUPT, id="random-docx"),
        pytest.param("bare.xlsx", _zip({"a.txt": "plain zip"}), CORRUPT, id="zip-not-ooxml"),
        pytest.param(
            "locked.docx",
            make_ole("EncryptionInfo", "EncryptedPackage"),
            PERMISSION,
            id="ole-encrypted",
        ),
        pytest.param("legacy.pptx", make_ole("PowerPoint Document"), CORRUPT, id="ole-legacy"),
    ],
)
def test_screening_errors(converter, tmp_path, name, data, code) -> None:
    with pytest.raises(ConversionError) as caught:
        convert(converter, tmp_path, name, data)
    assert caught.value.code == code


def _bomb(part: str, mib: int) -> bytes:
    """A package whose ``part`` inflates to ``mib`` MiB: one well-formed run of text for
    XML (what the parsers would load whole), zeros for media."""
    docx = make_docx("Bomb", ["x"])
    buffer = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(docx)) as source:
        kept = {n: source.read(n) for n in source.namelist() if n != part}
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, body in kept.items():
            archive.writestr(name, body)
        with archive.open(part, "w", force_zip64=True) as out:
            xml = part.endswith(".xml")
            out.write(f'<w:document xmlns:w="{W_NS}"><w:body><w:p><w:r><w:t>'.encode() * xml)
            block = (b"A" if xml else b"\0") * (1024 * 1024)
            for _ in range(mib):
                out.write(block)
            out.write(b"</w:t></w:r></w:p></w:body></w:document>" * xml)
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("name", "part", "mib"),
    [
        ("bomb.docx", "word/document.xml", 65),
        ("bomb.xlsx", "xl/worksheets/sheet1.xml", 65),
        ("bomb.pptx", "ppt/media/image1.png", 257),
    ],
)
def test_a_zip_bomb_is_too_large_before_it_is_inflated(converter, tmp_path, name, part, mib):
    data = _bomb(part, mib)
    assert len(data) < 2 * 1024 * 1024  # a few hundred KiB on disk
    started = time.monotonic()
    with pytest.raises(ConversionError) as caught:  # before: gigabytes of memory, minutes
        convert(converter, tmp_path, name, data)
    assert caught.value.code == TOO_LARGE
    assert "expands to more than" in caught.value.message
    assert time.monotonic() - started < 10


def test_a_pdf_flate_bomb_is_too_large_before_pdfminer_reads_it(converter, tmp_path) -> None:
    data = make_pdf("bomb", padding_mib=257)  # ~260 KiB on disk
    started = time.monotonic()
    with pytest.raises(ConversionError) as caught:  # before: ~1 GiB RSS per 300 MiB inflated
        convert(converter, tmp_path, "bomb.pdf", data)
    assert caught.value.code == TOO_LARGE
    assert "inflate to more than 256 MiB" in caught.value.message
    assert time.monotonic() - started < 10


@pytest.mark.parametrize(
    "body",
    [
        b"stream\n" * 190_000,
        b"stream\nx\x9c\x01" * 190_000,
        b" obj <</Subtype/Image>> stream\n" * 190_000,
    ],
    ids=["bare", "zlib-header", "image"],
)
def test_the_pdf_stream_screen_stays_linear_on_fake_streams(body: bytes) -> None:
    from gno.adapters.converters.office import _screen_pdf_streams

    started = time.monotonic()
    _screen_pdf_streams(b"%PDF-1.4\n" + body)  # nothing inflates: nothing to refuse
    assert time.monotonic() - started < 10
    with pytest.raises(ConversionError, match="more than 200,000 streams"):
        _screen_pdf_streams(b"stream\n" * 200_001)


# Peak RSS from /proc (VmHWM, reset through clear_refs once markitdown is warm):
# getrusage's ru_maxrss keeps a high-water mark inherited across fork and exec, so a
# child of a process that built a large PDF reports that process's peak, not its own.
_MEASURE = """
import sys, time
from pathlib import Path
from gno.adapters.converters.office import MarkitdownConverter
from gno.ports import ConversionError

converter = MarkitdownConverter()


def run(name):
    data = Path(name).read_bytes()
    try:
        return converter.convert(Path(name), data, ".pdf", "application/pdf").markdown
    except ConversionError as exc:
        return exc.code


def mib(field):
    status = Path("/proc/self/status").read_text().splitlines()
    return next(int(line.split()[1]) for line in status if line.startswith(field)) // 1024


run(sys.argv[1])  # markitdown imported and warmed up on a small PDF first
Path("/proc/self/clear_refs").write_text("5")  # the peak starts again from here
before, started = mib("VmRSS:"), time.monotonic()
outcome = run(sys.argv[2])
print(outcome.strip()[:40], round(time.monotonic() - started, 1), mib("VmHWM:") - before)
"""


def _measured(tmp_path: Path, data: bytes) -> tuple[str, float, int]:
    """(outcome, seconds, MiB the peak RSS rose by) of converting ``data`` in a child."""
    if not os.path.exists("/proc/self/clear_refs"):
        pytest.skip("peak RSS is read from Linux's /proc")
    (tmp_path / "warm.pdf").write_bytes(make_pdf("warm"))
    (tmp_path / "measured.pdf").write_bytes(data)
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            _MEASURE,
            str(tmp_path / "warm.pdf"),
            str(tmp_path / "measured.pdf"),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        env=os.environ | {"PYTHONPATH": os.pathsep.join(sys.path)},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    outcome, seconds, mib = done.stdout.split()
    return outcome, float(seconds), int(mib)


def test_a_content_stream_claiming_to_be_an_image_gets_no_bigger_budget(tmp_path) -> None:
    """The screen cannot tell an image from a stream that only says it is one, and
    pdfminer reads a page's content whatever its dictionary says: one budget for all.
    Before: 300 MiB of content marked as an image converted (9 s, peak RSS +0.9 GiB;
    1 GiB of it: 31 s, +3 GiB); now TOO_LARGE in under a second, +0 MiB."""
    data = make_pdf("hostile", padding_mib=300, content_claims_image=True)
    outcome, seconds, grew_mib = _measured(tmp_path, data)
    assert outcome == TOO_LARGE
    assert seconds < 10 and grew_mib < 64  # refused by the screen, before pdfminer


def test_a_flate_image_counts_against_the_one_budget(converter, tmp_path) -> None:
    # pdfminer never inflates an image to extract text, but a stream cannot prove it is
    # one: an image of 200 MiB converts, one of 300 MiB is too large (spec/cli.md).
    data = make_pdf("scanned page", padding_mib=1, image_mib=200)
    assert "scanned page" in convert(converter, tmp_path, "scan.pdf", data).markdown
    with pytest.raises(ConversionError) as caught:
        convert(converter, tmp_path, "big.pdf", make_pdf("big", padding_mib=1, image_mib=300))
    assert caught.value.code == TOO_LARGE


def test_encrypted_pdf_message(converter, tmp_path) -> None:
    with pytest.raises(ConversionError, match="PDF is encrypted"):
        convert(converter, tmp_path, "locked.pdf", make_pdf("secret", encrypt=True))


def test_markitdown_failure_is_short_and_not_rescued(converter, tmp_path) -> None:
    # Passes the byte screen (a zip with [Content_Types].xml) but has no document
    # part; markitdown's ZIP fallback must not turn it into a file listing.
    data = _zip({"[Content_Types].xml": "<Types/>", "readme.txt": "zip payload"})
    with pytest.raises(ConversionError) as caught:
        convert(converter, tmp_path, "hollow.docx", data)
    error = caught.value
    assert error.code == CORRUPT
    assert "\n" not in error.message
    assert "Traceback" not in error.message
    assert len(error.message) <= 200


def test_document_without_text_is_an_error(converter, tmp_path) -> None:
    # As in the reference adapter: nothing to index is reported, not stored empty.
    with pytest.raises(ConversionError, match="Empty conversion result") as caught:
        convert(converter, tmp_path, "blank.docx", make_docx("", []))
    assert caught.value.code == CORRUPT


def test_broken_pdf_body_fails_cleanly(converter, tmp_path) -> None:
    data = b"%PDF-1.4\n1 0 obj\n<< garbage >>\nendobj\nstartxref\n9\n%%EOF\n"
    with pytest.raises(ConversionError) as caught:
        convert(converter, tmp_path, "broken.pdf", data)
    assert caught.value.code == CORRUPT
    assert "\n" not in caught.value.message


# --- sniff_mime ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("head", "ext", "mime"),
    [
        (b"%PDF-1.7\n...", ".pdf", "application/pdf"),
        (b"%PDF-1.7\n...", ".txt", "application/pdf"),  # magic beats the extension
        (b"%PDF-1.7\n...", "", "application/pdf"),
        (b"PK\x03\x04rest", ".docx", DOCX_MIME),
        (b"PK\x03\x04rest", ".PPTX", PPTX_MIME),
        (b"PK\x03\x04rest", ".xlsx", XLSX_MIME),
        (b"PK\x03\x04rest", ".zip", "application/zip"),
        (b"garbage", ".docx", DOCX_MIME),  # by extension; the converter rejects it
        (b"# Title\n", ".md", "text/markdown"),
        (b"hello", ".txt", "text/plain"),
        (b"print(1)", ".py", "text/plain"),
        (b"fn main() {}", ".rs", "text/plain"),
        (b"\x00\x01\x02", ".bin", "application/octet-stream"),
        (b"", "", "application/octet-stream"),
        (b" %PDF-1.4", ".bin", "application/octet-stream"),  # magic must lead
    ],
)
def test_sniff_mime(head: bytes, ext: str, mime: str) -> None:
    assert sniff_mime(head, ext) == mime


def test_supported_extensions() -> None:
    expected = ".md .txt .ts .tsx .js .jsx .py .go .rs .swift .c .pdf .docx .pptx .xlsx"
    expected += " .mbox .eml .ics .jsonl .json .vtt .srt"  # the record lane's containers
    assert frozenset(expected.split()) == SUPPORTED_EXTENSIONS
    assert ".html" not in SUPPORTED_EXTENSIONS
    for ext in SUPPORTED_EXTENSIONS:
        assert sniff_mime(b"", ext) != "application/octet-stream"


# --- import cost ----------------------------------------------------------------


def test_importing_office_adapter_does_not_import_markitdown() -> None:
    code = (
        "import sys, gno.adapters.converters.office\n"
        "heavy = [m for m in ('markitdown', 'numpy', 'pandas', 'magika', 'pdfminer')"
        " if m in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO_ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
