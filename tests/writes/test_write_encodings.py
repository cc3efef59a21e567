"""Writes that start from a file which is not plain UTF-8 with LF line ends: bytes that
are no UTF-8, a byte-order mark. Such a file is edited without losing a byte, or refused
with a documented code — never an internal error."""

from __future__ import annotations

import pytest
from gno_contracts.models.recall_input import RecallInput
from gno_contracts.models.remember_input import RememberInput
from gno_contracts.models.tag_edit_input import TagEditInput

from gno.errors import GnoError
from gno.services import tag_writes
from gno.services.memory import recall, remember
from tests.conftest import sync

LATIN1 = b"---\ntitle: caf\xe9\ntags: [alpha]\n---\nna\xefve body\n"


def test_a_tag_edit_keeps_bytes_that_are_no_utf8_in_the_frontmatter(make_app) -> None:
    """A title saved in Latin-1: ``gno tags add`` was an internal error (the YAML parser
    was handed the undecodable bytes); now the tag is added, every other byte stays, and
    removing it restores the file byte for byte."""
    app, root = make_app({"n.md": LATIN1})
    sync(app)
    tag_writes.add(app, TagEditInput(ref="notes/n.md", tag="work"))
    assert (root / "n.md").read_bytes() == (
        b"---\ntitle: caf\xe9\ntags:\n  - alpha\n  - work\n---\nna\xefve body\n"
    )
    doc = app.store().document_by_path("notes", "n.md")
    assert doc is not None and app.store().tags_for([doc.id])[doc.id] == ["alpha", "work"]
    tag_writes.remove(app, TagEditInput(ref="notes/n.md", tag="work"))
    tag_writes.remove(app, TagEditInput(ref="notes/n.md", tag="alpha"))
    tag_writes.add(app, TagEditInput(ref="notes/n.md", tag="alpha"))
    assert (root / "n.md").read_bytes() == (
        b"---\ntitle: caf\xe9\ntags:\n  - alpha\n---\nna\xefve body\n"
    )


@pytest.mark.parametrize("edit", ["add", "rm"])
def test_a_tag_that_is_no_utf8_is_refused_rather_than_rewritten(make_app, edit: str) -> None:
    """A tag spelled in bytes that are no UTF-8 cannot be rewritten as it is: VALIDATION,
    nothing written (before: an internal error)."""
    text = b"---\ntags: [caf\xe9, alpha]\n---\nbody\n"
    app, root = make_app({"n.md": text})
    sync(app)
    with pytest.raises(GnoError) as refused:
        if edit == "add":
            tag_writes.add(app, TagEditInput(ref="notes/n.md", tag="work"))
        else:
            tag_writes.remove(app, TagEditInput(ref="notes/n.md", tag="alpha"))
    assert refused.value.code == "VALIDATION" and "not UTF-8" in str(refused.value)
    assert (root / "n.md").read_bytes() == text


def test_a_fact_saved_with_a_byte_order_mark_can_be_superseded(make_app) -> None:
    """Notepad saves UTF-8 with a BOM. Recall listed such a fact as current (the index
    drops the mark), but superseding it answered MEMORY_SUPERSEDE_CONFLICT 'not a fact'
    forever; now it is superseded and the mark stays on the predecessor's file."""
    app, root = make_app({".keep": ""}, name="memory")
    config = app.config
    config.collections[0].extra["memoryManaged"] = True
    app.save_config(config)
    ask = {"collection": "memory", "scopes": ["home"]}
    added = remember(
        app, RememberInput.model_validate({"text": "Finn takes trams.", "decision": "add", **ask})
    )
    assert added.fact is not None
    path = root / added.fact.relPath
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())  # saved again by the editor
    sync(app)
    (old,) = recall(app, RecallInput.model_validate({"query": "trams", **ask})).facts
    new = remember(
        app,
        RememberInput.model_validate(
            {
                "text": "Finn takes buses.",
                "decision": "supersede",
                "predecessorUri": old.uri,
                "predecessorHash": old.contentHash,
                **ask,
            }
        ),
    )
    assert new.outcome.value == "superseded" and new.fact is not None
    marked = path.read_bytes()
    assert marked.startswith(b"\xef\xbb\xbf---\nmemory:\n") and b"supersededBy: gno://" in marked
    assert marked.endswith(b"Finn takes trams.\n")
    current = recall(app, RecallInput.model_validate({"query": "trams buses", **ask})).facts
    assert [f.uri for f in current] == [new.fact.uri]
