"""GNO's REST spellings of the graph routes -> operation inputs (registry ``rest.body``).

`/api/doc/{id}/…` name the document by its docid (with or without `#`, which a URL
must encode) or by a URL-encoded ref; `/api/doc/{id}/similar` defaults to a 0.5
threshold and clamps its limit to 20; `POST /api/graph/query` calls the root `doc`
or `root` and the depth `maxDepth` or `depth`.
"""

from __future__ import annotations

import re
from typing import Any

from gno_contracts.models.api_doc_backlinks_input import ApiDocBacklinksInput
from gno_contracts.models.api_doc_links_input import ApiDocLinksInput
from gno_contracts.models.api_doc_similar_input import ApiDocSimilarInput
from gno_contracts.models.api_graph_query_input import ApiGraphQueryInput
from gno_contracts.models.backlinks_input import BacklinksInput
from gno_contracts.models.graph_query_input import GraphQueryInput
from gno_contracts.models.links_input import LinksInput
from gno_contracts.models.similar_input import SimilarInput

from gno.errors import ValidationError

DOCID = re.compile(r"#?[0-9a-f]{6,64}")
SIMILAR_LIMIT_MAX = 20


def doc_ref(value: str) -> str:
    """A path id as a ref: a bare docid gets its `#`."""
    return "#" + value.lstrip("#") if DOCID.fullmatch(value) else value


def _value(value: Any) -> Any:
    return getattr(value, "value", value)


def doc_links(body: ApiDocLinksInput, local: bool) -> LinksInput:
    fields: dict[str, Any] = {"ref": doc_ref(body.id)}
    if body.type is not None:
        fields["type"] = _value(body.type)
    return LinksInput.model_validate(fields)


def doc_backlinks(body: ApiDocBacklinksInput, local: bool) -> BacklinksInput:
    fields: dict[str, Any] = {"ref": doc_ref(body.id)}
    if body.collection is not None:
        fields["collection"] = body.collection
    return BacklinksInput.model_validate(fields)


def doc_similar(body: ApiDocSimilarInput, local: bool) -> SimilarInput:
    return SimilarInput(
        ref=doc_ref(body.id),
        limit=min(body.limit, SIMILAR_LIMIT_MAX),
        threshold=body.threshold,
        crossCollection=body.crossCollection,
    )


def graph_query(body: ApiGraphQueryInput, local: bool) -> GraphQueryInput:
    if body.doc and body.root and body.doc != body.root:
        raise ValidationError("doc and root name the same thing: give one")
    ref = body.doc or body.root
    if not ref:
        raise ValidationError("doc is required")
    if body.maxDepth is not None and body.depth is not None and body.maxDepth != body.depth:
        raise ValidationError("maxDepth and depth must match when both are given")
    fields: dict[str, Any] = {"ref": ref}
    depth = body.maxDepth if body.maxDepth is not None else body.depth
    if depth is not None:
        fields["maxDepth"] = depth
    for name in ("direction", "edgeType", "relation", "maxNodes", "frontierLimit", "visitedLimit"):
        if name in body.model_fields_set:
            fields[name] = _value(getattr(body, name))
    return GraphQueryInput.model_validate(fields)
