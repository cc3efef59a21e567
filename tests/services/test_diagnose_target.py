"""`query diagnose --target` names its document as `get` does: a path typed composed (NFC)
finds the file macOS named decomposed (NFD), and a ref of another index (`?index=`) is
refused, not answered with this index's document of the same path. Real index, BM25 only."""

from __future__ import annotations

import unicodedata

import pytest
from gno_contracts.models.get_input import GetInput
from gno_contracts.models.query_diagnose_input import QueryDiagnoseInput

from gno.errors import ValidationError
from gno.services.diagnose import diagnose
from gno.services.documents import get
from tests.conftest import sync

NFD, NFC = (unicodedata.normalize(form, "café.md") for form in ("NFD", "NFC"))


def run(app, target: str):
    return diagnose(app, QueryDiagnoseInput(query="sampling", target=target, fast=True))


def test_a_composed_path_finds_the_decomposed_file(make_app):
    app, _ = make_app({NFD: "# Café\n\nsampling notes\n", "other.md": "sampling too\n"})
    sync(app)
    assert get(app, GetInput(ref=f"notes/{NFC}")).uri.endswith(".md")  # get finds it
    target = run(app, f"notes/{NFC}").target
    assert target.status.value == "diagnosed"
    assert target.title == "Café"
    assert run(app, f"gno://notes/{NFC}").target.status.value == "diagnosed"


def test_a_ref_of_another_index_is_refused_as_get_refuses_it(make_app):
    app, _ = make_app({"a.md": "sampling notes\n"})
    sync(app)
    ref = "gno://notes/a.md?index=other"
    with pytest.raises(ValidationError, match="belongs to index 'other'"):
        get(app, GetInput(ref=ref))
    with pytest.raises(ValidationError, match="belongs to index 'other'"):
        run(app, ref)
    assert run(app, "gno://notes/a.md?index=default").target.status.value == "diagnosed"


def test_an_inactive_document_is_still_reported_inactive(make_app):
    app, root = make_app({"a.md": "sampling notes\n", "b.md": "sampling\n"})
    sync(app)
    (root / "a.md").unlink()
    sync(app)
    assert run(app, "notes/a.md").target.status.value == "inactive"
    assert run(app, "notes/missing.md").target.status.value == "not_found"


def test_an_inactive_document_named_by_docid_is_reported_inactive(make_app):
    """By path an inactive target was `inactive`, by its #docid `not_found` (only active
    documents were looked up): the same document, two answers. Now both say inactive, the
    docid and URI filled in; a docid an active copy shares names the active one."""
    app, root = make_app({"a.md": "sampling notes\n", "b.md": "sampling\n"})
    sync(app)
    store = app.store()
    doc = store.document_by_path("notes", "a.md")
    assert doc is not None and doc.docid
    (root / "a.md").unlink()
    sync(app)
    target = run(app, doc.docid).target
    assert target.status.value == "inactive"
    assert target.docid == doc.docid and target.uri == "gno://notes/a.md"
    (root / "copy.md").write_text("sampling notes\n")  # the same bytes: the same docid
    sync(app)
    again = run(app, doc.docid).target
    assert again.status.value == "diagnosed" and again.uri == "gno://notes/copy.md"
    assert run(app, "#ffffffff").target.status.value == "not_found"
