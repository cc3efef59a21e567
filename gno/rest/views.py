"""REST answers that differ from the operation's output (registry ``rest.view``).

Job operations answer a receipt at once (the work goes on in the background);
a few reads reshape the operation output into GNO's REST shape. Everything
else is the operation output as is. ``redact`` removes host paths for callers
on another host (registry ``rest.roots`` and ``rest.redact``).
"""

from __future__ import annotations

from typing import Any

from gno_contracts.models.api_doc import ApiDoc
from gno_contracts.models.api_docs import ApiDocs
from gno_contracts.models.get_input import GetInput
from gno_contracts.models.ls_input import LsInput
from gno_contracts.operations import Operation

from gno.app import App
from gno.services import resolve

REMOVED_NOTE = "Indexed documents are kept (inactive) until `gno cleanup`."


def sync_receipt(app: App, inp: Any) -> dict[str, Any]:
    from gno.services.jobs import submit_sync

    job = submit_sync(app, inp)
    return {"jobId": job.id, "status": "running" if job.status == "running" else "queued"}


def embed_receipt(app: App, inp: Any) -> dict[str, Any]:
    from gno.services.jobs import start_embed

    return start_embed(app, inp)


def collection_added(app: App, inp: Any) -> dict[str, Any]:
    from gno.services.jobs import start_add_collection

    receipt = start_add_collection(app, inp)
    added = app.config.find(receipt["collection"])
    collection = {"name": receipt["collection"]}
    if added is not None:
        collection["path"] = added.path
    return {"jobId": receipt["jobId"], "collection": collection}


def collection_removed(app: App, inp: Any) -> dict[str, Any]:
    from gno.services.collections import remove_collection

    result = remove_collection(app, inp)
    return {"success": True, "collection": result.collection, "note": REMOVED_NOTE}


def pull_receipt(app: App, inp: Any) -> dict[str, Any]:
    from gno.services.downloads import start_pull

    return start_pull(app, inp)


def full_status(app: App, inp: Any) -> Any:
    from gno.services.status_blocks import full_status as build

    return build(app, inp)


def job(app: App, inp: Any) -> dict[str, Any]:
    return app.jobs.get(inp.jobId).to_rest()


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


def documents(app: App, inp: LsInput) -> ApiDocs:
    """`GET /api/docs`: the ls output in GNO's REST shape."""
    from gno.services.documents import ls

    listed = ls(app, inp)
    items = []
    for doc in listed.documents:
        item: dict[str, Any] = {"docid": doc.docid, "uri": doc.uri}
        if "title" in doc.model_fields_set:
            item["title"] = doc.title
        items.append(
            item
            | {
                "collection": _collection_of(doc.uri),
                "relPath": doc.source.relPath,
                "sourceExt": doc.source.ext,
                "sourceMime": doc.source.mime,
            }
        )
    return ApiDocs.model_validate(
        {"documents": items, "total": listed.meta.total, "limit": inp.limit, "offset": inp.offset}
    )


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


def redact(op: Operation, payload: Any) -> Any:
    """The answer for a caller that is not on this host: no host paths at all."""
    payload = _drop_keys(payload)
    if op.rest is not None and op.rest.roots is not None:
        _drop_path(payload, op.rest.roots)
    if op.rest is not None and op.rest.redact is not None:
        payload = resolve(op.rest.redact)(payload)  # (payload) -> payload
    return payload
