"""Terminal text of ``gno rename`` / ``gno move``: the plan (what would change, what blocks
it, the digest to apply it with) or what an apply did."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gno.render import Shown, View

if TYPE_CHECKING:  # renderers read attributes: no model module loads for them
    from gno_contracts.models.file_refactor_result import FileRefactorResult

APPLIED = ("applied", "applied_with_sync_pending")


def _payload(result: FileRefactorResult) -> dict[str, Any]:
    data: dict[str, Any] = result.model_dump(mode="json", exclude_unset=True)
    return data


def result(result: FileRefactorResult, view: View) -> Shown:
    data = _payload(result)
    source, target = data["source"]["relPath"], data["target"]["relPath"]
    lines = [f"{data['operation']}: {source} -> {target} ({data['source']['collection']})"]
    if "status" in data:
        lines.append(f"status: {data['status']}")
        if data.get("reasonCode"):
            lines.append(f"reason: {data['reasonCode']}")
        if data["indexConvergence"].get("recoveryInstruction"):
            lines.append(data["indexConvergence"]["recoveryInstruction"])
        return Shown(out="\n".join(lines) + "\n")
    for doc in data["affectedDocuments"]:
        for edit in doc["edits"]:
            lines.append(
                f"  {doc['relPath']}: {edit['originalDestination']} -> "
                f"{edit['replacementDestination']}"
            )
    safety = data["safety"]
    lines.append(
        f"{safety['rewriteableCount']} link(s) to rewrite in {len(data['affectedDocuments'])} "
        f"document(s), {safety['unchangedCount']} unchanged"
    )
    lines += [f"warning: {w}" for w in safety["warnings"]]
    if data["canApply"]:
        lines.append(f"apply with: --apply --plan-digest {data['planDigest']}")
    else:
        lines.append("cannot apply: " + ", ".join(safety["blockingReasonCodes"]))
    return Shown(out="\n".join(lines) + "\n")


def exit_code(result: FileRefactorResult) -> Shown:
    """An apply that changed nothing (stale, conflict, unsupported, rolled back) exits 1."""
    data = _payload(result)
    status = data.get("status")
    if status is None or status in APPLIED:
        return Shown()
    return Shown(err=f"Not applied: {status} ({data.get('reasonCode', '')})\n", code=1)
