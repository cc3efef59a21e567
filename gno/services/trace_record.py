"""Recording retrieval traces after a read answered (spec/traces.md).

Each surface calls ``record_call`` once with the operation it just ran, its input and its
result: search, vsearch, query and ask record the ranked documents, context the Capsule's
evidence, get the opened line range (appended to the trace ``traceId`` names, or a trace
of its own). What is kept: references (docid, URI, hashes, line spans), ranks and scores,
the filters, and — only in ``replay`` mode — the query and goal text. Never a snippet,
a passage or a document body. With tracing off this reads one index row and returns.
"""

from __future__ import annotations

import json
import re
import secrets
import sys
import time
import traceback
from typing import Any

from gno.core import traces as core
from gno.errors import GnoError, TraceFullError, TraceNotFoundError
from gno.services.traced_operations import TRACED_OPERATIONS
from gno.trace_ports import IndexTraces, Rows

# GNO's filter vocabulary (retrieval-trace-filters@1.0); gno's expand/rerank flags map onto it.
FILTER_KEYS = (
    "limit", "minScore", "collection", "collections", "lang", "full", "lineNumbers",
    "tagsAll", "tagsAny", "since", "until", "categories", "author", "intent", "exclude",
    "noExpand", "noRerank", "candidateLimit", "explain", "graph", "noGraph",
    "queryLanguageHint", "queryModes", "uriPrefix",
)  # fmt: skip
CAPABILITY = {"search": ["bm25"], "vsearch": ["vector"]}
_HASH_RE = re.compile(r"^[a-f0-9]{64}$")


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def new_id(prefix: str) -> str:
    return f"{prefix}_{secrets.token_hex(16)}"


def policy(app: Any) -> core.TracePolicy:
    return core.policy_from_json(app.store().get_meta("retrieval_traces"))


def fingerprints(app: Any, op_id: str) -> dict[str, str]:
    store = app.store()
    return {
        "pipeline": core.sha256_text(f"gno-retrieval-trace-v1:{op_id}"),
        "model": core.sha256_text(app.embed_uri or ""),
        "config": core.sha256_text(store.get_meta("config_stamp") or ""),
        "index": index_fingerprint(app),
    }


def index_fingerprint(app: Any) -> str:
    created = app.store().get_meta("created_at") or ""
    return core.sha256_text(f"{app.paths.index_identity}\n{created}")


# What recording reads of a ranked answer: dumping only this skips the snippets.
RANKED_FIELDS = {
    "results": {"__all__": {"docid", "uri", "score", "snippetRange", "source", "conversion"}},
    "meta": {"mode", "vectorsUsed", "expanded", "reranked"},
}


def _dump(value: Any, include: Any = None) -> dict[str, Any] | None:
    if isinstance(value, dict):
        return value
    dump = getattr(value, "model_dump", None)
    return dump(mode="json", exclude_unset=True, include=include) if dump is not None else None


def _filters(op_id: str, args: dict[str, Any]) -> dict[str, Any]:
    found = {k: args[k] for k in FILTER_KEYS if k in args and args[k] is not None}
    if args.get("expand") is False:
        found["noExpand"] = True
    if args.get("rerank") is False:
        found["noRerank"] = True
    if op_id == "get":
        found.pop("limit", None)
    return found


def _hashes(
    ref: dict[str, Any], source: dict[str, Any] | None, conv: dict[str, Any] | None
) -> None:
    for key, holder in (("sourceHash", source), ("mirrorHash", conv)):
        value = (holder or {}).get(key)
        if isinstance(value, str) and _HASH_RE.match(value):
            ref[key] = value


def _ranked(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    ranked = []
    for rank, hit in enumerate(results, start=1):
        ref: dict[str, Any] = {"docid": hit["docid"], "uri": hit["uri"], "rank": rank}
        _hashes(ref, hit.get("source"), hit.get("conversion"))
        span = hit.get("snippetRange")
        if isinstance(span, dict) and "startLine" in span and "endLine" in span:
            ref["startLine"], ref["endLine"] = span["startLine"], span["endLine"]
        if isinstance(hit.get("score"), (int, float)):
            ref["score"] = float(hit["score"])
        ranked.append(ref)
    return ranked


def _evidence(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for item in items:
        ref: dict[str, Any] = {"docid": item["docid"], "uri": item["uri"]}
        for key in ("sourceHash", "mirrorHash", "passageHash"):
            if isinstance(item.get(key), str) and _HASH_RE.match(item[key]):
                ref[key] = item[key]
        if "startLine" in item and "endLine" in item:
            ref["startLine"], ref["endLine"] = item["startLine"], item["endLine"]
        if isinstance(item.get("retrievalRank"), int) and item["retrievalRank"] >= 1:
            ref["rank"] = item["retrievalRank"]
        if isinstance(item.get("selectionRank"), int) and item["selectionRank"] >= 1:
            ref["plannerRank"] = item["selectionRank"]
        if isinstance(item.get("retrievalSources"), list):
            ref["sources"] = [str(s)[:128] for s in item["retrievalSources"][:16]]
        if isinstance(item.get("graphExpanded"), bool):
            ref["graphExpanded"] = item["graphExpanded"]
        out.append(ref)
    return out


def _opened(result: dict[str, Any]) -> list[dict[str, Any]]:
    ref: dict[str, Any] = {"docid": result["docid"], "uri": result["uri"]}
    _hashes(ref, result.get("source"), result.get("conversion"))
    lines = result.get("returnedLines")
    if isinstance(lines, dict):
        ref["startLine"], ref["endLine"] = lines["start"], lines["end"]
    elif isinstance(result.get("totalLines"), int) and result["totalLines"] >= 1:
        ref["startLine"], ref["endLine"] = 1, result["totalLines"]
    return [ref]


def _fit(payload: dict[str, Any], key: str) -> dict[str, Any]:
    """Drop references from the tail until the payload fits ``MAX_PAYLOAD_BYTES``."""
    if core.byte_size(payload) <= core.MAX_PAYLOAD_BYTES:
        return payload
    items = list(payload[key])
    while items and core.byte_size(payload | {key: items}) > core.MAX_PAYLOAD_BYTES:
        items = items[: len(items) * 3 // 4]
    fitted = payload | {key: items}
    if "fallbackCodes" in payload:
        fitted["fallbackCodes"] = [*payload["fallbackCodes"], "TRACE_PAYLOAD_TRUNCATED"]
    return fitted


def _row(kind: str, trace_id: str, now: int, **fields: Any) -> dict[str, Any]:
    """A run (``kind`` run) or event row with its size and digest."""
    payload = fields["payload"]
    ident = new_id("run" if kind == "run" else "evt")
    row: dict[str, Any] = {("runId" if kind == "run" else "eventId"): ident, "traceId": trace_id}
    if kind == "event":
        row["runId"] = fields.get("run_id")
    row |= {
        "idempotencyKey": ident,
        "kind": fields["row_kind"],
        "payload": payload,
        "createdAtMs": now,
    }
    canon = core.canonical(payload)  # once: its size and its digest
    row["payloadBytes"] = len(canon.encode("utf-8", "surrogatepass"))
    row["canonicalDigest"] = core.sha256_text(canon)
    return row


def _stored(kind: str, row: dict[str, Any]) -> tuple[str, str, str]:
    """A row as the store keeps it: (kind, id, its JSON)."""
    ident = row["runId"] if kind == "run" else row["eventId"]
    return kind, ident, json.dumps(row, ensure_ascii=False, separators=(",", ":"))


def _run_payload(op_id: str, kind: str, result: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    if kind == "context":
        capsule = result.get("capsule", result)
        payload = {
            "evidence": _evidence(capsule.get("evidence") or []),
            "capsuleId": str(capsule.get("capsuleId") or "unknown")[:256],
        }
        return "context", _fit(payload, "evidence")
    if kind == "get":
        return "get", {"evidence": _opened(result)}
    meta = result.get("meta") or {}
    capabilities = list(CAPABILITY.get(op_id, ["bm25"]))
    for flag, name in (
        ("vectorsUsed", "vector"),
        ("expanded", "expansion"),
        ("reranked", "rerank"),
    ):
        if meta.get(flag) and name not in capabilities:
            capabilities.append(name)
    fallback = ["BM25_ONLY"] if meta.get("mode") == "bm25_only" else []
    payload = {
        "ranked": _ranked(result.get("results") or []),
        "capabilities": capabilities,
        "fallbackCodes": fallback,
    }
    return "retrieval", _fit(payload, "ranked")


def _texts(op_id: str, args: dict[str, Any]) -> tuple[str | None, str | None]:
    if op_id == "context_build":
        return args.get("query") or args.get("goal"), args.get("goal")
    if op_id == "get":
        return None, None
    return args.get("query"), args.get("intent")


def new_trace(
    app: Any, op_id: str, args: dict[str, Any], result: dict[str, Any], pol: core.TracePolicy
) -> str | None:
    """Record one call as a new trace; its id, or None when the index was busy."""
    now = now_ms()
    trace_id = new_id("trc")
    kind = TRACED_OPERATIONS[op_id]
    query, goal = _texts(op_id, args)
    query, goal = (query or None), (goal or None)
    replay = pol.redaction_mode == "replay"
    filters = _filters(op_id, args)
    run_kind, payload = _run_payload(op_id, kind, result)
    run = _row("run", trace_id, now, payload=payload, row_kind=run_kind)
    rows: Rows = [
        _stored("event", _row("event", trace_id, now, payload={"filterFingerprint": core.digest(filters)}, row_kind="query")),
        _stored("run", run),
        _stored("event", _row("event", trace_id, now, payload={"outcome": "completed"}, row_kind="complete", run_id=run["runId"])),
    ]  # fmt: skip
    trace: dict[str, Any] = {
        "traceId": trace_id,
        "schemaVersion": core.SCHEMA_VERSION,
        "redactionMode": pol.redaction_mode,
        "replayCapable": replay and query is not None and kind == "retrieval",
        "status": "completed",
        "queryText": query[: core.MAX_TEXT_CHARS] if replay and query else None,
        "queryDigest": core.sha256_text(query) if query else None,
        "queryShape": core.text_shape(query),
        "goalText": goal[: core.MAX_TEXT_CHARS] if replay and goal else None,
        "goalDigest": core.sha256_text(goal) if goal else None,
        "goalShape": core.text_shape(goal),
        "filters": filters if replay else core.metadata_filters(filters),
        "fingerprints": fingerprints(app, op_id),
        "createdAtMs": now,
        "updatedAtMs": now,
        "expiresAtMs": now + pol.max_age_days * core.DAY_MS,
    }
    trace["creationDigest"] = core.digest(trace)
    trace["byteSize"] = core.byte_size(trace) + sum(len(text) for _, _, text in rows)
    store: IndexTraces = app.traces()
    retention = (now, pol.max_traces, pol.max_bytes)
    return trace_id if store.record_trace(trace, rows, retention) else None


def append_open(
    app: Any, trace_id: str, result: dict[str, Any], pol: core.TracePolicy
) -> str | None:
    """Link an opened span to an existing trace (an ``open`` event)."""
    now = now_ms()
    event = _stored(
        "event",
        _row("event", trace_id, now, payload={"evidence": _opened(result)}, row_kind="open"),
    )
    store = app.traces()
    outcome = store.append_trace_rows(
        trace_id, [event], len(event[2]), now, pol.max_records_per_trace
    )
    if outcome == "missing":
        raise TraceNotFoundError()
    if outcome == "full":
        raise TraceFullError()
    return trace_id if outcome == "appended" else None


def record_call(
    app: Any, op_id: str, inp: Any, result: Any, incoming: str | None = None
) -> str | None:
    """Record a finished read when tracing is on; the trace id to hand back, else None.
    ``incoming`` is a trace id the surface received out of band (``X-GNO-Trace-ID``).
    An unknown incoming trace id is TraceNotFoundError; a failure to record is never
    the read's failure (the caller just gets no trace id)."""
    if op_id not in TRACED_OPERATIONS:
        return None
    pol = policy(app)
    if not pol.enabled:
        return None
    ranked = TRACED_OPERATIONS[op_id] == "retrieval"
    payload = _dump(result, RANKED_FIELDS if ranked else None)
    args = _dump(inp) or {}
    if payload is None:  # a view that answered another media type (Markdown)
        return None
    linked = args.get("traceId") or incoming if op_id == "get" else None
    if linked:
        return append_open(app, str(linked), payload, pol)
    try:
        return new_trace(app, op_id, args, payload, pol)
    except GnoError:
        return None
    except Exception:  # a recording bug must not turn a good answer into an error
        traceback.print_exc(file=sys.stderr)
        return None
