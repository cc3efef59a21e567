"""GNO's REST request spellings -> operation inputs, in one place.

Where REST differs from MCP/CLI (surfaces.md §4.3): filter lists are comma
strings (`category` singular; a list of strings is taken too, as GNO's docs send it), limits default per route and are clamped
instead of refused, query uses `noExpand`/`noRerank`, sync never runs an
updateCmd, collection add takes comma strings, and `absPath` is asked for only
when the caller is on the same host.

Each function is a registry ``rest.body``: it takes the typed REST model the
route parsed (validated once, gno/rest/routes.py) and returns the operation's typed
input model. The search bodies build it without validating again: every field they
copy carries at least the operation's own rules in the REST schema
(tests/surfaces/test_rest_bodies.py checks that on the schemas), limits are clamped
into the operation's range, and what the mapping derives is checked here (a comma
string becomes at most ``LIST_MAX`` filter terms, the operation's bound).
"""

from __future__ import annotations

from typing import Any, TypeAlias

from gno_contracts.models.api_collection_add_input import ApiCollectionAddInput
from gno_contracts.models.api_doc_input import ApiDocInput
from gno_contracts.models.api_doc_move_input import ApiDocMoveInput
from gno_contracts.models.api_doc_rename_input import ApiDocRenameInput
from gno_contracts.models.api_docs_input import ApiDocsInput
from gno_contracts.models.api_query_diagnose_input import ApiQueryDiagnoseInput
from gno_contracts.models.api_query_input import ApiQueryInput
from gno_contracts.models.api_search_input import ApiSearchInput
from gno_contracts.models.api_sync_input import ApiSyncInput
from gno_contracts.models.collection_add_input import CollectionAddInput
from gno_contracts.models.get_input import GetInput
from gno_contracts.models.ls_input import LsInput, SortOrder
from gno_contracts.models.move_note_input import MoveNoteInput
from gno_contracts.models.query_diagnose_input import QueryDiagnoseInput
from gno_contracts.models.query_input import QueryInput, QueryMode, QueryModeKind
from gno_contracts.models.rename_note_input import RenameNoteInput
from gno_contracts.models.search_input import SearchInput
from gno_contracts.models.update_input import UpdateInput

from gno.core.comma_list import comma_list
from gno.core.identity import make_uri, path_id_ref
from gno.core.metadata_filter import parse_filter_text, to_json
from gno.errors import ValidationError

SEARCH_LIMIT_MAX = 50
CANDIDATE_LIMIT_MAX = 100
LIST_MAX = 256  # terms per comma-separated filter: the operation inputs' maxItems
FILTER_FIELDS = (
    "collection", "minScore", "intent", "since", "until", "author", "projectHints", "filter",
)  # fmt: skip
LIST_FIELDS = {
    "exclude": "exclude",
    "category": "categories",
    "tagsAll": "tagsAll",
    "tagsAny": "tagsAny",
}
SearchBody: TypeAlias = ApiSearchInput | ApiQueryInput | ApiQueryDiagnoseInput
QueryBody: TypeAlias = ApiQueryInput | ApiQueryDiagnoseInput


def rest_field(name: str) -> str:
    """How a REST caller spells an operation input field (for error messages)."""
    return next((rest for rest, op in LIST_FIELDS.items() if op == name), name)


def _csv(value: str | list[str] | None) -> list[str] | None:
    # GNO v1.35 takes comma strings; its newer docs send lists (`"tagsAny": ["security"]`).
    if isinstance(value, list):
        value = ",".join(value)
    return None if value is None else comma_list(value)


def _bounded_csv(value: str | list[str] | None, rest_name: str) -> list[str] | None:
    """A comma-separated filter (or a list of them) as the operation's list, at most
    ``LIST_MAX`` terms."""
    values = _csv(value)
    if values is not None and len(values) > LIST_MAX:
        raise ValidationError(
            f"Invalid request: {rest_name}: at most {LIST_MAX} comma-separated values, "
            f"not {len(values)}"
        )
    return values


def _search_fields(body: SearchBody, local: bool) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "query": body.query.strip(),
        "limit": min(body.limit, SEARCH_LIMIT_MAX),
        "includeAbsPath": local,
    }
    for name in FILTER_FIELDS:
        if (value := getattr(body, name)) is not None:
            fields[name] = value
    for rest_name, name in LIST_FIELDS.items():
        if (values := _bounded_csv(getattr(body, rest_name), rest_name)) is not None:
            fields[name] = values
    if body.lang is not None:
        fields["lang"] = body.lang
    if (collections := getattr(body, "collections", None)) is not None:
        fields["collections"] = collections
    return fields


def _query_fields(body: QueryBody, local: bool) -> dict[str, Any]:
    fields = _search_fields(body, local)
    if body.candidateLimit is not None:
        fields["candidateLimit"] = min(body.candidateLimit, CANDIDATE_LIMIT_MAX)
    if body.queryModes is not None:
        fields["queryModes"] = [
            QueryMode.model_construct(mode=QueryModeKind(m.mode.value), text=m.text)
            for m in body.queryModes
        ]
    if body.noExpand:
        fields["expand"] = False
    if body.noRerank:
        fields["rerank"] = False
    if body.graph is not None:
        fields["graph"] = body.graph
    if body.noGraph:
        fields["noGraph"] = True
    return fields


def search(body: ApiSearchInput, local: bool) -> SearchInput:
    return SearchInput.model_construct(**_search_fields(body, local))


def query(body: ApiQueryInput, local: bool) -> QueryInput:
    return QueryInput.model_construct(**_query_fields(body, local), explain=bool(body.explain))


def diagnose(body: ApiQueryDiagnoseInput, local: bool) -> QueryDiagnoseInput:
    return QueryDiagnoseInput.model_construct(**_query_fields(body, local), target=body.target)


def sync(body: ApiSyncInput, local: bool) -> UpdateInput:
    fields = body.model_dump(exclude_none=True)
    return UpdateInput(**fields, runUpdateCmd=False)


def collection_add(body: ApiCollectionAddInput, local: bool) -> CollectionAddInput:
    fields = body.model_dump(exclude_none=True)
    for name in ("include", "exclude"):
        if name in fields:
            fields[name] = _csv(fields[name])
    return CollectionAddInput(**fields)


def docs(body: ApiDocsInput, local: bool) -> LsInput:
    scope = body.collection
    if body.pathPrefix is not None:
        if body.collection is None:
            raise ValidationError("pathPrefix needs collection")
        scope = make_uri(body.collection.lower(), body.pathPrefix)
    fields: dict[str, Any] = {
        "limit": body.limit,
        "offset": body.offset,
        "sortField": body.sortField,
        "sortOrder": SortOrder(body.sortOrder),
    }
    for name in ("tagsAll", "tagsAny"):
        if (tags := _csv(getattr(body, name))) is not None:
            fields[name] = tags
    if body.filter is not None:  # JSON text in the query string
        fields["filter"] = to_json(parse_filter_text(body.filter))
    if scope is not None:
        fields["scope"] = scope
    return LsInput(**fields)


def doc(body: ApiDocInput, local: bool) -> GetInput:
    return GetInput(ref=body.uri, lineNumbers=False, includeAbsPath=local)


# ----- lane refactor: POST /api/docs/{id}/rename and /move (apply the reviewed plan) -----


def _doc_ref(body: Any) -> str:
    """The path id is a docid (``#`` optional) or a ref; a ``uri`` in the body names the
    document instead."""
    if body.uri:
        return str(body.uri)
    return path_id_ref(body.id)


def _apply_fields(body: Any) -> dict[str, Any]:
    return {
        "action": "apply",
        "ref": _doc_ref(body),
        "schemaVersion": "1.0",
        "planDigest": str(getattr(body.planDigest, "root", body.planDigest)),
        "confirmation": "apply",
        "confirm": True,
    }


def doc_rename(body: ApiDocRenameInput, local: bool) -> RenameNoteInput:
    return RenameNoteInput.model_validate(_apply_fields(body) | {"name": body.name})


def doc_move(body: ApiDocMoveInput, local: bool) -> MoveNoteInput:
    fields = _apply_fields(body) | {"folderPath": body.folderPath}
    if body.name is not None:
        fields["name"] = body.name
    return MoveNoteInput.model_validate(fields)
