"""GNO's MCP shapes of ``gno_links``, ``gno_backlinks`` and ``gno_similar``.

GNO answers these three tools in shapes of their own, not the CLI's ``links-list@1.1``,
``backlinks@1.0`` and ``similar@1.0`` (surfaces.md §3.4). Each is made from the CLI
handler's answer, so the two can never disagree on what is found or in which order.
"""

from __future__ import annotations

from typing import Any

from gno_contracts.models.backlinks_input import BacklinksInput
from gno_contracts.models.links_input import LinksInput
from gno_contracts.models.mcp_backlinks import McpBacklinks
from gno_contracts.models.mcp_backlinks_input import McpBacklinksInput
from gno_contracts.models.mcp_links import McpLinks
from gno_contracts.models.mcp_links_input import McpLinksInput
from gno_contracts.models.mcp_similar import McpSimilar
from gno_contracts.models.similar_input import SimilarInput

from gno.app import App
from gno.services.links import backlinks, links
from gno.services.similar import similar


def _doc_meta(meta: Any) -> dict[str, Any]:
    found: dict[str, Any] = {"docid": meta.docid, "uri": meta.uri}
    if meta.title:
        found["title"] = meta.title
    return found


def mcp_links(app: App, inp: McpLinksInput) -> McpLinks:
    kind = str(getattr(inp.type, "value", inp.type)) if inp.type else None
    listed = links(
        app, LinksInput.model_validate({"ref": inp.ref} | ({"type": kind} if kind else {}))
    )
    items = []
    for link in listed.links:
        row = link.model_dump(mode="json")
        item: dict[str, Any] = {"targetRef": row["targetRef"]}
        for key in ("targetAnchor", "targetCollection"):
            if row.get(key):
                item[key] = row[key]
        item["linkType"] = row["linkType"]
        if row.get("linkText"):
            item["linkText"] = row["linkText"]
        item["position"] = {"startLine": row["startLine"], "startCol": row["startCol"]}
        items.append(item)
    meta = _doc_meta(listed.meta) | {"totalLinks": len(items)}
    if kind:
        meta["filterType"] = kind
    return McpLinks.model_validate({"links": items, "meta": meta})


def mcp_backlinks(app: App, inp: McpBacklinksInput) -> McpBacklinks:
    fields: dict[str, Any] = {"ref": inp.ref}
    if inp.collection is not None:
        fields["collection"] = inp.collection
    listed = backlinks(app, BacklinksInput.model_validate(fields))
    items = []
    for link in listed.backlinks:
        row = link.model_dump(mode="json")
        item: dict[str, Any] = {"sourceDocUri": row["sourceUri"]}
        if row.get("sourceTitle"):
            item["sourceDocTitle"] = row["sourceTitle"]
        if row.get("linkText"):
            item["linkText"] = row["linkText"]
        item["position"] = {"startLine": row["startLine"], "startCol": row["startCol"]}
        items.append(item)
    meta = _doc_meta(listed.meta) | {"totalBacklinks": len(items)}
    if listed.meta.collection:
        meta["filterCollection"] = listed.meta.collection
    return McpBacklinks.model_validate({"backlinks": items, "meta": meta})


def mcp_similar(app: App, inp: SimilarInput) -> McpSimilar:
    found = similar(app, inp)
    roots = {c["name"]: c["path"] for c in app.store().collections()}
    items = []
    for hit in found.similar:
        item: dict[str, Any] = {"docid": hit.docid, "uri": hit.uri}
        if hit.title:
            item["title"] = hit.title
        item["score"] = hit.score
        root = roots.get(hit.collection or "")
        if root and hit.relPath:
            item["absPath"] = f"{root.rstrip('/')}/{hit.relPath}"
        items.append(item)
    meta = _doc_meta(found.meta) | {
        "totalSimilar": len(items),
        "limit": inp.limit,
        "threshold": inp.threshold,
        "crossCollection": inp.crossCollection,
    }
    return McpSimilar.model_validate({"similar": items, "meta": meta})
