"""An OOXML part nested absurdly deep is refused before any parser reads it.

markitdown reads a .docx through BeautifulSoup, whose lxml tree builder is quadratic in
element depth: a 2.4 KiB .docx nesting 100,000 runs kept it busy 88 s (past the 60 s
deadline, and TIMEOUT is retried by every sync), 20,000 runs 12 s before it failed with a
RecursionError reported as CONVERSION_FAILED. (python-pptx already refused a .pptx deeper than
libxml2's 256 levels; the same rule now covers every OOXML part.)
"""

from __future__ import annotations

import io
import time
import zipfile

import pytest

from gno.adapters.converters.office import MarkitdownConverter
from gno.ports import CORRUPT, ConversionError
from tests.adapters.test_converters_office import convert, make_docx


def _nested(data: bytes, part: str, anchor: str, depth: int, tag: str) -> bytes:
    """``data`` with ``depth`` nested ``tag`` elements inserted before ``anchor`` in ``part``."""
    buffer = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(data)) as source,
        zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive,
    ):
        for name in source.namelist():
            body = source.read(name)
            if name == part:
                deep = f"<{tag}>" * depth + f"</{tag}>" * depth
                body = body.replace(anchor.encode(), deep.encode() + anchor.encode(), 1)
            archive.writestr(name, body)
    return buffer.getvalue()


def test_a_deeply_nested_docx_is_corrupt_at_once(tmp_path):
    data = make_docx("Deep", ["deepword"])
    deep = _nested(data, "word/document.xml", "</w:body>", 20_000, "w:p")
    assert len(deep) < 64 * 1024
    started = time.monotonic()
    with pytest.raises(ConversionError) as caught:
        convert(MarkitdownConverter(), tmp_path, "deep.docx", deep)
    assert (caught.value.code, caught.value.message) == (
        CORRUPT,
        "Office file's XML nests deeper than 256 levels",
    )
    assert time.monotonic() - started < 5


def test_ordinary_nesting_still_converts(tmp_path):
    data = _nested(make_docx("Fine", ["fineword"]), "word/document.xml", "<w:p>", 40, "w:sdt")
    assert "fineword" in convert(MarkitdownConverter(), tmp_path, "fine.docx", data).markdown
