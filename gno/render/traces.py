"""Terminal text of the retrieval trace commands (spec/traces.md)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from gno.render import Shown, View, json_text


def _when(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%d %H:%M:%S")


def _data(result: Any) -> dict[str, Any]:
    dumped: dict[str, Any] = result.model_dump(mode="json", exclude_unset=True)
    return dumped


def listing(result: Any, view: View) -> Shown:
    data = _data(result)
    traces = data["traces"]
    if not traces:
        return Shown("No retrieval traces.")
    lines = [f"{len(traces)} retrieval trace(s), newest first:"]
    for t in traces:
        shape = t["queryShape"]
        lines.append(
            f"  {t['traceId']}  {_when(t['createdAtMs'])}  {t['status']}  {t['redactionMode']}"
            f"  query {shape['terms']} term(s)"
        )
    if data["nextCursor"]:
        lines.append(f"Next page: gno trace list --cursor {data['nextCursor']}")
    return Shown("\n".join(lines))


def _ref(ref: dict[str, Any]) -> str:
    span = f" lines {ref['startLine']}-{ref['endLine']}" if "startLine" in ref else ""
    rank = f"{ref['rank']:>3}. " if "rank" in ref else "   - "
    score = f" ({ref['score']:.3f})" if isinstance(ref.get("score"), float) else ""
    return f"    {rank}{ref.get('docid', '')} {ref.get('uri', '')}{span}{score}"


def detail(result: Any, view: View) -> Shown:
    data = _data(result)
    t = data["trace"]
    lines = [
        f"Trace {t['traceId']} ({t['status']}, {t['redactionMode']}) {_when(t['createdAtMs'])}",
        f"  Query: {t['queryText']}"
        if t["queryText"] is not None
        else f"  Query: ({t['queryShape']['terms']} term(s), text not kept)",
    ]
    for run in data["runs"]:
        payload = run["payload"]
        refs = payload.get("ranked") or payload.get("evidence") or []
        lines.append(f"  Run {run['kind']}: {len(refs)} document(s)")
        lines += [_ref(ref) for ref in refs]
    opened = [e for e in data["events"] if e["kind"] == "open"]
    for event in opened:
        lines.append("  Opened:")
        lines += [_ref(ref) for ref in event["payload"].get("evidence") or []]
    for j in data["judgments"]:
        lines.append(f"  Judged {j['label']}: {j['targetRef']} ({j['targetKind']})")
    for e in data["exports"]:
        lines.append(f"  Exported {e['format']}: {e['exportId']}")
    cut = [k for k, v in data["truncated"].items() if v]
    if cut:
        lines.append(f"  (cut at --detail-limit: {', '.join(cut)})")
    return Shown("\n".join(lines))


def judged(result: Any, view: View) -> Shown:
    data = _data(result)
    j = data["judgment"]
    again = " (already recorded)" if data["result"] == "duplicate" else ""
    return Shown(f"Judged {j['label']}: {j['targetRef']} in {j['traceId']}{again}")


def exported(result: Any, view: View) -> Shown:
    data = _data(result)
    m = data["manifest"]
    again = " (already exported)" if data["result"] == "duplicate" else ""
    head = f"Export {m['exportId']} ({m['format']}, {len(m['traceIds'])} trace(s)){again}"
    # escaped: the terminal filter strips a raw C1 character a replay trace's query keeps
    return Shown(head + "\n" + json_text(data["artifact"]))


def replayed(result: Any, view: View) -> Shown:
    data = _data(result)
    c = data["candidate"]
    lines = [
        f"Replay of {data['exportId']} with {c['type']}: {data['verdict']}"
        f" (recommendation: {data['recommendation']})"
    ]
    for case in data["cases"]:
        why = f" [{case['reason']}]" if case["reason"] else ""
        m = case["metrics"]
        lines.append(
            f"  {case['traceId']}: {case['verdict']}{why}  nDCG {m['baseline']['ndcgAtK']:.3f}"
            f" -> {m['candidate']['ndcgAtK']:.3f}  MRR {m['baseline']['mrr']:.3f}"
            f" -> {m['candidate']['mrr']:.3f}"
        )
        for q in case["qrels"]:
            before = q["baselineRank"] if q["baselineRank"] is not None else "-"
            after = q["candidateRank"] if q["candidateRank"] is not None else "-"
            lines.append(f"    {q['label']}: rank {before} -> {after} ({q['sourceState']})")
    return Shown("\n".join(lines))


def deleted(result: Any, view: View) -> Shown:
    data = _data(result)
    counts = data["counts"]
    return Shown(
        f"Deleted trace {data['traceId']}: {counts['runs']} run(s), {counts['events']} event(s),"
        f" {counts['judgments']} judgment(s), {counts['exports']} export(s)"
    )


def purged(result: Any, view: View) -> Shown:
    data = _data(result)
    return Shown(
        f"Purged {data['traces']} trace(s), {data['judgments']} judgment(s),"
        f" {data['exports']} export(s); WAL cleanup {data['physicalCleanup']}"
    )
