"""Without the `office` extra (markitdown), a PDF/DOCX/PPTX/XLSX is an ingest error that
names the extra; the sync goes on with every other file, and converts the file once the
extra is there."""

from __future__ import annotations

import sys

import pytest

from gno.adapters.converters.office import MarkitdownConverter
from tests.conftest import search, sync

MINIMAL_PDF = b"%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\nstartxref\n0\n%%EOF\n"


def test_office_files_without_markitdown_are_errors_naming_the_extra(
    make_app, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "markitdown", None)  # as if the extra were not installed
    app, _ = make_app(
        {
            "notes.md": "# Notes\n\nquarterly lighthouse figures\n",
            "report.pdf": MINIMAL_PDF,
            "deck.pptx": b"PK\x03\x04 not really a deck",
        }
    )
    result = sync(app)
    (collection,) = result.collections
    assert collection.filesAdded == 1 and collection.filesErrored == 2
    errors = {e.relPath: e for e in collection.errors}
    assert set(errors) == {"report.pdf", "deck.pptx"}
    for rel, label in (("report.pdf", "PDF"), ("deck.pptx", "PPTX")):
        assert "gno[office]" in errors[rel].message and label in errors[rel].message
        assert errors[rel].code == "CONVERSION_FAILED"  # retried by the next sync
    assert [r.uri for r in search(app, "lighthouse").results] == ["gno://notes/notes.md"]


def test_the_check_does_not_import_markitdown() -> None:
    """Finding the package costs a lookup, not the ~1.5 s import (pandas, onnxruntime)."""
    sys.modules.pop("markitdown", None)
    converter = MarkitdownConverter()
    with pytest.raises(Exception, match="Not a PDF"):
        converter.convert(None, b"garbage", ".pdf", "application/pdf")  # type: ignore[arg-type]
    assert "markitdown" not in sys.modules
