"""``gno audit`` as terminal text, and its exit rule: 0 clean, 4 findings, 5 partial."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gno.render import Shown, View

if TYPE_CHECKING:  # renderers read attributes: no model module loads for them
    from gno_contracts.models.audit_report import AuditReport

AUDIT_FINDINGS = 4
AUDIT_PARTIAL = 5
MARK = {"error": "✗", "warning": "!", "info": "·"}


def report(result: AuditReport, view: View) -> Shown:
    totals = result.totals
    lines = [
        f"Audit ({result.category.value}): {totals.documents} documents, "
        f"{totals.findings} finding{'s' if totals.findings != 1 else ''}"
        + (f" — {result.status.value} ({result.reason})" if result.reason else "")
    ]
    if totals.byKind:
        lines.append("  " + ", ".join(f"{k} {v}" for k, v in sorted(totals.byKind.items())))
    for f in result.findings:
        where = f"{f.uri}:{f.line}" if f.line else f.uri
        lines.append(f"{MARK[f.severity.value]} {f.kind.value:<19} {where}  {f.message}")
        if f.candidates:
            lines.append("    could mean: " + ", ".join(f.candidates))
    if result.truncated:
        lines.append(f"… {totals.findings - len(result.findings)} more (--max-findings)")
    return Shown(out="\n".join(lines) + "\n")


def exit_code(result: AuditReport) -> Shown:
    if result.status.value == "partial":
        return Shown(code=AUDIT_PARTIAL)
    return Shown(code=AUDIT_FINDINGS if result.totals.findings else 0)
