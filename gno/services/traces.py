"""Retrieval trace management: list, show, label, export, delete, purge (spec/traces.md).

These work whether or not tracing is on now (traces recorded earlier stay manageable).
A trace id this index does not hold — never recorded, expired, deleted, or recorded
by another index — is ``TraceNotFoundError`` on every operation, and the message never
echoes it. Nothing is written before every check passed.
"""

from __future__ import annotations

from typing import Any

from gno_contracts.models.retrieval_trace_delete import RetrievalTraceDelete
from gno_contracts.models.retrieval_trace_delete_input import RetrievalTraceDeleteInput
from gno_contracts.models.retrieval_trace_export import RetrievalTraceExport
from gno_contracts.models.retrieval_trace_export_input import RetrievalTraceExportInput
from gno_contracts.models.retrieval_trace_judgment import RetrievalTraceJudgment
from gno_contracts.models.retrieval_trace_label_input import RetrievalTraceLabelInput
from gno_contracts.models.retrieval_trace_list import RetrievalTraceList
from gno_contracts.models.retrieval_trace_list_input import RetrievalTraceListInput
from gno_contracts.models.retrieval_trace_purge import RetrievalTracePurge
from gno_contracts.models.retrieval_trace_purge_input import RetrievalTracePurgeInput
from gno_contracts.models.retrieval_trace_show import RetrievalTraceShow
from gno_contracts.models.retrieval_trace_show_input import RetrievalTraceShowInput

from gno.app import App
from gno.core import traces as core
from gno.core.identity import is_docid
from gno.errors import TraceFullError, TraceNotFoundError, ValidationError
from gno.services.trace_export import build_artifact, export_id_for
from gno.services.trace_record import index_fingerprint, new_id, now_ms, policy
from gno.trace_ports import IndexTraces

TEXT_FIELDS = ("queryText", "queryDigest", "goalText", "goalDigest", "filters")


def _store(app: App) -> IndexTraces:
    return app.traces()


def load_trace(store: IndexTraces, trace_id: str) -> dict[str, Any]:
    trace = store.trace_row(trace_id, now_ms())
    if trace is None:
        raise TraceNotFoundError()
    return trace


def summary(trace: dict[str, Any]) -> dict[str, Any]:
    """A trace as history shows it: never the query or goal text, digests or filters."""
    return {k: v for k, v in trace.items() if k not in TEXT_FIELDS}


def trace_list(app: App, inp: RetrievalTraceListInput) -> RetrievalTraceList:
    store = _store(app)
    fingerprint = index_fingerprint(app)
    after = core.decode_cursor(inp.cursor, fingerprint) if inp.cursor is not None else None
    rows = store.trace_page(after, inp.limit + 1, now_ms())
    page, more = rows[: inp.limit], len(rows) > inp.limit
    cursor = (
        core.encode_cursor(fingerprint, page[-1][0], page[-1][1]["traceId"])
        if more and page
        else None
    )
    return RetrievalTraceList.model_validate(
        {
            "schemaVersion": core.SCHEMA_VERSION,
            "traces": [summary(t) for _, t in page],
            "nextCursor": cursor,
        }
    )


def export_rows(store: IndexTraces, trace_id: str, limit: int) -> tuple[list[dict[str, Any]], int]:
    manifests, total = store.trace_exports(trace_id, limit)
    rows = [
        {
            "exportId": m["exportId"],
            "traceId": trace_id,
            "format": m["format"],
            "artifactHash": m["artifactHash"],
            "createdAtMs": m["createdAtMs"],
        }
        for m in manifests
    ]
    return rows, total


def trace_show(app: App, inp: RetrievalTraceShowInput) -> RetrievalTraceShow:
    store = _store(app)
    trace = load_trace(store, inp.traceId)
    limit = inp.detailLimit
    found = {
        kind: store.trace_rows(inp.traceId, kind, limit) for kind in ("runs", "events", "judgments")
    }
    found["exports"] = export_rows(store, inp.traceId, limit)
    return RetrievalTraceShow.model_validate(
        {
            "schemaVersion": core.SCHEMA_VERSION,
            "trace": trace,
            **{kind: rows for kind, (rows, _) in found.items()},
            "totals": {kind: total for kind, (_, total) in found.items()},
            "truncated": {kind: total > len(rows) for kind, (rows, total) in found.items()},
        }
    )


# ------------------------------------------------------------------ label


def _recorded(store: IndexTraces, trace_id: str) -> list[tuple[str | None, dict[str, Any]]]:
    """(runId, evidence reference) of everything the trace recorded: ranked hits, Capsule
    evidence, opened spans."""
    out: list[tuple[str | None, dict[str, Any]]] = []
    runs, _ = store.trace_rows(trace_id, "runs", core.CEILING_MAX_RECORDS)
    for run in runs:
        payload = run["payload"]
        for ref in payload.get("ranked") or payload.get("evidence") or []:
            out.append((run["runId"], ref))
    events, _ = store.trace_rows(trace_id, "events", core.CEILING_MAX_RECORDS)
    for event in events:
        if event["kind"] in ("open", "get", "cite", "pin"):
            for ref in event["payload"].get("evidence") or []:
                out.append((event["runId"], ref))
    return out


def _same_document(ref: dict[str, Any], target_ref: str) -> bool:
    if target_ref.startswith("#"):
        return bool(ref.get("docid") == target_ref)
    return bool(ref.get("uri", "").split("?index=")[0] == target_ref.split("?index=")[0])


def _target(inp: RetrievalTraceLabelInput, store: IndexTraces) -> tuple[str | None, dict[str, Any]]:
    kind = inp.targetKind.value if hasattr(inp.targetKind, "value") else str(inp.targetKind)
    label = inp.label.value if hasattr(inp.label, "value") else str(inp.label)
    ref = inp.targetRef
    if not (is_docid(ref) or ref.startswith("gno://")):
        raise ValidationError("targetRef must be a #docid or a gno:// URI")
    spans = kind in ("span", "chunk")
    if spans and (inp.startLine is None or inp.endLine is None):
        raise ValidationError(f"A {kind} judgment needs startLine and endLine")
    if inp.startLine is not None and inp.endLine is not None and inp.endLine < inp.startLine:
        raise ValidationError("endLine must not be before startLine")
    if label == "missing_expected":  # any document identity, recorded or not
        target: dict[str, Any] = {"docid": ref} if ref.startswith("#") else {"uri": ref}
        if inp.docid is not None:
            target["docid"] = inp.docid
        if inp.sourceHash is not None:
            target["sourceHash"] = inp.sourceHash
        if spans:
            target |= {"startLine": inp.startLine, "endLine": inp.endLine}
        return None, target
    for run_id, evidence in _recorded(store, inp.traceId):
        if not _same_document(evidence, ref):
            continue
        if inp.docid is not None and evidence.get("docid") != inp.docid:
            continue
        if inp.sourceHash is not None and evidence.get("sourceHash") != inp.sourceHash:
            continue
        if spans:
            start, end = evidence.get("startLine"), evidence.get("endLine")
            if start is None or end is None or inp.startLine > end or inp.endLine < start:
                continue
        target = {
            k: evidence[k] for k in ("docid", "uri", "sourceHash", "mirrorHash") if k in evidence
        }
        if spans:
            target |= {"startLine": inp.startLine, "endLine": inp.endLine}
        return run_id, target
    raise ValidationError("The judged target is not evidence this trace recorded")


def trace_label(app: App, inp: RetrievalTraceLabelInput) -> RetrievalTraceJudgment:
    store = _store(app)
    load_trace(store, inp.traceId)
    run_id, target = _target(inp, store)
    kind = inp.targetKind.value if hasattr(inp.targetKind, "value") else str(inp.targetKind)
    label = inp.label.value if hasattr(inp.label, "value") else str(inp.label)
    core_fields = {"label": label, "targetKind": kind, "targetRef": inp.targetRef, "target": target}
    key = inp.idempotencyKey or core.digest(core_fields)
    judgment: dict[str, Any] = {
        "judgmentId": new_id("jdg"),
        "traceId": inp.traceId,
        "runId": run_id,
        "idempotencyKey": key,
        **core_fields,
        "createdAtMs": now_ms(),
        "targetBytes": core.byte_size(target),
        "canonicalDigest": core.digest(core_fields),
    }
    pol = policy(app)
    _, total_runs = store.trace_rows(inp.traceId, "runs", 0)
    _, total_events = store.trace_rows(inp.traceId, "events", 0)
    _, total_judgments = store.trace_rows(inp.traceId, "judgments", 0)
    if total_runs + total_events + total_judgments >= pol.max_records_per_trace:
        raise TraceFullError()
    result = store.add_judgment(inp.traceId, judgment, now_ms())
    return RetrievalTraceJudgment.model_validate(
        {"schemaVersion": core.SCHEMA_VERSION, "result": result, "judgment": judgment}
    )


# ------------------------------------------------------------------ export, delete, purge


def trace_export(app: App, inp: RetrievalTraceExportInput) -> RetrievalTraceExport:
    store = _store(app)
    fmt = inp.format.value if hasattr(inp.format, "value") else str(inp.format)
    trace_ids = sorted({str(getattr(t, "root", t)) for t in inp.traceIds})
    artifact = build_artifact(store, trace_ids, fmt)
    artifact_hash = core.digest(artifact)
    export_id = export_id_for(fmt, trace_ids, artifact_hash)
    manifest = {
        "exportId": export_id,
        "traceIds": trace_ids,
        "format": fmt,
        "artifactHash": artifact_hash,
        "createdAtMs": now_ms(),
    }
    result = store.add_export(manifest)
    if result == "duplicate":
        manifest = store.export_manifest(export_id) or manifest
    return RetrievalTraceExport.model_validate(
        {
            "schemaVersion": core.SCHEMA_VERSION,
            "result": result,
            "manifest": manifest,
            "artifact": artifact,
        }
    )


def trace_delete(app: App, inp: RetrievalTraceDeleteInput) -> RetrievalTraceDelete:
    counts = _store(app).delete_trace(inp.traceId)
    if counts is None:
        raise TraceNotFoundError()
    return RetrievalTraceDelete.model_validate(
        {
            "schemaVersion": core.SCHEMA_VERSION,
            "traceId": inp.traceId,
            "deleted": True,
            "counts": counts,
        }
    )


def trace_purge(app: App, inp: RetrievalTracePurgeInput) -> RetrievalTracePurge:
    if inp.confirm is not True:  # the schema says so too; a direct caller must as well
        raise ValidationError("Purging every trace needs confirm: true")
    counts, (cleanup, checkpointed, remaining) = _store(app).purge_traces()
    return RetrievalTracePurge.model_validate(
        {
            "schemaVersion": core.SCHEMA_VERSION,
            **counts,
            "physicalCleanup": cleanup,
            "checkpointedFrames": checkpointed,
            "remainingWalFrames": remaining,
        }
    )
