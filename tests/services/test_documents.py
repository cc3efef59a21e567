import pytest
from gno_contracts.models.get_input import GetInput
from gno_contracts.models.ls_input import LsInput
from gno_contracts.models.multi_get_input import MultiGetInput

from gno.errors import DocumentNotFoundError, NotFoundError, ValidationError
from gno.services.documents import get, ls, multi_get
from tests.conftest import sync

FILES = {
    "a.md": "# A\n\nline three\nline four\n",
    "sub/b.md": "---\ntitle: Bee\n---\nbody of b\n",
    "sub/c d.md": "spaced name\n",
    "bad.pdf": b"%PDF-1.4 truncated",
}


@pytest.fixture
def app(make_app):
    app, _ = make_app(FILES)
    sync(app)
    return app


def test_get_by_uri_path_docid_and_ranges(app):
    doc = get(app, GetInput(ref="gno://notes/a.md", lineNumbers=False))
    assert (
        doc.content == "# A\n\nline three\nline four"
        and doc.totalLines == 4
        and doc.returnedLines is None
    )
    assert get(app, GetInput(ref=doc.docid)).uri == "gno://notes/a.md"
    part = get(app, GetInput(ref="notes/a.md:3", lineCount=1))
    assert part.content == "3: line three" and (
        part.returnedLines.start,
        part.returnedLines.end,
    ) == (3, 3)
    assert get(app, GetInput(ref="gno://notes/a.md:3", fromLine=4)).content == "4: line four"
    past = get(app, GetInput(ref="gno://notes/a.md", fromLine=99))
    assert past.content == "" and past.returnedLines is None
    assert get(app, GetInput(ref="gno://notes/sub/c%20d.md")).uri == "gno://notes/sub/c%20d.md"
    assert get(app, GetInput(ref="gno://notes/a.md")).capabilities.editable is True


def test_get_errors(app):
    with pytest.raises(DocumentNotFoundError):
        get(app, GetInput(ref="gno://notes/missing.md"))
    with pytest.raises(DocumentNotFoundError):
        get(app, GetInput(ref="notes/bad.pdf"))  # ingest error: no content
    with pytest.raises(ValidationError):
        get(app, GetInput(ref="nosuchform"))
    with pytest.raises(ValidationError):
        get(app, GetInput(ref="gno://notes/a.md?index=other"))


def test_multi_get_globs_truncation_and_skips(app):
    out = multi_get(
        app,
        MultiGetInput(
            refs=["notes/sub/*.md", "notes/a.md,gno://notes/nope.md", "bad"],
            maxBytes=12,
            lineNumbers=False,
        ),
    )
    assert [d.uri for d in out.documents] == [
        "gno://notes/sub/b.md",
        "gno://notes/sub/c%20d.md",
        "gno://notes/a.md",
    ]
    a = out.documents[2]
    assert a.truncated is True and a.content == "# A\n\n" and len(a.content.encode()) <= 12
    assert [(s.ref, s.reason.value) for s in out.skipped] == [
        ("gno://notes/nope.md", "not_found"),
        ("bad", "invalid_ref"),
    ]
    assert (out.meta.requested, out.meta.returned, out.meta.skipped) == (
        5,
        3,
        2,
    )  # globs count expanded
    with pytest.raises(ValidationError):
        multi_get(app, MultiGetInput(refs=["a"], pattern="b"))


def test_ls_scopes(app):
    everything = ls(app, LsInput())
    assert everything.meta.total == 3  # the failed PDF has no content
    assert [d.uri for d in everything.documents] == sorted(d.uri for d in everything.documents)
    assert [d.source.relPath for d in ls(app, LsInput(scope="gno://notes/sub/")).documents] == [
        "sub/b.md",
        "sub/c d.md",
    ]
    page = ls(app, LsInput(limit=1, offset=1))
    assert (page.meta.returned, page.meta.offset) == (1, 1)
    with pytest.raises(ValidationError):
        ls(app, LsInput(scope="gno://notes"))
    with pytest.raises(NotFoundError):
        ls(app, LsInput(scope="nope"))


def test_multi_get_pattern_with_braces_and_classes(make_app):
    """Issue 11: a brace group holding a bracket class is one glob, not split at its comma."""
    app, _ = make_app({"a1.md": "one\n", "a2.md": "two\n", "b.md": "bee\n", "ax.md": "no\n"})
    sync(app)
    out = multi_get(app, MultiGetInput(pattern="notes/{a[0-9].md,b.md}"))
    assert sorted(d.uri for d in out.documents) == [
        "gno://notes/a1.md",
        "gno://notes/a2.md",
        "gno://notes/b.md",
    ]
    assert out.skipped == []


def test_multi_get_pathological_pattern_answers(make_app):
    """Defect 1: `coll/****************x` made the regex translation backtrack for minutes."""
    app, _ = make_app({("a" * 40) + ".md": "long name\n", "x.md": "ex\n"})
    sync(app)
    out = multi_get(app, MultiGetInput(pattern="notes/" + "*" * 16 + "x"))
    assert out.documents == []  # `x.md` ends in `.md`, not `x`
    out = multi_get(app, MultiGetInput(pattern="notes/" + "*" * 16 + "x.md"))
    assert [d.uri for d in out.documents] == ["gno://notes/x.md"]


def test_a_path_typed_in_the_other_unicode_form_names_the_note(make_app):
    """macOS keeps file names decomposed (NFD); people type them composed (NFC). A ref in
    either spelling finds the note; where both spellings are files (Linux allows it), the
    exact one wins."""
    import unicodedata

    nfd, nfc = (unicodedata.normalize(f, "café.md") for f in ("NFD", "NFC"))
    app, root = make_app({nfd: "decomposed name\n", "both/" + nfd: "the NFD file\n"})
    (root / "both" / nfc).write_text("the NFC file\n")
    sync(app)
    assert "decomposed name" in get(app, GetInput(ref=f"notes/{nfc}")).content
    assert "decomposed name" in get(app, GetInput(ref=f"gno://notes/{nfd}")).content
    assert "the NFC file" in get(app, GetInput(ref=f"notes/both/{nfc}")).content
    assert "the NFD file" in get(app, GetInput(ref=f"notes/both/{nfd}")).content
    with pytest.raises(DocumentNotFoundError):
        get(app, GetInput(ref="notes/cafe.md"))  # no accent: another name
