"""Terminal text of the egress operations (policy get/set/check, audit receipts)."""

from __future__ import annotations

from typing import Any

from gno_contracts.models.egress_audit_list import EgressAuditList
from gno_contracts.models.egress_audit_receipt import EgressAuditReceipt
from gno_contracts.models.egress_audit_removal import EgressAuditRemoval
from gno_contracts.models.egress_audit_status import EgressAuditStatus
from gno_contracts.models.egress_decision import EgressDecision
from gno_contracts.models.egress_policy import EgressPolicyState
from gno_contracts.models.egress_policy_set_result import EgressPolicySetResult

from gno.render import Shown, View
from gno.render.style import terminal_safe


def _v(value: object) -> str:
    """An enum member or a plain value as its wire text."""
    return str(getattr(value, "value", value))


def policy(result: EgressPolicyState, view: View) -> Shown:
    return Shown(
        f"{terminal_safe(result.collection)}: {_v(result.policy)} "
        f"(revision {result.revision}, {_v(result.source)}; policy epoch {result.policyEpoch})"
    )


def policy_set(result: EgressPolicySetResult, view: View) -> Shown:
    name = terminal_safe(result.collection)
    before, after = result.previous, result.current
    if not result.changed:
        return Shown(f"{name}: already {_v(after.policy)} (revision {after.revision})")
    return Shown(f"{name}: {_v(before.policy)} -> {_v(after.policy)} (revision {after.revision})")


def decision(result: EgressDecision, view: View) -> Shown:
    verdict = "allowed" if result.allowed else "denied"
    lines = [
        f"{verdict}: {result.reason} ({_v(result.action)} of {_v(result.contentClass)} to "
        f"{_v(result.destinationZone)}; effective policy {result.effectivePolicy})"
    ]
    if result.explanation:
        lines.append(result.explanation)
    if result.deniedCollections:
        lines.append("denied: " + ", ".join(terminal_safe(c) for c in result.deniedCollections))
    return Shown("\n".join(lines))


def _receipt_line(r: Any) -> str:
    """One receipt (of a list page or shown alone: two generated classes, one shape)."""
    return (
        f"{r.auditId}  {r.createdAt}  {_v(r.decision)}  {_v(r.reason)}  {_v(r.surface)} "
        f"{terminal_safe(r.operation)}  {_v(r.destinationZone)}  "
        f"{','.join(terminal_safe(c) for c in r.collections)}"
    )


def audit_list(result: EgressAuditList, view: View) -> Shown:
    if not result.receipts:
        return Shown("No egress audit receipts.")
    lines = [_receipt_line(r) for r in result.receipts]
    if result.nextCursor:
        lines.append(f"More: --cursor {result.nextCursor}")
    return Shown("\n".join(lines))


def receipt(result: EgressAuditReceipt, view: View) -> Shown:
    return Shown(_receipt_line(result))


def audit_status(result: EgressAuditStatus, view: View) -> Shown:
    return Shown(
        f"{result.receipts} receipts (oldest {result.oldestAt or '-'}, newest "
        f"{result.newestAt or '-'}); kept: newest {result.retention.maxReceipts}, "
        f"{result.retention.maxAgeDays} days; policy epoch {result.policyEpoch}"
    )


def removal(result: EgressAuditRemoval, view: View) -> Shown:
    return Shown(f"Deleted {result.deleted} egress audit receipt(s).")
