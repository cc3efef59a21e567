"""Trace replay: an export's traces run again against today's index (spec/traces.md).

For each trace of the export, the recorded query and filters (a ``replay`` trace) go
through the candidate retrieval (BM25 search, vector search, or hybrid query without
expansion or rerank) and its ranking is compared with the recorded one on the trace's
judgments: precision, recall, F1, MRR and nDCG at k, each judged document's rank before
and after, and whether its source changed since. The export must still be what it was
(its artifact hash is recomputed); nothing is ever applied.
"""

from __future__ import annotations

from typing import Any

from gno_contracts.models.retrieval_trace_replay import RetrievalTraceReplay
from gno_contracts.models.retrieval_trace_replay_input import RetrievalTraceReplayInput

from gno.app import App
from gno.core import traces as core
from gno.errors import ExportNotFoundError, GnoError
from gno.services.trace_export import _effective, _matches, build_artifact
from gno.services.trace_record import fingerprints, now_ms

OPERATION = {"bm25": "search", "vector": "vsearch", "hybrid": "query"}
COPIED = (
    "collection", "collections", "lang", "intent", "exclude", "since", "until",
    "categories", "author", "tagsAll", "tagsAny", "minScore",
)  # fmt: skip
ZERO = {"precisionAtK": 0.0, "recallAtK": 0.0, "f1AtK": 0.0, "mrr": 0.0, "ndcgAtK": 0.0}


def _candidate_run(app: App, kind: str, trace: dict[str, Any], limit: int) -> list[dict[str, Any]]:
    from gno_contracts.operations import BY_ID

    from gno.services import handler, model

    op_id = OPERATION[kind]
    filters = trace["filters"]
    args: dict[str, Any] = {k: filters[k] for k in COPIED if k in filters}
    args |= {"query": trace["queryText"], "limit": limit}
    if op_id == "query":
        args |= {"expand": False, "rerank": False}
    inp = model(BY_ID[op_id].input_model).model_validate(args)
    result = handler(op_id)(app, inp).model_dump(mode="json", exclude_unset=True)
    return [
        {"docid": hit["docid"], "uri": hit["uri"], "rank": rank}
        for rank, hit in enumerate(result.get("results") or [], start=1)
    ]


def _keys(ranked: list[dict[str, Any]], targets: list[dict[str, Any]]) -> list[str]:
    """Each ranked document as the index of the judged target it is, else its docid."""
    out = []
    for ref in ranked:
        match = next((str(i) for i, t in enumerate(targets) if _matches(ref, t)), None)
        out.append(match if match is not None else f"doc:{ref.get('docid')}")
    return out


def _rank(ranked: list[dict[str, Any]], target: dict[str, Any]) -> int | None:
    return next((i for i, ref in enumerate(ranked, start=1) if _matches(ref, target)), None)


def _source_state(app: App, target: dict[str, Any]) -> str:
    docid = target.get("docid")
    if not isinstance(docid, str):
        return "unchanged"  # a URI-only target: nothing recorded to compare
    rows = app.store().documents_by_docid(docid)
    if not rows:
        return "missing"
    row = rows[0]
    if row.mirror_hash is None:
        return "no_indexed_content"
    if "sourceHash" in target and target["sourceHash"] != row.source_hash:
        return "stale"
    return "unchanged"


def _unreplayable(trace_id: str, reason: str, status: str, fp: dict[str, str]) -> dict[str, Any]:
    return {
        "caseId": "case_" + core.sha256_text(trace_id)[:32],
        "traceId": trace_id,
        "terminalStatus": status if status in core.TERMINAL else "partial",
        "verdict": "unreplayable",
        "reason": reason,
        "metrics": {
            "baseline": ZERO,
            "candidate": ZERO,
            "baselineCoverage": 0.0,
            "candidateCoverage": 0.0,
        },
        "fingerprints": {"original": fp, "current": fp, "candidate": fp},
        "capabilityOutcomes": {"baseline": [], "candidate": []},
        "fallbackCodes": {"baseline": [], "candidate": []},
        "qrels": [],
    }


def _case(
    app: App, bundle: dict[str, Any], kind: str, limit: int, current: dict[str, str]
) -> dict[str, Any]:
    trace = bundle["trace"]
    trace_id, status, original = trace["traceId"], trace["status"], trace["fingerprints"]
    if trace["redactionMode"] != "replay" or not trace.get("queryText"):
        return _unreplayable(trace_id, "redaction_incompatible", status, original)
    run = next((r for r in bundle["runs"] if r["kind"] == "retrieval"), None)
    if run is None:
        return _unreplayable(trace_id, "no_retrieval_run", status, original)
    baseline = run["payload"].get("ranked") or []
    try:
        candidate = _candidate_run(app, kind, trace, limit)
    except GnoError:
        return _unreplayable(trace_id, "candidate_failed", status, original)
    judgments = _effective(bundle["judgments"])
    targets = [j["target"] for j in judgments]
    relevant = {str(i) for i, j in enumerate(judgments) if j["label"] != "irrelevant"}
    base_metrics = core.ranking_metrics(_keys(baseline, targets), relevant, limit)
    cand_metrics = core.ranking_metrics(_keys(candidate, targets), relevant, limit)
    opened = [
        ref
        for event in bundle["events"]
        if event["kind"] in ("open", "get")
        for ref in event["payload"].get("evidence") or []
    ]
    qrels = []
    for judgment in judgments:
        target = judgment["target"]
        before, after = _rank(baseline, target), _rank(candidate, target)
        hit = next((r for r in baseline if _matches(r, target)), None)
        qrels.append(
            {
                "qrelId": "qrl_" + judgment["judgmentId"].removeprefix("jdg_"),
                "label": judgment["label"],
                "relevance": 0 if judgment["label"] == "irrelevant" else 1,
                "baselineRank": before,
                "plannerRank": hit.get("plannerRank") if hit else None,
                "candidateRank": after,
                "rankDelta": before - after if before is not None and after is not None else None,
                "opened": any(_matches(ref, target) for ref in opened),
                "cited": False,
                "pinned": False,
                "sourceState": _source_state(app, target),
                "diagnostic": None,
            }
        )

    def coverage(ranked: list[dict[str, Any]]) -> float:
        seen = sum(1 for t in targets if _rank(ranked[:limit], t) is not None)
        return round(seen / len(targets), 6) if targets else 0.0

    return {
        "caseId": "case_" + core.sha256_text(f"{trace_id}\n{run['runId']}")[:32],
        "traceId": trace_id,
        "terminalStatus": status,
        "verdict": core.compare(base_metrics, cand_metrics),
        "reason": None,
        "metrics": {
            "baseline": base_metrics,
            "candidate": cand_metrics,
            "baselineCoverage": coverage(baseline),
            "candidateCoverage": coverage(candidate),
        },
        "fingerprints": {"original": original, "current": current, "candidate": current},
        "capabilityOutcomes": {"baseline": [], "candidate": []},
        "fallbackCodes": {
            "baseline": list(run["payload"].get("fallbackCodes") or []),
            "candidate": [],
        },
        "qrels": qrels,
    }


def _overall(cases: list[dict[str, Any]]) -> tuple[str, str | None, str]:
    verdicts = [c["verdict"] for c in cases]
    if not cases or all(v == "unreplayable" for v in verdicts):
        return "unreplayable", cases[0]["reason"] if cases else "trace_missing", "manual_review"
    if "regressed" in verdicts:
        return "regressed", None, "keep_baseline"
    if "unreplayable" in verdicts:
        return "unchanged" if "improved" not in verdicts else "improved", None, "manual_review"
    if "improved" in verdicts:
        return "improved", None, "promote"
    return "unchanged", None, "keep_baseline"


def trace_replay(app: App, inp: RetrievalTraceReplayInput) -> RetrievalTraceReplay:
    store = app.traces()
    manifest = store.export_manifest(inp.exportId)
    if manifest is None:
        raise ExportNotFoundError()
    kind = inp.candidate.value if hasattr(inp.candidate, "value") else str(inp.candidate)
    current = fingerprints(app, OPERATION[kind])
    now = now_ms()
    missing = [t for t in manifest["traceIds"] if store.trace_row(t, now) is None]
    cases: list[dict[str, Any]]
    if missing:
        cases = [_unreplayable(t, "trace_missing", "partial", current) for t in missing]
    else:
        artifact = build_artifact(store, manifest["traceIds"], "agentic-receipt")
        rebuilt = build_artifact(store, manifest["traceIds"], manifest["format"])
        if core.digest(rebuilt) != manifest["artifactHash"]:
            cases = [
                _unreplayable(
                    b["trace"]["traceId"], "manifest_hash_mismatch", b["trace"]["status"], current
                )
                for b in artifact["traces"]
            ]
        else:
            cases = [_case(app, b, kind, inp.limit, current) for b in artifact["traces"]]
    verdict, reason, recommendation = _overall(cases)
    return RetrievalTraceReplay.model_validate(
        {
            "schemaVersion": core.SCHEMA_VERSION,
            "exportId": inp.exportId,
            "candidate": {
                "id": f"current-{kind}",
                "type": kind,
                "limit": inp.limit,
                "noExpand": True,
                "noRerank": True,
            },
            "verdict": verdict,
            "reason": reason,
            "recommendation": recommendation,
            "applied": False,
            "cases": cases,
        }
    )
