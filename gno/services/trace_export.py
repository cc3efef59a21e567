"""Trace export artifacts (spec/traces.md): the agentic receipt and qrels.

Deterministic: the same traces with the same rows give the same artifact, hash and
export id, so exporting twice answers ``duplicate``. Only finished traces export; a
qrels case needs the query text (a ``replay`` trace), a retrieval run and at least one
judgment. Unjudged documents stay unjudged: nothing is inferred as irrelevant.
"""

from __future__ import annotations

from typing import Any

from gno.core import traces as core
from gno.errors import ConflictError, TraceNotFoundError, ValidationError
from gno.trace_ports import IndexTraces

ALL = core.CEILING_MAX_RECORDS


def export_id_for(fmt: str, trace_ids: list[str], artifact_hash: str) -> str:
    return "exp_" + core.sha256_text(f"{fmt}\n{core.canonical(trace_ids)}\n{artifact_hash}")[:32]


def _bundle(store: IndexTraces, trace_id: str, now_ms: int) -> dict[str, Any]:
    trace = store.trace_row(trace_id, now_ms)
    if trace is None:
        raise TraceNotFoundError()
    if trace["status"] == "open":
        raise ConflictError("An open retrieval trace cannot be exported yet")
    return {
        "trace": trace,
        "runs": store.trace_rows(trace_id, "runs", ALL)[0],
        "events": store.trace_rows(trace_id, "events", ALL)[0],
        "judgments": store.trace_rows(trace_id, "judgments", ALL)[0],
    }


def qrel_evidence(ref: dict[str, Any]) -> dict[str, Any]:
    """A recorded reference in the closed qrels form: every field present, null if unknown."""
    return {
        "docid": ref["docid"],
        "sourceHash": ref.get("sourceHash"),
        "mirrorHash": ref.get("mirrorHash"),
        "uri": ref["uri"],
        "seq": ref.get("seq"),
        "startLine": ref.get("startLine"),
        "endLine": ref.get("endLine"),
        "passageHash": ref.get("passageHash"),
        "rank": ref.get("rank"),
        "plannerRank": ref.get("plannerRank"),
        "score": ref.get("score"),
        "sources": list(ref.get("sources") or []),
        "graphExpanded": bool(ref.get("graphExpanded", False)),
    }


def _matches(ref: dict[str, Any], target: dict[str, Any]) -> bool:
    if "docid" in target:
        return bool(ref.get("docid") == target["docid"])
    return bool(
        ref.get("uri", "").split("?index=")[0] == str(target.get("uri")).split("?index=")[0]
    )


def _effective(judgments: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The last judgment per (kind, target) wins; order of first appearance kept."""
    latest: dict[str, dict[str, Any]] = {}
    for judgment in judgments:
        latest[core.canonical([judgment["targetKind"], judgment["target"]])] = judgment
    return list(latest.values())


def _case(bundle: dict[str, Any]) -> dict[str, Any]:
    trace = bundle["trace"]
    if not trace.get("queryText"):
        raise ValidationError("A qrels export needs traces recorded in replay mode (query text)")
    run = next((r for r in bundle["runs"] if r["kind"] in ("retrieval", "context")), None)
    if run is None:
        raise ValidationError("A qrels export needs traces with a retrieval run")
    if not bundle["judgments"]:
        raise ValidationError("A qrels export needs at least one judgment per trace")
    ranked = run["payload"].get("ranked") or run["payload"].get("evidence") or []
    opened = [
        qrel_evidence(ref)
        for event in bundle["events"]
        if event["kind"] in ("open", "get")
        for ref in event["payload"].get("evidence") or []
    ]
    qrels = []
    effective = _effective(bundle["judgments"])
    for judgment in effective:
        hit = next((r for r in ranked if _matches(r, judgment["target"])), None)
        qrels.append(
            {
                "qrelId": "qrl_" + judgment["judgmentId"].removeprefix("jdg_"),
                "judgmentId": judgment["judgmentId"],
                "label": judgment["label"],
                "relevance": 0 if judgment["label"] == "irrelevant" else 1,
                "baselineMissing": hit is None,
                "target": judgment["target"],
                "evidence": qrel_evidence(hit) if hit is not None else None,
            }
        )
    return {
        "caseId": "case_" + core.sha256_text(f"{trace['traceId']}\n{run['runId']}")[:32],
        "traceId": trace["traceId"],
        "retrievalRunId": run["runId"],
        "terminalStatus": trace["status"],
        "query": {
            "text": trace["queryText"],
            "digest": trace["queryDigest"],
            "goalText": trace["goalText"],
            "goalDigest": trace["goalDigest"],
            "filters": trace["filters"],
        },
        "fingerprints": trace["fingerprints"],
        "baseline": {
            "ranked": [qrel_evidence(r) for r in ranked],
            "capabilities": list(run["payload"].get("capabilities") or []),
            "capabilityOutcomes": [],
            "fallbackCodes": list(run["payload"].get("fallbackCodes") or []),
            "outcomes": {"opened": opened, "cited": [], "pinned": []},
        },
        "judgments": {
            "history": [
                {
                    k: j[k]
                    for k in (
                        "judgmentId",
                        "label",
                        "targetKind",
                        "target",
                        "createdAtMs",
                        "canonicalDigest",
                    )
                }
                for j in bundle["judgments"]
            ],
            "effective": [j["judgmentId"] for j in effective],
        },
        "qrels": qrels,
    }


def build_artifact(store: IndexTraces, trace_ids: list[str], fmt: str) -> dict[str, Any]:
    from gno.services.trace_record import now_ms

    now = now_ms()
    bundles = [_bundle(store, trace_id, now) for trace_id in trace_ids]
    if fmt == "qrels":
        return {
            "schemaVersion": core.SCHEMA_VERSION,
            "format": "qrels",
            "cases": [_case(b) for b in bundles],
        }
    return {"schemaVersion": core.SCHEMA_VERSION, "format": "agentic-receipt", "traces": bundles}
