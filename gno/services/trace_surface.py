"""What the surfaces need to carry retrieval traces (spec/traces.md).

The trace id never changes a result: the CLI prints ``Trace: <id>`` on stderr, MCP puts
it in the result's ``_meta.gno.retrievalTrace.traceId``, REST in the ``X-GNO-Trace-ID``
header (and reads that header on ``GET /api/doc`` to link the opened document). Trace
mutations are write tools on MCP and same-host-only routes on REST.
"""

from __future__ import annotations

import json
from typing import Any

from gno.services.traced_operations import TRACED_OPERATIONS

TRACE_HEADER = "X-GNO-Trace-ID"
SAME_HOST_ONLY = frozenset({"trace_label", "trace_export", "trace_delete", "trace_purge"})
MAX_HEADER_ID = 128

__all__ = [
    "MAX_HEADER_ID",
    "SAME_HOST_ONLY",
    "TRACED_OPERATIONS",
    "TRACE_HEADER",
    "mcp_meta",
    "record_call",
]


def mcp_meta(trace_id: str | None) -> dict[str, Any] | None:
    """The MCP result ``_meta`` naming a trace (None: no ``_meta`` at all)."""
    return {"gno": {"retrievalTrace": {"traceId": trace_id}}} if trace_id else None


def record_call(
    app: Any, op_id: str, inp: Any, result: Any, incoming: str | None = None
) -> str | None:
    """``trace_record.record_call``, imported only when the index's mirrored policy has
    ``"enabled": true``: any other policy is off (``policy_from_json``), so the answer is
    None without loading the recorder (a read with tracing off, the default)."""
    if op_id not in TRACED_OPERATIONS or not _enabled(app.store().get_meta("retrieval_traces")):
        return None
    from gno_contracts.operations import BY_ID

    from gno.services.trace_record import record_call as record
    from gno.services.wire import as_models

    inp, result = as_models(BY_ID[op_id], inp, result)  # the lean path's wire forms too
    return record(app, op_id, inp, result, incoming)


def _enabled(mirrored: str | None) -> bool:
    try:
        policy = json.loads(mirrored or "null")
    except ValueError:
        return False
    return isinstance(policy, dict) and policy.get("enabled") is True
