"""GNO's REST request spellings -> operation inputs, in one place.

Where REST differs from MCP/CLI (surfaces.md §4.3): filter lists are comma
strings (`category` singular), limits default per route and are clamped
instead of refused, query uses `noExpand`/`noRerank`, sync never runs an
updateCmd, collection add takes comma strings, and `absPath` is asked for only
when the caller is on the same host.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gno.core.identity import make_uri
from gno.errors import ValidationError

SEARCH_LIMIT_MAX = 50
CANDIDATE_LIMIT_MAX = 100
FILTER_FIELDS = ("collection", "minScore", "intent", "since", "until", "author", "projectHints")
LIST_FIELDS = {
    "exclude": "exclude",
    "category": "categories",
    "tagsAll": "tagsAll",
    "tagsAny": "tagsAny",
}


def rest_field(name: str) -> str:
    """How a REST caller spells an operation input field (for error messages)."""
    return next((rest for rest, op in LIST_FIELDS.items() if op == name), name)


def _csv(value: str | None) -> list[str] | None:
    if value is None:
        return None
    return [part.strip() for part in value.split(",") if part.strip()]


def _search_fields(body: Any, local: bool) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "query": body.query.strip(),
        "limit": min(body.limit, SEARCH_LIMIT_MAX),
        "includeAbsPath": local,
    }
    for name in FILTER_FIELDS:
        if (value := getattr(body, name)) is not None:
            fields[name] = value
    for rest_name, name in LIST_FIELDS.items():
        if (values := _csv(getattr(body, rest_name))) is not None:
            fields[name] = values
    if body.lang is not None:
        fields["lang"] = body.lang
    if (collections := getattr(body, "collections", None)) is not None:
        fields["collections"] = collections
    return fields


def _query_fields(body: Any, local: bool) -> dict[str, Any]:
    fields = _search_fields(body, local)
    if body.candidateLimit is not None:
        fields["candidateLimit"] = min(body.candidateLimit, CANDIDATE_LIMIT_MAX)
    if body.queryModes is not None:
        fields["queryModes"] = [m.model_dump() for m in body.queryModes]
    if body.noExpand:
        fields["expand"] = False
    if body.noRerank:
        fields["rerank"] = False
    if body.graph is not None:
        fields["graph"] = body.graph
    if body.noGraph:
        fields["noGraph"] = True
    return fields


def search(body: Any, local: bool) -> dict[str, Any]:
    return _search_fields(body, local)


def query(body: Any, local: bool) -> dict[str, Any]:
    return _query_fields(body, local) | {"explain": bool(body.explain)}


def diagnose(body: Any, local: bool) -> dict[str, Any]:
    return _query_fields(body, local) | {"target": body.target}


def sync(body: Any, local: bool) -> dict[str, Any]:
    fields = body.model_dump(exclude_none=True)
    return fields | {"runUpdateCmd": False}


def collection_add(body: Any, local: bool) -> dict[str, Any]:
    fields = body.model_dump(exclude_none=True)
    for name in ("include", "exclude"):
        if name in fields:
            fields[name] = _csv(fields[name])
    return fields


def docs(body: Any, local: bool) -> dict[str, Any]:
    scope = body.collection
    if body.pathPrefix is not None:
        if body.collection is None:
            raise ValidationError("pathPrefix needs collection")
        scope = make_uri(body.collection.lower(), body.pathPrefix)
    fields: dict[str, Any] = {
        "limit": body.limit,
        "offset": body.offset,
        "sortField": body.sortField,
        "sortOrder": body.sortOrder,
    }
    for name in ("tagsAll", "tagsAny"):
        if (tags := _csv(getattr(body, name))) is not None:
            fields[name] = tags
    if scope is not None:
        fields["scope"] = scope
    return fields


def doc(body: Any, local: bool) -> dict[str, Any]:
    return {"ref": body.uri, "lineNumbers": False, "includeAbsPath": local}


# REST input schema $id -> fields of the operation's input model
TO_INPUT: dict[str, Callable[[Any, bool], dict[str, Any]]] = {
    "gno://schemas/api-search-input@1.0": search,
    "gno://schemas/api-query-input@1.0": query,
    "gno://schemas/api-query-diagnose-input@1.0": diagnose,
    "gno://schemas/api-sync-input@1.0": sync,
    "gno://schemas/api-collection-add-input@1.0": collection_add,
    "gno://schemas/api-docs-input@1.0": docs,
    "gno://schemas/api-doc-input@1.0": doc,
}
