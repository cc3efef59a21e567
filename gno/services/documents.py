"""Reading documents back: get, multi-get and ls."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from gno.app import App
from gno.core.identity import Ref, index_identity, make_uri, parse_ref, parse_uri
from gno.core.tags import validate_tag
from gno.errors import DocumentNotFoundError, GnoError, NotFoundError, ValidationError
from gno.ports import Store
from gno.rows import DocRow

if TYPE_CHECKING:  # each handler imports its own models: `gno get` loads only GetResult
    from gno_contracts.models.get import GetResult
    from gno_contracts.models.get_input import GetInput
    from gno_contracts.models.ls import DocumentList
    from gno_contracts.models.ls_input import LsInput
    from gno_contracts.models.multi_get import MultiGetResult
    from gno_contracts.models.multi_get_input import MultiGetInput

    from gno.services.results import ResultBuilder

GLOB_CHARS = set("*?[]")
NATIVE_CONVERTERS = {"native/markdown", "native/plaintext"}


def check_index(app: App, ref: Ref) -> None:
    if ref.index and index_identity(ref.index) != app.paths.index_identity:
        raise ValidationError(
            f"Reference {ref.raw} belongs to index {ref.index!r}; run with --index {ref.index}"
        )


def resolve(app: App, store: Store, ref: Ref) -> DocRow | None:
    check_index(app, ref)
    if ref.docid:
        docs = store.documents_by_docid(ref.docid)
        return docs[0] if docs else None
    assert ref.collection and ref.rel_path
    return active_at(store, ref.collection, ref.rel_path)


def resolve_to_write(app: App, store: Store, ref: Ref) -> DocRow | None:
    """The one document a write names. A docid is a content hash's prefix: identical
    copies share it, and a write must not pick one of them by path order (an edit meant
    for b.md landed in a.md), so a docid naming several documents is refused."""
    if ref.docid and len(docs := store.documents_by_docid(ref.docid)) > 1:
        shown = ", ".join(d.uri for d in docs[:5]) + (", …" if len(docs) > 5 else "")
        raise ValidationError(
            f"{ref.docid} names {len(docs)} documents ({shown}); name one by its gno:// URI"
        )
    return resolve(app, store, ref)


def active_at(store: Store, collection: str, rel_path: str) -> DocRow | None:
    """The active document a typed path names. Paths are kept as the file system spells
    them, and macOS keeps names decomposed (NFD) where a person types them composed (NFC):
    a path with no document of its exact spelling also names one of its other Unicode
    spelling. The exact spelling wins (Linux may hold both as two files)."""
    doc = store.document_by_path(collection, rel_path)
    if (doc is None or not doc.active) and not rel_path.isascii():
        import unicodedata

        for form in ("NFC", "NFD"):
            other = unicodedata.normalize(form, rel_path)
            found = store.document_by_path(collection, other) if other != rel_path else None
            if found is not None and found.active:
                return found
    return doc if doc and doc.active else None


def _lines(mirror: str) -> list[str]:
    return mirror.split("\n")[:-1]


def _numbered(lines: list[str], first: int) -> str:
    return "\n".join(f"{first + i}: {line}" for i, line in enumerate(lines))


def capabilities(doc: DocRow) -> dict[str, Any]:
    if doc.converter_id in NATIVE_CONVERTERS:
        markdown = doc.ext in (".md", ".markdown")
        return {
            "editable": True,
            "tagsEditable": markdown,
            "tagsWriteback": markdown,
            "canCreateEditableCopy": False,
            "mode": "editable",
        }
    if (doc.converter_id or "").startswith("record/"):
        return {
            "editable": False,
            "tagsEditable": False,
            "tagsWriteback": False,
            "canCreateEditableCopy": True,
            "mode": "read_only",
            "reason": "A record of an export container; edit the container instead",
        }
    return {
        "editable": False,
        "tagsEditable": False,
        "tagsWriteback": False,
        "canCreateEditableCopy": True,
        "mode": "read_only",
        "reason": "Converted from a binary format; edit a Markdown copy instead",
    }


def get(app: App, inp: GetInput) -> GetResult:
    from gno_contracts.models.get import GetResult

    return GetResult.model_validate(get_payload(app, inp))


def get_payload(app: App, inp: GetInput) -> dict[str, Any]:
    """get@1.0 in its wire form."""
    ref = parse_ref(inp.ref)
    store = app.store()
    doc = resolve(app, store, ref)
    if doc is None:
        raise DocumentNotFoundError(f"Document not found: {inp.ref}")
    mirror = store.content(doc.mirror_hash) if doc.mirror_hash else None
    if mirror is None:
        raise DocumentNotFoundError(
            f"Document has no indexed content: {inp.ref} ({doc.error_code or 'not converted'})"
        )
    lines = _lines(mirror)
    start = inp.fromLine or ref.line or 1
    ranged = inp.fromLine is not None or inp.lineCount is not None or ref.line is not None
    selected = (
        lines[start - 1 : start - 1 + inp.lineCount if inp.lineCount else None]
        if start <= len(lines)
        else []
    )
    from gno.services.results import ResultBuilder  # snippets, records: not for `resolve`

    builder = ResultBuilder(store, app.paths.index_name, inp.includeAbsPath)
    payload: dict[str, Any] = {"docid": doc.docid, "uri": builder.uri(doc)}
    if doc.title:
        payload["title"] = doc.title
    payload["content"] = _numbered(selected, start) if inp.lineNumbers else "\n".join(selected)
    payload["totalLines"] = len(lines)
    if ranged and selected:
        payload["returnedLines"] = {"start": start, "end": start + len(selected) - 1}
    chunks = store.chunks(doc.mirror_hash or "")
    if language := builder.language_hints.get(doc.collection) or (chunks and chunks[0][5]):
        payload["language"] = language
    container, record = builder.records([doc]).get(doc.id, (None, None))
    payload["source"] = builder.source(doc, container)
    if record is not None:
        payload["record"] = record
    payload["conversion"] = {
        "converterId": doc.converter_id,
        "converterVersion": doc.converter_version,
        "mirrorHash": doc.mirror_hash,
    }
    payload["capabilities"] = capabilities(doc)
    if tags := store.tags_for([doc.id]).get(doc.id):
        payload["tags"] = tags
    return payload


def _truncate(text: str, max_bytes: int) -> tuple[str, bool]:
    """Cut at the last line boundary that fits in max_bytes of UTF-8."""
    data = text.encode("utf-8")
    if len(data) <= max_bytes:
        return text, False
    cut = data[:max_bytes]
    newline = cut.rfind(b"\n")
    cut = cut[: newline + 1] if newline >= 0 else cut
    return cut.decode("utf-8", errors="ignore"), True


_ESCAPED = re.compile(r"(?:%[0-9A-Fa-f]{2})+")
_GLOB_SYNTAX = set("*?[]{},")


def _uri_glob(path: str) -> str:
    """A gno:// glob's path as a glob of the relative path: percent-escapes decoded, as the
    URI's own path is (``my%20*.md`` matches ``my file.md``), an encoded glob character a
    literal one (``%3F`` is ``?`` itself, a one-character class)."""

    def literal(match: re.Match[str]) -> str:
        text = unquote(match.group())
        return "".join(f"[{c}]" if c in _GLOB_SYNTAX else c for c in text)

    return _ESCAPED.sub(literal, path)


def _expand(app: App, store: Store, item: str) -> list[str] | None:
    """A glob ref -> matching ``collection/relPath`` refs (None when it is not a glob). A
    gno:// glob of another index matches nothing here, as its plain refs resolve nothing."""
    from gno.core.globs import compile_globs

    uri = item.startswith("gno://")
    pattern, _, index = item.partition("?index=") if uri else (item, "", "")
    if not GLOB_CHARS & set(pattern):
        return None
    try:
        if index and index_identity(unquote(index)) != app.paths.index_identity:
            return []
    except ValidationError:  # no index has that name
        return []
    collection, _, path_glob = pattern.removeprefix("gno://").partition("/")
    path_glob = _uri_glob(path_glob) if uri else path_glob
    try:
        matcher = compile_globs(path_glob or "**")  # '*' stays inside one folder, '**' crosses them
        owner = compile_globs(collection.lower() or "*")
    except ValidationError:
        return []
    names = [c["name"] for c in store.collections() if owner.match(c["name"])]
    return [
        f"{name}/{doc.rel_path}"
        for name in names
        for doc in store.active_paths(name)
        if matcher.match(doc.rel_path)
    ]


def _document_entry(
    builder: ResultBuilder, doc: DocRow, mirror: str, inp: MultiGetInput
) -> dict[str, Any]:
    lines = _lines(mirror)
    text = _numbered(lines, 1) if inp.lineNumbers else "\n".join(lines)
    content, truncated = _truncate(text, inp.maxBytes)
    entry: dict[str, Any] = {"docid": doc.docid, "uri": builder.uri(doc)}
    if doc.title:
        entry["title"] = doc.title
    container, record = builder.records([doc]).get(doc.id, (None, None))
    source = builder.source(doc, container)
    entry.update(
        content=content,
        truncated=truncated,
        totalLines=len(lines),
        source={k: source[k] for k in ("absPath", "relPath", "mime", "ext") if k in source},
    )
    if record is not None:
        entry["record"] = record
    return entry


def multi_get(app: App, inp: MultiGetInput) -> MultiGetResult:
    from gno_contracts.models.multi_get import MultiGetResult

    return MultiGetResult.model_validate(multi_get_payload(app, inp))


def multi_get_payload(app: App, inp: MultiGetInput) -> dict[str, Any]:
    """multi-get@1.0 in its wire form."""
    from gno.core.globs import split_globs
    from gno.services.results import ResultBuilder

    if bool(inp.refs) == bool(inp.pattern):
        raise ValidationError("Provide either refs or pattern, not both and not neither")
    store = app.store()
    items = [part.strip() for raw in (inp.refs or [inp.pattern or ""]) for part in split_globs(raw)]
    refs: list[str] = []  # globs count as the refs they expand to
    for item in items:
        expanded = _expand(app, store, item)
        refs.extend(expanded if expanded else [item])
    refs = list(dict.fromkeys(refs))
    builder = ResultBuilder(store, app.paths.index_name)
    documents, skipped, seen = [], [], set()
    for raw in refs:
        try:
            doc = resolve(app, store, parse_ref(raw))
        except GnoError:
            doc = None
            reason = "not_found" if GLOB_CHARS & set(raw) else "invalid_ref"
        else:
            reason = "not_found"
        mirror = store.content(doc.mirror_hash) if doc and doc.mirror_hash else None
        if doc is not None and mirror is None:
            reason = "conversion_error"
        if mirror is None:
            skipped.append({"ref": raw, "reason": reason})
        elif doc is not None and doc.id not in seen:
            seen.add(doc.id)
            documents.append(_document_entry(builder, doc, mirror, inp))
    meta = {
        "requested": len(refs),
        "returned": len(documents),
        "skipped": len(skipped),
        "maxBytes": inp.maxBytes,
    }
    return {"documents": documents, "skipped": skipped, "meta": meta}


def list_scope(store: Store, scope: str | None) -> tuple[str | None, str | None]:
    """(collection, rel-path prefix) of an ls scope: a collection name or gno://coll/prefix."""
    collection = prefix = None
    if scope:
        if scope.startswith("gno://"):
            if "/" not in scope[len("gno://") :]:
                raise ValidationError(
                    f"Scope {scope} needs a trailing '/' (gno://<collection>/[prefix])"
                )
            parsed = parse_uri(scope)
            collection, prefix = parsed.collection, parsed.rel_path or None
        else:
            collection = scope.lower()
        if collection not in {c["name"] for c in store.collections()}:
            raise NotFoundError(f"Collection not found: {collection}")
    return collection, prefix


def list_page(store: Store, inp: LsInput) -> tuple[list[DocRow], int]:
    """The page ``inp`` asks for: scope, tags, and the order (by URI unless sortField)."""
    collection, prefix = list_scope(store, inp.scope)
    field = inp.sortField
    if field not in (None, "modified") and field not in store.date_field_names(collection):
        raise ValidationError(
            f"Unknown sortField {field!r}: use modified or one of availableDateFields"
        )
    return store.list_documents(
        collection,
        prefix,
        inp.limit,
        inp.offset,
        tags_all=list(dict.fromkeys(validate_tag(t) for t in inp.tagsAll or [])),
        tags_any=list(dict.fromkeys(validate_tag(t) for t in inp.tagsAny or [])),
        order=(field, inp.sortOrder != "asc"),
        condition=_metadata_condition(inp),
    )


def _metadata_condition(inp: LsInput) -> tuple[str, list[Any]]:
    """The typed metadata ``filter`` as an SQL condition (empty when there is none)."""
    from gno.services.filters import metadata_filter  # `gno get` and `multi-get` filter nothing

    node = metadata_filter(inp.filter)
    if node is None:  # the filter's parser and its date rules load only for a filter
        return "", []
    from gno.core.metadata_filter import filter_sql

    return filter_sql(node)


def ls(app: App, inp: LsInput) -> DocumentList:
    from gno_contracts.models.ls import DocumentList

    return DocumentList.model_validate(ls_payload(app, inp))


def ls_payload(app: App, inp: LsInput) -> dict[str, Any]:
    """ls@1.0 in its wire form."""
    docs, total = list_page(app.store(), inp)
    documents = []
    for doc in docs:
        item: dict[str, Any] = {
            "docid": doc.docid,
            "uri": make_uri(doc.collection, doc.rel_path, app.paths.index_name),
        }
        if doc.title:
            item["title"] = doc.title
        item["source"] = {"relPath": doc.rel_path, "mime": doc.mime, "ext": doc.ext}
        documents.append(item)
    meta = {"total": total, "returned": len(documents), "offset": inp.offset}
    return {"documents": documents, "meta": meta}
