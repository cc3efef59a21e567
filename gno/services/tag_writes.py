"""``gno tags add|rm``: a tag on a document. Markdown files get it in their frontmatter
(only the ``tags`` entry changes; every other byte stays) and are re-indexed at once;
other documents keep it in the index as a ``user`` tag, which syncs leave alone."""

from __future__ import annotations

from gno_contracts.models.tag_added import TagAdded
from gno_contracts.models.tag_edit_input import TagEditInput
from gno_contracts.models.tag_removed import TagRemoved

from gno.app import App
from gno.core.frontmatter import as_list, parse_frontmatter
from gno.core.frontmatter_edit import BOM, UNREADABLE, check_edit_size, set_tags, yaml_readable
from gno.core.frontmatter_span import frontmatter_span
from gno.core.identity import parse_ref
from gno.core.tags import normalize_tag, validate_tag
from gno.core.text_encoding import decode_for_edit
from gno.errors import NotFoundError, ValidationError
from gno.file_writes import write_atomic
from gno.index_lock import write_lease
from gno.rows import DocRow
from gno.services.doc_writes import editable_target, file_state
from gno.services.documents import capabilities, resolve_to_write
from gno.services.note_writer import disk_errors, sync_now, writable_collection


def _doc(app: App, ref: str) -> DocRow:
    doc = resolve_to_write(app, app.store(), parse_ref(ref))
    if doc is None:
        raise NotFoundError(f"Document not found: {ref}")
    return doc


def _key(tag: str) -> str:
    """What a tag in a file means: ``#Project`` and ``project`` are one tag."""
    return normalize_tag(tag.lstrip("#"))


def _file_tags(text: str, uri: str) -> list[str]:
    """The frontmatter's tags exactly as the file spells them (rewritten as they are: a
    tag edit changes one tag, never the others' case, quoting or ``#``)."""
    # read as set_tags writes: after a byte-order mark, with CRLF line ends as LF
    text = text.removeprefix(BOM).replace("\r\n", "\n")
    check_edit_size(frontmatter_span(text)[1])  # before the parse, not after it
    # bytes that are no UTF-8 read as U+FFFD (``readable``): a tag holding one is refused,
    # since rewritten from what was read it would lose its bytes
    readable = yaml_readable(text)
    value = parse_frontmatter(readable).data.get("tags")
    if isinstance(value, dict) or (
        isinstance(value, list) and not all(isinstance(v, str) for v in value)
    ):
        raise ValidationError(
            f"The tags entry of {uri} holds nested values a rewrite would lose; edit it by hand"
        )
    tags = as_list(value)
    if readable != text and any(UNREADABLE in tag for tag in tags):
        raise ValidationError(
            f"A tag in the frontmatter of {uri} is not UTF-8 text a rewrite would keep; "
            "edit it by hand"
        )
    return tags


def _edit(app: App, inp: TagEditInput, present: bool) -> tuple[DocRow, str, bool]:
    tag = validate_tag(inp.tag)
    with write_lease(app.paths):
        doc = _doc(app, inp.ref)
        writable_collection(app, doc.collection)
        if not capabilities(doc)["tagsWriteback"]:
            changed = app.store().set_user_tag(doc.id, tag, present)
            if not present and not changed:
                raise ValidationError(f"Tag {tag!r} is not on {doc.uri}")
            return doc, tag, False
        t = editable_target(app, doc)
        data, _, _ = file_state(t.path, t.root)
        text, encode = decode_for_edit(data)  # a UTF-16 note stays UTF-16
        tags = _file_tags(text, doc.uri)
        has = any(_key(t) == tag for t in tags)
        if present and not has:
            tags.append(tag)
        elif not present:
            if not has:
                if app.store().set_user_tag(doc.id, tag, False):
                    return doc, tag, False
                raise ValidationError(f"Tag {tag!r} is not on {doc.uri}")
            tags = [t for t in tags if _key(t) != tag]
        new = encode(set_tags(text, tags))
        wrote = new != data
        if wrote:
            with disk_errors(t.rel):
                write_atomic(t.path, new, root=t.root, replacing=data)
            doc = sync_now(app, t)
        return doc, tag, wrote or present


def add(app: App, inp: TagEditInput) -> TagAdded:
    doc, tag, wrote = _edit(app, inp, True)
    return TagAdded(docid=doc.docid, tag=tag, wroteToFile=wrote)


def remove(app: App, inp: TagEditInput) -> TagRemoved:
    doc, tag, removed = _edit(app, inp, False)
    return TagRemoved(docid=doc.docid, tag=tag, removedFromFile=removed)
