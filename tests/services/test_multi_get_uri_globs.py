"""A multi-get glob written as a gno:// URI reads as the URI does: its path is
percent-encoded (results print ``gno://notes/my%20file.md``; a prefix of it plus ``*``
must match that file), an encoded glob character is a literal one, and ``?index=`` naming
another index matches nothing of this one (a plain ref of another index is skipped too)."""

from __future__ import annotations

from gno_contracts.models.multi_get_input import MultiGetInput

from gno.services.documents import multi_get
from tests.conftest import sync

FILES = {
    "my file.md": "spaces\n",
    "a#b.md": "hash\n",
    "q?x.md": "question\n",
    "qax.md": "no question\n",
    "100%.md": "percent\n",
}


def found(app, pattern: str) -> list[str]:
    result = multi_get(app, MultiGetInput(pattern=pattern))
    return sorted(d.source.relPath for d in result.documents)


def test_an_encoded_uri_glob_matches_what_its_uri_names(make_app):
    app, _ = make_app(FILES)
    sync(app)
    assert found(app, "gno://notes/my%20file.md") == ["my file.md"]  # the plain ref
    assert found(app, "gno://notes/my%20*.md") == ["my file.md"]
    assert found(app, "gno://notes/a%23*") == ["a#b.md"]
    assert found(app, "gno://notes/100%25*") == ["100%.md"]
    assert found(app, "gno://notes/q*x.md") == ["q?x.md", "qax.md"]  # a written ? is a wildcard
    assert found(app, "gno://notes/q%3Fx*") == ["q?x.md"]  # an encoded one is the character
    assert found(app, "notes/my *.md") == ["my file.md"]  # collection/path globs: as typed


def test_a_uri_glob_of_another_index_matches_nothing_here(make_app):
    app, _ = make_app(FILES)
    sync(app)
    assert found(app, "gno://notes/my%20*.md?index=default") == ["my file.md"]
    result = multi_get(app, MultiGetInput(pattern="gno://notes/*.md?index=other"))
    assert result.documents == []
    assert [s.ref for s in result.skipped] == ["gno://notes/*.md?index=other"]
    plain = multi_get(app, MultiGetInput(refs=["gno://notes/qax.md?index=other"]))
    assert plain.documents == [] and len(plain.skipped) == 1
