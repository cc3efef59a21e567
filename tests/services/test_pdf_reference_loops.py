"""A PDF whose object is a reference to itself (or to one leading back to it) converts.

pdfminer resolves a reference with ``while isinstance(x, PDFObjRef): x = x.resolve()``: a
546-byte PDF whose page tree was ``2 0 obj 2 0 R endobj`` looped forever. Not even the
conversion deadline stopped it: its ``Expired`` left ``with pdfplumber.open(...)``, whose
``close()`` lists the pages again, in the same loop, so `gno update` hung. Such a chain is
now the null object (as a reference to a missing object is), and pdfminer finds the pages
by scanning the file. The sync runs in a child process, bounded by a timeout.
"""

from __future__ import annotations

import json

import pytest

from tests.conftest import search
from tests.services.test_sync_hostile import gno_update

CONTENT = b"BT /F1 12 Tf 72 712 Td (loopword) Tj ET"
FONT = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"
PAGE = (
    b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R"
    b" /Resources << /Font << /F1 5 0 R >> >> >>"
)


def make_pdf(objects: list[bytes]) -> bytes:
    """Objects 1..n, a classic xref table and trailer (object 1 is the catalog)."""
    out, offsets = b"%PDF-1.4\n", []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    trailer = b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n"
    return out + trailer % (len(objects) + 1, xref)


def _stream(data: bytes) -> bytes:
    return b"<< /Length %d >>\nstream\n%s\nendstream" % (len(data), data)


CATALOG = b"<< /Type /Catalog /Pages 2 0 R >>"


@pytest.mark.parametrize(
    "pages",
    [
        [b"2 0 R"],  # the page tree is a reference to itself
        [b"6 0 R", b"7 0 R", b"2 0 R"],  # 2 -> 6 -> 7 -> 2
    ],
    ids=["self", "cycle"],
)
def test_a_reference_loop_is_null_not_a_timeout(make_app, monkeypatch, pages):
    pytest.importorskip("markitdown")
    monkeypatch.setenv("GNO_CONVERT_TIMEOUT_MS", "5000")
    objects = [CATALOG, pages[0], PAGE, _stream(CONTENT), FONT, *pages[1:]]
    app, _ = make_app({"loop.pdf": make_pdf(objects), "ok.md": "# Ok\n\ngoodword\n"})
    done = gno_update(timeout=60)  # before: still running when killed
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["collections"][0]["errors"] == []
    assert [r.uri for r in search(app, "loopword").results] == ["gno://notes/loop.pdf"]


def test_an_xref_that_is_its_own_previous_is_corrupt(tmp_path):
    pytest.importorskip("markitdown")
    from gno.adapters.converters.office import MarkitdownConverter
    from gno.ports import CORRUPT, ConversionError

    pages = b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>"
    data = make_pdf([CATALOG, pages, PAGE, _stream(CONTENT), FONT])
    xref = data[: data.rindex(b"startxref")].rindex(b"xref")
    data = data.replace(b"/Root 1 0 R", b"/Root 1 0 R /Prev %d" % xref)
    # before: pdfminer recursed through the xref chain to a RecursionError, reported as
    # CONVERSION_FAILED, which every sync converted again
    with pytest.raises(ConversionError) as caught:
        MarkitdownConverter().convert(tmp_path / "prev.pdf", data, ".pdf", "application/pdf")
    assert caught.value.code == CORRUPT
    assert caught.value.message.startswith("RecursionError")
