"""What the surfaces need to carry retrieval traces (spec/traces.md).

The trace id never changes a result: the CLI prints ``Trace: <id>`` on stderr, MCP puts
it in the result's ``_meta.gno.retrievalTrace.traceId``, REST in the ``X-GNO-Trace-ID``
header (and reads that header on ``GET /api/doc`` to link the opened document). Trace
mutations are write tools on MCP and same-host-only routes on REST.
"""

from __future__ import annotations

from typing import Any

from gno.services.trace_record import TRACED_OPERATIONS, record_call

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
