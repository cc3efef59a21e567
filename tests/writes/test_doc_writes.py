"""Documents, folders, tags and the byte-preserving frontmatter edit, on real files."""

from __future__ import annotations

import hashlib
import json
import os

import pytest
from gno_contracts.models.create_folder_input import CreateFolderInput
from gno_contracts.models.doc_create_input import DocCreateInput
from gno_contracts.models.doc_ref_input import DocRefInput
from gno_contracts.models.doc_update_input import DocUpdateInput
from gno_contracts.models.duplicate_note_input import DuplicateNoteInput
from gno_contracts.models.tag_edit_input import TagEditInput
from hypothesis import given, settings
from hypothesis import strategies as st

from gno.core.frontmatter import parse_frontmatter
from gno.core.frontmatter_edit import set_tags
from gno.errors import (
    ConflictError,
    DuplicateError,
    GnoError,
    InvalidPathError,
    ReadOnlyError,
)
from gno.services import doc_writes, tag_writes
from tests.conftest import search, sync

# ---- the frontmatter edit (pure) ----

_KEY = st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True).filter(lambda k: k != "tags")
_VALUE = st.text(
    st.characters(codec="utf-8", exclude_categories=["Cc", "Cs", "Zl", "Zp"]), max_size=20
).map(lambda v: '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"')
_BODY = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=200)
_TAG = st.from_regex(r"[a-z0-9][a-z0-9.\-]{0,6}(/[a-z0-9][a-z0-9\-]{0,4})?", fullmatch=True)


@st.composite
def _notes(draw: st.DrawFn) -> str:
    nl = draw(st.sampled_from(["\n", "\r\n"]))
    body = draw(_BODY)
    if draw(st.booleans()):
        return body
    keys = draw(st.lists(_KEY, min_size=1, max_size=4, unique=True))
    lines = [f"{k}: {draw(_VALUE)}" for k in keys]
    return "---" + nl + nl.join(lines) + nl + "---" + nl + body


@settings(max_examples=200, deadline=None)
@given(text=_notes(), tags=st.lists(_TAG, min_size=1, max_size=5, unique=True))
def test_adding_tags_then_removing_them_restores_every_byte(text: str, tags: list[str]) -> None:
    tagged = set_tags(text, tags)
    data = parse_frontmatter(tagged.replace("\r\n", "\n")).data
    assert data.get("tags") == tags
    assert set_tags(tagged, []) == text


@settings(max_examples=200, deadline=None)
@given(
    text=_notes(),
    first=st.lists(_TAG, min_size=1, max_size=3, unique=True),
    second=st.lists(_TAG, max_size=3, unique=True),
)
def test_a_tag_edit_changes_only_the_tags_entry(
    text: str, first: list[str], second: list[str]
) -> None:
    once = set_tags(text, first)
    twice = set_tags(once, second)
    assert set_tags(twice, []) == text
    body_start = text.find("---", 3) if text.startswith("---") else 0
    assert twice.endswith(text[body_start:]) or not second


def test_the_tags_entry_in_any_yaml_form_is_replaced_and_the_rest_kept() -> None:
    text = "---\ntitle: 'Q: why?'  # keep this\ntags: [Old, two]\ndate: 2024-01-01\n---\n\n# Body\n---\n"
    out = set_tags(text, ["new"])
    assert (
        out
        == "---\ntitle: 'Q: why?'  # keep this\ntags:\n  - new\ndate: 2024-01-01\n---\n\n# Body\n---\n"
    )
    block = "---\ntags:\n- a\n- b\nnext: 1\n---\nx"
    assert set_tags(block, ["c"]) == "---\ntags:\n  - c\nnext: 1\n---\nx"
    assert set_tags(b"\xef\xbb\xbfbody".decode(), ["t"]) == "\ufeff---\ntags:\n  - t\n---\nbody"


# ---- documents on disk ----


def test_create_writes_a_note_and_indexes_it(make_app) -> None:
    app, root = make_app({"a.md": "# A\n"})
    sync(app)
    made = doc_writes.create(
        app,
        DocCreateInput(
            collection="notes", title="Weekly Review", folderPath="reviews", tags=["work"]
        ),
    )
    assert made.relPath == "reviews/weekly-review.md" and made.uri.startswith("file://")
    assert made.gnoUri == "gno://notes/reviews/weekly-review.md"
    assert "# Weekly Review" in (root / made.relPath).read_text()
    raw = doc_writes.create(
        app, DocCreateInput(collection="notes", relPath="raw.md", content="exact\r\nbytes")
    )
    assert (root / raw.relPath).read_bytes() == b"exact\r\nbytes"
    with pytest.raises(DuplicateError):
        doc_writes.create(
            app, DocCreateInput(collection="notes", relPath="raw.md", content="again")
        )
    with pytest.raises(InvalidPathError):
        doc_writes.create(app, DocCreateInput(collection="notes", relPath="../x.md", content="x"))
    assert [h.uri for h in search(app, "weekly review").results] == [made.gnoUri]


def test_open_existing_on_a_note_deleted_since_the_last_sync_writes_it(make_app) -> None:
    """Only the index still lists the path: open_existing has nothing to open and writes
    the note (before: nothing was written and CAPTURE_SYNC_FAILED said it was)."""
    app, root = make_app({"plan.md": "# Old plan\n"})
    sync(app)
    (root / "plan.md").unlink()  # by hand, no sync since
    made = doc_writes.create(
        app,
        DocCreateInput(
            collection="notes", relPath="plan.md", content="# New plan\n",
            collisionPolicy="open_existing",
        ),
    )  # fmt: skip
    assert made.created and (root / "plan.md").read_bytes() == b"# New plan\n"


def test_update_saves_content_and_refuses_a_stale_expected_hash(make_app) -> None:
    app, root = make_app({"a.md": "---\ntitle: A\n---\n# A\nobsoletezz words\n"})
    sync(app)
    doc = app.store().document_by_path("notes", "a.md")
    assert doc is not None
    current = hashlib.sha256((root / "a.md").read_bytes()).hexdigest()
    saved = doc_writes.update(
        app,
        DocUpdateInput(
            id=doc.docid.lstrip("#"), content="# A\nnew words\n", expectedSourceHash=current
        ),
    )
    assert (root / "a.md").read_text() == "# A\nnew words\n"
    assert saved.sourceHash == hashlib.sha256(b"# A\nnew words\n").hexdigest()
    assert [h.uri for h in search(app, "new words").results] == ["gno://notes/a.md"]
    assert search(app, "obsoletezz").results == []
    # someone else edits the file: a save with the old hash is refused with the current state
    (root / "a.md").write_text("# A\nedited elsewhere\n")
    with pytest.raises(ConflictError) as caught:
        doc_writes.update(
            app,
            DocUpdateInput(id=saved.docId, content="lost?", expectedSourceHash=saved.sourceHash),
        )
    assert caught.value.http_status == 409 and caught.value.code == "CONFLICT"
    details = caught.value.details or {}
    assert (
        details["current"]["sourceHash"] == hashlib.sha256(b"# A\nedited elsewhere\n").hexdigest()
    )
    assert (root / "a.md").read_text() == "# A\nedited elsewhere\n"
    with pytest.raises(ConflictError):
        doc_writes.update(
            app,
            DocUpdateInput(
                id=saved.docId, content="x", expectedModifiedAt="2001-01-01T00:00:00.000Z"
            ),
        )


@pytest.mark.parametrize("edit", ["save", "tag"])
def test_an_editors_save_during_a_write_is_never_renamed_over(
    make_app, monkeypatch: pytest.MonkeyPatch, edit: str
) -> None:
    """An editor (it does not take the writer lease) saves the note after gno read it,
    while gno writes its temporary file: the save stays and gno's write is CONFLICT —
    before, gno renamed its own bytes over the save."""
    import gno.file_writes as file_writes

    app, root = make_app({"a.md": "# A\n"})
    sync(app)
    doc = doc_writes.document(app, "notes/a.md")
    real_temp_name = file_writes.temp_name

    def editor_saves_first(name: str) -> str:
        editor_tmp = root / "a.md.swp"
        editor_tmp.write_bytes(b"# A\nTyped in the editor.\n")
        os.replace(editor_tmp, root / "a.md")
        return real_temp_name(name)

    monkeypatch.setattr(file_writes, "temp_name", editor_saves_first)
    with pytest.raises(ConflictError) as caught:
        if edit == "save":
            doc_writes.update(app, DocUpdateInput(id=doc.docid, content="# A\nfrom gno\n"))
        else:
            tag_writes.add(app, TagEditInput(ref="notes/a.md", tag="work"))
    if edit == "save":  # the current state, as a stale expectedSourceHash answers
        current = (caught.value.details or {})["current"]
        saved = hashlib.sha256(b"# A\nTyped in the editor.\n").hexdigest()
        assert current["sourceHash"] == saved
    assert (root / "a.md").read_bytes() == b"# A\nTyped in the editor.\n"
    assert sorted(p.name for p in root.iterdir()) == ["a.md"]  # no temporary left


def test_saving_and_tagging_keep_a_private_notes_permission_bits(make_app) -> None:
    app, root = make_app({"secret.md": "# Secret\n\nbody\n"})
    (root / "secret.md").chmod(0o600)
    sync(app)
    doc = app.store().document_by_path("notes", "secret.md")
    doc_writes.update(app, DocUpdateInput(id=doc.docid, content="# Secret\n\nnew body\n"))
    assert (root / "secret.md").stat().st_mode & 0o777 == 0o600  # before: world-readable
    tag_writes.add(app, TagEditInput(ref="gno://notes/secret.md", tag="private"))
    assert (root / "secret.md").stat().st_mode & 0o777 == 0o600
    assert "private" in (root / "secret.md").read_text()


def test_a_file_where_a_folder_should_be_is_invalid_path_naming_it(make_app) -> None:
    """The path asked for needs a folder where a note is: the caller's path problem (400
    INVALID_PATH), not a server failure (it was RUNTIME, 500 over REST)."""
    app, root = make_app({"a.md": "# A\n", "b.md": "# B\n"})
    sync(app)
    with pytest.raises(GnoError, match=r"'b\.md': it is a file, not a folder") as dup:
        doc_writes.duplicate(app, DuplicateNoteInput(ref="gno://notes/a.md", folderPath="b.md"))
    with pytest.raises(GnoError, match=r"'b\.md': it is a file, not a folder") as folder:
        doc_writes.create_folder(
            app, CreateFolderInput(collection="notes", parentPath="b.md", name="sub")
        )
    with pytest.raises(GnoError, match=r"'b\.md': it is a file, not a folder") as made:
        doc_writes.create(
            app, DocCreateInput(collection="notes", relPath="b.md/c/d.md", content="x")
        )
    # before: RUNTIME ("Not a directory"); earlier still a raw FileExistsError
    assert dup.value.code == folder.value.code == made.value.code == "INVALID_PATH"
    assert sorted(p.name for p in root.iterdir()) == ["a.md", "b.md"]


def test_update_tags_keeps_the_rest_of_the_file_byte_for_byte(make_app) -> None:
    original = '---\r\ntitle: "Keep  me"   # comment\r\ntags: [old]\r\n---\r\n\r\nBody  text\r\n'
    app, root = make_app({"a.md": original.encode()})
    sync(app)
    doc = app.store().document_by_path("notes", "a.md")
    assert doc is not None
    doc_writes.update(app, DocUpdateInput(id=doc.docid, tags=["New", "project/gno"]))
    assert (root / "a.md").read_bytes() == original.replace(
        "tags: [old]\r\n", "tags:\r\n  - new\r\n  - project/gno\r\n"
    ).encode()
    assert [h.uri for h in search(app, "body", tagsAll=["project/gno"]).results] == [
        "gno://notes/a.md"
    ]


def test_a_tag_edit_keeps_every_other_tag_as_the_file_spells_it(make_app) -> None:
    """Tags a person wrote that gno would not accept itself (case, spaces, ``#``, ``:``, a
    line break) survive a tag edit as the same strings, in YAML that still parses."""
    import yaml

    odd = ["a: b", "Project X", "x # y", "#c", "line\nbreak"]
    text = '---\ntitle: T\ntags: ["a: b", "Project X", "x # y", "#c", "line\\nbreak"]\n---\nB\n'
    app, root = make_app({"n.md": text})
    sync(app)

    def file_tags() -> object:
        block = (root / "n.md").read_text().split("---\n")[1]
        return yaml.safe_load(block)["tags"]  # strict YAML, not gno's lenient fallback

    tag_writes.add(app, TagEditInput(ref="notes/n.md", tag="new"))
    # Before: written unquoted and lowercased (- a: b, - project x, - c, a broken line).
    assert file_tags() == [*odd, "new"]
    tag_writes.remove(app, TagEditInput(ref="notes/n.md", tag="c"))  # the file's "#c"
    assert file_tags() == ["a: b", "Project X", "x # y", "line\nbreak", "new"]
    assert (root / "n.md").read_text().endswith("---\nB\n")


def test_a_tag_edit_of_a_file_with_a_byte_order_mark_keeps_its_tags(make_app) -> None:
    text = "\ufeff---\r\ntitle: T\r\ntags: [alpha, beta]\r\n---\r\nbody\r\n"
    app, root = make_app({"n.md": text.encode()})
    sync(app)
    tag_writes.add(app, TagEditInput(ref="notes/n.md", tag="gamma"))
    # Before: the tags were not seen behind the mark, and the entry became [gamma].
    assert (root / "n.md").read_bytes() == (
        "\ufeff---\r\ntitle: T\r\ntags:\r\n  - alpha\r\n  - beta\r\n  - gamma\r\n---\r\nbody\r\n"
    ).encode()
    tag_writes.remove(app, TagEditInput(ref="notes/n.md", tag="alpha"))
    assert "alpha" not in (root / "n.md").read_text() and "beta" in (root / "n.md").read_text()


def test_a_tag_edit_refuses_a_tags_entry_it_would_lose_part_of(make_app) -> None:
    text = "---\ntags:\n  - work\n  - {nested: value}\n---\nB\n"
    app, root = make_app({"n.md": text})
    sync(app)
    with pytest.raises(GnoError) as refused:
        tag_writes.add(app, TagEditInput(ref="notes/n.md", tag="new"))
    assert refused.value.code == "VALIDATION"
    assert (root / "n.md").read_text() == text  # before: rewritten without the mapping


@pytest.mark.parametrize(
    "edit",
    [
        lambda app: tag_writes.add(app, TagEditInput(ref="notes/n.md", tag="new")),
        lambda app: tag_writes.remove(app, TagEditInput(ref="notes/n.md", tag="second")),
        lambda app: doc_writes.update(app, DocUpdateInput(id="notes/n.md", tags=["new"])),
    ],
    ids=["add", "rm", "update"],
)
def test_a_tag_edit_refuses_two_tags_entries_naming_the_key(make_app, edit) -> None:
    """YAML keys are unique; a loader reads the last ``tags:``, gno edited the first: an
    added tag never showed, a removed one stayed. Now nothing is written (VALIDATION)."""
    text = "---\ntags:\n  - first\ntitle: T\ntags: [second]\n---\nB\n"
    app, root = make_app({"n.md": text})
    sync(app)
    with pytest.raises(GnoError, match="2 top-level 'tags' entries") as refused:
        edit(app)
    assert refused.value.code == "VALIDATION"
    assert (root / "n.md").read_text() == text


def test_a_tag_edit_refuses_a_tags_entry_whose_anchor_another_entry_uses(make_app) -> None:
    """``tags: &t [a]`` with ``aliases: *t``: the rewritten entry lost the anchor, and the
    block then named an anchor nowhere defined, which no YAML loader reads (nor gno's: the
    title and dates fell back to the line parser). Nothing is written (VALIDATION); an
    anchor nobody uses, or an alias as the tags value, is rewritten as before."""
    text = "---\ntags: &t [a]\naliases: *t\ntitle: T\n---\nB\n"
    app, root = make_app({"n.md": text, "m.md": "---\nkeep: &k [x]\ntags: *k\n---\nB\n"})
    sync(app)
    with pytest.raises(GnoError, match="anchor") as refused:
        tag_writes.add(app, TagEditInput(ref="notes/n.md", tag="new"))
    assert refused.value.code == "VALIDATION"
    assert (root / "n.md").read_text() == text
    tag_writes.add(app, TagEditInput(ref="notes/m.md", tag="new"))
    assert (root / "m.md").read_text() == "---\nkeep: &k [x]\ntags:\n  - x\n  - new\n---\nB\n"
    assert set_tags("---\ntags: &t [a]\n---\nB\n", ["a", "b"]) == (
        "---\ntags:\n  - a\n  - b\n---\nB\n"
    )


def test_a_tags_line_inside_a_quoted_title_is_not_the_tags_entry(make_app) -> None:
    """A quoted title may run over lines, one of them starting ``tags:``: the entry YAML
    reads is edited (the title line was taken for it, and the title's quote cut)."""
    text = '---\ntitle: "one\ntags: two"\ntags: [real]\n---\nB\n'
    app, root = make_app({"n.md": text})
    sync(app)
    tag_writes.add(app, TagEditInput(ref="notes/n.md", tag="new"))
    assert (root / "n.md").read_text() == (
        '---\ntitle: "one\ntags: two"\ntags:\n  - real\n  - new\n---\nB\n'
    )


def test_a_converted_document_is_read_only(make_app) -> None:
    app, _ = make_app({"a.md": "# A\n"})
    sync(app)
    doc = app.store().document_by_path("notes", "a.md")
    assert doc is not None
    app.store().conn.execute(
        "UPDATE documents SET converter_id = 'markitdown/pdf' WHERE id = ?", (doc.id,)
    )
    with pytest.raises(ReadOnlyError):
        doc_writes.update(app, DocUpdateInput(id=doc.docid, content="x"))


def test_deactivate_duplicate_and_create_folder(make_app) -> None:
    app, root = make_app({"sub/a.md": "# A\nalpha words\n"})
    sync(app)
    doc = app.store().document_by_path("notes", "sub/a.md")
    assert doc is not None
    copy = doc_writes.duplicate(app, DuplicateNoteInput(ref=doc.docid))
    assert (
        copy.relPath == "sub/a-2.md"
        and (root / "sub/a-2.md").read_bytes() == (root / "sub/a.md").read_bytes()
    )
    gone = doc_writes.deactivate(
        app, DocRefInput(id="gno://notes/sub/a.md")
    )  # the copy shares its docid
    assert gone.path == "gno://notes/sub/a.md" and (root / "sub/a.md").exists()
    assert [h.uri for h in search(app, "alpha").results] == ["gno://notes/sub/a-2.md"]
    folder = doc_writes.create_folder(
        app, CreateFolderInput(collection="notes", name="projects", parentPath="sub")
    )
    assert folder.relPath == "sub/projects" and (root / "sub/projects").is_dir()
    with pytest.raises(DuplicateError):
        doc_writes.create_folder(
            app, CreateFolderInput(collection="notes", name="projects", parentPath="sub")
        )
    with pytest.raises(InvalidPathError):
        doc_writes.create_folder(
            app, CreateFolderInput(collection="notes", name="..", parentPath="sub")
        )


@pytest.mark.parametrize(
    "write",
    [
        lambda app: doc_writes.create_folder(
            app, CreateFolderInput(collection="notes", name="p/q", parentPath="sub")
        ),
        lambda app: doc_writes.duplicate(
            app, DuplicateNoteInput(ref="notes/sub/a.md", name="p/q.md")
        ),
    ],
    ids=["folder", "duplicate"],
)
def test_a_name_with_a_slash_is_refused_not_made_into_folders(make_app, write) -> None:
    """A folder's or a copy's ``name`` is one segment (the schema says so); ``p/q`` made a
    folder ``p`` with ``q`` in it, outside the ``folderPath``/``parentPath`` given."""
    app, root = make_app({"sub/a.md": "# A\n"})
    sync(app)
    with pytest.raises(InvalidPathError, match="one path segment"):
        write(app)
    assert sorted(p.name for p in (root / "sub").iterdir()) == ["a.md"]


def test_tags_add_and_rm_on_markdown_and_on_converted_documents(make_app) -> None:
    original = "---\ntitle: T\n---\nbody\n"
    app, root = make_app({"a.md": original})
    sync(app)
    added = tag_writes.add(app, TagEditInput(ref="notes/a.md", tag="Work"))
    assert added.tag == "work" and added.wroteToFile
    assert (root / "a.md").read_text() == "---\ntitle: T\ntags:\n  - work\n---\nbody\n"
    again = tag_writes.add(app, TagEditInput(ref="notes/a.md", tag="work"))  # idempotent
    assert (root / "a.md").read_text().count("work") == 1 and again.wroteToFile
    removed = tag_writes.remove(app, TagEditInput(ref="notes/a.md", tag="work"))
    assert removed.removedFromFile and (root / "a.md").read_text() == original
    with pytest.raises(Exception) as caught:
        tag_writes.remove(app, TagEditInput(ref="notes/a.md", tag="work"))
    assert getattr(caught.value, "exit_code", None) == 1


def test_browse_tree_autocomplete_and_presets(make_app) -> None:
    from gno_contracts.models.autocomplete_input import AutocompleteInput
    from gno_contracts.models.browse_tree_input import BrowseTreeInput
    from gno_contracts.models.note_presets_input import NotePresetsInput

    from gno.services import workspace

    app, _ = make_app({"a/b/plan.md": "# Project plan\n", "a/c.md": "# C\n", "top.md": "# Top\n"})
    sync(app)
    tree = workspace.browse_tree(app, BrowseTreeInput()).model_dump(mode="json")
    folders = tree["collections"][0]["folders"]
    assert folders[0]["path"] == "a" and folders[0]["documentCount"] == 2
    assert folders[0]["children"][0]["path"] == "a/b"
    hits = workspace.autocomplete(app, AutocompleteInput(query="plan")).suggestions
    assert [h.relPath for h in hits] == ["a/b/plan.md"]
    assert workspace.autocomplete(app, AutocompleteInput(query="%")).suggestions == []
    ids = [p.id.value for p in workspace.note_presets(app, NotePresetsInput()).presets]
    assert {"blank", "person", "company-project", "meeting", "idea-original"} <= set(ids)


def test_a_remote_caller_gets_no_host_path_from_write_answers() -> None:
    from gno_contracts.operations import OPERATIONS

    from gno.rest.views import redact

    ops = {op.id: op for op in OPERATIONS}
    receipt = {"uri": "gno://notes/a.md", "absPath": "/home/me/notes/a.md", "relPath": "a.md"}
    assert redact(ops["capture"], dict(receipt)) == {"uri": "gno://notes/a.md", "relPath": "a.md"}
    created = {
        "uri": "file:///home/me/notes/a.md",
        "gnoUri": "gno://notes/a.md",
        "path": "/home/me/notes/a.md",
    }
    assert redact(ops["doc_create"], dict(created)) == {
        "uri": "gno://notes/a.md",
        "gnoUri": "gno://notes/a.md",
    }
    saved = {
        "uri": "file:///x/a.md",
        "gnoUri": "gno://notes/a.md",
        "path": "/x/a.md",
        "docId": "#1",
    }
    assert "/x/" not in str(redact(ops["doc_update"], dict(saved)))
    folder = {
        "collection": "notes",
        "relPath": "p",
        "path": "/x/p",
        "kind": "folder",
        "created": True,
    }
    assert "path" not in redact(ops["create_folder"], dict(folder))


def test_a_remote_caller_gets_no_host_path_from_a_stored_receipt(make_app) -> None:
    """``GET /api/requests/{id}`` answers a document save's or create's receipt as it was
    stored: a remote caller gets it without the file path and ``file://`` uri, as the
    write's own answer was (before: both were there)."""
    from gno_contracts.models.request_status_input import RequestStatusInput
    from gno_contracts.operations import OPERATIONS

    from gno.rest.views import redact
    from gno.services.write_requests import request_status

    app, root = make_app({"a.md": "# A\n"})
    sync(app)
    doc_writes.create(
        app, DocCreateInput(collection="notes", relPath="b.md", content="b", requestId="c-1")
    )
    doc = doc_writes.document(app, "notes/a.md")
    doc_writes.update(app, DocUpdateInput(id=doc.docid, content="# A2\n", requestId="u-1"))
    op = next(op for op in OPERATIONS if op.id == "request_status")
    for request_id in ("c-1", "u-1"):
        stored = request_status(app, RequestStatusInput(requestId=request_id))
        answer = redact(op, stored.model_dump(mode="json", exclude_unset=True))
        assert str(root) not in json.dumps(answer) and "file://" not in json.dumps(answer)
        assert answer["receipt"]["gnoUri"].startswith("gno://notes/")


def test_a_request_id_an_earlier_write_of_another_kind_used_is_a_conflict(make_app) -> None:
    """A create's requestId sent again with a save: the create's receipt is no answer to
    the save (before: a model validation error, an internal error on every surface)."""
    app, root = make_app({"a.md": "# A\n"})
    sync(app)
    doc_writes.create(
        app, DocCreateInput(collection="notes", relPath="b.md", content="b", requestId="r-1")
    )
    doc = doc_writes.document(app, "notes/a.md")
    with pytest.raises(ConflictError, match="requestId 'r-1' was used by an earlier doc_create"):
        doc_writes.update(app, DocUpdateInput(id=doc.docid, content="# A2\n", requestId="r-1"))
    assert (root / "a.md").read_text() == "# A\n"


def test_a_tag_on_a_plain_text_file_lives_in_the_index_and_survives_a_sync(make_app) -> None:
    app, root = make_app({"log.txt": "plain text log\n"})
    sync(app)
    added = tag_writes.add(app, TagEditInput(ref="notes/log.txt", tag="ops"))
    assert not added.wroteToFile and (root / "log.txt").read_text() == "plain text log\n"
    sync(app)
    assert [h.uri for h in search(app, "plain", tagsAll=["ops"]).results] == ["gno://notes/log.txt"]
    removed = tag_writes.remove(app, TagEditInput(ref="notes/log.txt", tag="ops"))
    assert not removed.removedFromFile
    assert search(app, "plain", tagsAll=["ops"]).results == []


def test_a_docid_that_names_several_copies_writes_none_of_them(make_app) -> None:
    """Identical files share a docid (a content hash): an edit, tag, deactivation or
    rename by docid alone would pick one by path order, so it is refused naming both, and
    the same write by URI goes to the file it names."""
    from gno_contracts.models.rename_note_input import RenameNoteInput

    from gno.errors import ValidationError
    from gno.services import refactor

    note = "# Twin\ntwin words\n"
    app, root = make_app({"a.md": note, "b.md": note})
    sync(app)
    docid = app.store().document_by_path("notes", "b.md").docid  # type: ignore[union-attr]
    writes = [
        lambda: doc_writes.update(app, DocUpdateInput(id=docid.lstrip("#"), content="# Mine\n")),
        lambda: doc_writes.deactivate(app, DocRefInput(id=docid)),
        lambda: tag_writes.add(app, TagEditInput(ref=docid, tag="twin")),
        lambda: refactor.rename_note(app, RenameNoteInput(ref=docid, name="c.md")),
    ]
    for write in writes:
        with pytest.raises(ValidationError) as caught:
            write()
        assert "gno://notes/a.md" in str(caught.value)
        assert "gno://notes/b.md" in str(caught.value)
    assert (root / "a.md").read_text() == note and (root / "b.md").read_text() == note
    assert len(app.store().documents_by_docid(docid)) == 2  # none deactivated
    doc_writes.update(app, DocUpdateInput(id=docid, uri="gno://notes/b.md", content="# Mine\n"))
    assert (root / "a.md").read_text() == note and (root / "b.md").read_text() == "# Mine\n"
    # one copy left: the docid names it alone again
    doc_writes.deactivate(app, DocRefInput(id=docid))
    assert app.store().document_by_path("notes", "a.md").active is False  # type: ignore[union-attr]


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_a_tag_edit_of_a_utf16_note_writes_utf16(make_app, codec: str) -> None:
    # UTF-16 notes are indexed now (they were refused as binary): a tag edit decoded them as
    # UTF-8 and wrote a UTF-8 frontmatter into the UTF-16 file
    def utf16(text: str) -> bytes:
        return ("\ufeff" + text).encode(codec)

    text = "---\r\ntitle: Café\r\ntags: [alpha]\r\n---\r\nbody wortlaut\r\n"
    app, root = make_app({"n.md": utf16(text)})
    sync(app)
    tag_writes.add(app, TagEditInput(ref="notes/n.md", tag="gamma"))
    added = text.replace("tags: [alpha]\r\n", "tags:\r\n  - alpha\r\n  - gamma\r\n")
    assert (root / "n.md").read_bytes() == utf16(added)
    doc = app.store().document_by_path("notes", "n.md")
    assert doc is not None and doc.title == "Café"
    doc_writes.update(app, DocUpdateInput(id=doc.docid, tags=["delta"]))
    assert (root / "n.md").read_bytes() == utf16(
        text.replace("tags: [alpha]\r\n", "tags:\r\n  - delta\r\n")
    )
    assert [h.uri for h in search(app, "wortlaut", tagsAll=["delta"]).results] == [
        "gno://notes/n.md"
    ]


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-32-be"])
def test_new_content_for_a_utf16_note_is_written_in_its_encoding(make_app, codec: str) -> None:
    # a content save wrote UTF-8 into a note a Windows tool keeps in UTF-16 (tag edits did not)
    def encoded(text: str) -> bytes:
        return ("\ufeff" + text).encode(codec)

    app, root = make_app({"n.md": encoded("# Notiz\r\n\nalter Text\r\n")})
    sync(app)
    doc = app.store().document_by_path("notes", "n.md")
    assert doc is not None
    for content in ("# Notiz\n\nneuer Wortlaut\n", "\ufeff# Notiz\n\nneuer Wortlaut\n"):
        doc_writes.update(app, DocUpdateInput(id=doc.docid, uri=doc.uri, content=content))
        assert (root / "n.md").read_bytes() == encoded("# Notiz\n\nneuer Wortlaut\n")
    assert [h.uri for h in search(app, "Wortlaut").results] == ["gno://notes/n.md"]
