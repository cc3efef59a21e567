"""``links``, ``backlinks`` and ``tags``: one document's links as written (resolved at
read time) or as typed edges, the documents that link to it, and tag counts."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gno.app import App
from gno.core.tags import validate_tag
from gno.errors import ValidationError
from gno.ports import Store
from gno.services.graph_cache import cached, input_fields
from gno.services.graph_refs import check_collection, edge_type_filter, ref_id, seeded_node

if TYPE_CHECKING:  # each handler imports its own models; the CLI none (services/wire.py)
    from gno_contracts.models.backlinks import Backlinks
    from gno_contracts.models.backlinks_input import BacklinksInput
    from gno_contracts.models.links_input import LinksInput
    from gno_contracts.models.links_list import LinksList
    from gno_contracts.models.tags_input import TagsInput
    from gno_contracts.models.tags_list import TagsList

    from gno.core.link_resolver import Doc, Resolution
    from gno.core.link_rows import LinkRow
    from gno.core.typed_graph import Projection

MAX_NORMS = 500  # link targets passed to SQL at once (bound variables stay few)


def _resolve(proj: Projection, row: LinkRow) -> Resolution:
    if row.link_type == "markdown":
        return proj.resolver.markdown(row.resolve_collection, row.target_ref_norm)
    return proj.resolver.wiki(row.resolve_collection, row.target_ref_norm)


def _meta(doc: Doc) -> dict[str, Any]:
    meta: dict[str, Any] = {"docid": doc.docid, "uri": doc.uri}
    if doc.title:
        meta["title"] = doc.title
    return meta


def _positional(proj: Projection, row: LinkRow) -> dict[str, Any]:
    item: dict[str, Any] = {
        "targetRef": row.target_ref,
        "targetRefNorm": row.target_ref_norm,
        "linkType": row.link_type,
        "startLine": row.start_line,
        "startCol": row.start_col,
        "endLine": row.end_line,
        "endCol": row.end_col,
        "source": row.source,
    }
    for key, value in (
        ("targetAnchor", row.target_anchor),
        ("targetCollection", row.target_collection),
        ("linkText", row.link_text),
    ):
        if value:
            item[key] = value
    found = _resolve(proj, row)
    item["resolved"] = bool(found.targets)
    if found.targets:
        target = proj.docs[found.targets[0]]
        item |= {"resolvedDocid": target.docid, "resolvedUri": target.uri}
        if target.title:
            item["resolvedTitle"] = target.title
    return item


def links(app: App, inp: LinksInput) -> LinksList:
    from gno_contracts.models.links_list import LinksList

    return LinksList.model_validate(links_payload(app, inp))


def links_payload(app: App, inp: LinksInput) -> dict[str, Any]:
    """links-list@1.1 in its wire form."""
    wanted = edge_type_filter(inp.edgeType, inp.relation)
    if inp.type is not None and wanted is not None:
        raise ValidationError("type cannot be combined with edgeType or relation")
    store = app.store()
    return cached(
        app,
        store,
        "links",
        lambda: input_fields(inp) | {"ref": ref_id(app, store, inp.ref)},
        lambda: _links(app, store, inp, wanted),
    )


def _links(app: App, store: Store, inp: LinksInput, wanted: str | None) -> dict[str, Any]:
    proj, doc = seeded_node(app, store, inp.ref)
    meta = _meta(doc)
    if wanted is not None:
        items = []
        for edge in sorted(
            proj.out.get(doc.id, ()), key=lambda e: (proj.docs[e.target].uri, e.edge_source)
        ):
            if edge.edge_type != wanted:
                continue
            target = proj.docs[edge.target]
            item: dict[str, Any] = {"targetDocid": target.docid, "targetUri": target.uri}
            if target.title:
                item["targetTitle"] = target.title
            items.append(
                item
                | {
                    "edgeType": edge.edge_type,
                    "relationType": edge.edge_type,
                    "confidence": edge.confidence,
                    "edgeSource": edge.edge_source,
                }
            )
        meta |= {
            "totalLinks": len(items),
            "resolvedCount": len(items),
            "resolutionAvailable": True,
            "semantic": True,
        }
        meta |= {"edgeTypeFilter": inp.edgeType} if inp.edgeType else {}
        meta |= {"relationFilter": inp.relation} if inp.relation else {}
        return {"links": items, "meta": meta}
    kind = str(getattr(inp.type, "value", inp.type)) if inp.type else None
    rows = [r for r in store.link_rows([doc.id]) if kind is None or r.link_type == kind]
    found = [_positional(proj, r) for r in rows]
    meta |= {
        "totalLinks": len(found),
        "resolvedCount": sum(1 for item in found if item["resolved"]),
        "resolutionAvailable": True,
    }
    if kind:
        meta["typeFilter"] = kind
    return {"links": found, "meta": meta}


def backlinks(app: App, inp: BacklinksInput) -> Backlinks:
    from gno_contracts.models.backlinks import Backlinks

    return Backlinks.model_validate(backlinks_payload(app, inp))


def backlinks_payload(app: App, inp: BacklinksInput) -> dict[str, Any]:
    """backlinks@1.0 in its wire form."""
    wanted = edge_type_filter(inp.edgeType, inp.relation)
    collection = check_collection(app, inp.collection)
    store = app.store()
    return cached(
        app,
        store,
        "backlinks",
        lambda: input_fields(inp) | {"ref": ref_id(app, store, inp.ref), "collection": collection},
        lambda: _backlinks(app, store, inp, wanted, collection),
    )


def _backlinks(
    app: App, store: Store, inp: BacklinksInput, wanted: str | None, collection: str | None
) -> dict[str, Any]:
    proj, doc = seeded_node(app, store, inp.ref)
    inbound = [
        e
        for e in proj.inbound.get(doc.id, ())
        if collection is None or proj.docs[e.source].collection == collection
    ]
    items: list[tuple[tuple[str, int, int, str], dict[str, Any]]] = []
    if wanted is not None:
        for edge in inbound:
            if edge.edge_type != wanted:
                continue
            source = proj.docs[edge.source]
            item: dict[str, Any] = {"sourceDocid": source.docid, "sourceUri": source.uri}
            if source.title:
                item["sourceTitle"] = source.title
            item |= {
                "edgeType": edge.edge_type,
                "relationType": edge.edge_type,
                "confidence": edge.confidence,
                "edgeSource": edge.edge_source,
            }
            items.append(((source.uri, 0, 0, edge.edge_source), item))
    else:
        refs = {
            ref
            for ref in proj.link_refs.get(doc.id, ())
            if collection is None or proj.docs[ref[0]].collection == collection
        }
        norms = sorted({ref[2] for ref in refs})  # narrows the read; too many: filter here
        norms = norms if len(norms) <= MAX_NORMS else []
        for row in store.link_rows(sorted({ref[0] for ref in refs}), norms):
            key = (row.source_doc_id, row.link_type, row.target_ref_norm, row.resolve_collection)
            if key not in refs:
                continue
            source = proj.docs[row.source_doc_id]
            item = {"sourceDocid": source.docid, "sourceUri": source.uri}
            if source.title:
                item["sourceTitle"] = source.title
            if row.link_text:
                item["linkText"] = row.link_text
            item |= {"startLine": row.start_line, "startCol": row.start_col}
            items.append(((source.uri, row.start_line, row.start_col, ""), item))
    items.sort(key=lambda pair: pair[0])
    meta = _meta(doc) | {"totalBacklinks": len(items)}
    if collection:
        meta["collection"] = collection
    if wanted is not None:
        meta["semantic"] = True
        meta |= {"edgeTypeFilter": inp.edgeType} if inp.edgeType else {}
        meta |= {"relationFilter": inp.relation} if inp.relation else {}
    return {"backlinks": [item for _, item in items], "meta": meta}


def tags(app: App, inp: TagsInput) -> TagsList:
    from gno_contracts.models.tags_list import TagsList

    return TagsList.model_validate(tags_payload(app, inp))


def tags_payload(app: App, inp: TagsInput) -> dict[str, Any]:
    """tags-list@1.0 in its wire form."""
    collection = check_collection(app, inp.collection)
    prefix = None
    if inp.prefix is not None:
        stripped = inp.prefix.strip().rstrip("/")
        if not stripped:
            raise ValidationError("prefix must name a tag")
        prefix = validate_tag(stripped)
    counts = app.store().tag_counts(collection, prefix)
    meta: dict[str, Any] = {"totalTags": len(counts)}
    if collection:
        meta["collection"] = collection
    if prefix:
        meta["prefix"] = prefix
    return {"tags": [{"tag": t, "count": c} for t, c in counts], "meta": meta}
