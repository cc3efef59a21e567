"""REST answers that differ from the operation's output (registry ``rest.view``).

Job operations answer a receipt at once (the work goes on in the background);
a few reads reshape the operation output into GNO's REST shape. Everything
else is the operation output as is. ``redact`` removes host paths for callers
on another host (registry ``rest.roots`` and ``rest.redact``).
"""

from __future__ import annotations

from typing import Any

from gno_contracts.models.api_doc import ApiDoc
from gno_contracts.models.get_input import GetInput
from gno_contracts.models.ls_input import LsInput
from gno_contracts.models.search_input import SearchInput
from gno_contracts.models.search_results import SearchResults
from gno_contracts.operations import Operation

from gno.app import App
from gno.paths import expand_home
from gno.services import resolve

REMOVED_NOTE = "Indexed documents are kept (inactive) until `gno cleanup`."


def sync_receipt(app: App, inp: Any) -> dict[str, Any]:
    from gno.services.jobs import submit_sync

    job = submit_sync(app, inp)
    return {"jobId": job.id, "status": "running" if job.status == "running" else "queued"}


EMBED_RUNNING_NOTE = "An embedding run is already in progress; GET /api/status shows its progress (background.embedding)."


def embed_now(app: App, inp: Any) -> dict[str, Any]:
    """GNO's POST /api/embed: run an embedding job and answer its counts once it ends;
    when one is already running, say so (and how many documents wait) instead."""
    from gno.errors import GnoError, JobConflictError
    from gno.services.jobs import start_embed
    from gno.services.status_blocks import pending_documents

    try:
        receipt = start_embed(app, inp)
    except JobConflictError as exc:
        active = app.jobs.get((exc.details or {}).get("activeJobId", ""))
        if active.type != "embed":
            raise
        return {"running": True, "pendingCount": pending_documents(app), "note": EMBED_RUNNING_NOTE}
    job = app.jobs.get(receipt.jobId)
    job.done.wait()
    if job.error is not None or job.result is None:
        raise GnoError(f"Embedding failed: {job.error or 'no result'}")
    value = job.result.value.model_dump(mode="json")
    return {"embedded": value["embedded"], "errors": value["errors"]}


def collection_added(app: App, inp: Any) -> dict[str, Any]:
    from gno.services.jobs import start_add_collection

    receipt = start_add_collection(app, inp)
    added = app.config.find(receipt.collection)
    collection = {"name": receipt.collection}
    if added is not None:
        collection["path"] = added.path
    return {"jobId": receipt.jobId, "collection": collection}


def collection_removed(app: App, inp: Any) -> dict[str, Any]:
    from gno.services.collections import remove_collection

    result = remove_collection(app, inp)
    return {"success": True, "collection": result.collection, "note": REMOVED_NOTE}


CLEARED_NOTE = "Vectors removed: POST /api/embed (or gno embed) embeds this collection again."


def embeddings_cleared(app: App, inp: Any) -> dict[str, Any]:
    """GNO's REST shape of a collection's cleared vectors: ``{success, stats, note?}``."""
    from gno.services.collections import clear_collection_embeddings

    stats = clear_collection_embeddings(app, inp).model_dump(mode="json")
    answer: dict[str, Any] = {"success": True, "stats": stats}
    if stats["deletedVectors"]:
        answer["note"] = CLEARED_NOTE
    return answer


def pull_receipt(app: App, inp: Any) -> Any:
    from gno.services.downloads import start_pull

    return start_pull(app, inp)


def full_status(app: App, inp: Any) -> Any:
    from gno.services.status_blocks import full_status as build

    return build(app, inp)


def job(app: App, inp: Any) -> Any:
    from gno.services.jobs import api_job

    return api_job(app.jobs.get(inp.jobId))


def search_marked(app: App, inp: SearchInput) -> SearchResults:
    """POST /api/search: the search answer with the query's words in ``<mark>`` in each
    snippet, as GNO's REST search (CLI and MCP snippets stay plain)."""
    from gno.core.fts import parse_query
    from gno.core.snippets import mark_terms
    from gno.services.search import search

    result = search(app, inp)
    terms = parse_query(inp.query).terms
    for hit in result.results:
        hit.snippet = mark_terms(hit.snippet, terms)
    return result


def _collection_of(uri: str) -> str:
    return uri.removeprefix("gno://").split("/", 1)[0]


def document(app: App, inp: GetInput) -> ApiDoc:
    """`GET /api/doc`: the get output in GNO's REST shape (keys the handler left unset stay
    absent)."""
    from gno.services.documents import get

    got = get(app, inp)
    fields: dict[str, Any] = {"docid": got.docid, "uri": got.uri}
    if "title" in got.model_fields_set:
        fields["title"] = got.title
    fields |= {
        "content": got.content,
        "contentAvailable": True,
        "collection": _collection_of(got.uri),
        "relPath": got.source.relPath,
        "tags": got.tags if got.tags is not None else [],
        "totalLines": got.totalLines,
    }
    if "language" in got.model_fields_set:
        fields["language"] = got.language
    fields["source"] = got.source.model_dump(mode="json", exclude_unset=True)
    fields["capabilities"] = got.capabilities.model_dump(mode="json", exclude_unset=True)
    return ApiDoc.model_validate(fields)


def documents(app: App, inp: LsInput) -> dict[str, Any]:
    """GET /api/docs: a page in GNO's shape (newest-modified first unless asked otherwise)."""
    from gno.core.identity import make_uri
    from gno.rows import iso_from_ns
    from gno.services.documents import list_page, list_scope

    store = app.store()
    rows, total = list_page(store, inp)
    items = []
    for doc in rows:
        item = {
            "docid": doc.docid,
            "uri": make_uri(doc.collection, doc.rel_path, app.paths.index_name),
        }
        if doc.title:
            item["title"] = doc.title
        items.append(
            item
            | {
                "collection": doc.collection,
                "relPath": doc.rel_path,
                "sourceExt": doc.ext,
                "sourceMime": doc.mime,
                "updatedAt": iso_from_ns(doc.mtime_ns),
            }
        )
    collection, _ = list_scope(store, inp.scope)
    return {
        "documents": items,
        "total": total,
        "limit": inp.limit,
        "offset": inp.offset,
        "availableDateFields": store.date_field_names(collection),
        "sortField": inp.sortField or "modified",
        "sortOrder": str(inp.sortOrder),
    }


# Host paths a remote caller never receives (surfaces.md §4.1): keys dropped anywhere,
# plus collection root `path` where the registry's `rest.roots` says.
HOST_PATH_KEYS = frozenset({"absPath", "configPath", "dbPath", "dataDir"})


def _drop_keys(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: _drop_keys(v) for k, v in node.items() if k not in HOST_PATH_KEYS}
    if isinstance(node, list):
        return [_drop_keys(v) for v in node]
    return node


def _drop_path(node: Any, where: tuple[str, ...]) -> None:
    if not where:
        if isinstance(node, dict):
            node.pop("path", None)
        return
    head, rest = where[0], where[1:]
    if head == "*" and isinstance(node, list):
        for item in node:
            _drop_path(item, rest)
    elif isinstance(node, dict) and head in node:
        _drop_path(node[head], rest)


def redact_bootstrap(payload: Any) -> Any:
    """status ``bootstrap``: the model cache folder is omitted, model file paths are null."""
    bootstrap = payload.get("bootstrap") if isinstance(payload, dict) else None
    if not isinstance(bootstrap, dict):
        return payload
    if isinstance(bootstrap.get("cache"), dict):
        bootstrap["cache"].pop("path", None)
    for entry in (bootstrap.get("models") or {}).get("entries") or []:
        if isinstance(entry, dict) and "path" in entry:
            entry["path"] = None
    onboarding = payload.get("onboarding")
    if isinstance(onboarding, dict) and onboarding.get("suggestedCollections"):
        onboarding["suggestedCollections"] = []  # suggestions are host folders
    return payload


def mask_strings(node: Any) -> Any:
    """Every absolute host path inside any string becomes ``<path>`` (a registry ``redact``
    for answers that carry free text from the engine: job errors, per-file sync messages,
    the paths a sync was asked for)."""
    from gno.rest.errors import mask_paths

    if isinstance(node, str):
        return mask_paths(node, [], remote=True)
    if isinstance(node, dict):
        return {k: mask_strings(v) for k, v in node.items()}
    if isinstance(node, list):
        return [mask_strings(v) for v in node]
    return node


def redact(op: Operation, payload: Any) -> Any:
    """The answer for a caller that is not on this host: no host paths at all."""
    payload = _drop_keys(payload)
    if op.rest is not None and op.rest.roots is not None:
        _drop_path(payload, op.rest.roots)
    if op.rest is not None and op.rest.redact is not None:
        payload = resolve(op.rest.redact)(payload)  # (payload) -> payload
    return payload


# ----- lane refactor: POST /api/docs/{id}/rename and /move -----

REFACTOR_REFUSED = {"stale_plan", "conflict", "unsupported", "failed_rolled_back"}


def doc_refactor(app: App, inp: Any) -> dict[str, Any]:
    """GNO's REST answer of an apply: ``{success, docId, uri, path, apply}``; a plan that no
    longer holds (or cannot be applied) is 409 ``STALE_PLAN``/``CONFLICT`` with the apply
    result in ``details``."""
    from gno.errors import ConflictError, StalePlanError
    from gno.services.refactor import move_note, rename_note

    run = rename_note if getattr(inp, "folderPath", None) is None else move_note
    applied = run(app, inp).model_dump(mode="json", exclude_unset=True)
    status = applied["status"]
    if status == "stale_plan":
        raise StalePlanError(
            "The plan is stale: a file it involves changed since the preview", details=applied
        )
    if status in REFACTOR_REFUSED:
        raise ConflictError(f"The plan was not applied ({status})", details=applied)
    target = applied["target"]
    store = app.store()
    row = store.document_by_path(target["collection"], target["relPath"])
    collection = app.config.find(target["collection"])
    answer: dict[str, Any] = {
        "success": True,
        "docId": row.docid if row else "pending",  # not indexed yet: applied_with_sync_pending
        "uri": target["uri"],
        "apply": applied,
    }
    if collection is not None:
        import os

        root = os.path.abspath(expand_home(collection.path))
        answer["path"] = os.path.join(root, *target["relPath"].split("/"))
    return answer


def drop_refactor_path(payload: Any) -> Any:
    """A caller on another host never sees the absolute path."""
    if isinstance(payload, dict):
        payload.pop("path", None)
    return payload


def context_capsule(app: App, inp: Any) -> Any:
    """POST /api/context: the Capsule, or its Markdown (text/markdown) with ``format: md``."""
    from starlette.responses import Response

    from gno.core.capsule_text import capsule_markdown
    from gno.services.context_build import build

    result = build(app, inp)
    if inp.format is not None and inp.format.value == "md":
        text = capsule_markdown(result.model_dump(mode="json"))
        return Response(text, 200, media_type="text/markdown; charset=utf-8")
    return result


def context_verification(app: App, inp: Any) -> Any:
    """POST /api/context/verify: the receipt, or its Markdown with ``format: md``."""
    from starlette.responses import Response

    from gno.core.capsule_text import verification_markdown
    from gno.services.context_verify import verify

    result = verify(app, inp)
    if inp.format is not None and inp.format.value == "md":
        text = verification_markdown(result.model_dump(mode="json"))
        return Response(text, 200, media_type="text/markdown; charset=utf-8")
    return result


def collections(app: App, inp: Any) -> list[dict[str, Any]]:
    """GET /api/collections: each collection-list@1.0 entry plus GNO's REST fields, the
    model each role uses for it and where that comes from, the active preset and the
    collection's egress policy (what GET …/egress-policy answers)."""
    from gno_contracts.models.egress_policy_get_input import EgressPolicyGetInput

    from gno.errors import GnoError
    from gno.models.catalog import ROLES, preset_label, role_uri
    from gno.services.collections import collection_list
    from gno.services.egress import egress_policy_get

    raw = app.config.raw
    preset_id, _name = preset_label(raw)
    named = bool((raw.get("models") or {}).get("activePreset"))
    answer = []
    for entry in collection_list(app, inp).model_dump(mode="json", exclude_none=True):
        uris: dict[str, str] = {}
        sources: dict[str, str] = {}
        for role in ROLES:
            uri, source = role_uri(role, raw, entry.get("models"))
            uris[role] = uri
            # GNO's enum: a collection's block or (gno) an environment variable overrides
            sources[role] = "override" if source != "preset" else "preset" if named else "default"
        try:
            policy: Any = egress_policy_get(app, EgressPolicyGetInput(collection=entry["name"]))
            policy = policy.model_dump(mode="json")
        except GnoError:
            policy = None
        answer.append(
            entry
            | {
                "effectiveModels": uris,
                "modelSources": sources,
                "activePresetId": preset_id,
                "egressPolicy": policy,
            }
        )
    return answer
